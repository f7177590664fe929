# frozen_string_literal: true

require_relative "xml_test_support"
require_relative "../support/round_trip"

# encode then decode is the identity, on randomly generated records (seeded:
# a failure prints WIREBIND_SEED to replay it), on every backend loaded
# (test/support/round_trip.rb).
class XMLRoundTripTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels
  include Wirebind::RoundTrip

  FORMAT = XML_FORMAT

  def record(klass, random) = gen_record(klass, random, FORMAT)

  MODELS = [AllTypes, AllTypesAttrs, AllLists, Issue, Version, Wrapped, Holder, Node, Price, Note, Order, Widget, Nillable].freeze

  def test_every_model_round_trips
    random = Random.new(random_seed)
    MODELS.each do |klass|
      60.times { assert_round_trip(record(klass, random), FORMAT) }
    end
  end

  def test_round_trips_with_nil_xsi
    random = Random.new(random_seed)
    MODELS.each do |klass|
      25.times { assert_round_trip(record(klass, random), FORMAT, nil: :xsi) }
    end
  end

  def test_round_trips_with_a_declaration_and_another_root_name
    random = Random.new(random_seed)
    [Issue, AllTypes, Holder].each do |klass|
      20.times { assert_round_trip(record(klass, random), FORMAT, declaration: true, root: "x-#{random.rand(100)}") }
    end
  end

  def test_round_trips_through_io_and_trickled_reads
    random = Random.new(random_seed)
    [Issue, AllTypesAttrs, AllLists, Wrapped, Order].each do |klass|
      15.times do
        value = record(klass, random)
        io = StringIO.new
        XML.encode(value, io: io)
        decoded = XML.decode(TrickleIO.new(io.string, seed: random.rand(1 << 30)), klass)

        assert_equal_decoded value, decoded, io.string[0, 300]
      end
    end
  end

  def test_lists_round_trip
    random = Random.new(random_seed)
    [Issue, AllTypes, Price, Node].each do |klass|
      10.times do
        list = Array.new(random.rand(0..8)) { record(klass, random) }
        xml = assert_round_trip(list, FORMAT, type: [klass], root: "list", item: "entry")

        assert_equal_decoded list, XML.decode(xml, [klass], at: "list/entry")
        streamed = []
        assert_equal list.size, XML.each(TrickleIO.new(xml, seed: random.rand(1000)), klass, at: "list/*") { |r| streamed << r }
        assert_equal_decoded list, streamed
      end
    end
  end

  def test_lists_with_default_item_names_round_trip
    random = Random.new(random_seed)
    list = Array.new(5) { record(Issue, random) }
    xml = assert_round_trip(list, FORMAT, type: [Issue], root: "issues")

    assert_equal_decoded list, XML.decode(xml, [Issue], at: "issues/Issue")
  end

  def test_encoding_is_stable_after_one_round_trip
    random = Random.new(random_seed)
    MODELS.each do |klass|
      10.times { assert_stable_encoding(record(klass, random), FORMAT) }
    end
  end

  def test_long_values_across_chunk_boundaries
    random = Random.new(random_seed)
    long = Array.new(30_000) { FORMAT.string_pieces.sample(random: random) }.join
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
