# frozen_string_literal: true

require "test_helper"
require_relative "record_test"

# The C record engine against the pure codec: random records and random byte
# strings give the same record, or the same error (class, message, offset).
class BinaryRecordDifferentialTest < Minitest::Test
  def setup
    skip "the native extension is not loaded" unless Wirebind.backend == :native
  end

  def outcome
    value = yield
    return value.to_s if value.respond_to?(:get_u8)

    value.to_h.transform_values do |v|
      if v.respond_to?(:get_u8) then v.to_s
      elsif v.is_a?(Float) then [v].pack("G") # NaN == NaN is false: compare the bits
      else v
      end
    end
  rescue Wirebind::Error => e
    [e.class, e.message, e.respond_to?(:offset) ? e.offset : nil]
  end

  def test_random_bytes_decode_alike
    random = Random.new(random_seed)
    [BinaryRecordTest::Frame, BinaryRecordTest::Mixed].each do |model|
      plan = Wirebind::Binary::Plan.for(model)
      2000.times do
        bytes = random.bytes(random.rand(48))
        bytes.setbyte(2, random.rand(20)) if bytes.bytesize > 2 && model == BinaryRecordTest::Frame
        offset = random.rand(4)
        native = outcome { Wirebind::Binary.decode(bytes, model, offset: offset) }
        pure = outcome { plan.codec.decode(Wirebind::Binary::Pure::Buffer.read_only(bytes), offset) }
        assert_equal pure, native, bytes.inspect
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
      native = outcome { Wirebind::Binary.encode(frame) }
      pure = outcome { plan.codec.encode(frame, Wirebind::Binary::Pure::Buffer.new) }
      assert_equal pure, native, frame.inspect
    end
  end
end
