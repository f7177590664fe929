# frozen_string_literal: true

module Wirebind
  class Serializer
    # +format: :siren+ (https://github.com/kevinswiber/siren): a record is an
    # entity with +class+ (the serializer's type, when it has one),
    # +properties+ (its attributes), +entities+ (each +one+ and +many+ record
    # as an embedded representation whose +rel+ is the field's name; nil
    # records are left out), +links+ (`{"rel": [rel], "href": ...}` for each
    # link whose block gave an href) and +actions+ (always empty: serializers
    # declare none). A list is an entity whose +entities+ are its records,
    # each with the +rel+ given as +rel:+ (default "item").
    #
    # @api private
    module Siren
      # Generates +write(r, out, ctx, d, head)+, +head+ being the text that
      # opens the entity: "{" or `{"rel":["name"],`.
      class Generator < Serializer::Generator
        private

        def write_methods
          record_method("write", "ctx, d, head") do
            call_links
            line "out << head"
            open(nil) # rubocop:disable Security/Open -- the generator's own open (a JSON object), not Kernel#open
            if (type = @compiled.type)
              member("class")
              lit("[#{JSON::Pure::Writer.string(+'', type)}]")
            end
            unless fields([:attribute]).empty?
              member("properties")
              open
              fields([:attribute]).each do |resolved|
                member(resolved.key)
                attribute_value(resolved)
              end
              close
            end
            member("entities")
            entities
            member("links")
            links_array
            member("actions")
            lit("[]")
            close
          end
        end

        # Sub-entities of several fields and lists share one array: a run-time
        # flag says whether one was written.
        def entities
          lit("[")
          records = fields(%i[one many])
          flush
          line "ce = false" unless records.empty?
          records.each do |resolved|
            head = +'{"rel":[' << JSON::Pure::Writer.string(+"", resolved.key) << "],"
            call = "@n#{resolved.at}.write(x, out, ctx, d + 1, #{head.inspect})"
            line "at = #{resolved.at}"
            line "v = #{read(resolved.attribute)}"
            if resolved.field.kind == :one
              line "unless v.nil?"
              line "  x = v"
              line "  if ce then out << ',' else ce = true end"
              line "  #{call}"
              line "end"
            else
              line "unless v.nil?"
              indent do
                check_list(resolved)
                line "i = 0"
                line "while i < v.size"
                line "  x = v[i]"
                line "  unless x.nil?"
                line "    if ce then out << ',' else ce = true end"
                line "    #{call}"
                line "  end"
                line "  i += 1"
                line "end"
                line "i = nil"
              end
              line "end"
            end
          end
          lit("]")
        end

        def links_array
          open("[", "]")
          links.each do |link|
            conditional("!h#{link.index}.nil?") do
              member
              line "at = #{@compiled.fields.size + link.index}"
              lit('{"rel":[' + JSON::Pure::Writer.string(+"", link.rel) + '],"href":')
              string_value("h#{link.index}")
              lit("}")
            end
          end
          close
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
          p.emit(code: Program::HEAD)
          p.open(nil)
          if (type = compiled.type)
            p.member("class")
            p.lit("[#{p.string_text(type)}]")
          end
          attributes = fields.select { |resolved| resolved.field.kind == :attribute }
          unless attributes.empty?
            p.member("properties")
            p.open
            attributes.each do |resolved|
              p.member(resolved.key)
              p.attribute(resolved)
            end
            p.close
          end
          p.member("entities")
          p.lit("[")
          records = fields.reject { |resolved| resolved.field.kind == :attribute }
          unless records.empty?
            flag = p.slot
            p.emit(code: Program::FLAG_CLEAR, slot: flag)
            records.each do |resolved|
              head = (+'{"rel":[' << p.string_text(resolved.key) << "],").freeze
              code = resolved.field.kind == :one ? Program::ONE : Program::MANY
              p.emit(code: code, at: resolved.at, **p.nested(resolved), skip_nil: true, flag: flag, head: head, **p.read(resolved))
            end
          end
          p.lit("]")
          p.member("links")
          p.open("[", "]")
          links.each do |link|
            p.conditional([hrefs[link.index]]) do
              p.member
              p.lit('{"rel":[' + p.string_text(link.rel) + '],"href":')
              p.emit(code: Program::HREF, at: fields.size + link.index, slot: hrefs[link.index])
              p.lit("}")
            end
          end
          p.close
          p.member("actions")
          p.lit("[]")
          p.close
        end
      end

      # How the native engine writes the document (see Plain.native_document).
      def native_document(document)
        ['{"entities":[', '],"links":[],"actions":[]}', +'{"rel":[' << JSON::Pure::Writer.string(+"", document.rel) << "],", "{", true]
      end

      # @return [Integer] bytes flushed to +io+ so far
      def write(document, out, io)
        resource = document.resource
        context = document.context
        if resource.is_a?(Array)
          head = +'{"rel":[' << JSON::Pure::Writer.string(+"", document.rel) << "],"
          return Document.flush_each(out, io, resource, '{"entities":[', '],"links":[],"actions":[]}') do |item, first|
            next false if item.nil?

            out << "," unless first
            document.compiled_for(item).write(item, out, context, 1, head)
          end
        end
        resource.nil? ? out << "null" : document.compiled_for(resource).write(resource, out, context, 1, "{")
        0
      end
    end
  end
end
