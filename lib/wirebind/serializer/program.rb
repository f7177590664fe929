# frozen_string_literal: true

module Wirebind
  class Serializer
    # The compact program the native engine (ext/wirebind/serializer_engine.c)
    # runs for a {Compiled}: what the format's {Generator} writes as Ruby
    # source, as a flat list of operations over one record. Literal text is
    # merged into runs (keys pre-escaped, punctuation included); members that
    # may be left out at run time jump over their operations and keep the
    # comma flag of their object in a slot, exactly where the generated
    # source keeps a local (+c1+, +w+, +ce+). Link hrefs and the records HAL
    # reads before writing (+h0+..., +e3+...) live in slots too.
    #
    # Every operation is an Array of {FIELDS}, in that order, for C to read
    # by index (+nil+ where it does not apply).
    #
    # @api private
    class Program
      # Operation codes (serializer_engine.h's wb_ser_op_code).
      LIT = 0         # text: append it
      ATTR = 1        # at, ivar/reader/direct, type, list: write an attribute's value
      LINK = 2        # at, slot, index: slot = links[index].call(r, ctx)
      LOAD = 3        # at, ivar/reader/direct, slot: slot = the attribute's value
      HREF = 4        # at, slot: write the String in slot
      UNLESS_ANY = 5  # slots, target: jump to target unless some slot is not nil
      FLAG_CLEAR = 6  # slot = false
      FLAG_SET = 7    # slot = true
      COMMA_IF = 8    # "," if slot
      ONE = 9         # at, ivar/reader/direct or slot (from), nested, skip_nil, flag, head
      MANY = 10       # at, ivar/reader/direct, nested, skip_nil, flag, head
      HEAD = 11       # append the head the record was written with
      # JSON:API (JsonApi.program):
      ID = 12         # ivar/reader/direct, text (the type), head (the identifier's): write the resource's id
      SPARSE = 13     # text (the type), slot, target: if the document has a fieldset for the type, slot = it, jump
      FIELD = 14      # text (a key), from (the fieldset's slot), slot: slot = true if the fieldset keeps the key, else nil
      RELATE = 15     # at, ivar/reader/direct, nested, text (the key), list, flag: resource identifiers, queued for included
      FIELDS = %i[code at slot target text ivar reader direct type list skip_nil nested head slots from flag readers].freeze

      Container = Struct.new(:close, :state, :flag)

      # @return [Array<Array>] the operations
      attr_reader :ops
      # @return [Integer] slots a record needs
      attr_reader :slot_count

      # @param compiled [Compiled]
      def initialize(compiled)
        @compiled = compiled
        @ops = []
        @pending = +""
        @containers = []
        @slot_count = 0
        yield self
        flush
        @ops.freeze
      end

      # ---- building ---------------------------------------------------------

      def lit(text)
        @pending << text
      end

      def flush
        emit_now(code: LIT, text: @pending.dup.freeze) unless @pending.empty?
        @pending = +""
      end

      # Appends an operation, after the pending text.
      # @return [Array] the operation (its target may be set later)
      def emit(**fields)
        flush
        emit_now(**fields)
      end

      # @return [Integer] a new slot
      def slot
        (@slot_count += 1) - 1
      end

      def open(opening = "{", close = "}")
        lit(opening) if opening
        @containers << Container.new(close, :empty, nil)
      end

      def close
        lit(@containers.pop.close)
      end

      # Generator#member
      def member(key = nil)
        container = @containers.last
        case container.state
        when :nonempty then lit(",")
        when :unknown then emit(code: COMMA_IF, slot: container.flag)
        end
        lit(key_text(key)) if key
        container.state = :nonempty
      end

      # Generator#conditional: the block's members are written only when
      # some slot of +slots+ is not nil.
      def conditional(slots)
        container = @containers.last
        before = container.state
        if before == :empty
          container.flag = slot
          emit(code: FLAG_CLEAR, slot: container.flag)
        end
        jump = emit(code: UNLESS_ANY, slots: slots.freeze)
        yield
        if before == :nonempty
          flush
        else
          emit(code: FLAG_SET, slot: container.flag)
        end
        land(jump)
        container.state = before == :nonempty ? :nonempty : :unknown
      end

      # Makes the jump +op+ (UNLESS_ANY, SPARSE) land here, after the pending text.
      def land(op)
        flush
        op[FIELDS.index(:target)] = @ops.size
      end

      # The attribute's value (or list of values), +null+ for nil.
      def attribute(resolved)
        emit(code: ATTR, at: resolved.at, type: resolved.attribute.model? ? :model : Values.json_type(resolved.attribute),
             list: resolved.attribute.list?, **read(resolved))
      end

      # @return [Hash] how the engine reads the attribute of +resolved+
      def read(resolved)
        read_attribute(resolved.attribute)
      end

      # @return [Hash] how the engine reads +attribute+: a model's instance
      #   variable (+direct+; see {Wirebind::Model}), or the reader of an
      #   object that is not a model (a {ReaderAttribute}, which has no ivar)
      def read_attribute(attribute)
        { ivar: attribute.ivar, reader: attribute.name, direct: !attribute.ivar.nil? }
      end

      # @return [Hash] the nested serializer of +resolved+ (a Compiled, or a
      #   Dispatch, asked per record), and whether its list is read as
      #   Generator#check_list reads one of a record read through its readers
      def nested(resolved)
        { nested: @compiled.instance_variable_get(:"@n#{resolved.at}"), readers: !resolved.attribute.is_a?(Model::Attribute) }
      end

      # @return [String] +"key":+, escaped
      def key_text(key)
        JSON::Pure::Writer.key(+"", key)
      end

      # @return [String] +key+ as a JSON string
      def string_text(text)
        JSON::Pure::Writer.string(+"", text)
      end

      private

      def emit_now(**fields)
        op = FIELDS.map { |name| fields[name] }
        op[FIELDS.index(:from)] ||= -1
        op[FIELDS.index(:flag)] ||= -1
        @ops << op
        op
      end
    end
  end
end
