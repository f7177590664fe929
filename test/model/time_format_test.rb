# frozen_string_literal: true

require "test_helper"

# Issue 20, item 6: :time attributes written as RFC 822 dates (RSS pubDate) or
# as seconds / milliseconds since the epoch (Stripe's "created"), in XML and
# JSON, on the backend the run selects.
class TimeFormatTest < Minitest::Test
  class Item
    include Wirebind::Model
    xml_root "item"
    attribute :title, :string
    attribute :pub_date, :time, format: :rfc822, xml: "pubDate", json: "pubDate"
  end

  class Charge
    include Wirebind::Model
    attribute :id, :string
    attribute :created, :time, format: :epoch
    attribute :refunded_at, :time, format: :epoch_ms
  end

  RSS_ITEM = "<item><title>Star City</title><pubDate>Tue, 03 Jun 2003 09:39:21 GMT</pubDate></item>"

  def test_rfc822_xml_reads_and_writes_back
    item = Wirebind::XML.decode(RSS_ITEM, Item)

    assert_equal Time.utc(2003, 6, 3, 9, 39, 21), item.pub_date
    assert_predicate item.pub_date, :utc?
    assert_equal RSS_ITEM, Wirebind::XML.encode(item)
  end

  def test_rfc822_numeric_offsets_and_zone_names_keep_the_offset
    item = Wirebind::XML.decode("<item><pubDate>Fri, 7 Mar 2025 18:05:00 -0500</pubDate></item>", Item)

    assert_equal Time.utc(2025, 3, 7, 23, 5), item.pub_date
    assert_equal(-5 * 3600, item.pub_date.utc_offset)
    assert_includes Wirebind::XML.encode(item), "<pubDate>Fri, 07 Mar 2025 18:05:00 -0500</pubDate>"
    assert_equal(-4 * 3600, Wirebind::JSON.decode('{"pubDate":"7 Mar 2025 19:05 EDT"}', Item).pub_date.utc_offset)
    assert_equal Time.utc(2025, 3, 7, 23, 5), Wirebind::JSON.decode('{"pubDate":"7 Mar 2025 19:05 EDT"}', Item).pub_date
  end

  def test_rfc822_json_round_trip
    item = Item.new(title: "x", pub_date: Time.new(2024, 2, 29, 23, 59, 59, "+05:30"))
    json = Wirebind::JSON.encode(item)

    assert_equal '{"title":"x","pubDate":"Thu, 29 Feb 2024 23:59:59 +0530"}', json
    assert_equal item, Wirebind::JSON.decode(json, Item)
  end

  def test_bad_rfc822_text_is_a_decode_error_with_the_path
    ["Tue, 03 Jun 2003", "2003-06-03T09:39:21Z", "Wed, 03 Jun 2003 09:39:21 GMT", "Tue, 31 Jun 2003 09:39:21 GMT",
     "Tue, 03 Jun 2003 25:39:21 GMT", "Tue, 03 Jun 2003 09:39:21 XYZ"].each do |text|
      error = assert_raises(Wirebind::DecodeError, text) { Wirebind::XML.decode("<item><pubDate>#{text}</pubDate></item>", Item) }
      assert_includes error.message, "pubDate", text
      assert_includes error.message, "RFC 822", text
      error = assert_raises(Wirebind::DecodeError, text) { Wirebind::JSON.decode(%({"pubDate":"#{text}"}), Item) }
      assert_includes error.message, "pubDate", text
    end
  end

  def test_rfc822_refuses_to_drop_a_fraction_of_a_second
    error = assert_raises(Wirebind::EncodeError) { Wirebind::XML.encode(Item.new(pub_date: Time.at(1.5).utc)) }
    assert_includes error.message, "pubDate"
  end

  def test_epoch_json_reads_and_writes_integers
    json = '{"id":"ch_1","created":1700000000,"refunded_at":1700000000123}'
    charge = Wirebind::JSON.decode(json, Charge)

    assert_equal Time.utc(2023, 11, 14, 22, 13, 20), charge.created
    assert_equal Time.utc(2023, 11, 14, 22, 13, 20) + Rational(123, 1000), charge.refunded_at
    assert_predicate charge.created, :utc?
    assert_equal json, Wirebind::JSON.encode(charge)
  end

  def test_epoch_xml_is_integer_text
    xml = "<charge><id>ch_1</id><created>-1</created><refundedAt>1500</refundedAt></charge>"
    charge = Wirebind::XML.decode(xml, Charge)

    assert_equal Time.utc(1969, 12, 31, 23, 59, 59), charge.created
    assert_equal Time.utc(1970, 1, 1, 0, 0, 1) + Rational(1, 2), charge.refunded_at
    assert_equal xml, Wirebind::XML.encode(charge, root: "charge")
  end

  def test_epoch_keeps_the_instant_of_a_time_with_an_offset
    charge = Charge.new(created: Time.new(2023, 11, 15, 0, 13, 20, "+02:00"))

    assert_includes Wirebind::JSON.encode(charge), '"created":1700000000'
  end

  def test_bad_epoch_values
    assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"created":"1700000000"}', Charge) }
    assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"created":1.5}', Charge) }
    error = assert_raises(Wirebind::DecodeError) { Wirebind::XML.decode("<charge><created>soon</created></charge>", Charge) }
    assert_includes error.message, "created"
    error = assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(Charge.new(created: Time.at(Rational(1, 2)))) }
    assert_includes error.message, "created"
    error = assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(Charge.new(created: "yesterday")) }
    assert_includes error.message, "created"
  end

  class Feed
    include Wirebind::Model
    xml_root "channel"
    attribute :items, [Item], xml: "item"
    attribute :build_dates, [:time], format: :epoch, xml: "buildDate"
  end

  def test_nested_records_and_lists_of_formatted_times_round_trip_and_stay_untouched
    feed = Feed.new(items: [Item.new(title: "a", pub_date: Time.utc(2003, 6, 3, 9, 39, 21))], build_dates: [Time.at(0).utc, Time.at(60).utc])
    xml = Wirebind::XML.encode(feed)

    assert_equal "<channel><item><title>a</title><pubDate>Tue, 03 Jun 2003 09:39:21 GMT</pubDate></item>" \
                 "<buildDate>0</buildDate><buildDate>60</buildDate></channel>", xml
    assert_equal feed, Wirebind::XML.decode(xml, Feed)
    assert_equal feed, Wirebind::JSON.decode(Wirebind::JSON.encode(feed), Feed)
    assert_equal Time.utc(2003, 6, 3, 9, 39, 21), feed.items[0].pub_date # the encoders wrote a copy
    error = assert_raises(Wirebind::EncodeError) { Wirebind::XML.encode(Feed.new(items: [Item.new(pub_date: 1)])) }
    assert_equal "item[0]/pubDate", error.path
  end

  class Refund
    include Wirebind::Model
    attribute :status, :string, enum: %w[pending succeeded failed canceled]
  end

  # Both backends build JSON records through the generated builders that convert
  # formatted times; the native JSON decoder used to set the instance variables
  # itself, and so also skipped enum: checks.
  def test_json_builds_records_through_the_builders_so_enums_are_checked
    assert_equal "failed", Wirebind::JSON.decode('{"status":"failed"}', Refund).status
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"status":"lost"}', Refund) }
    assert_includes error.message, '"lost" is not one of'
    assert_equal [], Wirebind::JSON.decode("{}", Feed).build_dates
  end

  def test_schema_errors
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:at, :time, format: :iso9000) }
    assert_includes error.message, "format: must be one of"
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:at, :string, format: :epoch) }
    assert_includes error.message, "format: applies to :time"
    error = assert_raises(Wirebind::SchemaError) do
      Class.new { include Wirebind::Model }.attribute(:at, :time, format: :epoch, default_offset: "Z")
    end
    assert_includes error.message, "default_offset"
  end
end
