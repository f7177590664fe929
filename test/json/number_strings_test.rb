# frozen_string_literal: true

require "test_helper"
require "bigdecimal"
require "json"

# lenient_numbers: :string (issue 20): numbers that an API writes as JSON strings
# (Shopify's prices and weights) read and written back as strings.
class JSONNumberStringsTest < Minitest::Test
  class Variant
    include Wirebind::Model
    attribute :id, :integer
    attribute :price, :decimal, lenient_numbers: :string
    attribute :grams, :integer, lenient_numbers: :string
    attribute :weights, [:float], lenient_numbers: :string
    attribute :compare_at, :decimal, lenient_numbers: true
  end

  def backends
    Wirebind.backend == :native ? %i[native pure] : %i[pure]
  end

  def test_numbers_declared_as_strings_are_written_as_strings
    random = Random.new(random_seed)
    30.times do
      price = BigDecimal("#{random.rand(100_000)}.#{random.rand(100)}")
      record = Variant.new(id: random.rand(2**40), price: price, grams: random.rand(1000), weights: [random.rand.round(3), 2.5],
                           compare_at: BigDecimal("1.5"))
      backends.each do |backend|
        json = Wirebind::JSON.encode(record, backend: backend)
        plain = ::JSON.parse(json)
        assert_kind_of String, plain["price"], json
        assert_equal price, BigDecimal(plain["price"])
        assert_equal record.grams.to_s, plain["grams"]
        assert_equal(record.weights, plain["weights"].map { |w| Float(w) })
        assert_kind_of Integer, plain["id"]
        assert_kind_of Float, plain["compare_at"], "lenient_numbers: true still writes a number"
        assert_equal record, Wirebind::JSON.decode(json, Variant, backend: backend)
        assert_equal record, Wirebind::JSON.decode(json, Variant, backend: :pure)
        assert_equal Wirebind::JSON.encode(record, backend: :pure), json
      end
    end
  end

  def test_numbers_are_still_read_from_numbers_or_strings
    json = '{"id":808950810,"price":"199.00","grams":567,"weights":["1.5",2.25],"compare_at":"10.5"}'
    backends.each do |backend|
      variant = Wirebind::JSON.decode(json, Variant, backend: backend)
      assert_equal [808_950_810, BigDecimal("199"), 567, [1.5, 2.25], BigDecimal("10.5")],
                   [variant.id, variant.price, variant.grams, variant.weights, variant.compare_at]
    end
  end

  def test_the_option_takes_true_or_string
    error = assert_raises(Wirebind::SchemaError) do
      Class.new do
        include Wirebind::Model
        attribute :price, :decimal, lenient_numbers: :quoted
      end
    end
    assert_match(/lenient_numbers: must be true, :string or false, not :quoted/, error.message)
  end
end
