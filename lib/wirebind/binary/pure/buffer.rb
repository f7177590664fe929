# frozen_string_literal: true

module Wirebind
  module Binary
    # The pure-Ruby backend of {Binary} and {Wirebind::Buffer}: the reference
    # the C one (ext/wirebind/binary_*.c) is held equal to.
    module Pure
      # The reference Wirebind::Buffer, on +String#unpack1(offset:)+, +pack+ and
      # +setbyte+: the C one (ext/wirebind/binary_buffer_class.c) answers every
      # call with the same value, or raises the same error with the same message.
      # See {Wirebind::Buffer} for the contract.
      class Buffer
        # An access outside the buffer, or a value that does not fit its type: {Binary::RangeError}.
        RangeError = Binary::RangeError
        # A write to a read-only buffer or view: {Binary::ReadOnlyError}.
        ReadOnlyError = Binary::ReadOnlyError

        # [width, signed?, big-endian unpack directive, little-endian one]
        INTEGERS = Shareable.make(
          u8: [1, false, "C", "C"], i8: [1, true, "c", "c"],
          u16: [2, false, "n", "v"], i16: [2, true, "s>", "s<"],
          u24: [3, false, nil, nil],
          u32: [4, false, "N", "V"], i32: [4, true, "l>", "l<"],
          u64: [8, false, "Q>", "Q<"], i64: [8, true, "q>", "q<"]
        )
        FLOATS = Shareable.make({ f32: [4, "g", "e"], f64: [8, "G", "E"] })
        private_constant :INTEGERS, :FLOATS

        class << self
          # @param string [String] its bytes are read in place (a frozen String
          #   is kept; an unfrozen one is frozen-copied, which shares its bytes)
          # @param endian [Symbol] the default byte order of the view
          # @return [Buffer] a read-only view
          def read_only(string, endian: :big)
            raise TypeError, "no implicit conversion of #{string.class} into String" unless string.is_a?(String)

            frozen = string.frozen? ? string : string.dup.freeze
            frozen = frozen.b.freeze unless frozen.encoding == Encoding::BINARY
            allocate.__init_view(frozen, nil, 0, frozen.bytesize, Buffer.big_endian?(endian), true)
          end

          # @api private
          def big_endian?(endian)
            return true if endian == :big
            return false if endian == :little

            raise ArgumentError, "endian must be :big or :little, not #{endian.inspect}"
          end
        end

        # @param capacity [Integer] bytes to reserve (the length stays 0)
        # @param endian [Symbol] +:big+ (network order, the default) or +:little+
        # @raise [ReadOnlyError] when called again on a Buffer
        def initialize(capacity = 0, endian: :big)
          raise ReadOnlyError, "the buffer is already initialized" if instance_variable_defined?(:@string)

          capacity = index(capacity, "capacity")
          @big = Buffer.big_endian?(endian)
          @string = String.new(capacity: capacity, encoding: Encoding::BINARY)
          @root = nil
          @offset = 0
          @length = 0
          @read_only = false
        end

        # +dup+ and +clone+: a Buffer of its own with the same bytes, byte order
        # and read-only flag (a view's copy is not a view: writing to it never
        # reaches the bytes the original reads). Called again on a Buffer, it
        # makes it such a copy, and views of it see their root shrink.
        #
        # @param original [Buffer]
        # @return [self]
        def initialize_copy(original)
          super
          @string = original.to_s.b # to_s: a copy, or a shared substring (copy-on-write: independent)
          @string = String.new(@string, capacity: @string.bytesize) if @string.frozen?
          @root = nil
          @offset = 0
          @length = @string.bytesize
          @big = original.endian == :big
          @read_only = original.read_only?
          self
        end

        # @api private
        def __init_view(string, root, offset, length, big, read_only)
          @string = string
          @root = root
          @offset = offset
          @length = length
          @big = big
          @read_only = read_only
          self
        end

        # The bytes a view of this (root) buffer reads.
        # @api private
        def __string
          @string
        end

        # The typed accessors, generated below (one +get_+, +set_+ and +append_+ per
        # type); +endian+ is +:big+ or +:little+, nil for the buffer's own byte order.
        #
        # @!method get_u8(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the unsigned 8-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_u8(offset, value, endian = nil)
        #   Writes +value+ as unsigned 8-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_u8(value, endian = nil)
        #   Appends +value+ as unsigned 8-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_i8(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the signed 8-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_i8(offset, value, endian = nil)
        #   Writes +value+ as signed 8-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_i8(value, endian = nil)
        #   Appends +value+ as signed 8-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_u16(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the unsigned 16-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_u16(offset, value, endian = nil)
        #   Writes +value+ as unsigned 16-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_u16(value, endian = nil)
        #   Appends +value+ as unsigned 16-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_i16(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the signed 16-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_i16(offset, value, endian = nil)
        #   Writes +value+ as signed 16-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_i16(value, endian = nil)
        #   Appends +value+ as signed 16-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_u24(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the unsigned 24-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_u24(offset, value, endian = nil)
        #   Writes +value+ as unsigned 24-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_u24(value, endian = nil)
        #   Appends +value+ as unsigned 24-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_u32(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the unsigned 32-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_u32(offset, value, endian = nil)
        #   Writes +value+ as unsigned 32-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_u32(value, endian = nil)
        #   Appends +value+ as unsigned 32-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_i32(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the signed 32-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_i32(offset, value, endian = nil)
        #   Writes +value+ as signed 32-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_i32(value, endian = nil)
        #   Appends +value+ as signed 32-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_u64(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the unsigned 64-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_u64(offset, value, endian = nil)
        #   Writes +value+ as unsigned 64-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_u64(value, endian = nil)
        #   Appends +value+ as unsigned 64-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_i64(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Integer] the signed 64-bit value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_i64(offset, value, endian = nil)
        #   Writes +value+ as signed 64-bit at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer, or value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_i64(value, endian = nil)
        #   Appends +value+ as signed 64-bit.
        #   @param value [Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when value does not fit
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_f32(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Float] the 32-bit IEEE 754 value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_f32(offset, value, endian = nil)
        #   Writes +value+ as 32-bit IEEE 754 at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Float, Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_f32(value, endian = nil)
        #   Appends +value+ as 32-bit IEEE 754.
        #   @param value [Float, Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [ReadOnlyError] on a read-only buffer or a view
        # @!method get_f64(offset, endian = nil)
        #   @param offset [Integer] the first byte's index
        #   @param endian [Symbol, nil] the byte order
        #   @return [Float] the 64-bit IEEE 754 value at +offset+
        #   @raise [RangeError] when its bytes are not all in the buffer
        # @!method set_f64(offset, value, endian = nil)
        #   Writes +value+ as 64-bit IEEE 754 at +offset+.
        #   @param offset [Integer] the first byte's index
        #   @param value [Float, Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [RangeError] when its bytes are not all in the buffer
        #   @raise [ReadOnlyError] on a read-only buffer
        # @!method append_f64(value, endian = nil)
        #   Appends +value+ as 64-bit IEEE 754.
        #   @param value [Float, Integer]
        #   @param endian [Symbol, nil] the byte order
        #   @return [self]
        #   @raise [ReadOnlyError] on a read-only buffer or a view

        INTEGERS.each do |name, (width, signed, big, little)|
          class_eval <<~RUBY, __FILE__, __LINE__ + 1
            def get_#{name}(offset, endian = nil)
              big = endian.nil? ? @big : Buffer.big_endian?(endian)
              load_int(at(offset, #{width}), #{signed}, big ? #{big.inspect} : #{little.inspect}, big)
            end

            def set_#{name}(offset, value, endian = nil)
              big = endian.nil? ? @big : Buffer.big_endian?(endian)
              writable!
              bits = int_bits(value, #{width}, #{signed})
              store(at(offset, #{width}), #{width}, big, bits)
              self
            end

            def append_#{name}(value, endian = nil)
              big = endian.nil? ? @big : Buffer.big_endian?(endian)
              writable!
              bits = int_bits(value, #{width}, #{signed})
              grow(#{width})
              store(@length - #{width}, #{width}, big, bits)
              self
            end
          RUBY
        end

        FLOATS.each do |name, (width, big, little)|
          class_eval <<~RUBY, __FILE__, __LINE__ + 1
            def get_#{name}(offset, endian = nil)
              big = endian.nil? ? @big : Buffer.big_endian?(endian)
              position = at(offset, #{width})
              bytes.unpack1(big ? #{big.inspect} : #{little.inspect}, offset: position)
            end

            def set_#{name}(offset, value, endian = nil)
              big = endian.nil? ? @big : Buffer.big_endian?(endian)
              writable!
              packed = [float(value)].pack(big ? #{big.inspect} : #{little.inspect})
              position = at(offset, #{width})
              bytes[position, #{width}] = packed
              self
            end

            def append_#{name}(value, endian = nil)
              big = endian.nil? ? @big : Buffer.big_endian?(endian)
              writable!
              packed = [float(value)].pack(big ? #{big.inspect} : #{little.inspect})
              grow(#{width})
              @string[@length - #{width}, #{width}] = packed
              self
            end
          RUBY
        end

        # @return [Integer] count bits from bit_offset, most significant bit first
        def get_bits(bit_offset, count)
          first, count = check_bits(bit_offset, count)
          string = bytes
          base = @offset * 8 + first
          result = 0
          while count.positive?
            bit = base & 7
            take = [8 - bit, count].min
            byte = string.getbyte(base >> 3)
            result = (result << take) | ((byte >> (8 - bit - take)) & ((1 << take) - 1))
            base += take
            count -= take
          end
          result
        end

        # @return [self]
        def set_bits(bit_offset, count, value)
          writable!
          first, count = check_bits(bit_offset, count)
          value = int_bits(value, 8, false)
          raise RangeError, "#{value} does not fit #{count} bits" if count < 64 && (value >> count).positive?

          string = bytes
          base = @offset * 8 + first
          while count.positive?
            bit = base & 7
            take = [8 - bit, count].min
            shift = 8 - bit - take
            mask = ((1 << take) - 1) << shift
            part = (value >> (count - take)) & ((1 << take) - 1)
            string.setbyte(base >> 3, (string.getbyte(base >> 3) & ~mask & 0xff) | (part << shift))
            base += take
            count -= take
          end
          self
        end

        # @return [Buffer] a view of length bytes at offset (not a copy)
        def slice(offset, length)
          length = index(length, "length")
          offset = index(offset, "offset")
          check_range(offset, length)
          read_only = @read_only || frozen? # a frozen Buffer's bytes are not written through its views either
          if @root.nil? && !@string.frozen?
            Buffer.allocate.__init_view(nil, self, offset, length, @big, read_only)
          else
            Buffer.allocate.__init_view(@string, @root, @offset + offset, length, @big, read_only)
          end
        end

        # @return [String] the bytes, binary (a copy; a shared substring for a view of a String)
        def to_s
          bytes.byteslice(@offset, @length)
        end

        # @return [String] a copy of length bytes at offset
        def get_bytes(offset, length)
          length = index(length, "length")
          bytes.byteslice(at(offset, length), length)
        end

        # @return [self]
        def set_bytes(offset, string)
          raise TypeError, "no implicit conversion of #{string.class} into String" unless string.is_a?(String)

          writable!
          position = at(offset, string.bytesize)
          bytes[position, string.bytesize] = string.b
          self
        end

        # @param data [String, Buffer]
        # @return [self]
        def append(data)
          writable!
          data = data.to_s if data.is_a?(Buffer) || data.is_a?(Wirebind::Buffer)
          raise TypeError, "no implicit conversion of #{data.class} into String" unless data.is_a?(String)

          raise ReadOnlyError, "a view cannot grow (append to the Buffer it is a view of)" if view?

          @string << data.b
          @length += data.bytesize
          self
        end

        # @return [Integer]
        attr_reader :length
        alias size length

        # @return [Boolean]
        def read_only?
          @read_only
        end

        # @return [Boolean] true if the bytes belong to a String or another Buffer
        def view?
          !@root.nil? || @string.frozen?
        end

        # @return [Symbol]
        def endian
          @big ? :big : :little
        end

        # @return [self]
        def clear
          writable!
          raise ReadOnlyError, "a view cannot be cleared" if view?

          @string.clear
          @length = 0
          self
        end

        # @return [Boolean] whether other is a Buffer with the same bytes
        def ==(other)
          other.is_a?(Buffer) && other.to_s == to_s
        end
        alias eql? ==

        # @return [Integer]
        def hash
          to_s.hash
        end

        # @return [String]
        def inspect
          "#<#{self.class} length=#{@length}#{' read_only' if @read_only}>"
        end

        private

        # The String holding the bytes; offsets into it start at @offset.
        def bytes
          return @string unless @root

          root = @root.__string
          if @offset > root.bytesize || root.bytesize - @offset < @length
            raise RangeError, "the buffer this view is a slice of is shorter than the view now"
          end

          root
        end

        def index(value, what)
          unless value.is_a?(Integer)
            raise TypeError, "#{what} must be an Integer, not #{value.class}"
          end
          # the C buffer's fixnums are 63 bits: anything larger is out of range
          raise RangeError, "#{what} #{value} is out of range" if value.bit_length >= 63
          raise RangeError, "#{what} #{value} is negative" if value.negative?

          value
        end

        def check_range(offset, count)
          return if offset <= @length && @length - offset >= count

          raise RangeError, "#{count} bytes at offset #{offset} are out of range (length #{@length})"
        end

        # The position in bytes (the String) of count bytes at offset, checked.
        def at(offset, count)
          offset = index(offset, "offset")
          check_range(offset, count)
          bytes # a view checks its root here
          @offset + offset
        end

        def float(value)
          raise TypeError, "value must be Numeric, not #{value.class}" unless value.is_a?(Numeric)

          value.to_f
        end

        def writable!
          raise ReadOnlyError, "the buffer is read-only" if @read_only
          raise ReadOnlyError, "the buffer is frozen" if frozen?
        end

        def check_bits(bit_offset, count)
          bit_offset = index(bit_offset, "bit offset")
          count = index(count, "bit count")
          raise RangeError, "bit count #{count} is not in 1..64" unless (1..64).cover?(count)
          unless bit_offset <= @length * 8 && @length * 8 - bit_offset >= count
            raise RangeError, "#{count} bits at bit offset #{bit_offset} are out of range (length #{@length} bytes)"
          end

          bytes
          [bit_offset, count]
        end

        def int_bits(value, width, signed)
          raise TypeError, "value must be an Integer, not #{value.class}" unless value.is_a?(Integer)

          bits = width * 8
          fits = signed ? value.bit_length < bits : !value.negative? && value.bit_length <= bits
          raise RangeError, "#{value} does not fit #{signed ? 'i' : 'u'}#{bits}" unless fits

          value & ((1 << bits) - 1)
        end

        def load_int(position, signed, directive, big)
          string = bytes
          return string.unpack1(directive, offset: position) if directive

          b0 = string.getbyte(position)
          b1 = string.getbyte(position + 1)
          b2 = string.getbyte(position + 2)
          value = big ? (b0 << 16) | (b1 << 8) | b2 : (b2 << 16) | (b1 << 8) | b0
          signed ? value - ((value & 0x800000) << 1) : value
        end

        def store(position, width, big, bits)
          string = bytes
          width.times do |i|
            shift = big ? (width - 1 - i) * 8 : i * 8
            string.setbyte(position + i, (bits >> shift) & 0xff)
          end
        end

        def grow(width)
          raise ReadOnlyError, "a view cannot grow (append to the Buffer it is a view of)" if view?

          @string << ("\0" * width)
          @length += width
        end
      end
    end

    # @!parse
    #   module Native
    #     # The C {Wirebind::Buffer} (TypedData, ext/wirebind/binary_buffer_class.c),
    #     # documented here beside its Ruby twin: every method answers as
    #     # {Pure::Buffer}'s does, with the same values and errors.
    #     class Buffer
    #       # (see Wirebind::Binary::Pure::Buffer::RangeError)
    #       RangeError = Binary::RangeError
    #       # (see Wirebind::Binary::Pure::Buffer::ReadOnlyError)
    #       ReadOnlyError = Binary::ReadOnlyError
    #       # @!method self.read_only(string, endian: :big)
    #       #   (see Wirebind::Binary::Pure::Buffer.read_only)
    #       # @!method initialize(capacity = 0, endian: :big)
    #       #   (see Wirebind::Binary::Pure::Buffer#initialize)
    #       # @!method initialize_copy(original)
    #       #   (see Wirebind::Binary::Pure::Buffer#initialize_copy)
    #       # @!method get_u8(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_u8)
    #       # @!method set_u8(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_u8)
    #       # @!method append_u8(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_u8)
    #       # @!method get_i8(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_i8)
    #       # @!method set_i8(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_i8)
    #       # @!method append_i8(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_i8)
    #       # @!method get_u16(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_u16)
    #       # @!method set_u16(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_u16)
    #       # @!method append_u16(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_u16)
    #       # @!method get_i16(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_i16)
    #       # @!method set_i16(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_i16)
    #       # @!method append_i16(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_i16)
    #       # @!method get_u24(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_u24)
    #       # @!method set_u24(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_u24)
    #       # @!method append_u24(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_u24)
    #       # @!method get_u32(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_u32)
    #       # @!method set_u32(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_u32)
    #       # @!method append_u32(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_u32)
    #       # @!method get_i32(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_i32)
    #       # @!method set_i32(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_i32)
    #       # @!method append_i32(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_i32)
    #       # @!method get_u64(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_u64)
    #       # @!method set_u64(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_u64)
    #       # @!method append_u64(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_u64)
    #       # @!method get_i64(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_i64)
    #       # @!method set_i64(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_i64)
    #       # @!method append_i64(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_i64)
    #       # @!method get_f32(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_f32)
    #       # @!method set_f32(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_f32)
    #       # @!method append_f32(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_f32)
    #       # @!method get_f64(offset, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_f64)
    #       # @!method set_f64(offset, value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_f64)
    #       # @!method append_f64(value, endian = nil)
    #       #   (see Wirebind::Binary::Pure::Buffer#append_f64)
    #       # @!method get_bits(bit_offset, count)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_bits)
    #       # @!method set_bits(bit_offset, count, value)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_bits)
    #       # @!method slice(offset, length)
    #       #   (see Wirebind::Binary::Pure::Buffer#slice)
    #       # @!method to_s
    #       #   (see Wirebind::Binary::Pure::Buffer#to_s)
    #       # @!method get_bytes(offset, length)
    #       #   (see Wirebind::Binary::Pure::Buffer#get_bytes)
    #       # @!method set_bytes(offset, string)
    #       #   (see Wirebind::Binary::Pure::Buffer#set_bytes)
    #       # @!method append(data)
    #       #   (see Wirebind::Binary::Pure::Buffer#append)
    #       # @!method length
    #       #   (see Wirebind::Binary::Pure::Buffer#length)
    #       # @!method size
    #       #   (see Wirebind::Binary::Pure::Buffer#length)
    #       # @!method read_only?
    #       #   (see Wirebind::Binary::Pure::Buffer#read_only?)
    #       # @!method view?
    #       #   (see Wirebind::Binary::Pure::Buffer#view?)
    #       # @!method endian
    #       #   (see Wirebind::Binary::Pure::Buffer#endian)
    #       # @!method clear
    #       #   (see Wirebind::Binary::Pure::Buffer#clear)
    #       # @!method ==(other)
    #       #   (see Wirebind::Binary::Pure::Buffer#==)
    #       # @!method eql?(other)
    #       #   (see Wirebind::Binary::Pure::Buffer#==)
    #       # @!method hash
    #       #   (see Wirebind::Binary::Pure::Buffer#hash)
    #       # @!method inspect
    #       #   (see Wirebind::Binary::Pure::Buffer#inspect)
    #     end
    #   end
  end
end
