# frozen_string_literal: true

require_relative "serializer_test_support"

# The fast paths for strings and times write exactly what the JSON writer
# writes, on random values (seed printed) and on the edge cases.
class SerializerValuesTest < Minitest::Test
  include SerializerTestSupport

  Values = Wirebind::Serializer::Values
  Writer = Wirebind::JSON::Writer

  def writes(method, value)
    Values.public_send(method, +"", value)
  rescue Wirebind::EncodeError => e
    [:error, e.message]
  end

  def written(method, value)
    Writer.public_send(method, +"", value)
  rescue Wirebind::EncodeError => e
    [:error, e.message]
  end

  def test_times_as_the_writer_writes_them
    random = Random.new(random_seed)
    offsets = ["Z", "+00:00", "+05:30", "-03:30", "+14:00", "-14:00", "+00:00:30", "+14:30", nil]
    1000.times do
      seconds = random.rand(-100_000_000_000..300_000_000_000)
      fraction = [0, random.rand(1000) * 1_000_000, random.rand(1_000_000_000), random.rand(1_000_000) * 1000].sample(random: random)
      zone = offsets.sample(random: random)
      time = zone ? Time.at(seconds, fraction, :nsec, in: zone) : Time.at(seconds, fraction, :nsec).utc
      assert_equal written(:time, time), writes(:time, time), time.inspect
    end
    [Time.at(Rational(1, 3)), Time.at(Rational(1, 2**40)), Time.utc(999, 12, 31, 23, 59, 59), Time.utc(10_000), Time.utc(1000),
     Time.utc(2014, 3, 1, 10, 0, Rational(1, 8)), Time.new(2000, 1, 1, 0, 0, 0, 3600 * 15)].each do |time|
      assert_equal written(:time, time), writes(:time, time), time.inspect
    end
    assert_equal :error, writes(:time, "2014").first
    assert_equal written(:time, "2014"), writes(:time, "2014")
  end

  def test_strings_as_the_writer_writes_them
    random = Random.new(random_seed)
    pieces = ["a", "é", "\u2028", "\u2029", "€", "—", "\"", "\\", "/", "\n", "\t", "\u0000", "\u001f", "\u007f", "🚀", "日本", " "]
    2000.times do
      string = Array.new(random.rand(0..12)) { pieces.sample(random: random) }.join
      assert_equal written(:string, string), writes(:string, string), string.inspect
      assert_equal written(:string, string), string_through_serializer(string), string.inspect
    end
    ["abc".b, "\xC3\xA9".b, "\xFF".b, "é".encode("ISO-8859-1"), "abc".encode("UTF-16LE"), :sym, 12, nil, "a\xFFb"].each do |value|
      assert_equal written(:string, value), writes(:string, value), value.inspect
    end
  end

  class Text < Wirebind::Serializer
    attributes :summary
  end

  def string_through_serializer(string)
    Text.new(Issue.new(summary: string)).to_json.delete_prefix('{"summary":').delete_suffix("}")
  end
end
