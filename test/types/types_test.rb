# frozen_string_literal: true

require "test_helper"

module TypesTestHelpers
  Types = Wirebind::Types

  def parse(type, text)
    Types.from_xml_text(type, text)
  end

  def write(type, value)
    Types.to_xml_text(type, value)
  end

  def assert_invalid_text(type, text, message = nil)
    error = assert_raises(Types::InvalidValue, "#{text.inspect} is not a valid #{type}") { parse(type, text) }
    assert_equal message, error.message if message
    error
  end

  def assert_invalid_value(type, value, message = nil)
    error = assert_raises(Types::InvalidValue, "#{value.inspect} cannot be written as #{type}") { write(type, value) }
    assert_equal message, error.message if message
    error
  end

  def assert_round_trip(type, value)
    text = write(type, value)
    back = parse(type, text)
    assert_equal value, back, "#{type} #{value.inspect} -> #{text.inspect} -> #{back.inspect}"
    back
  end
end

class TypesDispatchTest < Minitest::Test
  include TypesTestHelpers

  def test_scalars
    assert_equal %i[string integer float decimal boolean time date base64], Types::SCALARS
    assert_predicate Types::SCALARS, :frozen?
  end

  def test_invalid_value_is_not_a_wirebind_error
    assert_operator Types::InvalidValue, :<, StandardError
    refute_operator Types::InvalidValue, :<, Wirebind::Error
  end

  def test_unknown_types_are_argument_errors
    assert_raises(ArgumentError) { parse(:int, "1") }
    assert_raises(ArgumentError) { write(:int, 1) }
    assert_raises(ArgumentError) { parse(String, "1") }
  end

  def test_long_values_are_cut_short_in_messages
    error = assert_invalid_text(:integer, "x" * 10_000)

    assert_operator error.message.length, :<, 150
    assert_match(/\Aexpected an integer, got "x{60}"\.\.\. \(10000 characters\)\z/, error.message)
    error = assert_invalid_value(:integer, "y" * 10_000)
    assert_operator error.message.length, :<, 150
  end

  def test_text_in_a_broken_encoding_is_an_invalid_value
    error = assert_invalid_text(:integer, "12\xFF".dup.force_encoding(Encoding::UTF_8))
    assert_match(/\Aexpected an integer, got text that is not valid UTF-8: "12\\xFF"\z/, error.message)
    assert_invalid_text(:time, "2021".encode(Encoding::UTF_16LE))
  end

  def test_whitespace_around_is_collapsed_for_every_type_but_string
    {
      integer: 12, float: 1.5, decimal: BigDecimal("1.5"), boolean: true,
      time: Time.utc(2021, 3, 4, 5, 6, 7), date: Date.new(2021, 3, 4), base64: "Hi".b
    }.each do |type, value|
      text = write(type, value)
      assert_equal value, parse(type, " \t\r\n#{text}\n\t \r"), type.to_s
      assert_equal value, parse(type, "#{text} "), type.to_s
      assert_equal value, parse(type, "\n#{text}"), type.to_s
      # Form feed, vertical tab and NUL are not XML whitespace.
      ["\f", "\v", "\0"].each { |other| assert_invalid_text(type, "#{other}#{text}") }
      next if type == :base64

      assert_invalid_text(type, "")
      assert_invalid_text(type, " \t\r\n")
    end
    assert_equal "", parse(:base64, " \t\r\n"), "empty base64 is empty data"
  end
end

class StringTypeTest < Minitest::Test
  include TypesTestHelpers

  def test_text_is_returned_as_is
    text = +" a  b \n"

    assert_same text, parse(:string, text)
    assert_equal "", parse(:string, "")
  end

  def test_writes_strings_and_symbols
    text = "x"

    assert_same text, write(:string, text)
    assert_equal "sym", write(:string, :sym)
    assert_invalid_value(:string, 1, "expected a String or Symbol for :string, got Integer 1")
    assert_invalid_value(:string, nil, "expected a String or Symbol for :string, got nil")
  end
end

class IntegerTypeTest < Minitest::Test
  include TypesTestHelpers

  def test_valid
    assert_equal 0, parse(:integer, "0")
    assert_equal 0, parse(:integer, "-0")
    assert_equal 12, parse(:integer, "+12")
    assert_equal(-12, parse(:integer, "-12"))
    assert_equal 7, parse(:integer, "007")
    assert_equal 10**40, parse(:integer, "1#{'0' * 40}")
    assert_equal(-(2**70), parse(:integer, (-(2**70)).to_s))
  end

  def test_invalid
    assert_invalid_text(:integer, "many", 'expected an integer, got "many"')
    ["1.0", "1e3", "1_000", "12a", "0x1A", "- 1", "1 2", "+", "-", "١٢", "１２", "++1", "1,000"].each do |text|
      assert_invalid_text(:integer, text)
    end
  end

  def test_write
    assert_equal "0", write(:integer, 0)
    assert_equal "-42", write(:integer, -42)
    assert_equal (2**100).to_s, write(:integer, 2**100)
    assert_invalid_value(:integer, "x", 'expected an Integer for :integer, got String "x"')
    assert_invalid_value(:integer, 1.0, "expected an Integer for :integer, got Float 1.0")
  end

  def test_round_trip
    random = Random.new(random_seed)
    500.times do
      assert_round_trip(:integer, random.rand(-(2**80)..(2**80)))
    end
  end
end

class FloatTypeTest < Minitest::Test
  include TypesTestHelpers

  FloatType = Wirebind::Types::FloatType

  def test_valid_forms
    {
      "1.5" => 1.5, "-1.5" => -1.5, "+1.5" => 1.5, "1" => 1.0, "1." => 1.0, ".5" => 0.5, "-.5" => -0.5,
      "1e5" => 100_000.0, "1E5" => 100_000.0, "1.e5" => 100_000.0, ".5e1" => 5.0, "1.5E-3" => 0.0015,
      "00012.500" => 12.5, "1e+2" => 100.0, "0.1" => 0.1, "1.7976931348623157e308" => Float::MAX,
      "2.2250738585072014e-308" => Float::MIN
    }.each do |text, value|
      assert_equal value, parse(:float, text), text
    end
  end

  def test_special_values
    assert_equal Float::INFINITY, parse(:float, "INF")
    assert_equal Float::INFINITY, parse(:float, "+INF")
    assert_equal(-Float::INFINITY, parse(:float, "-INF"))
    assert_predicate parse(:float, "NaN"), :nan?
    assert_predicate parse(:float, " NaN "), :nan?
  end

  def test_signed_zero
    assert_predicate parse(:float, "-0.0"), :zero?
    assert_equal(-Float::INFINITY, 1 / parse(:float, "-0.0"))
    assert_equal(-Float::INFINITY, 1 / parse(:float, "-0e999"))
    assert_equal Float::INFINITY, 1 / parse(:float, "0.000")
  end

  def test_invalid
    assert_invalid_text(:float, "abc", 'expected a double (like 1.5, -2E10, INF, -INF or NaN), got "abc"')
    ["inf", "Infinity", "-Infinity", "nan", "NAN", "-NaN", "+NaN", "1e", "e5", ".", "+", "-", "1.5.5", "0x10",
     "1_0", "1,5", "1e5.5", "1 e5", "- 1", "1d5", "١"].each do |text|
      assert_invalid_text(:float, text)
    end
  end

  def test_overflow_and_underflow_round_without_warnings
    assert_equal Float::INFINITY, parse(:float, "1e400")
    assert_equal(-Float::INFINITY, parse(:float, "-1e400"))
    assert_equal Float::INFINITY, parse(:float, "1e99999999999999999999")
    assert_equal 0.0, parse(:float, "1e-400")
    assert_equal(-Float::INFINITY, 1 / parse(:float, "-1e-400"))
    assert_equal 0.0, parse(:float, "1e-99999999999999999999")
    assert_equal Float::INFINITY, parse(:float, "1#{'0' * 400}")
    assert_equal 0.0, parse(:float, "0.#{'0' * 400}1")
  end

  def test_extremes_round_to_nearest_ties_to_even
    min_subnormal = 5e-324
    half_min = exact_decimal(Rational(1, 2**1075))
    assert_equal 0.0, parse(:float, half_min), "a tie rounds to the even zero"
    assert_equal min_subnormal, parse(:float, "#{half_min}1")
    assert_equal min_subnormal, parse(:float, "4.9e-324")
    assert_equal 0.0, parse(:float, "2.4e-324")

    overflow_tie = (2**1024) - (2**970)
    assert_equal Float::INFINITY, parse(:float, overflow_tie.to_s)
    assert_equal Float::MAX, parse(:float, (overflow_tie - 1).to_s)
    assert_equal Float::MAX, parse(:float, "1.7976931348623158e308")
  end

  def test_long_texts_are_read_exactly
    random = Random.new(random_seed)
    200.times do
      lower = random.rand * (10.0**random.rand(-300..300))
      upper = lower.next_float
      # Rational(float): JRuby's Float#to_r is an Integer for a whole float past 2**52.
      midpoint = (Rational(lower) + Rational(upper)) / 2
      tie = exact_decimal(midpoint)
      # lower / ulp is lower's significand: its parity says which neighbour is even.
      even = (Rational(lower) / (Rational(upper) - Rational(lower))).to_i.even? ? lower : upper

      assert_equal even, parse(:float, tie), tie
      assert_equal upper, parse(:float, "#{tie}#{'0' * 50}1"), "just above #{tie}"
      assert_equal lower, parse(:float, exact_decimal(midpoint - Rational(1, midpoint.denominator * 1024))), "just below #{tie}"
    end
  end

  def test_fast_and_exact_paths_agree
    random = Random.new(random_seed)
    3_000.times do
      digits = Array.new(random.rand(1..20)) { random.rand(10) }.join
      exponent = random.rand(-(FloatType::EXACT_EXPONENT_LIMIT + 20)..FloatType::EXACT_EXPONENT_LIMIT)
      point = random.rand(0..digits.length)
      text = "#{digits[0, point]}.#{digits[point..]}e#{exponent}".sub(/\A\./, "0.").sub(/\.e/, ".0e")
      significant = digits.sub(/\A0+/, "")
      expected = significant.empty? ? 0.0 : FloatType.nearest(significant.to_i, exponent - (digits.length - point))

      assert_equal expected, parse(:float, text), text
    end
  end

  def test_write
    assert_equal "1.5", write(:float, 1.5)
    assert_equal "1.0e+20", write(:float, 1e20)
    assert_equal "1.0e-05", write(:float, 1e-5)
    assert_equal "-0.0", write(:float, -0.0)
    assert_equal "INF", write(:float, Float::INFINITY)
    assert_equal "-INF", write(:float, -Float::INFINITY)
    assert_equal "NaN", write(:float, Float::NAN)
    assert_equal "3.0", write(:float, 3)
    assert_invalid_value(:float, 10**400)
    assert_invalid_value(:float, "1.5", 'expected a Float or Integer for :float, got String "1.5"')
    assert_invalid_value(:float, BigDecimal("1.5"))
  end

  def test_written_specials_read_back
    assert_equal(-Float::INFINITY, parse(:float, write(:float, -Float::INFINITY)))
    assert_predicate parse(:float, write(:float, Float::NAN)), :nan?
    assert_equal(-Float::INFINITY, 1 / parse(:float, write(:float, -0.0)))
  end

  def test_round_trip_of_random_doubles
    random = Random.new(random_seed)
    2_000.times do
      value = [random.rand(2**64)].pack("Q").unpack1("D")
      next if value.nan?

      assert_round_trip(:float, value)
    end
  end

  private

  # The exact decimal text of a Rational whose denominator is a power of two.
  def exact_decimal(rational)
    places = rational.denominator.bit_length - 1
    digits = (rational * (10**places)).to_i.to_s.rjust(places + 1, "0")
    places.zero? ? "#{digits}.0" : "#{digits[0...-places]}.#{digits[-places..]}"
  end
end

class DecimalTypeTest < Minitest::Test
  include TypesTestHelpers

  def test_valid
    {
      "12" => "12", "-0.5" => "-0.5", "+.5" => "0.5", ".5" => "0.5", "12." => "12", "007.100" => "7.1",
      "-0" => "0", "0.00000000000000000001" => "1e-20"
    }.each do |text, value|
      parsed = parse(:decimal, text)
      assert_instance_of BigDecimal, parsed
      assert_equal BigDecimal(value), parsed, text
    end
  end

  def test_precision_is_exact
    text = "123456789012345678901234567890.123456789012345678901234567891"

    assert_equal text, parse(:decimal, text).to_s("F")
  end

  def test_invalid
    assert_invalid_text(:decimal, "1e5", 'expected a decimal number (like 12, -0.5 or 3.25), got "1e5"')
    ["INF", "NaN", "Infinity", ".", "+", "1.2.3", "1,5", "0x1", "1_0", "- 1", "1 .5", "١"].each do |text|
      assert_invalid_text(:decimal, text)
    end
  end

  def test_write
    assert_equal "1.5", write(:decimal, BigDecimal("1.50"))
    assert_equal "-0.0", write(:decimal, BigDecimal("-0"))
    assert_equal "0.00000000000000000001", write(:decimal, BigDecimal("1e-20"))
    assert_equal "100.0", write(:decimal, BigDecimal("1e2"))
    assert_equal "42", write(:decimal, 42)
    assert_equal "0.375", write(:decimal, Rational(3, 8))
    assert_equal "-0.25", write(:decimal, Rational(-1, 4))
    assert_equal "5", write(:decimal, Rational(5))
    assert_equal "0.0000000001", write(:decimal, Rational(1, 10**10))
    assert_invalid_value(:decimal, Rational(1, 3), "cannot write Rational (1/3) as a decimal: it has no finite decimal form")
    assert_invalid_value(:decimal, BigDecimal("NaN"))
    assert_invalid_value(:decimal, BigDecimal("Infinity"))
    assert_invalid_value(:decimal, 1.5, "expected a BigDecimal, Integer or Rational for :decimal, got Float 1.5")
  end

  def test_rationals_read_back_equal
    [Rational(3, 8), Rational(-7, 1250), Rational(10**30 + 1, 2**40)].each do |value|
      # #to_r: JRuby compares BigDecimal == Rational at limited precision.
      assert_equal value, parse(:decimal, write(:decimal, value)).to_r
    end
  end

  def test_round_trip
    random = Random.new(random_seed)
    500.times do
      digits = random.rand(10**random.rand(1..40))
      value = BigDecimal(digits) / (10**random.rand(0..30)) * (random.rand(2).zero? ? 1 : -1)
      assert_round_trip(:decimal, value)
    end
  end
end

class BooleanTypeTest < Minitest::Test
  include TypesTestHelpers

  def test_valid
    assert_equal true, parse(:boolean, "true")
    assert_equal true, parse(:boolean, "1")
    assert_equal false, parse(:boolean, "false")
    assert_equal false, parse(:boolean, "0")
    assert_equal false, parse(:boolean, " false\n")
  end

  def test_invalid
    assert_invalid_text(:boolean, "yes", 'expected a boolean (true, false, 1 or 0), got "yes"')
    %w[TRUE True FALSE t f 2 -1 01 00 truee].each { |text| assert_invalid_text(:boolean, text) }
  end

  def test_write_and_round_trip
    assert_equal "true", write(:boolean, true)
    assert_equal "false", write(:boolean, false)
    assert_round_trip(:boolean, true)
    assert_round_trip(:boolean, false)
    assert_invalid_value(:boolean, nil, "expected true or false for :boolean, got nil")
    assert_invalid_value(:boolean, "true")
    assert_invalid_value(:boolean, 1)
  end
end

class TimeTypeTest < Minitest::Test
  include TypesTestHelpers

  def test_utc_forms
    time = parse(:time, "2021-03-04T05:06:07Z")

    assert_equal Time.utc(2021, 3, 4, 5, 6, 7), time
    assert_predicate time, :utc?
    assert_predicate parse(:time, "2021-03-04T05:06:07"), :utc?, "no zone reads as UTC"
    assert_equal time, parse(:time, "2021-03-04T05:06:07")
  end

  def test_offsets_are_kept
    time = parse(:time, "2021-03-04T05:06:07+05:30")

    assert_equal 19_800, time.utc_offset
    refute_predicate time, :utc?
    assert_equal Time.utc(2021, 3, 3, 23, 36, 7), time
    assert_equal(-36_000, parse(:time, "2021-03-04T05:06:07-10:00").utc_offset)
    assert_equal 50_400, parse(:time, "2021-03-04T05:06:07+14:00").utc_offset
    assert_equal(-50_400, parse(:time, "2021-03-04T05:06:07-14:00").utc_offset)
  end

  def test_a_zero_offset_is_kept_apart_from_utc
    skip_on_jruby "a Time made with in: 0 (\"+00:00\", \"-00:00\") is a UTC time"
    minus_zero = parse(:time, "2021-03-04T05:06:07-00:00")

    assert_equal 0, minus_zero.utc_offset
    refute_predicate minus_zero, :utc?
  end

  def test_fractional_seconds_are_exact
    assert_equal Rational(1, 2), parse(:time, "2021-03-04T05:06:07.5Z").subsec
    assert_equal Rational(123, 1000), parse(:time, "2021-03-04T05:06:07.123+01:00").subsec
    assert_equal 0, parse(:time, "2021-03-04T05:06:07.000Z").subsec
    assert_equal Rational(1, 10), parse(:time, "2021-03-04T05:06:07.1").subsec
  end

  def test_fractional_seconds_finer_than_a_nanosecond_are_exact
    skip_on_jruby "Time keeps whole nanoseconds: finer fractions of a second are cut"
    assert_equal Rational(123_456_789_123_456_789, 10**18), parse(:time, "2021-03-04T05:06:07.123456789123456789Z").subsec
  end

  def test_hour_24_is_the_next_midnight
    assert_equal Time.utc(2021, 3, 1), parse(:time, "2021-02-28T24:00:00Z")
    assert_equal Time.utc(2022, 1, 1), parse(:time, "2021-12-31T24:00:00.000")
    after = parse(:time, "2021-02-28T24:00:00+02:00")
    assert_equal Time.new(2021, 3, 1, 0, 0, 0, "+02:00"), after
    assert_equal 7200, after.utc_offset
    assert_invalid_text(:time, "2021-02-28T24:00:01Z")
    assert_invalid_text(:time, "2021-02-28T24:01:00Z")
    assert_invalid_text(:time, "2021-02-28T24:00:00.5Z")
  end

  def test_calendar_is_checked
    assert_equal 29, parse(:time, "2000-02-29T00:00:00Z").day
    assert_equal 29, parse(:time, "2024-02-29T00:00:00Z").day
    assert_invalid_text(:time, "1900-02-29T00:00:00Z",
                        "expected a date-time (YYYY-MM-DDThh:mm:ss with optional .fraction and Z or +hh:mm), " \
                        'got "1900-02-29T00:00:00Z" (1900-02 has days 1 to 28)')
    assert_match(/\(2021-04 has days 1 to 30\)\z/, assert_invalid_text(:time, "2021-04-31T00:00:00Z").message)
    %w[
      2021-02-29T00:00:00Z 2021-04-31T00:00:00Z 2021-13-01T00:00:00Z 2021-00-01T00:00:00Z 2021-01-00T00:00:00Z
      2021-01-32T00:00:00Z 2021-01-01T25:00:00Z 2021-01-01T00:60:00Z 2021-01-01T00:00:60Z
      2021-01-01T00:00:00+14:01 2021-01-01T00:00:00-15:00 2021-01-01T00:00:00+05:60
    ].each { |text| assert_invalid_text(:time, text) }
  end

  def test_range_messages_say_what_is_wrong
    {
      "2021-13-01T00:00:00Z" => "there is no month 13",
      "2021-01-01T00:60:00Z" => "there is no minute 60",
      "2021-01-01T00:00:60Z" => "there is no second 60",
      "2021-01-01T25:00:00Z" => "there is no hour 25 (24 only as 24:00:00)",
      "2021-01-01T00:00:00+15:00" => "a time zone offset lies between -14:00 and +14:00"
    }.each do |text, reason|
      error = assert_invalid_text(:time, text)
      assert error.message.end_with?("(#{reason})"), error.message
    end
  end

  def test_years
    assert_equal 0, parse(:time, "0000-01-01T00:00:00Z").year
    assert_equal(-1, parse(:time, "-0001-01-01T00:00:00Z").year)
    assert_equal 12_345, parse(:time, "12345-01-01T00:00:00Z").year
    assert_equal 29, parse(:time, "-0004-02-29T00:00:00Z").day, "4 BCE (year -4) is a leap year"
    assert_equal 29, parse(:time, "0000-02-29T00:00:00Z").day, "1 BCE (year 0) is a leap year"

    assert_match(/\(-0000 is not a year\)\z/, assert_invalid_text(:time, "-0000-01-01T00:00:00Z").message)
    assert_match(/\(a year of more than four digits must not start with 0\)\z/,
                 assert_invalid_text(:time, "02021-01-01T00:00:00Z").message)
    assert_match(/\(years of more than 9 digits are not supported\)\z/,
                 assert_invalid_text(:time, "1000000000-01-01T00:00:00Z").message)
    assert_invalid_text(:time, "999-01-01T00:00:00Z")
    assert_invalid_text(:time, "+2021-01-01T00:00:00Z")
  end

  def test_shape_is_strict
    %w[
      2021-03-04 2021-03-04T05:06 2021-3-04T05:06:07Z 2021-03-04t05:06:07Z 2021-03-04T05:06:07z
      2021-03-04T5:06:07Z 2021-03-04T05:06:07.Z 2021-03-04T05:06:07+0530 2021-03-04T05:06:07+05
      2021-03-04T05:06:07UTC 2021-03-04T05:06:07Z+01:00 2021-03-04T05:06:07,5Z ２０２１-03-04T05:06:07Z
    ].each { |text| assert_invalid_text(:time, text) }
    assert_invalid_text(:time, "2021-03-04 05:06:07Z")
    assert_invalid_text(:time, "2021-03-04T05:06:07 Z")
  end

  def test_write
    assert_equal "2021-03-04T05:06:07Z", write(:time, Time.utc(2021, 3, 4, 5, 6, 7))
    assert_equal "2021-03-04T05:06:07.125Z", write(:time, Time.utc(2021, 3, 4, 5, 6, Rational(57, 8)))
    assert_equal "2021-03-04T05:06:07.000000001Z", write(:time, Time.utc(2021, 3, 4, 5, 6, 7) + Rational(1, 10**9))
    assert_equal "2021-03-04T05:06:07.5+05:30", write(:time, Time.new(2021, 3, 4, 5, 6, 7.5, "+05:30"))
    assert_equal "2021-03-04T05:06:07-03:00", write(:time, Time.new(2021, 3, 4, 5, 6, 7, "-03:00"))
    assert_equal "2021-03-04T05:06:07+00:00", write(:time, Time.new(2021, 3, 4, 5, 6, 7, "+00:00"))
    assert_equal "0999-01-01T00:00:00Z", write(:time, Time.utc(999))
    assert_equal "-0001-01-01T00:00:00Z", write(:time, Time.utc(-1))
    assert_equal "12345-01-01T00:00:00Z", write(:time, Time.utc(12_345))
  end

  def test_offsets_xml_cannot_write_become_utc
    local_mean_time = Time.new(2021, 3, 4, 5, 6, 7, 3 * 3600 + 61)

    assert_equal "2021-03-04T02:05:06Z", write(:time, local_mean_time)
    assert_equal local_mean_time, parse(:time, write(:time, local_mean_time))
  end

  def test_nine_digit_years
    skip_on_jruby "Time wraps years past 292278993 (Joda-Time's range): year 999999999 reads as -169108099"
    assert_equal 999_999_999, parse(:time, "999999999-12-31T23:59:59Z").year
    assert_invalid_value(:time, Time.utc(10**9))
  end

  def test_write_refuses_a_fraction_with_no_decimal_form
    skip_on_jruby %(Time keeps whole nanoseconds: Time.at(Rational(1, 3)) is 0.333333333 s there)
    assert_match(%r{its fraction of a second, 1/3, has no finite decimal form\z},
                 assert_invalid_value(:time, Time.at(Rational(1, 3)).utc).message)
  end

  def test_write_refuses_what_it_cannot_write
    assert_match(/\Aexpected a Time for :time, got Date #<Date: 2021-01-01 /,
                 assert_invalid_value(:time, Date.new(2021, 1, 1)).message)
    assert_invalid_value(:time, DateTime.new(2021, 1, 1))
    assert_invalid_value(:time, "2021-01-01T00:00:00Z")
  end

  def test_round_trip_keeps_instant_offset_and_fraction
    random = Random.new(random_seed)
    1_000.times do
      seconds = random.rand(-(2**36)..(2**36))
      # Apart from the seconds: JRuby's Time.at(negative Rational) keeps a negative
      # sub-millisecond part, and is not == to the same instant read back.
      nanoseconds = fraction(random) * 1_000_000_000
      offset = random.rand(-14 * 60..14 * 60) * 60
      time = random.rand(4).zero? ? Time.at(seconds, nanoseconds, :nsec).utc : Time.at(seconds, nanoseconds, :nsec, in: offset)
      next unless time.year.between?(-9999, 99_999)

      back = assert_round_trip(:time, time)
      assert_equal time.utc_offset, back.utc_offset
      assert_equal time.utc?, back.utc?
      assert_equal time.subsec, back.subsec
    end
  end

  def test_round_trip_of_now
    now = Time.now

    assert_equal now, parse(:time, write(:time, now))
    assert_equal now.utc_offset, parse(:time, write(:time, now)).utc_offset
  end

  private

  def fraction(random)
    case random.rand(4)
    when 0 then 0
    when 1 then Rational(random.rand(10**9), 10**9)
    when 2 then Rational(random.rand(10**6), 10**6)
    else Rational(random.rand(2**40), 2**random.rand(1..40)) % 1
    end
  end
end

class DateTypeTest < Minitest::Test
  include TypesTestHelpers

  def test_valid
    assert_equal Date.new(2021, 3, 4), parse(:date, "2021-03-04")
    assert_instance_of Date, parse(:date, "2021-03-04")
    assert_equal Date.new(2021, 3, 4), parse(:date, "2021-03-04Z")
    assert_equal Date.new(2021, 3, 4), parse(:date, "2021-03-04+05:00")
    assert_equal Date.new(2021, 3, 4), parse(:date, "2021-03-04-14:00")
    assert_equal Date.new(2000, 2, 29), parse(:date, "2000-02-29")
    assert_equal Date.new(-1, 1, 1, Date::GREGORIAN), parse(:date, "-0001-01-01")
    assert_equal Date.new(12_345, 6, 7), parse(:date, "12345-06-07")
  end

  def test_the_calendar_is_proleptic_gregorian
    date = parse(:date, "1500-03-01")

    assert_equal Date.new(1500, 3, 1, Date::GREGORIAN).jd, date.jd
    assert_equal [1500, 3, 1], [date.year, date.month, date.day]
    assert_equal 29, parse(:date, "1600-02-29").day
    assert_invalid_text(:date, "1500-02-29")
    assert_equal Date.new(1582, 10, 10, Date::GREGORIAN), parse(:date, "1582-10-10")
  end

  def test_invalid
    assert_invalid_text(:date, "2021-02-29", 'expected a date (YYYY-MM-DD), got "2021-02-29" (2021-02 has days 1 to 28)')
    %w[
      2021-13-01 2021-00-10 2021-01-00 2021-1-1 21-01-01 2021/01/01 2021-01-01T00:00:00Z 2021-01-01+15:00
      2021-01-01+05:60 2021-01-01z 2021-01-01+0500 -0000-01-01 02021-01-01
    ].each { |text| assert_invalid_text(:date, text) }
  end

  def test_write
    assert_equal "2021-03-04", write(:date, Date.new(2021, 3, 4))
    assert_equal "0001-01-01", write(:date, Date.new(1, 1, 1, Date::GREGORIAN))
    assert_equal "-0044-03-15", write(:date, Date.new(-44, 3, 15, Date::GREGORIAN))
    assert_equal "1500-01-10", write(:date, Date.new(1500, 1, 1)), "a Julian date is written in the Gregorian calendar"
    assert_invalid_value(:date, Time.utc(2021), "expected a Date (not a DateTime or Time) for :date, got Time 2021-01-01 00:00:00 UTC")
    assert_invalid_value(:date, DateTime.new(2021, 1, 1))
    assert_invalid_value(:date, "2021-01-01")
  end

  def test_julian_dates_read_back_equal
    julian = Date.new(1000, 5, 5)

    assert_predicate julian, :julian?
    assert_equal julian, parse(:date, write(:date, julian))
  end

  def test_round_trip
    random = Random.new(random_seed)
    1_000.times do
      assert_round_trip(:date, Date.jd(random.rand(-2_000_000..40_000_000)))
    end
  end
end

class Base64TypeTest < Minitest::Test
  include TypesTestHelpers

  def test_valid
    hello = parse(:base64, "SGVsbG8=")

    assert_equal "Hello", hello
    assert_equal Encoding::ASCII_8BIT, hello.encoding
    assert_equal "", parse(:base64, "")
    assert_equal "Hello", parse(:base64, "SGVs\r\n bG8=\n")
    assert_equal "Hello", parse(:base64, "S G V s b G 8 =")
    assert_equal "\xFF\xFE".b, parse(:base64, "//4=")
  end

  def test_invalid
    assert_invalid_text(:base64, "SGVsbG8", 'expected base64 data, got "SGVsbG8"')
    %w[SGVsbG8== QR== SGV$bG8= SGVsbG8=x ==== = A AB ABC ABCDE SGVsbG8-].each do |text|
      assert_invalid_text(:base64, text)
    end
    assert_invalid_text(:base64, "SGVs\fbG8=")
    assert_invalid_text(:base64, "SGVsbG8é")
  end

  def test_write
    assert_equal "SGVsbG8=", write(:base64, "Hello")
    long = write(:base64, "x" * 200)
    refute_includes long, "\n"
    assert_equal "x" * 200, parse(:base64, long)
    assert_equal "w6k=", write(:base64, "é")
    assert_invalid_value(:base64, :sym, "expected a String for :base64, got Symbol :sym")
    assert_invalid_value(:base64, nil)
  end

  def test_round_trip
    random = Random.new(random_seed)
    300.times do
      assert_round_trip(:base64, random.bytes(random.rand(0..100)))
    end
  end
end
