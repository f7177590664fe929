# frozen_string_literal: true

module Wirebind
  class Serializer
    # +format: :json_api+ (JSON:API 1.1, https://jsonapi.org/format/1.1/): a
    # top-level object with +data+ (a resource object, an array of them for a
    # list, or null) and, when any were reached, +included+: every record
    # reached through +one+ and +many+, recursively, once per type and id,
    # and never one already in +data+ (a compound document).
    #
    # A resource object has +type+ (the serializer's {Declarations#type},
    # required), +id+ (the {Declarations#id} attribute, by default +:id+,
    # always a string), +attributes+, +relationships+ (`{"data": identifier}`,
    # `{"data": null}` or `{"data": [identifiers]}` per +one+/+many+) and
    # +links+ (+"rel": "href"+, strings, for each link whose block gave one).
    # An attribute written under the key "id" that is the id attribute itself
    # is not repeated in +attributes+; any other member named "id" or "type"
    # is a {SchemaError} (the specification reserves them).
    #
    # Sparse fieldsets (`fields: {"issue" => ["summary"]}`) keep, for each
    # type named, only the listed attributes and relationships; a
    # relationship left out is not followed for +included+ either.
    #
    # +include: "author,comments.author"+ (relationship paths, as the
    # specification's +include+ query parameter) keeps in +included+ only the
    # records reached along those paths from the primary data; without it,
    # every related record is included. Relationship identifiers are always
    # written. A relationship's +links:+ (+self+, +related+) are written in
    # it before +data+; the document's +links:+ and +meta:+ before +data+.
    #
    # @api private
    module JsonApi
      # The state of one document: the context, the fieldsets, and the
      # included records, queued, with the type and ids already written.
      class State
        # @return [Object] the context given to the links
        attr_reader :context
        # @return [Hash{String => Hash{String => true}}, nil] the fieldsets
        attr_reader :fields
        # @return [Array] compiled, record, compiled, record... to include
        attr_reader :queue

        # @return [Hash, nil] the include paths below the resource being written (nil: all)
        attr_accessor :node

        def initialize(context, fields, include_tree)
          @context = context
          @fields = fields
          @node = include_tree
          @seen = {}
          @queue = []
        end

        # Marks a resource as written. @return [Boolean] whether it was new
        def see(type, id)
          ids = (@seen[type] ||= {})
          return false if ids.key?(id)

          ids[id] = true
        end

        # Queues a related record for +included+, reached through the
        # relationship +key+ of the resource being written, unless the include
        # paths do not go there or its type and id were seen.
        def include(compiled, record, id, key)
          node = @node
          node = node[key] or return unless node.nil?

          @queue << compiled << record << node if see(compiled.type, id)
        end
      end

      # A serializer compiled for JSON:API: what the generated methods need
      # beyond writing a resource.
      class Compiled < Serializer::Compiled
        # @return [Model::Attribute] the attribute written as +id+
        attr_reader :id_attribute
        # @return [String] a resource identifier's text up to its id: +{"type":"issue","id":+
        attr_reader :identifier_head

        # Writes the resource identifier of +record+ and queues it for +included+.
        # @return [String] +out+
        def relate(record, out, state, key)
          raise wrong_record(record) unless @model === record

          id = id_of(record)
          out << @identifier_head
          Values.string(out, id)
          out << "}"
          state.include(self, record, id, key)
          out
        end

        private

        def prepare
          where = Model.display_name(@serializer)
          raise SchemaError, "#{where}: JSON:API resources have a type; declare one, e.g. type \"issue\"" unless @type

          if @plan
            name = @serializer.id || (:id if @model.attributes.any? { |a| a.name == :id })
            unless name
              raise SchemaError, "#{where}: JSON:API resources have an id, and #{Model.display_name(@model)} has no :id attribute; " \
                                 "declare which attribute is the id, e.g. id :key"
            end
            @id_attribute = @serializer.__send__(:check_id_against_model, name, @model)
          else
            # Read through a reader: the one a field reads, if any, is the same attribute.
            name = @serializer.id || :id
            @id_attribute = @fields.find { |resolved| resolved.field.name == name }&.attribute || reader(name)
          end
          @fields.each do |resolved|
            next unless %w[id type].include?(resolved.key)
            next if resolved.key == "id" && resolved.attribute.equal?(@id_attribute)

            raise SchemaError, "#{where}: JSON:API reserves the member name #{resolved.key.inspect}; write " \
                               "#{resolved.field.name.inspect} under another, e.g. attribute #{resolved.field.name.inspect}, key: \"#{@type}_#{resolved.key}\""
          end
          @identifier_head = (+'{"type":' << JSON::Writer.string(+"", @type) << ',"id":').freeze
        end
      end

      module_function

      # How +compiled+ writes a resource object: once for a document with a
      # fieldset for the type, keeping the members it lists, and once for
      # one without.
      # @return [Program]
      def program(compiled)
        Program.new(compiled) do |p|
          p.fieldset(compiled.type, p.slot) { |fieldset| resource_program(p, compiled, fieldset) }
        end
      end

      # One resource object; kept members chosen by the fieldset in slot
      # +fieldset+, if given.
      def resource_program(p, compiled, fieldset)
        links = compiled.serializer.__wb_links
        base = compiled.fields.size
        hrefs = p.link_calls(base, links).values
        p.open
        p.member("type")
        p.lit(p.string_text(compiled.type))
        p.member("id")
        p.emit(code: Program::ID, text: compiled.type, head: compiled.identifier_head, **p.read_attribute(compiled.id_attribute))
        kinds = compiled.fields.group_by { |resolved| resolved.field.kind == :attribute ? :attribute : :relationship }
        attributes = (kinds[:attribute] || []).reject { |resolved| resolved.key == "id" }
        group_program(p, "attributes", attributes, fieldset) { |resolved| p.attribute(resolved) }
        group_program(p, "relationships", kinds[:relationship] || [], fieldset) do |resolved|
          relationship_program(p, base, resolved)
        end
        unless links.empty?
          p.conditional(hrefs) do
            p.member("links")
            p.open
            links.each_with_index do |link, n|
              body = lambda do
                p.member(link.rel)
                p.emit(code: Program::HREF, at: base + link.index, slot: hrefs[n])
              end
              links.size == 1 ? body.call : p.conditional([hrefs[n]], &body)
            end
            p.close
          end
        end
        p.close
      end

      # An object of members (attributes, relationships), each one kept
      # by the fieldset in slot +fieldset+, if given (the object left out
      # when it keeps none).
      def group_program(p, name, members, fieldset, &each)
        return if members.empty?

        kept = fieldset && members.map do |resolved|
          slot = p.slot
          p.emit(code: Program::FIELD, text: resolved.key, from: fieldset, slot: slot)
          slot
        end
        body = lambda do
          p.member(name)
          p.open
          members.each_with_index do |resolved, n|
            member = -> { p.field_member(resolved) { each.call(resolved) } }
            kept ? p.conditional([kept[n]], &member) : member.call
          end
          p.close
        end
        kept ? p.conditional(kept, &body) : body.call
      end

      # A relationship object: its links (each block called once, a nil
      # href left out, the object left out when every href is nil), then
      # its data, the related records' identifiers.
      def relationship_program(p, base, resolved)
        p.open
        field_links = resolved.field.links || []
        unless field_links.empty?
          hrefs = p.link_calls(base, field_links).values
          p.conditional(hrefs) do
            p.member("links")
            p.open
            field_links.each_with_index do |link, n|
              p.conditional([hrefs[n]]) do
                p.member(link.rel)
                p.emit(code: Program::HREF, at: base + link.index, slot: hrefs[n])
              end
            end
            p.close
          end
        end
        p.member("data")
        relate = { code: Program::RELATE, at: resolved.at, text: resolved.key, **p.nested(resolved), **p.read(resolved) }
        if resolved.field.kind == :one
          p.emit(**relate, list: false)
        else
          p.lit("[")
          flag = p.slot
          p.emit(code: Program::FLAG_CLEAR, slot: flag)
          p.emit(**relate, list: true, flag: flag)
          p.lit("]")
        end
        p.close
      end

      LAYOUT = Layout.build(list_opening: "[", list_closing: "]", skip_nil: true, opening: '{"data":')

      # @return [Layout] the primary data as a record or an array of them
      #   (nil ones left out), in a compound document with the document's
      #   fieldsets, include paths, +meta+ and +links+
      # @raise [EncodeError] +meta+ or +links+ hold a value JSON cannot
      def layout(document)
        return LAYOUT unless document.fields || document.include_tree || document.meta || document.links

        Layout.build(list_opening: "[", list_closing: "]", skip_nil: true, opening: top_level(document), fields: document.fields,
                     include_tree: document.include_tree)
      end

      # @return [Integer] bytes flushed to +io+ so far
      def write(document, layout, out, io)
        resource = document.resource
        state = State.new(document.context, layout.fields, layout.include_tree)
        head = layout.opening
        written =
          if resource.is_a?(Array) || Values.collection?(resource)
            # Primary data is never repeated in included: a first walk of the
            # list marks it (a collection is walked twice, never held).
            index = 0
            Values.each_item(resource) do |item|
              primary(document, item, state) if item
              index += 1
            rescue EncodeError => e
              raise JSON::Writer.nested(e, index)
            end
            Document.flush_each(out, io, resource, head + layout.list_opening, layout.list_closing) do |item, first|
              next false if item.nil?

              out << "," unless first
              document.compiled_for(item).write(item, out, state, 1)
            end
          elsif resource.nil?
            out << head << "null"
            0
          else
            compiled = primary(document, resource, state)
            out << head
            compiled.write(resource, out, state, 1)
            0
          end
        written += included(state, out, io)
        out << "}"
        written
      end

      # The document's opening up to +"data":+, with its +meta+ and +links+.
      def top_level(document)
        head = +"{"
        head << '"meta":' << top_level_member(document.meta, "meta") << "," if document.meta
        head << '"links":' << top_level_member(document.links, "links") << "," if document.links
        head << '"data":'
      end

      def top_level_member(value, name)
        JSON.encode(value)
      rescue EncodeError => e
        raise JSON::Writer.nested(e, name)
      end

      def primary(document, record, state)
        compiled = document.compiled_for(record)
        raise compiled.wrong_record(record) unless compiled.model === record

        state.see(compiled.type, compiled.id_of(record))
        compiled
      end

      def included(state, out, io)
        queue = state.queue
        return 0 if queue.empty?

        written = 0
        out << ',"included":['
        position = 0
        # The queue grows while it is written: included records relate to more.
        while position < queue.size
          out << "," unless position.zero?
          begin
            state.node = queue[position + 2]
            queue[position].write(queue[position + 1], out, state, 1)
          rescue EncodeError => e
            raise JSON::Writer.nested(JSON::Writer.nested(e, position / 3), "included")
          end
          position += 3
          written += Chunks.flush(io, out) if io && out.bytesize >= Document::FLUSH_SIZE
        end
        out << "]"
        written
      end
    end
  end
end
