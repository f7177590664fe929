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
      module_function

      extend Layout::ByRel # layout(document)

      # How +compiled+ writes a record: the program both backends run.
      # @return [Program]
      def program(compiled)
        # hrefs: by the link's index among all the link blocks (a relationship's come first when declared first).
        Program.linked(compiled) do |p, fields, links, hrefs|
          ones = {}
          fields.each do |resolved|
            next unless resolved.field.kind == :one

            ones[resolved.at] = p.slot
            p.emit(code: Program::LOAD, at: resolved.at, slot: ones[resolved.at], **p.read(resolved))
          end
          p.open
          p.discriminator
          fields.each do |resolved|
            next unless resolved.field.kind == :attribute

            p.field_member(resolved) { p.attribute(resolved) }
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

      # A list's layout for +rel+: a resource embedding the records under it.
      def list_layout(rel)
        Layout.build(list_opening: +'{"_embedded":{' << JSON::Writer.key(+"", rel) << "[", list_closing: "]}}", skip_nil: true)
      end

      LAYOUT = list_layout("item")
    end
  end
end
