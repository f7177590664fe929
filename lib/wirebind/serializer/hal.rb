# frozen_string_literal: true

module Wirebind
  class Serializer
    # +format: :hal+ (JSON Hypertext Application Language, draft-kelly-json-hal):
    # a record is a resource object of its attributes, a +_links+ object
    # (+"rel": {"href": ...}+ for each link whose block gave an href) and an
    # +_embedded+ object (each +one+ record as a resource object, left out
    # when nil; each +many+ list as an array of them). A list is a resource
    # whose +_embedded+ holds it under the relation +rel:+ (default "item").
    #
    # @api private
    module HAL
      # Generates +write(r, out, ctx, d)+.
      class Generator < Serializer::Generator
        private

        def write_methods
          record_method("write", "ctx, d") do
            call_links
            fields([:one]).each do |resolved|
              line "at = #{resolved.at}"
              line "e#{resolved.at} = r.#{resolved.attribute.name}"
            end
            open
            fields([:attribute]).each do |resolved|
              member(resolved.key)
              attribute_value(resolved)
            end
            links_object unless links.empty?
            embedded_object unless fields(%i[one many]).empty?
            close
          end
        end

        def links_object
          conditional(any_link) do
            member("_links")
            open
            link_members do |link|
              line "at = #{@compiled.fields.size + link.index}"
              lit('{"href":')
              string_value("h#{link.index}")
              lit("}")
            end
            close
          end
        end

        def embedded_object
          body = lambda do
            member("_embedded")
            open
            fields(%i[one many]).each { |resolved| embedded(resolved) }
            close
          end
          if fields([:many]).empty?
            conditional(fields([:one]).map { |resolved| "!e#{resolved.at}.nil?" }.join(" || "), &body)
          else
            body.call
          end
        end

        def embedded(resolved)
          if resolved.field.kind == :one
            conditional("!e#{resolved.at}.nil?") do
              member(resolved.key)
              flush
              line "at = #{resolved.at}"
              line "@n#{resolved.at}.write(e#{resolved.at}, out, ctx, d + 1)"
            end
          else
            member(resolved.key)
            line "at = #{resolved.at}"
            line "v = r.#{resolved.attribute.name}"
            each_record(resolved, "s.write(%s, out, ctx, d + 1)")
          end
        end
      end

      module_function

      # @return [Integer] bytes flushed to +io+ so far
      def write(document, out, io)
        resource = document.resource
        context = document.context
        if resource.is_a?(Array)
          opening = +'{"_embedded":{' << JSON::Pure::Writer.key(+"", document.rel) << "["
          return Document.flush_each(out, io, resource, opening, "]}}") do |item, first|
            next false if item.nil?

            out << "," unless first
            document.compiled_for(item).write(item, out, context, 1)
          end
        end
        resource.nil? ? out << "null" : document.compiled_for(resource).write(resource, out, context, 1)
        0
      end
    end
  end
end
