# frozen_string_literal: true

module Wirebind
  class Serializer
    # The one description of how a {Compiled} writes a record, built by the
    # format module's +program+ ({Plain}, {HAL}, {Siren}, {JsonApi}): a list of
    # operations over one record, some holding blocks of operations run only
    # when a condition holds. Both backends run it: {Generator} translates it
    # into the Ruby source of the pure backend's methods, and {#ops} flattens
    # it (blocks become forward jumps) for the native engine
    # (ext/wirebind/serializer_engine.c).
    #
    # Literal text is merged into runs (keys pre-escaped, punctuation
    # included); members that may be left out at run time sit in a block
    # and keep the comma flag of their object in a slot. Link hrefs and the
    # records HAL reads before writing live in slots too: the native engine
    # keeps them in an array per record, the generated source in locals.
    #
    # Frozen once built. Not Ractor-shareable: it refers to its {Compiled}
    # (and so to the link blocks).
    #
    # @api private
    class Program
      # Operation codes (serializer_engine.h's wb_ser_op_code).
      LIT = 0         # text: append it
      ATTR = 1        # at, ivar/reader/direct or slot (from), type, list: write an attribute's value
      LINK = 2        # at, slot, index: slot = links[index].call(r, ctx)
      LOAD = 3        # at, ivar/reader/direct, slot: slot = the attribute's value
      HREF = 4        # at, slot: write the String in slot
      UNLESS_ANY = 5  # slots, body: run the body if some slot is not nil (flat: jump to target unless)
      FLAG_CLEAR = 6  # slot = false
      FLAG_SET = 7    # slot = true
      COMMA_IF = 8    # "," if slot
      ONE = 9         # at, ivar/reader/direct or slot (from), skip_nil, flag, head: a nested record
      MANY = 10       # at, ivar/reader/direct, skip_nil, flag, head: nested records
      HEAD = 11       # append the head the record was written with
      # JSON:API (JsonApi.program):
      ID = 12         # ivar/reader/direct, text (the type), head (the identifier's): write the resource's id
      SPARSE = 13     # text (the type), slot, body, otherwise: if the document has a fieldset for the type,
      #                 slot = it and run the body, else the otherwise (flat: slot = it, jump to target)
      FIELD = 14      # text (a key), from (the fieldset's slot), slot: slot = true if the fieldset keeps the key, else nil
      RELATE = 15     # at, ivar/reader/direct, text (the key), list, flag: resource identifiers, queued for included
      # An operation as the native engine reads it: an Array of these, in
      # this order (+nil+ where it does not apply; +from+ and +flag+ -1).
      # ONE, MANY and RELATE get their nested serializer from
      # {Compiled#nested}, by +at+, when the engine compiles them.
      FIELDS = %i[code at slot target text ivar reader direct type list skip_nil head slots from flag readers hash].freeze
      # One operation: FIELDS, plus the blocks of UNLESS_ANY (+body+) and
      # SPARSE (+body+, +otherwise+).
      Op = Struct.new(*FIELDS, :body, :otherwise, keyword_init: true)

      Container = Struct.new(:close, :state, :flag)

      # @return [Compiled] the serializer compiled for a model and format
      attr_reader :compiled
      # @return [Array<Op>] the operations, blocks nested
      attr_reader :tree
      # @return [Integer] slots a record needs
      attr_reader :slot_count

      # Builds the program: the block calls the building methods on it.
      # @param compiled [Compiled]
      def initialize(compiled)
        @compiled = compiled
        @tree = []
        @list = @tree
        @pending = +""
        @containers = []
        @slot_count = 0
        yield self
        flush
        remove_instance_variable(:@list)
        remove_instance_variable(:@pending)
        remove_instance_variable(:@containers)
        freeze_tree(@tree)
        freeze
      end

      # The program of a format that writes its links from slots after the
      # fields (HAL, Siren): every link block is called first, into a slot of
      # its own ({#link_calls}).
      # @param compiled [Compiled]
      # @yieldparam program [Program]
      # @yieldparam fields [Array] +compiled.fields+
      # @yieldparam links [Array] the serializer's links
      # @yieldparam hrefs [Hash{Integer => Integer}] each link's index => its slot
      # @return [Program]
      def self.linked(compiled)
        links = compiled.serializer.__wb_links
        fields = compiled.fields
        new(compiled) { |p| yield p, fields, links, p.link_calls(fields.size, links) }
      end

      # ---- what the engine reads (Native.compile) ----------------------------

      # @return [Class] the class records must be instances of
      def model
        @compiled.model
      end

      # @return [Array<Proc>] the serializer's link blocks and computed
      #   attributes' callables, by index (frozen)
      def links
        @compiled.links
      end

      # @return [Integer] records nested deeper than this raise
      def max_depth
        Compiled::MAX_DEPTH
      end

      # The operations for the native engine: {#tree} flattened, each an
      # Array of {FIELDS}; a block becomes a forward jump over it (an
      # UNLESS_ANY to its end; a SPARSE to its body, after the otherwise and
      # an UNLESS_ANY without slots, which always jumps, to the end). Made
      # when asked (once per {Compiled}, by Compiled#native_program).
      # @return [Array<Array>]
      def ops
        flat = []
        flatten(@tree, flat)
        flat.each(&:freeze).freeze
      end

      # ---- building ---------------------------------------------------------

      def lit(text)
        @pending << text
      end

      # Appends an operation, after the pending text.
      # @return [Op] the operation
      def emit(**fields)
        flush
        op = Op.new(**fields)
        @list << op
        op
      end

      # @return [Integer] a new slot
      def slot
        (@slot_count += 1) - 1
      end

      # Calls each of +links+' blocks, into a slot of its own: the prologue of
      # every record whose links are written from slots (HAL, Siren, JSON:API).
      # @param base [Integer] the +at+ of the first link block (after the fields)
      # @return [Hash{Integer => Integer}] each link's index => its slot, in +links+' order
      def link_calls(base, links)
        links.to_h do |link|
          slot = self.slot
          emit(code: LINK, at: base + link.index, slot: slot, target: link.index)
          [link.index, slot]
        end
      end

      # Opens an object (or, with +close+ "]", an array) whose opening text is
      # +opening+, or was already written when +opening+ is nil.
      def open(opening = "{", close = "}")
        lit(opening) if opening
        @containers << Container.new(close, :empty, nil)
      end

      def close
        lit(@containers.pop.close)
      end

      # Starts a member that is always written (+key+ nil in an array): a
      # comma before it when one is due, known now or kept in a flag.
      def member(key = nil)
        container = @containers.last
        case container.state
        when :nonempty then lit(",")
        when :unknown then emit(code: COMMA_IF, slot: container.flag)
        end
        lit(key_text(key)) if key
        container.state = :nonempty
      end

      # The block's members are written only when some slot of +slots+ is
      # not nil at run time.
      def conditional(slots)
        raise ArgumentError, "a conditional needs slots" if slots.empty?

        container = @containers.last
        before = container.state
        # Nested in another conditional's body, before any member: the outer
        # one's flag (cleared) is the container's.
        if before == :empty && container.flag.nil?
          container.flag = slot
          emit(code: FLAG_CLEAR, slot: container.flag)
        end
        block(emit(code: UNLESS_ANY, slots: slots.dup.freeze), :body) do
          yield
          # A body that ends :unknown wrote only through nested conditionals,
          # which set the flag themselves when they wrote.
          emit(code: FLAG_SET, slot: container.flag) if before != :nonempty && container.state == :nonempty
        end
        container.state = before == :nonempty ? :nonempty : :unknown
      end

      # A field's member (its key, then what the block writes), written only
      # when its +if:+/+unless:+ condition (a callable by index, giving true
      # or nil) holds for the record.
      def field_member(resolved)
        unless resolved.condition
          member(resolved.key)
          return yield
        end

        holds = slot
        emit(code: LINK, at: resolved.at, slot: holds, target: resolved.condition)
        conditional([holds]) do
          member(resolved.key)
          yield
        end
      end

      # JSON:API's sparse fieldsets: the block's operations twice, given
      # +slot+ (holding the document's fieldset for +type+, when it has one)
      # and given nil (when it has none).
      def fieldset(type, slot)
        op = emit(code: SPARSE, text: type, slot: slot)
        block(op, :body) { yield slot }
        block(op, :otherwise) { yield nil }
      end

      # The attribute's value (or list of values), +null+ for nil. A computed
      # one's value is its callable's (called as a link's block, into a slot).
      def attribute(resolved)
        if resolved.attribute.is_a?(ComputedAttribute)
          value = slot
          emit(code: LINK, at: resolved.at, slot: value, target: resolved.attribute.index)
          return emit(code: ATTR, at: resolved.at, type: :any, list: false, from: value)
        end

        emit(code: ATTR, at: resolved.at, type: resolved.attribute.model? ? :model : Values.json_type(resolved.attribute),
             list: resolved.attribute.list?, **read(resolved))
      end

      # A +json_type+ discriminator's member, for a model whose class (or a
      # subclass) a mapping names: first, as Wirebind::JSON.encode writes it,
      # left out for a record whose class the mapping does not name.
      def discriminator
        key, index = @compiled.discriminator
        return unless key

        at = @compiled.fields.size + index
        value = slot
        emit(code: LINK, at: at, slot: value, target: index)
        conditional([value]) do
          member(key)
          emit(code: ATTR, at: at, type: :string, list: false, from: value)
        end
      end

      # @return [Hash] how +resolved+'s attribute is read
      def read(resolved)
        read_attribute(resolved.attribute)
      end

      # @return [Hash] how +attribute+ is read: a model's instance variable
      #   (+direct+; see {Wirebind::Model}), or the reader of an object that
      #   is not a model (a {ReaderAttribute}, which has no ivar)
      def read_attribute(attribute)
        { ivar: attribute.ivar, reader: attribute.name, direct: !attribute.ivar.nil?,
          hash: attribute.is_a?(ReaderAttribute) && attribute.hash_record }
      end

      # @return [Hash] whether the list of +resolved+ is read as
      #   Generator#each_item reads one of a record read through its readers
      #   (any Enumerable)
      def nested(resolved)
        { readers: !resolved.attribute.is_a?(Model::Attribute) }
      end

      # @return [String] +"key":+, escaped
      def key_text(key)
        JSON::Writer.key(+"", key)
      end

      # @return [String] +key+ as a JSON string
      def string_text(text)
        JSON::Writer.string(+"", text)
      end

      private

      def flush
        return if @pending.empty?

        @list << Op.new(code: LIT, text: @pending.dup.freeze)
        @pending = +""
      end

      # Runs the block with operations going into +op+'s +member+ list.
      def block(op, member)
        flush
        outer = @list
        @list = op[member] = []
        yield
        flush
      ensure
        @list = outer
      end

      def freeze_tree(list)
        list.each do |op|
          freeze_tree(op.body) if op.body
          freeze_tree(op.otherwise) if op.otherwise
          op.freeze
        end
        list.freeze
      end

      def flatten(list, flat)
        list.each do |op|
          row = row(op)
          flat << row
          case op.code
          when UNLESS_ANY
            flatten(op.body, flat)
            row[FIELDS.index(:target)] = flat.size
          when SPARSE
            flatten(op.otherwise, flat)
            done = row(Op.new(code: UNLESS_ANY, slots: [].freeze)) # no slots: always jumps
            flat << done
            row[FIELDS.index(:target)] = flat.size
            flatten(op.body, flat)
            done[FIELDS.index(:target)] = flat.size
          end
        end
      end

      def row(op)
        row = FIELDS.map { |name| op[name] }
        row[FIELDS.index(:from)] ||= -1
        row[FIELDS.index(:flag)] ||= -1
        row
      end
    end
  end
end
