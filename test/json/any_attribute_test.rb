# frozen_string_literal: true

require "test_helper"

# Issue 13, item 8: :any as an attribute type in JSON (plain values: Hash,
# Array, String, Integer, Float, true, false, nil) and :xml content as a JSON
# string, on the backend in use, with the other backend's answer compared.
class JSONAnyAttributeTest < Minitest::Test
  JSON = Wirebind::JSON

  class Envelope
    include Wirebind::Model
    attribute :id, :integer
    attribute :meta, :any
    attribute :items, [:any]
    attribute :raw, :xml
  end

  DOCUMENT = '{"id":1,"meta":{"a":[1,2.5,null,{"b":true}],"s":"x\u00e9"},"items":[1,"x",[],{"k":false}],"raw":"<a x=\"1\"/>"}'

  def other_backend
    Wirebind.backend == :native ? :pure : :native
  end

  def test_any_members_decode_to_plain_values_and_round_trip
    record = JSON.decode(DOCUMENT, Envelope)
    assert_equal({ "a" => [1, 2.5, nil, { "b" => true }], "s" => "x\u00e9" }, record.meta)
    assert_equal [1, "x", [], { "k" => false }], record.items
    assert_equal '<a x="1"/>', record.raw
    json = JSON.encode(record)
    assert_equal record, JSON.decode(json, Envelope)
    assert_equal "string", JSON.decode('{"meta":"string","items":null}', Envelope).meta
    assert_nil JSON.decode('{"meta":null}', Envelope).meta
    return if Wirebind.backend == :pure && !defined?(Wirebind::JSON::Native)

    assert_equal record, JSON.decode(DOCUMENT, Envelope, backend: other_backend)
    assert_equal json, JSON.encode(record, backend: other_backend)
  end

  def test_any_members_keep_the_limits
    deep = %({"meta":#{'[' * 50}#{']' * 50}})
    error = assert_raises(Wirebind::LimitError) { JSON.decode(deep, Envelope, max_depth: 20) }
    assert_match(/max_depth/, error.message)
    error = assert_raises(Wirebind::DecodeError) { JSON.decode('{"items":"x"}', Envelope) }
    assert_match(/expected an array/, error.message)
  end
end
