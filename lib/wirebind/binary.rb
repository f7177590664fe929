# frozen_string_literal: true

require_relative "binary/pure/buffer"

module Wirebind
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
  # outside the buffer, or a value that does not fit T, raises {RangeError}.
  # A slice of a growable buffer reads its bytes through it, so it sees later
  # writes, and raises {RangeError} if the buffer was cleared under it.
  #
  # On the native backend this is the C class +Wirebind::Binary::Native::Buffer+
  # (TypedData, own storage, or a pinned frozen String for views); on the pure
  # one +Wirebind::Binary::Pure::Buffer+. Both answer alike.
  Buffer = Wirebind.backend == :native ? Binary::Native::Buffer : Binary::Pure::Buffer
end
