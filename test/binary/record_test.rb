# frozen_string_literal: true

require "test_helper"

# Binary records on models: Wirebind::Binary.decode / encode, on the backend in use.
class BinaryRecordTest < Minitest::Test
  class Frame
    include Wirebind::Model
    binary do
      field :length, :u24
      field :type, :u8
      field :flags, :u8
      bits :reserved, 1
      bits :stream_id, 31
      payload :data, length: :length
    end
  end

  class Mixed
    include Wirebind::Model
    attribute :note, :string        # not on the wire
    attribute :count, :integer      # mapped by the layout below
    attribute :tags, [:string]
    binary endian: :little do
      field :count, :u16
      field :delta, :i32
      field :ratio, :f64
      field :small, :f32
      bits :a, 3
      bits :b, 13
      field :big, :u64
      payload :fixed, length: 2
      payload :rest
    end
  end

  FRAME = "\x00\x00\x05\x00\x01\x80\x00\x00\x03hello".b

  def test_decode_a_frame
    frame = Wirebind::Binary.decode(FRAME, Frame)
    assert_equal [5, 0, 1, 1, 3], [frame.length, frame.type, frame.flags, frame.reserved, frame.stream_id]
    assert_kind_of Wirebind::Buffer, frame.data
    assert frame.data.read_only?
    assert_equal "hello", frame.data.to_s
  end

  def test_decode_at_an_offset_from_a_buffer
    buffer = Wirebind::Buffer.new
    buffer.append("junk").append(FRAME).append(FRAME)
    first = Wirebind::Binary.decode(buffer, Frame, offset: 4)
    second = Wirebind::Binary.decode(buffer, Frame, offset: 4 + FRAME.bytesize)
    assert_equal first, second
    assert_equal "hello", second.data.to_s
  end

  def test_encode_round_trips_and_fills_the_length
    buffer = Wirebind::Buffer.new
    frame = Frame.new(type: 0, flags: 1, reserved: 1, stream_id: 3, data: "hello")
    assert_same buffer, Wirebind::Binary.encode(frame, into: buffer)
    assert_equal FRAME, buffer.to_s
    assert_equal FRAME, Wirebind::Binary.encode(Wirebind::Binary.decode(FRAME, Frame)).to_s
  end

  def test_every_field_type_little_endian
    record = Mixed.new(note: "n", count: 65_535, delta: -7, ratio: 0.25, small: 1.5, a: 5, b: 8191,
                       big: 2**64 - 1, fixed: "xy", rest: "tail")
    bytes = Wirebind::Binary.encode(record).to_s
    assert_equal [65_535].pack("v") + [-7].pack("l<") + [0.25].pack("E") + [1.5].pack("e") +
                 [(5 << 13) | 8191].pack("n") + [2**64 - 1].pack("Q<") + "xytail", bytes
    back = Wirebind::Binary.decode(bytes, Mixed)
    assert_nil back.note
    assert_equal [], back.tags
    assert_equal [65_535, -7, 0.25, 1.5, 5, 8191, 2**64 - 1, "xy", "tail"],
                 [back.count, back.delta, back.ratio, back.small, back.a, back.b, back.big, back.fixed.to_s, back.rest.to_s]
  end

  def test_truncated_input_is_a_parse_error_with_the_offset
    (0...FRAME.bytesize).each do |cut|
      error = assert_raises(Wirebind::ParseError) { Wirebind::Binary.decode(FRAME.byteslice(0, cut), Frame) }
      assert_equal cut < 9 ? 0 : 9, error.offset
      assert_match(/truncated input: BinaryRecordTest::Frame needs (9|5) bytes at offset #{error.offset}/, error.message)
    end
    error = assert_raises(Wirebind::ParseError) { Wirebind::Binary.decode(FRAME, Frame, offset: 100) }
    assert_equal 100, error.offset
  end

  def test_values_that_do_not_fit_are_encode_errors_and_write_nothing
    buffer = Wirebind::Buffer.new
    cases = {
      { type: 256 } => "256 does not fit u8 (at type)",
      { stream_id: 2**31 } => "2147483648 does not fit 31 bits (at stream_id)",
      { flags: nil } => "nil does not fit u8 (at flags)",
      { length: 4 } => "the payload has 5 bytes, length says 4 (at data)",
      { data: 5 } => "Integer is not a String or a Wirebind::Buffer (at data)"
    }
    cases.each do |change, message|
      frame = Frame.new(**{ type: 0, flags: 0, reserved: 0, stream_id: 1, data: "hello" }.merge(change))
      error = assert_raises(Wirebind::EncodeError) { Wirebind::Binary.encode(frame, into: buffer) }
      assert_equal message, error.message
      assert_equal 0, buffer.length
    end
    assert_raises(Wirebind::Buffer::ReadOnlyError) do
      Wirebind::Binary.encode(Frame.new(type: 0, flags: 0, reserved: 0, stream_id: 1), into: Wirebind::Buffer.read_only("x"))
    end
  end

  def test_schema_errors
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; binary { field :x, :u12 } } }
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; binary { bits :x, 3 } } }
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; binary { payload :x, length: :nope } } }
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; binary { payload :x; field :y, :u8 } } }
    assert_raises(Wirebind::SchemaError) do
      Class.new { include Wirebind::Model; attribute :x, :string; binary { field :x, :u8 } }
    end
    assert_raises(ArgumentError) { Wirebind::Binary.decode(FRAME, String) }
  end

  def test_decode_into_an_existing_record_allocates_nothing_without_a_payload
    header = Class.new do
      include Wirebind::Model
      attribute :note, :string
      binary { field :length, :u24; field :type, :u8 }
    end
    record = header.new(note: "kept")
    bytes = Wirebind::Buffer.read_only("\x00\x01\x00\x07".b)
    assert_same record, Wirebind::Binary.decode(bytes, header, into: record)
    assert_equal [256, 7, "kept"], [record.length, record.type, record.note]
    # (rbs test's method hooks allocate on every call they check)
    if Wirebind.backend == :native && !defined?(RBS::Test::Observer)
      Wirebind::Binary.decode(bytes, header, into: record)
      before = GC.stat(:total_allocated_objects)
      1000.times { Wirebind::Binary.decode(bytes, header, into: record) }
      assert_operator GC.stat(:total_allocated_objects) - before, :<, 10, "allocations per decode, not per run"
    end
    assert_raises(Wirebind::ParseError) { Wirebind::Binary.decode("\x00".b, header, into: record) }
    assert_equal 256, record.length
    assert_raises(TypeError) { Wirebind::Binary.decode(bytes, header, into: "x") }
  end

  def test_subclasses_inherit_the_layout
    sub = Class.new(Frame) { attribute :extra, :string }
    record = Wirebind::Binary.decode(FRAME, sub)
    assert_instance_of sub, record
    assert_nil record.extra
    assert_equal 3, record.stream_id
  end

  # A model's values are its instance variables (what decoding sets), on both
  # backends: readers overridden in a subclass or on one record change nothing
  # written.
  def test_a_models_values_are_its_instance_variables
    overriding = Class.new(Frame) do
      def stream_id = 1234
    end
    frame = overriding.new(type: 0, flags: 1, reserved: 1, stream_id: 3, data: "hello")
    frame.define_singleton_method(:flags) { 7 }
    assert_equal FRAME, Wirebind::Binary.encode(frame).to_s
  end
end
