# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "support/models"

# ParseError#reason: why a parse failed, as data (:truncated, :limit, :syntax),
# so that callers (the SOAP client's "body cut short") never read message text.
# Runs on the backend in use; the differential tests compare reasons too.
class ErrorReasonsTest < Minitest::Test
  include Wirebind::TestModels

  XML = Wirebind::XML
  JSON = Wirebind::JSON

  # Documents cut short at each kind of token.
  XML_TRUNCATED = [
    "<Issue><key>A",
    "<Issue><key>A</key",
    "<Issue lang='e",
    "<Issue lang='en'",
    "<Issue><!-- note",
    "<Issue><?pi x",
    "<Issue><![CDATA[x",
    "<Issue>"
  ].freeze

  JSON_TRUNCATED = ['{"key": "A', '{"key": ', '{"key": "A",', "[1, 2", "[tru", '{"key": "A\\'].freeze

  def xml_reason(input, **options)
    assert_raises(Wirebind::ParseError) { XML.decode(input, Issue, **options) }.reason
  end

  def json_reason(input, type = Issue, **options)
    assert_raises(Wirebind::ParseError) { JSON.decode(input, type, **options) }.reason
  end

  def test_truncated_xml_strings_and_ios
    XML_TRUNCATED.each do |text|
      assert_equal :truncated, xml_reason(text), text.inspect
      assert_equal :truncated, xml_reason(StringIO.new(text)), "#{text.inspect} from an IO"
    end
  end

  def test_truncated_json_strings_and_ios
    JSON_TRUNCATED.each do |text|
      type = text.start_with?("[") ? [:any] : Issue
      assert_equal :truncated, json_reason(text, type), text.inspect
      assert_equal :truncated, json_reason(StringIO.new(text), type), "#{text.inspect} from an IO"
      assert_equal :truncated, json_reason(text, :any), "#{text.inspect} as :any"
    end
  end

  def test_syntax
    ["<Issue></Issues>", "<Issue><a b=1/></Issue>", "<Issue>&nope;</Issue>"].each do |text|
      assert_equal :syntax, xml_reason(text), text.inspect
      assert_equal :syntax, xml_reason(StringIO.new(text)), text.inspect
    end
    ['{"key": x}', "[1,,2]"].each { |text| assert_equal :syntax, json_reason(text, :any), text.inspect }
  end

  def test_limits
    error = assert_raises(Wirebind::LimitError) { XML.decode("#{'<a>' * 40}#{'</a>' * 40}", Issue, max_depth: 10) }
    assert_equal :limit, error.reason
    error = assert_raises(Wirebind::LimitError) { XML.decode(StringIO.new("<Issue><key>#{'x' * 300}</key></Issue>"), Issue, max_token_size: 100) }
    assert_equal :limit, error.reason
    error = assert_raises(Wirebind::LimitError) { JSON.decode("#{'[' * 40}#{']' * 40}", :any, max_depth: 10) }
    assert_equal :limit, error.reason
  end

  def test_truncated_binary_record
    model = Class.new do
      include Wirebind::Model
      binary { field :length, :u32 }
    end
    error = assert_raises(Wirebind::ParseError) { Wirebind::Binary.decode("\x00\x01".b, model) }
    assert_equal :truncated, error.reason
  end

  def test_reasons_given_by_hand
    assert_equal :syntax, Wirebind::ParseError.new("x").reason
    assert_equal :limit, Wirebind::LimitError.new("x").reason
    assert_equal :truncated, Wirebind::ParseError.new("x", reason: :truncated).reason
    assert_raises(ArgumentError) { Wirebind::ParseError.new("x", reason: :because) }
  end
end
