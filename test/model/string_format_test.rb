# frozen_string_literal: true

require "test_helper"

# Issue 19, the reader's leftovers: XML Schema's xsd:duration, xsd:time, gYear,
# gYearMonth, gMonthDay, gDay and gMonth have no Ruby class that holds every value
# (a duration of "P1M" is no number of seconds, a time of day no Time, "2026Z" no
# Integer): a :string attribute with format: keeps the text as it came and checks
# it against the type's lexical space, on decode (a DecodeError naming the place)
# and on encode (an EncodeError), in XML and JSON, on the backend the run selects.
class StringFormatTest < Minitest::Test
  class Slot
    include Wirebind::Model
    xml_root "slot"
    attribute :timeout, :string, format: :duration
    attribute :opens, :string, format: :time_of_day
    attribute :year, :string, format: :g_year
    attribute :period, :string, format: :g_year_month
    attribute :anniversary, :string, format: :g_month_day
    attribute :day, :string, format: :g_day
    attribute :month, :string, format: :g_month, xml: "@month"
    attribute :steps, [:string], format: :duration, xml: "step"
  end

  VALID = {
    timeout: ["P1Y2M3DT4H5M6.7S", "-P1D", "PT0S", "P0Y", "PT36H", "PT1.5S", " P2D "],
    opens: ["13:20:00", "00:00:00.000", "24:00:00", "23:59:59Z", "12:00:00+14:00", "12:00:00-05:30"],
    year: ["2026", "0001", "-0044", "20261", "2026Z", "2026+01:00"],
    period: ["2026-01", "1999-12Z", "-0001-06"],
    anniversary: ["--02-29", "--12-31", "--04-30+02:00"],
    day: ["---01", "---31", "---15Z"],
    month: ["--01", "--12", "--05Z", "--05--"]
  }.freeze

  INVALID = {
    timeout: ["P", "PT", "P1DT", "1D", "P1.5D", "P1S", "PT1H2D", "P-1D", "", "P1D2Y"],
    opens: ["25:00:00", "12:00", "12:60:00", "12:00:60", "24:00:01", "12:00:00+14:01", "12:00:00+1:00", "noon", "T12:00:00"],
    year: ["26", "02026", "2026-01", "+2026", "2026+15:00"],
    period: %w[2026-13 2026-1 2026-00 2026],
    anniversary: ["--02-30", "--04-31", "--13-01", "02-28", "--2-28"],
    day: ["---32", "---00", "--01", "---1"],
    month: ["--13", "--00", "--1", "05"]
  }.freeze

  def xml_name(name)
    Slot.attributes.find { |attribute| attribute.name == name }.xml
  end

  def xml_for(name, value)
    name == :month ? %(<slot month="#{value}"/>) : "<slot><#{xml_name(name)}>#{value}</#{xml_name(name)}></slot>"
  end

  def test_valid_values_are_kept_as_the_text_read_and_written_back
    VALID.each do |name, values|
      values.each do |value|
        slot = Wirebind::XML.decode(xml_for(name, value), Slot)
        assert_equal value, slot.public_send(name), "#{name} #{value.inspect}"
        assert_equal slot, Wirebind::XML.decode(Wirebind::XML.encode(slot), Slot)
        json_slot = Wirebind::JSON.decode(::JSON.generate(name => value), Slot)
        assert_equal value, json_slot.public_send(name)
        assert_equal json_slot, Wirebind::JSON.decode(Wirebind::JSON.encode(json_slot), Slot)
      end
    end
  end

  def test_a_malformed_value_is_a_decode_error_naming_its_place
    INVALID.each do |name, values|
      values.each do |value|
        error = assert_raises(Wirebind::DecodeError, "#{name} #{value.inspect}") { Wirebind::XML.decode(xml_for(name, value), Slot) }
        assert_equal "slot/#{xml_name(name)}", error.path, "#{name} #{value.inspect}"
        assert_match(/expected an xsd:\w+ /, error.message)
        error = assert_raises(Wirebind::DecodeError, "JSON #{name} #{value.inspect}") { Wirebind::JSON.decode(::JSON.generate(name => value), Slot) }
        assert_includes error.message, name.to_s
      end
    end
    error = assert_raises(Wirebind::DecodeError) { Wirebind::XML.decode("<slot><step>P1D</step><step>P1X</step></slot>", Slot) }
    assert_equal "slot/step", error.path
    assert_includes error.message, "xsd:duration"
  end

  def test_a_malformed_value_is_an_encode_error_naming_its_place
    error = assert_raises(Wirebind::EncodeError) { Wirebind::XML.encode(Slot.new(timeout: "1 day")) }
    assert_includes error.message, "timeout"
    assert_includes error.message, "xsd:duration"
    assert_raises(Wirebind::EncodeError) { Wirebind::XML.encode(Slot.new(steps: %w[P1D soon])) }
    assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(Slot.new(month: "May")) }
    assert_raises(Wirebind::EncodeError) { Wirebind::XML.encode([Slot.new, Slot.new(opens: "9am")], root: "slots") }
    assert_equal "<slot><timeout>PT1H</timeout></slot>", Wirebind::XML.encode(Slot.new(timeout: "PT1H"))
  end

  def test_checks_take_linear_time
    long = "P#{'1' * 200_000}"
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    assert_raises(Wirebind::DecodeError) { Wirebind::XML.decode("<slot><timeout>#{long}</timeout></slot>", Slot) }
    assert_raises(Wirebind::DecodeError) { Wirebind::XML.decode("<slot><opens>#{'1' * 200_000}</opens></slot>", Slot) }
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 5, "a quadratic check would take minutes"
  end

  def test_format_is_checked_when_declared
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:n, :integer, format: :duration) }
    assert_includes error.message, "format: :duration applies to :string"
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:s, :string, format: :weekday) }
    assert_includes error.message, ":duration"
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:t, :time, format: :duration) }
    assert_equal :g_year, Slot.attributes.find { |a| a.name == :year }.string_format
    assert_nil Slot.attributes.find { |a| a.name == :year }.time_format
  end
end
