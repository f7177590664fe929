# frozen_string_literal: true

module Wirebind
  class Serializer
    # +format: :hal+ (JSON Hypertext Application Language, draft-kelly-json-hal):
    # a record is a resource object of its attributes, a +_links+ object
    # (`"rel": {"href": ...}` for each link whose block gave an href) and an
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
              line "e#{resolved.at} = #{read(resolved.attribute)}"
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
            line "v = #{read(resolved.attribute)}"
            each_record(resolved, "s.write(%s, out, ctx, d + 1)")
          end
        end
      end

      module_function

      # The native engine's program for +compiled+ (the Generator's +write+).
      # @return [Program]
      def program(compiled)
        links = compiled.serializer.__wb_links
        fields = compiled.fields
        Program.new(compiled) do |p|
          # By the link's index among all the link blocks (a relationship's come first when declared first).
          hrefs = links.to_h do |link|
            slot = p.slot
            p.emit(code: Program::LINK, at: fields.size + link.index, slot: slot, target: link.index)
            [link.index, slot]
          end
          ones = {}
          fields.each do |resolved|
            next unless resolved.field.kind == :one

            ones[resolved.at] = p.slot
            p.emit(code: Program::LOAD, at: resolved.at, slot: ones[resolved.at], **p.read(resolved))
          end
          p.open
          fields.each do |resolved|
            next unless resolved.field.kind == :attribute

            p.member(resolved.key)
            p.attribute(resolved)
          end
          links_object(p, compiled, links, hrefs) unless links.empty?
          embedded_object(p, fields, ones) if fields.any? { |resolved| resolved.field.kind != :attribute }
          p.close
        end
      end

      def links_object(p, compiled, links, hrefs)
        p.conditional(hrefs.values) do
          p.member("_links")
          p.open
          links.each do |link|
            body = lambda do
              p.member(link.rel)
              p.lit('{"href":')
              p.emit(code: Program::HREF, at: compiled.fields.size + link.index, slot: hrefs[link.index])
              p.lit("}")
            end
            links.size == 1 ? body.call : p.conditional([hrefs[link.index]], &body)
          end
          p.close
        end
      end

      def embedded_object(p, fields, ones)
        body = lambda do
          p.member("_embedded")
          p.open
          fields.each do |resolved|
            case resolved.field.kind
            when :one
              p.conditional([ones[resolved.at]]) do
                p.member(resolved.key)
                p.emit(code: Program::ONE, at: resolved.at, from: ones[resolved.at], **p.nested(resolved), skip_nil: true)
              end
            when :many
              p.member(resolved.key)
              p.lit("[")
              flag = p.slot
              p.emit(code: Program::FLAG_CLEAR, slot: flag)
              p.emit(code: Program::MANY, at: resolved.at, **p.nested(resolved), skip_nil: true, flag: flag, **p.read(resolved))
              p.lit("]")
            end
          end
          p.close
        end
        if fields.none? { |resolved| resolved.field.kind == :many }
          p.conditional(ones.values, &body)
        else
          body.call
        end
      end

      # How the native engine writes the document (see Plain.native_document).
      def native_document(document)
        [+'{"_embedded":{' << JSON::Pure::Writer.key(+"", document.rel) << "[", "]}}", nil, nil, true]
      end

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
