# frozen_string_literal: true

require_relative "binary/pure/buffer"
require_relative "binary/layout"
require_relative "binary/plan"
require_relative "binary/pure/codec"

module Wirebind
  # Each backend's class of {Buffer}.
  Backend.register(:buffer, pure: Binary::Pure.buffer_class, native: (Binary::Native::Buffer if Wirebind.backend == :native))
  # A growable byte buffer with typed, bounds-checked access.
  #
  # @example
  #   buf = Wirebind::Buffer.new                 # empty, big-endian by default
  #   buf.append_u24(16).append_u8(0).append_u8(1).append_u32(3)
  #   buf.get_u24(0)                              # => 16
  #   buf.get_u32(5, :little)                     # per-call byte order
  #   buf.get_bits(40, 1); buf.get_bits(41, 31)   # bit fields, most significant bit first
  #   view = Wirebind::Buffer.read_only(string)   # no copy; writes raise ReadOnlyError
  #   view.slice(9, 100)                          # a view of a view, no copy
  #   view.to_s                                   # the bytes as a binary String
  #
  # Accessors, each with an optional last argument +:big+ or +:little+:
  # +get_T(offset)+, +set_T(offset, value)+, +append_T(value)+ for T in
  # u8 i8 u16 i16 u24 u32 i32 u64 i64 f32 f64. Every access is checked: a byte
  # outside the buffer, or a value that does not fit T, raises {Wirebind::Buffer::RangeError}.
  # A slice of a growable buffer reads its bytes through it, so it sees later
  # writes, and raises {Wirebind::Buffer::RangeError} if the buffer was cleared under it.
  #
  # On the native backend this is the C class +Wirebind::Binary::Native::Buffer+
  # (TypedData, own storage, or a pinned frozen String for views); on the pure
  # one a Ruby class. Both answer alike.
  # Another backend's: {Binary.buffer_class}.
  Buffer = Backend.implementation(:buffer)
end

module Wirebind
  # Binary records: a model's {Model::ClassMethods#binary} layout, read and
  # written in one call.
  #
  # @example
  #   class Frame
  #     include Wirebind::Model
  #     binary do
  #       field :length, :u24
  #       field :type, :u8
  #       field :flags, :u8
  #       bits :reserved, 1
  #       bits :stream_id, 31
  #       payload :data, length: :length
  #     end
  #   end
  #   frame = Wirebind::Binary.decode(bytes, Frame)     # frame.data is a read-only Buffer view of bytes
  #   Wirebind::Binary.encode(frame, into: buffer)      # appends; a nil length is the payload's
  #
  # Fields are declared attributes (integers, floats; a payload is +:base64+
  # and decodes to a {Wirebind::Buffer} view of the input, never a copy), so
  # the same record also reads and writes XML and JSON. The layout is compiled
  # once per class; the native backend runs it in C (binary_record.c), the
  # pure one through generated Ruby over the Buffer accessors.
  module Binary
    class << self
      # @param source [String, Wirebind::Buffer] the input (not copied)
      # @param type [Class] a model with a binary layout
      # @param offset [Integer] where the record starts
      # @param into [Wirebind::Model, nil] a record of type to fill instead of
      #   a new one: with no payload in the layout, decoding then allocates nothing
      # @param backend [Symbol] +:pure+ or +:native+; the default is {Wirebind.backend}
      # @return [Wirebind::Model] the record (into, if given)
      # @raise [ParseError] the input ends inside the record (+#offset+ says where);
      #   into is left as it was
      def decode(source, type, offset: 0, into: nil, backend: Wirebind.backend)
        plan = Plan.for(type)
        # the C side makes check_decode's tests itself, and calls it to raise
        return Native.decode(plan.native, source, offset, into) if Backend.native?(backend)

        check_decode(source, type, offset, into)
        Pure.decode(plan.codec, source, offset, into)
      end

      # @param record [Wirebind::Model] an instance of a model with a binary layout
      # @param into [Wirebind::Buffer, nil] appended to; a new Buffer if nil
      # @param backend [Symbol] +:pure+ or +:native+ (which codec runs, and which
      #   Buffer a nil +into+ becomes); the default is {Wirebind.backend}
      # @return [Wirebind::Buffer] into
      # @raise [EncodeError] a value that does not fit its field (+#path+ names it);
      #   nothing is appended then
      def encode(record, into: nil, backend: Wirebind.backend)
        plan = Plan.for(record.class)
        # the C side makes a new Buffer for a nil into, and calls check_encode to raise
        return Native.encode(plan.native, record, into) if Backend.native?(backend)

        Pure.encode(plan.codec, record, into)
      end

      # The Buffer class of a backend: +Wirebind::Buffer+ is the default one's.
      #
      # @example
      #   Wirebind::Binary.buffer_class(backend: :pure).new.append_u8(1)
      # @param backend [Symbol] +:pure+ or +:native+
      # @return [Class]
      def buffer_class(backend: Wirebind.backend)
        Backend.implementation(:buffer, backend)
      end

      # Raises for arguments {.decode} does not take.
      #
      # @api private
      def check_decode(source, type, offset, into)
        raise ArgumentError, "offset must be a non-negative Integer, not #{offset.inspect}" unless offset.is_a?(Integer) && offset >= 0
        raise TypeError, "into: must be a #{type}, not #{into.class}" unless into.nil? || into.instance_of?(type)
        # the Ruby codec reads either backend's Buffer (the C one calls this only to raise)
        return if source.is_a?(String) || source.is_a?(Buffer) || source.is_a?(Pure.buffer_class)

        raise TypeError, "source must be a String or a Wirebind::Buffer, not #{source.class}"
      end

      # Raises unless buffer is a {Wirebind::Buffer} ({.encode}'s into:).
      #
      # @api private
      def check_encode(buffer)
        raise TypeError, "into: must be a Wirebind::Buffer, not #{buffer.class}" unless buffer.is_a?(Buffer)
      end
    end
  end

  # @!parse
  #   module Binary
  #     # The native backend of {Binary}, defined in C (ext/wirebind/binary_record_class.c
  #     # and binary_buffer_class.c); present only when {Wirebind.backend} is +:native+.
  #     #
  #     # @api private
  #     module Native
  #       # @!method self.compile_plan(plan)
  #       #   @param plan [Plan] a class's binary plan
  #       #   @return [Object] the plan compiled into C steps (a +Native::Plan+)
  #       # @!method self.decode(native_plan, source, offset, into)
  #       #   @param native_plan [Object] from {compile_plan}
  #       #   @param source [String, Wirebind::Buffer]
  #       #   @param offset [Integer]
  #       #   @param into [Wirebind::Model, nil]
  #       #   @return [Wirebind::Model] the record (into, if given)
  #       # @!method self.encode(native_plan, record, into)
  #       #   @param native_plan [Object] from {compile_plan}
  #       #   @param record [Wirebind::Model]
  #       #   @param into [Wirebind::Buffer, nil, false] a new buffer if nil or false
  #       #   @return [Wirebind::Buffer] into, the record appended
  #     end
  #   end

  Backend.register(:binary, pure: Binary::Pure, native: (Binary::Native if Wirebind.backend == :native))
end
