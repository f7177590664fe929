# frozen_string_literal: true

require_relative "json_test_support"
require "json"

# encode then decode is the identity, on randomly generated records (seeded:
# a failure prints WIREBIND_SEED to replay it), from a String and from IOs
# trickling a few bytes at a time; and the json library reads what we write.
class JSONRoundTripTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  STRING_PIECES = [
    "a", "Z", "0", " ", "\t", "\n", "\r", "\r\n", '"', "\\", "/", "\\u0041", "\\n", "{", "}", "[", "]", ",", ":",
    "null", "true", "é", "ß", "日本語", "\u00A0", "\u2028", "\u2029", "\u200B", "\uFEFF", "😀", "\u{10FFFF}",
    "\u0000", "\u0001", "\u001F", "\u007F", "\u0080", "\uFFFF", "\uD7FF", "\uE000"
  ].freeze
  MIN_TIME = Time.utc(1, 1, 1).to_i
  MAX_TIME = Time.utc(9999, 12, 31, 23, 59, 59).to_i

  def gen_string(random)
    Array.new(random.rand(0..8)) { STRING_PIECES.sample(random: random) }.join.encode(Encoding::UTF_8)
  end

  def gen_integer(random)
    case random.rand(4)
    when 0 then random.rand(-10..10)
    when 1 then random.rand(-(2**31)..(2**31))
    when 2 then random.rand(-(2**64)..(2**64))
    else random.rand(-(10**60)..(10**60))
    end
  end

  def gen_float(random)
    case random.rand(4)
    when 0 then [0.0, -0.0, Float::MAX, -Float::MIN, 5e-324, 0.1, 1e22, 1e-7, 2.0**53].sample(random: random)
    when 1 then random.rand(-1000.0..1000.0)
    else
      loop do
        value = random.bytes(8).unpack1("E")
        break value if value.finite?
      end
    end
  end

  def gen_decimal(random)
    digits = Array.new(random.rand(1..40)) { random.rand(10) }.join
    scale = random.rand(0..digits.size)
    text = scale.zero? ? digits : "#{digits[0...-scale]}.#{digits[-scale..]}"
    text = "0#{text}" if text.start_with?(".")
    exponent = random.rand(4).zero? ? "e#{random.rand(-500..500)}" : ""
    BigDecimal("#{['', '-'].sample(random: random)}#{text}#{exponent}")
  end

  def gen_time(random)
    seconds = random.rand(MIN_TIME..MAX_TIME)
    places = random.rand(0..12)
    # Seconds and nanoseconds apart: JRuby's Time.at(negative Rational) keeps a
    # negative sub-millisecond part, and is not == to the same instant read back.
    nanoseconds = places.zero? ? 0 : Rational(random.rand(10**places), 10**places) * 1_000_000_000
    case random.rand(3)
    when 0 then Time.at(seconds, nanoseconds, :nsec, in: "UTC")
    else
      minutes = random.rand(-14 * 60..14 * 60)
      Time.at(seconds, nanoseconds, :nsec, in: format("%s%02d:%02d", minutes.negative? ? "-" : "+", minutes.abs / 60, minutes.abs % 60))
    end
  end

  def gen_scalar(type, random)
    case type
    when :string then gen_string(random)
    when :integer then gen_integer(random)
    when :float then gen_float(random)
    when :decimal then gen_decimal(random)
    when :boolean then random.rand(2).zero?
    when :time then gen_time(random)
    when :date then Date.jd(random.rand(Date.new(1, 1, 1).jd..Date.new(9999, 12, 31).jd))
    when :base64 then random.bytes(random.rand(0..24)).b
    else raise ArgumentError, type.inspect
    end
  end

  def gen_record(klass, random, depth = 0)
    values = {}
    klass.attributes.each do |attribute|
      values[attribute.name] =
        if attribute.list?
          Array.new(random.rand(0..3)) { random.rand(6).zero? ? nil : gen_value(attribute.type, random, depth) }
        elsif random.rand(4).zero?
          nil
        else
          gen_value(attribute.type, random, depth)
        end
    end
    klass.new(**values)
  end

  def gen_value(type, random, depth)
    return gen_scalar(type, random) if type.is_a?(Symbol)

    depth > 3 ? type.new : gen_record(type, random, depth + 1)
  end

  MODELS = [AllTypes, AllLists, Issue, Version, Camel, OddKeys, Node, Holder, Empty].freeze

  def test_every_model_round_trips
    random = Random.new(random_seed)
    MODELS.each do |klass|
      60.times do
        record = gen_record(klass, random)
        json = JSON.encode(record)
        assert_equal_decoded record, JSON.decode(json, klass), "round trip through #{json[0, 300]}"
      end
    end
  end

  def test_round_trips_through_trickled_reads_and_streaming
    random = Random.new(random_seed)
    [AllTypes, AllLists, Issue, Holder].each do |klass|
      list = Array.new(random.rand(1..12)) { gen_record(klass, random) }
      json = JSON.encode(list)
      3.times do
        seed = random.rand(1 << 30)
        assert_equal_decoded list, JSON.decode(TrickleIO.new(json, seed: seed), [klass]), "trickled (seed #{seed})"
        streamed = []
        count = JSON.each(TrickleIO.new(json, seed: seed), klass) { |record| streamed << record }
        assert_equal list.size, count
        assert_equal_decoded list, streamed
      end
      assert_equal_decoded list, JSON.decode(ReadOnlyIO.new(json, seed: 3), [klass])
    end
  end

  def test_the_json_library_reads_what_we_write_and_we_read_what_it_writes
    random = Random.new(random_seed)
    [AllLists, Issue, Holder, OddKeys].each do |klass|
      20.times do
        # The json library reads a decimal into a Float: leave them out.
        record = without_decimals(gen_record(klass, random))
        json = JSON.encode(record)
        plain = ::JSON.parse(json)
        assert_equal plain, JSON.decode(json, :any)
        assert_equal_decoded record, JSON.decode(::JSON.generate(plain), klass)
      end
    end
  end

  def without_decimals(record)
    record.class.attributes.each do |attribute|
      value = record.public_send(attribute.name)
      if attribute.type == :decimal
        record.public_send("#{attribute.name}=", attribute.list? ? [] : nil)
      elsif attribute.model?
        Array(value).compact.each { |nested| without_decimals(nested) }
      end
    end
    record
  end

  def test_encoding_is_stable_after_one_round_trip
    random = Random.new(random_seed)
    MODELS.each do |klass|
      10.times do
        json = JSON.encode(gen_record(klass, random))
        assert_equal json, JSON.encode(JSON.decode(json, klass))
      end
    end
  end

  def test_random_plain_values_round_trip
    random = Random.new(random_seed)
    200.times do
      value = gen_plain(random, 0)
      json = JSON.encode(value)
      assert_equal_decoded value, JSON.decode(json, :any)
      assert_equal_decoded value, JSON.decode(TrickleIO.new(json, seed: random.rand(1000)), :any)
    end
  end

  def gen_plain(random, depth)
    case depth > 4 ? random.rand(5) : random.rand(7)
    when 0 then nil
    when 1 then random.rand(2).zero?
    when 2 then gen_integer(random)
    when 3 then gen_float(random)
    when 4 then gen_string(random)
    when 5 then Array.new(random.rand(0..4)) { gen_plain(random, depth + 1) }
    else Array.new(random.rand(0..4)) { [gen_string(random), gen_plain(random, depth + 1)] }.to_h
    end
  end
end
