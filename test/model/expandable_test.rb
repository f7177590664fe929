# frozen_string_literal: true

require "test_helper"
require_relative "../support/backend_differential"

# Issue 20, item 6: id-or-object unions that encode back the way they came
# (Stripe's expandable fields), on the backend the run selects; both backends
# compared where the native one is in use.
class ExpandableTest < Minitest::Test
  include Wirebind::BackendDifferential

  class Customer
    include Wirebind::Model
    attribute :id, :string
    attribute :email, :string
  end

  class Charge
    include Wirebind::Model
    attribute :id, :string
    attribute :customer, Customer, expandable: true
    attribute :related, [Customer], expandable: true
  end

  COLLAPSED = '{"id":"ch_1","customer":"cus_123","related":["cus_1",{"id":"cus_2","email":"b@example.com"},null]}'
  EXPANDED = '{"id":"ch_2","customer":{"id":"cus_123","object":"customer","email":"a@example.com"},"related":[]}'

  def test_a_string_stays_a_string_and_an_object_a_record
    collapsed = Wirebind::JSON.decode(COLLAPSED, Charge)
    expanded = Wirebind::JSON.decode(EXPANDED, Charge)

    assert_equal "cus_123", collapsed.customer
    assert_equal ["cus_1", Customer.new(id: "cus_2", email: "b@example.com"), nil], collapsed.related
    assert_equal Customer.new(id: "cus_123", email: "a@example.com"), expanded.customer
  end

  def test_each_form_is_written_back_as_it_came
    collapsed = Wirebind::JSON.decode(COLLAPSED, Charge)
    expanded = Wirebind::JSON.decode(EXPANDED, Charge)

    assert_equal COLLAPSED, Wirebind::JSON.encode(collapsed)
    assert_equal '{"id":"ch_2","customer":{"id":"cus_123","email":"a@example.com"},"related":[]}', Wirebind::JSON.encode(expanded)
    [collapsed, expanded].each { |charge| assert_equal charge, Wirebind::JSON.decode(Wirebind::JSON.encode(charge), Charge) }
    assert_equal({ id: "ch_1", customer: "cus_123", related: ["cus_1", { id: "cus_2", email: "b@example.com" }, nil] }, collapsed.to_h)
  end

  def test_other_shapes_are_errors
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"customer":5}', Charge) }
    assert_equal "customer", error.path
    assert_includes error.message, "or a string"
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"related":[true]}', Charge) }
    assert_equal "related[0]", error.path
    error = assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(Charge.new(customer: 5)) }
    assert_includes error.message, "customer"
    error = assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(Charge.new(related: [:cus])) }
    assert_includes error.message, "related[0]"
  end

  def test_declarations_are_checked
    model = Class.new { include Wirebind::Model }
    { [:string, { expandable: true }] => "model", [Customer, { expandable: 1 }] => "true or false",
      [Customer, { expandable: true, string_as: :id }] => "string_as" }.each do |(type, options), message|
      error = assert_raises(Wirebind::SchemaError, options.inspect) { model.attribute(:x, type, **options) }
      assert_includes error.message, message
    end
  end

  def test_the_backends_agree
    require_native_backend
    [COLLAPSED, EXPANDED, '{"customer":5}', '{"related":["a",["b"]]}', '{"customer":"a\\u0041"}'].each do |json|
      agree_on_decode(Wirebind::JSON, json, Charge, json, seeds: [2])
    end
    [Wirebind::JSON.decode(COLLAPSED, Charge), Charge.new(customer: 5), Charge.new(related: ["x", Customer.new, 1])].each do |charge|
      agree(charge, charge.inspect) { |value, backend| Wirebind::JSON.encode(value, backend: backend) }
    end
  end
end
