# frozen_string_literal: true

require "test_helper"
require_relative "record_test"
require_relative "../support/backend_differential"

# The C record engine against the pure codec: random records and random byte
# strings give the same record, or the same error (class, message, offset).
class BinaryRecordDifferentialTest < Minitest::Test
  include Wirebind::BackendDifferential

  def setup
    require_native_backend
  end

  # A record's values, a buffer's bytes; a Float by its bits (NaN == NaN is
  # false, and a NaN's payload must survive too).
  VALUE = lambda do |value|
    next value.to_s if value.respond_to?(:get_u8)

    value.to_h.transform_values do |v|
      if v.respond_to?(:get_u8) then v.to_s
      elsif v.is_a?(Float) then [v].pack("G")
      else v
      end
    end
  end

  def test_random_bytes_decode_alike
    random = Random.new(random_seed)
    [BinaryRecordTest::Frame, BinaryRecordTest::Mixed].each do |model|
      plan = Wirebind::Binary::Plan.for(model)
      2000.times do
        bytes = random.bytes(random.rand(48))
        bytes.setbyte(2, random.rand(20)) if bytes.bytesize > 2 && model == BinaryRecordTest::Frame
        offset = random.rand(4)
        agree(bytes, "#{model} at #{offset}", shape: VALUE, errors: [Wirebind::Error]) do |input, backend|
          if backend == :native
            Wirebind::Binary.decode(input, model, offset: offset)
          else
            plan.codec.decode(Wirebind::Binary::Pure::Buffer.read_only(input), offset)
          end
        end
      end
    end
  end

  def test_random_records_encode_alike
    random = Random.new(random_seed)
    plan = Wirebind::Binary::Plan.for(BinaryRecordTest::Frame)
    values = [nil, 0, 1, -1, 255, 256, 2**24, 2**31 - 1, 2**31, 2**40, "x", 1.5]
    2000.times do
      frame = BinaryRecordTest::Frame.new(length: [nil, 5, 4].sample(random: random),
                                          type: values.sample(random: random), flags: values.sample(random: random),
                                          reserved: [0, 1, 2].sample(random: random), stream_id: values.sample(random: random),
                                          data: [nil, "hello", 7, Wirebind::Buffer.read_only("hello")].sample(random: random))
      agree(frame, "encode", shape: VALUE, errors: [Wirebind::Error]) do |input, backend|
        backend == :native ? Wirebind::Binary.encode(input) : plan.codec.encode(input, Wirebind::Binary::Pure::Buffer.new)
      end
    end
  end
end
