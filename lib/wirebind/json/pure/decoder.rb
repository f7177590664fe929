# frozen_string_literal: true

require_relative "parser"

module Wirebind
  module JSON
    # The pure-Ruby backend: the reference implementation of the JSON contract.
    # @api private
    module Pure
      class << self
        # @see Wirebind::JSON.decode
        def decode(input, item, list, strict, limits)
          decoder = Decoder.new(input, Plan.root(item, list), strict, nil, **limits)
          decoder.run
          decoder.result
        end

        # @see Wirebind::JSON.each
        def each(input, item, strict, limits, block)
          decoder = Decoder.new(input, Plan.root(item, true), strict, block, **limits)
          decoder.run
          decoder.result
        end

        # What the native backend asks its Ruby twin (through
        # NativeHooks::JSON_PURE), so that both word the same messages.
        # @see Decoder.convert_text
        def convert_text(code, text) = Decoder.convert_text(code, text)

        # @see Scanner.describe_char
        def describe_char(char) = Scanner.describe_char(char)

        # A member's value (JSON text) read as +slot+ reads it: what
        # {Plan#build} does with a member read before its discriminator.
        # @param text [String]
        # @param slot [Plan::Slot]
        # @param limits [Hash]
        # @return [Object]
        # @raise [DecodeError] its path inside the value
        def decode_member(text, slot, limits)
          decoder = Decoder.new(text, slot, false, nil, **limits)
          decoder.run
          decoder.result
        end
      end

      # Schema-directed decoding in one pass: while an object is scanned, each
      # key is looked up in the plan's table as it is read, and its value is
      # converted straight into the record's Array of values; a record becomes
      # an object through its plan's +build+ (the builder of the schema the plan was made from). No Hash is built
      # for a record, and nothing at all for members the schema does not name:
      # they are checked and passed over.
      #
      # Open objects and arrays of models are frames on an explicit stack
      # (Arrays, laid out below), so nesting costs heap, not Ruby stack. A list
      # of scalars is read in one loop without a frame.
      #
      # @api private
      class Decoder < Parser
        OBJECT = 0
        LIST = 1

        # Frame layout. OBJECT: [OBJECT, plan, values, slot it fills, key of the
        # member being read, started]. LIST: [LIST, slot, items (nil when each
        # item is yielded), plan of the items (models) or nil, index of the item
        # being read, started, single, levels]; +single+ (a +one_or_many+ list whose
        # value is one object) ends the list after its one item, and leaves the
        # index out of paths; +levels+ (a +nested+ slot's outer lists) says how
        # many list levels each item holds: each item is a LIST frame of its
        # own, but the innermost list of scalars is read in one loop.
        KIND = 0
        NODE = 1
        VALUES = 2
        SLOT = 3
        AT = 4
        STARTED = 5
        SINGLE = 6
        # OBJECT, strict, a class with json_type variants: the read slot index of
        # each member read (nil until the first).
        KEYS_READ = 7
        # LIST of a nested slot's outer levels: how many list levels each item holds.
        LEVELS = 7
        # The scalar types read from a JSON string.
        STRING_CODES = %i[string time date base64].freeze
        # What #slow_list returns when it pushed a frame.
        PUSHED = Object.new.freeze
        private_constant :PUSHED, :STRING_CODES

        # @see Writer.format_path
        def self.format_path(parts) = Writer.format_path(parts)

        # @return [Object] the decoded value, or for +each+ the number of items yielded
        attr_reader :result

        # @param input [String, IO]
        # @param root [Plan::Slot] what the document holds
        # @param strict [Boolean] unknown keys are errors
        # @param block [Proc, nil] for +each+: called with each item of the top-level array
        # @param limits [Hash] +max_depth+, +max_token_size+, +max_number_length+
        def initialize(input, root, strict, block, **limits)
          super(input, **limits)
          @root = root
          @strict = strict
          @block = block
          @stack = []
          @result = nil
          @string_record = nil # the record open_model made of a string_as string
        end

        # Reads the document.
        def run
          peek_byte || error("the input is empty (expected a JSON value)")
          root_value(@root)
          until (frame = @stack.last).nil?
            frame[KIND] == OBJECT ? members(frame) : items(frame)
          end
          finish_input
          nil
        end

        private

        # The value the document is, its first byte at the scan position.
        def root_value(slot)
          s = @s
          byte = @buf.getbyte(s.pos)
          if slot.list
            if byte == LBRACKET
              s.skip(ARRAY_START)
              @stack << [LIST, slot, @block ? nil : [], slot.code == :model ? slot.list_plan : nil, 0, false, false, slot.nested]
            elsif byte == 0x6E # n
              read_literal("null")
              @result = @block ? 0 : []
            else
              mismatch(slot.expected, nil)
            end
          elsif slot.code == :model
            if byte == LBRACE
              s.pos += 1
              @stack << [OBJECT, slot.plan, Array.new(slot.plan.size), slot, nil, false]
            elsif byte == 0x6E # n
              read_literal("null")
            else
              mismatch(slot.expected, nil)
            end
          elsif slot.code == :any
            @result = read_any(true, 0)
          else
            @result = scalar(slot.code, nil)
          end
        end

        # Reads the members of the object on top of the stack, until it ends or
        # a member's value opens an object or an array of models (pushed).
        #
        # One regular expression reads the separator, the key and, when it is a
        # string without escapes (most values are), the value too.
        def members(frame)
          s = @s
          table = frame[NODE].table
          values = frame[VALUES]
          first = !frame[STARTED]
          frame[STARTED] = true
          while true
            key = text = nil
            if first ? s.skip(FIRST_MEMBER) : s.skip(NEXT_MEMBER)
              # Longer than max_token_size, perhaps: then the exact path says which token.
              if @small || s.matched_size <= @max_token_size
                key = s[1]
                text = s[2]
              else
                s.pos -= s.matched_size
              end
            end
            unless key
              return finish_object(frame) if !first && s.skip(OBJECT_END)
              return finish_object(frame) if (key = next_key(first)).nil?
            end
            first = false
            frame[AT] = key
            slot = table[key]
            if slot && @strict && frame[NODE].tag_index
              (frame[KEYS_READ] ||= []) << slot.index
            end
            if slot&.variants && (slot = variant_slot(frame, slot)).variants
              # Before the discriminator: kept as plain JSON, read as its class reads it once known.
              values[slot.index] = slot.defer(text || read_any(true, @stack.size))
              next
            end
            if text
              if slot && slot.code == :string && !slot.list
                values[slot.index] = text
              elsif slot
                values[slot.index] = string_member(slot, text)
              elsif @strict
                unknown_key(text.bytesize + 2)
              end
              next
            end
            unless slot
              unknown_key(0) if @strict
              read_any(false, @stack.size)
              next
            end
            byte = @buf.getbyte(s.pos)
            if byte == 0x6E && s.skip(NULL) # null, for any type
              values[slot.index] = nil
              next
            end

            if slot.code == :any && (!slot.list || byte == LBRACKET)
              values[slot.index] = read_any(true, @stack.size)
              next
            end

            if slot.list
              if s.skip(ARRAY_START)
                depth_error(s.pos - s.matched_size) if @stack.size >= @max_depth
                if slot.code == :model || slot.nested
                  @stack << [LIST, slot, [], slot.list_plan, 0, false, false, slot.nested]
                  return
                end
                values[slot.index] = scalars(slot.code, slot.lenient)
              elsif s.skip(NULL)
                values[slot.index] = nil
              else
                list = slow_list(slot)
                return if list.equal?(PUSHED)

                values[slot.index] = list
              end
              next
            end

            # The commonest other members are written out here in full; the
            # rest, and every slow path, go through #scalar.
            case slot.code
            when :string
              # Its regular expression saw no plain string: one with escapes.
              values[slot.index] = byte == QUOTE ? read_string_exactly(true) : scalar(:string, nil)
            when :integer
              values[slot.index] = @fast_numbers && (number = s.scan(INTEGER)) ? number.to_i : scalar(:integer, nil, slot.lenient)
            when :boolean
              values[slot.index] =
                if s.skip(TRUE) then true
                elsif s.skip(FALSE) then false
                else scalar(:boolean, nil)
                end
            when :model
              if s.skip(OBJECT_START)
                depth_error(s.pos - 1) if @stack.size >= @max_depth
                plan = slot.plan
                @stack << [OBJECT, plan, Array.new(plan.size), slot, nil, false]
                return
              end
              return if open_model(slot)

              values[slot.index] = @string_record
            else
              values[slot.index] = scalar(slot.code, nil, slot.lenient)
            end
          end
        end

        # The slot of a member the classes of a json_type read differently: the
        # one of the class the discriminator names, when its value came
        # first; else +slot+ itself.
        def variant_slot(frame, slot)
          tag = frame[VALUES][frame[NODE].tag_index]
          (tag.is_a?(String) && slot.variants[tag]) || slot
        end

        # A member whose value, a string without escapes, the member's regular
        # expression has already read.
        def string_member(slot, text)
          pos = @s.pos - text.bytesize - 2
          return [string_item(slot, text, pos)] if slot.list && slot.one_or_many
          return string_item(slot, text, pos) unless slot.list

          line, column, = position(pos)
          raise DecodeError.new("expected #{slot.expected}, got the string #{Types.excerpt(text)}",
                                path: path(nil), line: line, column: column)
        end

        # One value of +slot+'s item type from a string (+text+, read at +pos+):
        # the type's own, a +string_as+ record or a +lenient+ number.
        def string_item(slot, text, pos)
          code = slot.code
          return text if code == :string || code == :any
          return string_record(slot, text) if code == :model && (slot.string_as || slot.expandable)
          return number_text(code, text, nil, pos) if slot.lenient

          unless STRING_CODES.include?(code)
            line, column, = position(pos)
            raise DecodeError.new("expected #{slot.expected}, got the string #{Types.excerpt(text)}",
                                  path: path(nil), line: line, column: column)
          end
          begin
            convert_text(code, text)
          rescue Types::InvalidValue => e
            value_error(e.message, nil, pos)
          end
        end

        # A record of +slot+'s model whose +string_as+ attribute is +text+, or
        # for an +expandable+ slot, +text+ itself.
        def string_record(slot, text)
          return text if slot.expandable

          plan = slot.plan
          values = Array.new(plan.slots.size) # its own attributes (not a json_type class's variants')
          values[slot.string_as] = text
          plan.klass.__wb_build(values)
        end

        # A lenient_numbers string's number (+text+, the string's content, read at +pos+).
        def number_text(code, text, index, pos)
          if text.bytesize > @max_number_length
            limit_error("a number is longer than max_number_length (#{@max_number_length} characters)", pos)
          end
          unless NUMBER_GRAMMAR.match?(text)
            value_error("expected #{Plan::EXPECTED.fetch(code)} or a string holding one, got the string #{Types.excerpt(text)}",
                        index, pos)
          end
          @token_start = pos
          convert_number(code, text, index)
        end

        # A list member whose '[' the fast path did not find: whitespace cut by
        # the buffer's end, null, or a value of the wrong kind.
        # @return [Array, nil, Object] the scalars read, nil for null, or PUSHED
        def slow_list(slot)
          byte = peek_byte
          if byte == LBRACKET
            depth_error if @stack.size >= @max_depth
            @s.skip(ARRAY_START)
            return scalars(slot.code, slot.lenient) unless slot.code == :model || slot.nested

            @stack << [LIST, slot, [], slot.list_plan, 0, false, false, slot.nested]
            return PUSHED
          end
          if byte == 0x6E # n
            read_literal("null")
            return nil
          end
          mismatch(slot.expected, nil) unless slot.one_or_many
          return [scalar(slot.code, nil, slot.lenient)] unless slot.code == :model

          if byte == QUOTE && (slot.string_as || slot.expandable)
            open_model(slot)
            return [@string_record]
          end
          mismatch(slot.expected, nil) unless byte == LBRACE

          # One record: a list frame that ends after it, under the record's.
          depth_error if @stack.size >= @max_depth
          @stack << [LIST, slot, [], slot.plan, 0, false, true]
          open_model(slot)
          PUSHED
        end

        # A model member (or item) whose '{' the fast path did not find.
        # @return [Boolean] true when an object was opened (pushed), false for
        #   null or a +string_as+ string, whose record (nil for null) is then
        #   in @string_record
        def open_model(slot)
          byte = peek_byte
          if byte == LBRACE
            depth_error if @stack.size >= @max_depth
            @s.pos += 1
            plan = slot.plan
            @stack << [OBJECT, plan, Array.new(plan.size), slot, nil, false]
            return true
          end
          if byte == 0x6E # n
            read_literal("null")
            @string_record = nil
            return false
          end
          if byte == QUOTE && (slot.string_as || slot.expandable)
            @string_record = string_record(slot, read_string_exactly(true))
            return false
          end
          mismatch(slot.expected(item: true), nil)
        end

        # Reads the items of the array of models (or, at the top level, of any
        # items) on top of the stack, until it ends or an item opens an object.
        def items(frame)
          s = @s
          slot = frame[NODE]
          code = slot.code
          return finish_list(frame) if frame[SINGLE]

          first = !frame[STARTED]
          frame[STARTED] = true
          while true
            if first
              first = false
              return finish_list(frame) if s.skip(ARRAY_END) || !next_item?(true)
            elsif !s.skip(NEXT_ITEM) && (s.skip(ARRAY_END) || !next_item?(false))
              return finish_list(frame)
            end

            if (levels = frame[LEVELS]) # an outer list of a nested slot: the item is a list
              return if open_row(frame, slot, levels)

              next
            end
            case code
            when :model
              if s.skip(OBJECT_START)
                depth_error(s.pos - 1) if @stack.size >= @max_depth
                plan = frame[SLOT]
                @stack << [OBJECT, plan, Array.new(plan.size), slot, nil, false]
                return
              else
                return if open_model(slot)

                deliver_item(frame, @string_record)
              end
            when :any
              deliver_item(frame, read_any(true, @stack.size))
            else
              deliver_item(frame, scalar(code, nil, slot.lenient))
            end
          end
        end

        # An item of a +nested+ slot's outer list (+frame+, whose items hold
        # +levels+ list levels): a list of models or of lists (a LIST frame
        # pushed: true), or the innermost list of scalars or null (delivered: false).
        def open_row(frame, slot, levels)
          byte = peek_byte
          if byte == LBRACKET
            depth_error if @stack.size >= @max_depth
            @s.skip(ARRAY_START)
            if levels > 1
              @stack << [LIST, slot, [], nil, 0, false, false, levels - 1]
              return true
            end
            if slot.code == :model
              @stack << [LIST, slot, [], slot.plan, 0, false]
              return true
            end
            deliver_item(frame, scalars(slot.code, slot.lenient))
            return false
          end
          mismatch(slot.row_expected(levels), nil) unless byte == 0x6E # n
          read_literal("null")
          deliver_item(frame, nil)
          false
        end

        # Reads the items of a list of scalars, after its '['.
        # @return [Array]
        def scalars(code, lenient = false)
          s = @s
          list = []
          return list if s.skip(ARRAY_END) || !next_item?(true)

          while true
            list << (code == :string && s.skip(STRING) ? string_match : scalar(code, list.size, lenient))
            next if s.skip(NEXT_ITEM)
            return list if s.skip(ARRAY_END) || !next_item?(false)
          end
        end

        def string_match
          check_size(@s.pos - @s.matched_size) unless @small
          @s[1]
        end

        def finish_object(frame)
          record = build(frame)
          @stack.pop
          parent = @stack.last
          if parent.nil?
            @result = record
          elsif parent[KIND] == OBJECT
            parent[VALUES][frame[SLOT].index] = record
          else
            deliver_item(parent, record)
          end
          nil
        end

        # The record of an object's values (its frame still on the stack). A
        # discriminator naming no class is an error at its member, as is a
        # value the record's builder refuses (Model::Attribute::Refusal).
        def build(frame)
          plan = frame[NODE]
          stray_keys(frame, plan) if frame[KEYS_READ]
          plan.build(frame[VALUES])
        rescue Model::Attribute::Refusal => e
          frame[AT] = e.json_key
          value_error(e.reason, nil, @s.pos)
        rescue Plan::MemberError => e
          frame[AT] = plan.read_slots[e.index].key
          line, column, = position(@s.pos)
          raise DecodeError.new(e.message, path: e.path_under(path(nil)), line: line, column: column)
        rescue Types::InvalidValue => e
          raise unless plan.tag_index

          frame[AT] = plan.read_slots[plan.tag_index].key
          value_error(e.message, nil, @s.pos)
        end

        # strict: a member of another mapped class than the one the discriminator
        # picked is an error at the member's path, wherever the discriminator
        # came (positioned at the object's end, where the pick is known).
        def stray_keys(frame, plan)
          values = frame[VALUES]
          frame[KEYS_READ].each do |index|
            message = plan.stray_key(values, index) or next
            frame[AT] = plan.read_slots[index].key
            value_error(message, nil, @s.pos)
          end
        end

        def finish_list(frame)
          @stack.pop
          parent = @stack.last
          if parent && parent[KIND] == LIST # an inner list of a nested slot
            deliver_item(parent, frame[VALUES])
          elsif parent
            parent[VALUES][frame[NODE].index] = frame[VALUES]
          else
            @result = frame[VALUES] || frame[AT]
          end
          nil
        end

        def deliver_item(frame, value)
          if (list = frame[VALUES])
            list << value
          else
            @block.call(value)
          end
          frame[AT] += 1
        end

        # Reads a scalar of type +code+ at the scan position.
        # @param index [Integer, nil] the item's index, when in a list of scalars
        # @param lenient [Boolean] a string holding a number is read as one
        # @return [Object] the value, nil for null
        def scalar(code, index, lenient = false)
          s = @s
          case code
          when :string
            return string_match if s.skip(STRING)
          when :integer
            number = @fast_numbers && s.scan(INTEGER)
            return number.to_i if number
          when :float
            number = @fast_numbers && s.scan(NUMBER)
            return Float(number) if number
          when :decimal
            number = @fast_numbers && s.scan(NUMBER)
            return BigDecimal(number) if number
          when :boolean
            return true if s.skip(TRUE)
            return false if s.skip(FALSE)
          when :time, :date, :base64
            if s.skip(STRING)
              check_size(s.pos - s.matched_size) unless @small
              text = s[1]
              begin
                return convert_text(code, text)
              rescue Types::InvalidValue => e
                value_error(e.message, index, s.pos - s.matched_size)
              end
            end
          end
          scalar_slow(code, index, lenient)
        end

        # The exact path of #scalar: whitespace or a token cut by the buffer's
        # end, escapes, long numbers, null, and values of the wrong kind.
        def scalar_slow(code, index, lenient = false)
          byte = peek_byte
          if byte == 0x6E # n
            read_literal("null")
            return nil
          end
          case code
          when :string, :time, :date, :base64
            # The fast path failed on this string, or on the whitespace before it.
            return convert_string(code, read_string_exactly(true), index) if byte == QUOTE
          when :integer, :float, :decimal
            return convert_number(code, read_number, index) if byte == MINUS || (byte && byte >= DIGIT_0 && byte <= DIGIT_9)
            return number_text(code, read_string_exactly(true), index, @token_start) if byte == QUOTE && lenient
          when :boolean
            if byte == 0x74 # t
              read_literal("true")
              return true
            elsif byte == 0x66 # f
              read_literal("false")
              return false
            end
          end
          mismatch(lenient ? "#{Plan::EXPECTED.fetch(code)} or a string holding one" : Plan::EXPECTED.fetch(code), index)
        end

        def convert_string(code, text, index)
          code == :string ? text : convert_text(code, text)
        rescue Types::InvalidValue => e
          value_error(e.message, index, @token_start)
        end

        def convert_text(code, text)
          Decoder.convert_text(code, text)
        end

        # Types' XML lexical forms, without XML's whitespace collapsing: a JSON
        # string is the value exactly. (The native backend calls this for the
        # texts its C twins do not take, so that both raise the same message.)
        # @param code [Symbol] :time, :date or :base64
        # @param text [String]
        # @raise [Types::InvalidValue]
        def self.convert_text(code, text) # rubocop:disable Lint/IneffectiveAccessModifier -- public: the native backend calls it
          case code
          when :time then Types::TimeType.parse(text) || raise(Types.invalid_text(Types::TimeType::EXPECTED_TEXT, text))
          when :date then Types::DateType.parse(text) || raise(Types.invalid_text(Types::DateType::EXPECTED_TEXT, text))
          else
            begin
              text.unpack1("m0")
            rescue ArgumentError
              raise Types.invalid_text("base64 data (RFC 4648, with padding, no line breaks)", text)
            end
          end
        end

        def convert_number(code, text, index)
          case code
          when :integer
            value_error("expected an integer, got #{number_excerpt(text)}", index, @token_start) if NOT_INTEGER.match?(text)
            text.to_i
          when :float
            value = Types::FloatType.parse(text)
            return value if value.finite?

            value_error("the number #{number_excerpt(text)} is beyond the range of a double", index, @token_start)
          else
            decimal(text, index)
          end
        end

        # BigDecimal reads any exponent, but one beyond its range gives
        # Infinity or zero instead of the number written.
        def decimal(text, index)
          value = BigDecimal(text)
          return value if value.finite? && !(value.zero? && text.match?(/\A-?0*[1-9]|\.0*[1-9]/))

          value_error("the number #{number_excerpt(text)} is beyond the range of a decimal", index, @token_start)
        end

        # ---- errors ----------------------------------------------------------------

        # The path of the value being read: the keys and indexes of the frames,
        # then +index+ (an item of a list of scalars).
        def path(index)
          parts = @stack.map { |frame| frame[SINGLE] ? nil : frame[AT] }
          parts.compact!
          parts << index if index
          Decoder.format_path(parts)
        end

        def value_error(message, index, pos)
          line, column, = position(pos)
          raise DecodeError.new(message, path: path(index), line: line, column: column)
        end

        # A well-formed value of the wrong kind is at the scan position.
        def mismatch(expected, index)
          byte = peek_byte
          truncated("the input ends where a value was expected") if byte.nil?
          line, column, = position
          found = describe_value(byte)
          raise DecodeError.new("expected #{expected}, got #{found}", path: path(index), line: line, column: column)
        end

        # Reads the value at the scan position to name it in a message.
        def describe_value(byte)
          case byte
          when QUOTE then "the string #{Types.excerpt(read_string(true))}"
          when LBRACE then "an object"
          when LBRACKET then "an array"
          when 0x74 then "true"
          when 0x66 then "false"
          when 0x6E then "null"
          when MINUS, DIGIT_0..DIGIT_9 then "the number #{number_excerpt(read_number)}"
          else error("expected a JSON value, got #{describe_byte(byte)}")
          end
        end

        # +back+: bytes of the value already read, to point at its start.
        def unknown_key(back)
          line, column, = position(@s.pos - back)
          raise DecodeError.new("unknown key (strict: true)", path: path(nil), line: line, column: column)
        end
      end
    end
  end
end
