# frozen_string_literal: true

require "test_helper"
require "json"
require "time"

# Issue 20's JSON declarations on real documents other gems ship, unpacked
# by `rake fixtures` (rakelib/fixtures.rake, with their licences).
#
# Stripe webhook events: the fixtures the stripe-ruby-mock gem (MIT) ships in
# lib/stripe_mock/webhook_fixtures/. `json_type "object"`
# picks each object's class, `expandable: true` keeps an id string or an
# expanded object as it came (a payment method is an id on a charge and an
# object in a payment error; a price an object in a subscription's items and
# an id in a schedule's phases), `format: :epoch` reads the Unix times, and
# `lenient_numbers: :string` a decimal written as a JSON string
# (`unit_amount_decimal`).
#
# Shopify's Admin REST API: the variants of the shopify_api gem's (MIT)
# test/fixtures/variants.json, whose prices are decimals written as JSON
# strings ("199.00"), written back as strings by `lenient_numbers: :string`.
#
# Every field of the models is compared with JSON.parse's Hash, in the
# document and its re-encoding, and decode(encode(x)) == x, on both backends.
class JSONDocumentsTest < Minitest::Test
  GEM = "stripe-ruby-mock-5.0.0"
  FIXTURES = "lib/stripe_mock/webhook_fixtures"
  EVENTS = %w[charge.succeeded charge.failed customer.subscription.created subscription_schedule.created
              payment_intent.payment_failed].freeze
  BACKENDS = Wirebind.backend == :native ? %i[pure native] : %i[pure]

  class StripeObject
    include Wirebind::Model
    attribute :id, :string
  end

  class PaymentMethod < StripeObject
    attribute :type, :string
    attribute :created, :time, format: :epoch
    attribute :livemode, :boolean
  end

  class Charge < StripeObject
    attribute :amount, :integer
    attribute :amount_captured, :integer
    attribute :currency, :string
    attribute :paid, :boolean
    attribute :captured, :boolean
    attribute :created, :time, format: :epoch
    attribute :failure_code, :string
    attribute :payment_intent, :string
    attribute :payment_method, PaymentMethod, expandable: true
  end

  class Price < StripeObject
    attribute :currency, :string
    attribute :unit_amount, :integer
    attribute :unit_amount_decimal, :decimal, lenient_numbers: :string
    attribute :created, :time, format: :epoch
    attribute :product, :string
  end

  class SubscriptionItem < StripeObject
    attribute :created, :time, format: :epoch
    attribute :quantity, :integer
    attribute :price, Price, expandable: true
  end

  class ItemList
    include Wirebind::Model
    attribute :object, :string
    attribute :data, [SubscriptionItem]
    attribute :has_more, :boolean
  end

  class Subscription < StripeObject
    attribute :customer, :string
    attribute :status, :string
    attribute :created, :time, format: :epoch
    attribute :current_period_start, :time, format: :epoch
    attribute :current_period_end, :time, format: :epoch
    attribute :items, ItemList
  end

  class PhaseItem
    include Wirebind::Model
    attribute :price, Price, expandable: true
    attribute :quantity, :integer
  end

  class Phase
    include Wirebind::Model
    attribute :start_date, :time, format: :epoch
    attribute :end_date, :time, format: :epoch
    attribute :items, [PhaseItem]
  end

  class SubscriptionSchedule < StripeObject
    attribute :customer, :string
    attribute :status, :string
    attribute :created, :time, format: :epoch
    attribute :phases, [Phase]
  end

  class PaymentError
    include Wirebind::Model
    attribute :code, :string
    attribute :decline_code, :string
    attribute :message, :string
    attribute :payment_method, PaymentMethod, expandable: true
  end

  class ChargeList
    include Wirebind::Model
    attribute :object, :string
    attribute :data, [StripeObject]
  end

  class PaymentIntent < StripeObject
    attribute :amount, :integer
    attribute :currency, :string
    attribute :status, :string
    attribute :created, :time, format: :epoch
    attribute :charges, ChargeList
    attribute :last_payment_error, PaymentError
  end

  StripeObject.json_type "object", "charge" => Charge, "payment_method" => PaymentMethod, "price" => Price,
                                   "subscription_item" => SubscriptionItem, "subscription" => Subscription,
                                   "subscription_schedule" => SubscriptionSchedule, "payment_intent" => PaymentIntent

  class EventData
    include Wirebind::Model
    attribute :object, StripeObject
  end

  class Event
    include Wirebind::Model
    attribute :id, :string
    attribute :type, :string
    attribute :api_version, :string
    attribute :created, :time, format: :epoch
    attribute :livemode, :boolean
    attribute :data, EventData
  end

  SHOPIFY = ["shopify_api-9.0.0", "test/fixtures/variants.json"].freeze

  class Variant
    include Wirebind::Model
    attribute :id, :integer
    attribute :product_id, :integer
    attribute :title, :string
    attribute :price, :decimal, lenient_numbers: :string
    attribute :compare_at_price, :decimal, lenient_numbers: :string
    attribute :sku, :string
    attribute :position, :integer
    attribute :grams, :integer
    attribute :inventory_quantity, :integer
    attribute :inventory_policy, :string
    attribute :requires_shipping, :boolean
    attribute :taxable, :boolean
    attribute :option1, :string
    attribute :option2, :string
    attribute :created_at, :time
    attribute :updated_at, :time
  end

  class Variants
    include Wirebind::Model
    attribute :variants, [Variant]
  end

  def test_stripe_every_field_against_json_parse_and_back
    EVENTS.each do |name|
      assert_document File.read(fixture_gem_path(GEM, "#{FIXTURES}/#{name}.json")), Event, name
    end
  end

  def test_shopify_decimals_as_json_strings_every_field_against_json_parse_and_back
    text = File.read(fixture_gem_path(*SHOPIFY))
    assert_document text, Variants, "variants.json"
    variant = Wirebind::JSON.decode(text, Variants).variants.first
    assert_equal BigDecimal("199.00"), variant.price
    assert_includes Wirebind::JSON.encode(variant), '"price":"199.0"'
  end

  def test_each_form_came_as_it_was_written
    charge = decode_event("charge.succeeded").data.object
    assert_instance_of Charge, charge
    assert_equal "pm_000000000000000000000000", charge.payment_method
    assert_equal Time.at(1_648_320_032).utc, charge.created

    error = decode_event("payment_intent.payment_failed").data.object.last_payment_error
    assert_instance_of PaymentMethod, error.payment_method
    assert_equal "card", error.payment_method.type

    item = decode_event("customer.subscription.created").data.object.items.data.first
    assert_instance_of Price, item.price
    assert_equal BigDecimal("1500"), item.price.unit_amount_decimal
    assert_includes Wirebind::JSON.encode(item.price), '"unit_amount_decimal":"1500.0"'

    phase_item = decode_event("subscription_schedule.created").data.object.phases.first.items.first
    assert_equal "price_000000000000000000000000", phase_item.price
    assert_includes Wirebind::JSON.encode(phase_item), '"price":"price_000000000000000000000000"'
  end

  private

  # +text+ decoded as +klass+ on each backend: every field against JSON.parse,
  # in the document and in its re-encoding, and decode(encode(x)) == x.
  def assert_document(text, klass, name)
    plain = JSON.parse(text)
    BACKENDS.each do |backend|
      record = Wirebind::JSON.decode(text, klass, backend: backend)
      assert_record_matches plain, record, "#{name} #{backend}"
      encoded = Wirebind::JSON.encode(record, backend: backend)
      assert_record_matches JSON.parse(encoded), record, "#{name} #{backend} encoded"
      assert_equal record, Wirebind::JSON.decode(encoded, klass, backend: backend), "#{name} #{backend}"
    end
  end

  def decode_event(name)
    Wirebind::JSON.decode(File.read(fixture_gem_path(GEM, "#{FIXTURES}/#{name}.json")), Event)
  end

  # Every attribute of +record+'s class against the member of +plain+ (a
  # JSON.parse Hash) its JSON key names: models and lists by their items,
  # epoch times as Time.at of the integer, expandable ids as the String,
  # decimals written as strings by their value.
  def assert_record_matches(plain, record, label)
    assert_kind_of Hash, plain, label
    assert_equal plain["object"], Wirebind::JSON::Plan.for(record.class).tag&.last, label if record.is_a?(StripeObject)
    record.class.attributes.each do |attribute|
      where = "#{label} #{record.class.name.split('::').last}##{attribute.name}"
      expected = plain[attribute.json]
      actual = record.instance_variable_get(attribute.ivar)
      if attribute.list?
        assert_equal (expected || []).size, actual.size, where
        expected&.zip(actual) { |one, item| assert_value_matches attribute, one, item, where }
      else
        assert_value_matches attribute, expected, actual, where
      end
    end
  end

  def assert_value_matches(attribute, expected, actual, where)
    if expected.nil?
      assert_nil actual, where
    elsif attribute.model? && expected.is_a?(String)
      assert_equal expected, actual, where # an expandable id, kept as the String
    elsif attribute.model?
      assert_record_matches expected, actual, where
    elsif attribute.time_format == :epoch
      assert_equal Time.at(expected).utc, actual, where
    elsif attribute.type == :time
      assert_equal Time.iso8601(expected), actual, where
    elsif attribute.type == :decimal
      assert_equal BigDecimal(expected.to_s), actual, where
    else
      assert_equal [expected.class, expected], [actual.class, actual], where # 1500 is not 1500.0
    end
  end
end
