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
      module_function

      extend Layout::ByRel # layout(document)

      # How +compiled+ writes a record: the program both backends run.
      # @return [Program]
      def program(compiled)
        # hrefs: by the link's index among all the link blocks (a relationship's come first when declared first).
        Program.linked(compiled) do |p, fields, links, hrefs|
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
            p.discriminator
            attributes.each do |resolved|
              p.field_member(resolved) { p.attribute(resolved) }
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

      # A list's layout for +rel+: an entity whose sub-entities are the
      # records, each with +rel+.
      def list_layout(rel)
        Layout.build(list_opening: '{"entities":[', list_closing: '],"links":[],"actions":[]}',
                     list_head: +'{"rel":[' << JSON::Writer.string(+"", rel) << "],", single_head: "{", skip_nil: true)
      end

      LAYOUT = list_layout("item")
    end
  end
end
