# frozen_string_literal: true

require_relative "xml_test_support"

# encode then decode is the identity, on randomly generated records (seeded:
# a failure prints WIREBIND_SEED to replay it).
class XMLRoundTripTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  # Pieces strings are made of: markup characters, references look-alikes,
  # whitespace of every kind, line ends, unicode of every width.
  STRING_PIECES = [
    "a", "Z", "0", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\r", "<", ">", "&", '"', "'", "]]>", "]]", "]",
    "<![CDATA[", "-->", "<!--", "<?pi?>", "&amp;", "&#65;", "&lt;", "&bogus;", "=", "/", "xmlns", "xsi:nil",
    "é", "ß", "日本語", "\u00A0", "\u0085", "\u2028", "\u200B", "\u0301", "\uD7FF", "\uE000", "\uFFFD",
    "😀", "\u{10000}", "\u{10FFFF}", "\u007F", "\u0080", "\t\t\n "
  ].freeze

  MIN_TIME = Time.utc(1, 1, 1).to_i
  MAX_TIME = Time.utc(9999, 12, 31, 23, 59, 59).to_i

  def gen_string(random, max_pieces: 8)
    Array.new(random.rand(0..max_pieces)) { STRING_PIECES.sample(random: random) }.join.encode(Encoding::UTF_8)
  end

  def gen_integer(random)
    case random.rand(4)
    when 0 then random.rand(-10..10)
    when 1 then random.rand(-(2**31)..(2**31))
    when 2 then random.rand(-(2**64)..(2**64))
    else random.rand(-(10**40)..(10**40))
    end
  end

  def gen_float(random)
    case random.rand(6)
    when 0 then [0.0, -0.0, Float::INFINITY, -Float::INFINITY, Float::MAX, -Float::MIN, 5e-324, 0.1, 1e22].sample(random: random)
    when 1 then random.rand(-1000.0..1000.0)
    when 2 then random.rand(-100..100).to_f
    else
      # any finite double: random bits
      loop do
        value = [random.bytes(8)].pack("a8").unpack1("E")
        break value if value.finite?
      end
    end
  end

  def gen_decimal(random)
    digits = Array.new(random.rand(1..40)) { random.rand(10) }.join
    scale = random.rand(0..digits.size)
    text = scale.zero? ? digits : "#{digits[0...-scale]}.#{digits[-scale..]}"
    text = "0#{text}" if text.start_with?(".")
    BigDecimal("#{['', '-'].sample(random: random)}#{text}")
  end

  def gen_time(random)
    seconds = random.rand(MIN_TIME..MAX_TIME)
    places = random.rand(0..12)
    # Seconds and nanoseconds apart: JRuby's Time.at(negative Rational) keeps a
    # negative sub-millisecond part, and is not == to the same instant read back.
    nanoseconds = places.zero? ? 0 : Rational(random.rand(10**places), 10**places) * 1_000_000_000
    case random.rand(4)
    when 0 then Time.at(seconds, nanoseconds, :nsec, in: "UTC")
    when 1 then Time.at(seconds, nanoseconds, :nsec, in: "+00:00")
    else
      minutes = random.rand(-14 * 60..14 * 60)
      minutes = (minutes / 15) * 15 if random.rand(2).zero?
      Time.at(seconds, nanoseconds, :nsec, in: format("%s%02d:%02d", minutes.negative? ? "-" : "+", minutes.abs / 60, minutes.abs % 60))
    end
  end

  def gen_date(random)
    Date.jd(random.rand(Date.new(1, 1, 1).jd..Date.new(9999, 12, 31).jd))
  end

  def gen_base64(random)
    # An empty binary string is written as an empty element, which reads back as
    # nil (empty non-strings are nil): at least one byte.
    random.bytes(random.rand(1..24)).b
  end

  def gen_scalar(type, random)
    case type
    when :string then gen_string(random)
    when :integer then gen_integer(random)
    when :float then gen_float(random)
    when :decimal then gen_decimal(random)
    when :boolean then random.rand(2).zero?
    when :time then gen_time(random)
    when :date then gen_date(random)
    when :base64 then gen_base64(random)
    else raise ArgumentError, type.inspect
    end
  end

  # A random record of +klass+: each value present or nil, lists of 0..3 items,
  # some of them nil (written as xsi:nil, never dropped).
  def gen_record(klass, random, depth = 0)
    values = {}
    klass.attributes.each do |attribute|
      next if attribute.xml == "." && attribute.type == :string && (values[attribute.name] = gen_string(random))

      values[attribute.name] = if attribute.list?
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

  def assert_round_trip(record, **encode_options)
    xml = XML.encode(record, **encode_options)
    decoded = XML.decode(xml, record.class)

    assert_equal record, decoded, "round trip of #{record.inspect[0, 300]} through #{xml[0, 300]}"
    assert_equal_decoded record, decoded, "offsets or encodings changed: #{xml[0, 300]}"
    xml
  end

  MODELS = [AllTypes, AllTypesAttrs, AllLists, Issue, Version, Wrapped, Holder, Node, Price, Note, Order, Widget, Nillable].freeze

  def test_every_model_round_trips
    random = Random.new(random_seed)
    MODELS.each do |klass|
      60.times { assert_round_trip(gen_record(klass, random)) }
    end
  end

  def test_round_trips_with_nil_xsi
    random = Random.new(random_seed)
    MODELS.each do |klass|
      25.times { assert_round_trip(gen_record(klass, random), nil: :xsi) }
    end
  end

  def test_round_trips_with_a_declaration_and_another_root_name
    random = Random.new(random_seed)
    [Issue, AllTypes, Holder].each do |klass|
      20.times { assert_round_trip(gen_record(klass, random), declaration: true, root: "x-#{random.rand(100)}") }
    end
  end

  def test_round_trips_through_io_and_trickled_reads
    random = Random.new(random_seed)
    [Issue, AllTypesAttrs, AllLists, Wrapped, Order].each do |klass|
      15.times do
        record = gen_record(klass, random)
        io = StringIO.new
        XML.encode(record, io: io)
        decoded = XML.decode(TrickleIO.new(io.string, seed: random.rand(1 << 30)), klass)

        assert_equal_decoded record, decoded, io.string[0, 300]
      end
    end
  end

  def test_lists_round_trip
    random = Random.new(random_seed)
    [Issue, AllTypes, Price, Node].each do |klass|
      10.times do
        list = Array.new(random.rand(0..8)) { gen_record(klass, random) }
        xml = XML.encode(list, root: "list", item: "entry")

        assert_equal_decoded list, XML.decode(xml, [klass])
        assert_equal_decoded list, XML.decode(xml, [klass], at: "list/entry")
        streamed = []
        assert_equal list.size, XML.each(TrickleIO.new(xml, seed: random.rand(1000)), klass, at: "list/*") { |r| streamed << r }
        assert_equal_decoded list, streamed
      end
    end
  end

  def test_lists_with_default_item_names_round_trip
    random = Random.new(random_seed)
    list = Array.new(5) { gen_record(Issue, random) }
    xml = XML.encode(list, root: "issues")

    assert_equal_decoded list, XML.decode(xml, [Issue], at: "issues/Issue")
  end

  def test_encoding_is_stable_after_one_round_trip
    random = Random.new(random_seed)
    MODELS.each do |klass|
      10.times do
        xml = XML.encode(gen_record(klass, random))

        assert_equal xml, XML.encode(XML.decode(xml, klass))
      end
    end
  end

  def test_long_values_across_chunk_boundaries
    random = Random.new(random_seed)
    long = Array.new(30_000) { STRING_PIECES.sample(random: random) }.join
    record = Issue.new(key: long, lang: long[0, 5000], labels: [long[0, 70_000], "é" * 40_000])
    xml = XML.encode(record)

    assert_operator xml.bytesize, :>, 3 * 64 * 1024
    assert_equal_decoded record, XML.decode(xml, Issue)
    assert_equal_decoded record, XML.decode(StringIO.new(xml), Issue)
    assert_equal_decoded record, XML.decode(ReadOnlyIO.new(xml, max: 70_000), Issue)
  end

  def test_base64_of_large_binaries
    random = Random.new(random_seed)
    bytes = random.bytes(200_000)
    record = AllTypes.new(bin: bytes)

    assert_equal bytes, XML.decode(StringIO.new(XML.encode(record)), AllTypes).bin
  end

  def test_times_keep_every_offset
    random = Random.new(random_seed)
    (-14 * 60..14 * 60).step(random.rand(1..7)) do |minutes|
      zone = format("%s%02d:%02d", minutes.negative? ? "-" : "+", minutes.abs / 60, minutes.abs % 60)
      time = Time.at(random.rand(MIN_TIME..MAX_TIME), in: zone)
      decoded = XML.decode(XML.encode(AllTypes.new(t: time)), AllTypes).t

      assert_equal time, decoded, zone
      assert_equal minutes * 60, decoded.utc_offset, zone
    end
  end

  def test_extreme_years
    times = [Time.utc(0), Time.utc(-44, 3, 15, 12), Time.new(12_345, 6, 7, 8, 9, 10, "-05:00"), Time.utc(1582, 10, 10),
             Time.utc(-1, 12, 31, 23, 59, 59.5r), Time.new(9999, 12, 31, 23, 59, 59, "+14:00")]
    times.each do |time|
      decoded = XML.decode(XML.encode(AllTypes.new(t: time)), AllTypes).t

      assert_equal time, decoded, time.inspect
      assert_equal time.utc_offset, decoded.utc_offset, time.inspect
    end
    dates = [Date.new(-500, 1, 1), Date.new(0, 2, 29, Date::GREGORIAN), Date.new(1582, 10, 4), Date.new(1582, 10, 15),
             Date.new(1000, 1, 1), Date.new(1000, 1, 1, Date::GREGORIAN), Date.new(12_345, 1, 1)]
    dates.each do |date|
      assert_equal date, XML.decode(XML.encode(AllTypes.new(dt: date)), AllTypes).dt, "#{date.inspect} (same day, whatever calendar)"
    end
  end

  def test_times_with_offsets_xml_cannot_write_keep_the_instant
    # Local mean time offsets have seconds; xs:dateTime cannot write them.
    time = Time.at(0, in: 3723)
    decoded = XML.decode(XML.encode(AllTypes.new(t: time)), AllTypes).t

    assert_equal time, decoded
  end
end
