# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "../support/backend_differential"

# Issue 20: under a json_type mapping, strict: true refuses a member that the
# class the discriminator picks does not declare (it was passed over, as a
# member of another mapped class), wherever the discriminator comes in the
# object; without strict such members are still passed over. Both backends alike.
class JSONTypeStrictTest < Minitest::Test
  include Wirebind::BackendDifferential

  class Outcome
    include Wirebind::Model
    attribute :risk, :string
  end

  class StripeObject
    include Wirebind::Model
    attribute :id, :string
  end

  class Charge < StripeObject
    attribute :amount, :integer
    attribute :paid, :boolean
    attribute :outcome, Outcome
  end

  class Refund < StripeObject
    attribute :amount, :integer
    attribute :reason, :string
  end

  StripeObject.json_type "object", "charge" => Charge, "refund" => Refund

  class Page
    include Wirebind::Model
    attribute :data, [StripeObject]
    attribute :has_more, :boolean
  end

  # [document, type, path, message]
  REFUSED = [
    ['{"data":[{"object":"refund","id":"re_1","paid":true}]}', Page, "data[0].paid",
     '"paid" is not a key of JSONTypeStrictTest::Refund, the class "object": "refund" picks (strict: true)'],
    ['{"data":[{"object":"charge","paid":true},{"paid":false,"id":"re_2","object":"refund"}]}', Page, "data[1].paid",
     '"paid" is not a key of JSONTypeStrictTest::Refund, the class "object": "refund" picks (strict: true)'],
    ['{"data":[{"outcome":{"risk":"normal"},"object":"refund"}],"has_more":false}', Page, "data[0].outcome",
     '"outcome" is not a key of JSONTypeStrictTest::Refund'],
    ['{"data":[{"id":"x","reason":null}]}', Page, "data[0].reason",
     '"reason" is not a key of JSONTypeStrictTest::StripeObject, the class read without the "object" member (strict: true)'],
    ['{"reason":"duplicate","object":"charge","amount":5}', StripeObject, "reason",
     '"reason" is not a key of JSONTypeStrictTest::Charge, the class "object": "charge" picks (strict: true)'],
    ['[{"object":"charge","amount":1},{"amount":2,"object":"refund","outcome":null}]', [StripeObject], "[1].outcome",
     '"outcome" is not a key of JSONTypeStrictTest::Refund']
  ].freeze

  def test_strict_refuses_a_member_the_picked_class_does_not_declare
    REFUSED.each do |json, type, path, message|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, type, strict: true) }

      assert_equal path, error.path, json
      assert_includes error.message, message, json
      assert_includes error.message, "(at #{path}, line 1, column ", json
      agree_on_decode(Wirebind::JSON, json, type, json, seeds: [7], strict: true) if Wirebind.backend == :native
    end
  end

  def test_the_error_names_the_member_at_the_end_of_its_object
    error = assert_raises(Wirebind::DecodeError) do
      Wirebind::JSON.decode(%({"data":[\n{"id":"re_1",\n "paid": true,\n "object":"refund"}]}), Page, strict: true)
    end

    assert_equal ["data[0].paid", 4, 20], [error.path, error.line, error.column]
  end

  def test_strict_each_stops_at_the_record_with_the_stray_member
    json = '[{"object":"refund","reason":"x"},{"object":"refund","amount":1,"risk":"high"},{"object":"charge","paid":true,"reason":"y"}]'
    seen = []
    error = assert_raises(Wirebind::DecodeError) do
      Wirebind::JSON.each(StringIO.new(json), StripeObject, strict: true) { |record| seen << record }
    end

    assert_equal "[1].risk", error.path # not a key of any mapped class: unknown, as before
    assert_equal [Refund.new(reason: "x")], seen
    json = json.sub(',"risk":"high"', "")
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.each(StringIO.new(json), StripeObject, strict: true) { |_| nil } }
    assert_equal "[2].reason", error.path
    agree_on_each(Wirebind::JSON, json, StripeObject, "each", seeds: [11], strict: true) if Wirebind.backend == :native
  end

  def test_strict_accepts_what_the_picked_class_declares
    json = '{"data":[{"amount":5,"object":"refund","id":"re_1","reason":"duplicate"},' \
           '{"object":"charge","outcome":{"risk":"normal"},"paid":true,"amount":7},{"id":"x"}],"has_more":true}'
    page = Wirebind::JSON.decode(json, Page, strict: true)

    assert_equal [Refund.new(id: "re_1", amount: 5, reason: "duplicate"), Charge.new(amount: 7, paid: true, outcome: Outcome.new(risk: "normal")),
                  StripeObject.new(id: "x")], page.data
    agree_on_decode(Wirebind::JSON, json, Page, "valid", seeds: [13], strict: true) if Wirebind.backend == :native
  end

  def test_without_strict_other_classes_members_are_still_passed_over
    REFUSED.each do |json, type, _path, _message|
      Wirebind::JSON.decode(json, type).then do |value|
        records = value.is_a?(Page) ? value.data : Array(value)

        refute_empty records, json
      end
    end
    page = Wirebind::JSON.decode(REFUSED[0][0], Page)

    assert_equal [Refund.new(id: "re_1")], page.data
  end
end
