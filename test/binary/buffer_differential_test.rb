# frozen_string_literal: true

require "test_helper"
require_relative "../support/backend_differential"

# Random sequences of Buffer calls on the C and the Ruby buffer: the same
# values, or the same error class and message, every step.
class BufferDifferentialTest < Minitest::Test
  TYPES = %i[u8 i8 u16 i16 u24 u32 i32 u64 i64 f32 f64].freeze

  include Wirebind::BackendDifferential

  # What a call may raise on both: the buffer's errors, and Ruby's own for
  # arguments of the wrong kind or range.
  CALL_ERRORS = [Wirebind::Error, TypeError, ArgumentError].freeze
  # NaN == NaN is false: a NaN is compared as :nan.
  RESULT = ->(result) { result.is_a?(Float) && result.nan? ? :nan : result }

  def setup
    require_native_backend
  end

  def test_random_call_sequences_agree
    random = Random.new(random_seed)
    300.times do
      endian = random.rand(2).zero? ? :big : :little
      buffers = { native: Wirebind::Binary::Native::Buffer.new(endian: endian), pure: Wirebind::Binary::Pure::Buffer.new(endian: endian) }
      60.times do
        call = random_call(random)
        agree(call, call.inspect, shape: RESULT, errors: CALL_ERRORS) { |_, backend| result_of(buffers[backend], call) }
        assert_equal buffers[:pure].to_s, buffers[:native].to_s
      end
      view_string = buffers[:native].to_s
      views = { native: Wirebind::Binary::Native::Buffer.read_only(view_string), pure: Wirebind::Binary::Pure::Buffer.read_only(view_string) }
      20.times do
        call = random_call(random)
        agree(call, "#{call.inspect} on a read-only view", shape: RESULT, errors: CALL_ERRORS) { |_, backend| result_of(views[backend], call) }
      end
    end
  end

  private

  def random_value(random, type)
    case type
    when :f32 then [1.5, -0.25, 3.0e38, Float::INFINITY].sample(random: random)
    when :f64 then random.rand * 1e6 - 5e5
    else
      bits = type.to_s[1..].to_i
      [0, 1, -1, 2**bits - 1, 2**bits, -2**(bits - 1), 2**(bits - 1), random.rand(2**bits), 2**70].sample(random: random)
    end
  end

  def random_call(random)
    type = TYPES.sample(random: random)
    offset = [random.rand(40), -1, 2**64, random.rand(4)].sample(random: random)
    endian = [[], [:big], [:little]].sample(random: random)
    case random.rand(9)
    when 0, 1 then [:"append_#{type}", random_value(random, type), *endian]
    when 2, 3 then [:"get_#{type}", offset, *endian]
    when 4 then [:"set_#{type}", offset, random_value(random, type), *endian]
    when 5 then [:get_bits, random.rand(300), random.rand(66)]
    when 6 then [:set_bits, random.rand(300), random.rand(66), random.rand(2**random.rand(65))]
    when 7 then [:get_bytes, offset, random.rand(8)]
    else [:append, random.bytes(random.rand(6))]
    end
  end

  # The call's result; the buffer itself (a call that chains) by its bytes.
  def result_of(buffer, call)
    result = buffer.public_send(*call)
    result.equal?(buffer) ? result.to_s : result
  end
end
