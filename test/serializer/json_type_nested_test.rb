# frozen_string_literal: true

require_relative "serializer_test_support"

# Issue 20: serializers write a json_type discriminator first, as
# Wirebind::JSON.encode does (plain, HAL, Siren's properties), and lists of
# lists ([[Point]] and [[:float]]) as it writes them, on both backends; a
# wrong value inside a list of lists is an EncodeError at its place.
class SerializerJSONTypeNestedTest < Minitest::Test
  include SerializerTestSupport

  class Point
    include Wirebind::Model
    attribute :lat, :float
    attribute :lon, :float
    attribute :at, :time, format: :epoch
  end

  class StripeObject
    include Wirebind::Model
    attribute :id, :string
  end

  class Charge < StripeObject
    attribute :amount, :integer
    attribute :track, [[Point]]
  end

  class Refund < StripeObject
    attribute :reason, :string
  end

  # Left out of the mapping.
  class Dispute < StripeObject
    attribute :status, :string
  end

  StripeObject.json_type "object", "charge" => Charge, "refund" => Refund

  class Route
    include Wirebind::Model
    attribute :name, :string
    attribute :segments, [[Point]]
    attribute :shape, [[:float]]
    attribute :last, StripeObject
    attribute :history, [StripeObject]
  end

  class RouteSerializer < Wirebind::Serializer
    attributes :name, :segments, :shape, :last, :history
  end

  class ChargeSerializer < Wirebind::Serializer
    attributes :id, :amount, :track
  end

  class RefundSerializer < Wirebind::Serializer
    attributes :id, :reason
  end

  class ObjectSerializer < Wirebind::Serializer
    model StripeObject
    attributes :id
  end

  class HolderSerializer < Wirebind::Serializer
    model Route
    attributes :name
    many :history, ObjectSerializer
  end

  def backends
    Wirebind.backend == :native ? %i[pure native] : %i[pure]
  end

  def route
    Route.new(name: "GR20", segments: [[Point.new(lat: 42.1, lon: 9.0, at: Time.at(1_700_000_000).utc), nil], [], nil],
              shape: [[9, 42.5], [], nil], last: Refund.new(id: "re_1", reason: "duplicate"),
              history: [Charge.new(id: "ch_1", amount: 5, track: [[Point.new(lat: 1.0)]]), Refund.new(id: "re_2"), StripeObject.new(id: "o")])
  end

  def test_plain_output_is_wirebind_json_output
    records = [route, Charge.new(id: "ch_1", amount: 5, track: [[Point.new(lat: 1.5, lon: -2)], nil]), Refund.new(id: "re_1", reason: "x")]
    serializers = [RouteSerializer, ChargeSerializer, RefundSerializer]
    backends.each do |backend|
      records.zip(serializers).each do |record, serializer|
        assert_equal Wirebind::JSON.encode(record), serializer.new(record, backend: backend).to_json, "#{serializer} #{backend}"
      end
      # The base class's serializer: each record's own discriminator, then the base's attributes.
      assert_equal '[{"object":"charge","id":"ch_1"},{"object":"refund","id":"re_1"}]',
                   ObjectSerializer.new(records[1..], backend: backend).to_json, backend.to_s
    end
  end

  def test_the_discriminator_comes_first_for_each_records_own_class
    backends.each do |backend|
      json = HolderSerializer.new(route, backend: backend).to_json

      assert_equal '{"name":"GR20","history":[{"object":"charge","id":"ch_1"},{"object":"refund","id":"re_2"},{"id":"o"}]}', json, backend.to_s
      assert_raises(Wirebind::SchemaError) { Wirebind::JSON.encode(Dispute.new(id: "d")) } # left out of the mapping: refused alike
      assert_raises(Wirebind::SchemaError) { ObjectSerializer.new(Dispute.new(id: "d"), backend: backend).to_json }
      assert_equal Route.new(name: "GR20", history: [Charge.new(id: "ch_1"), Refund.new(id: "re_2"), StripeObject.new(id: "o")]),
                   Wirebind::JSON.decode(json, Route), backend.to_s
    end
  end

  def test_hal_and_siren_write_the_discriminator_first_too
    backends.each do |backend|
      hal = RefundSerializer.new(Refund.new(id: "re_1", reason: "x"), format: :hal, backend: backend).to_json
      siren = RefundSerializer.new(Refund.new(id: "re_1"), format: :siren, backend: backend).to_json

      assert_equal '{"object":"refund","id":"re_1","reason":"x"}', hal, backend.to_s
      assert_equal '{"properties":{"object":"refund","id":"re_1","reason":null},"entities":[],"links":[],"actions":[]}', siren, backend.to_s
    end
  end

  def test_lists_of_lists_read_back
    backends.each do |backend|
      json = RouteSerializer.new(route, backend: backend).to_json
      back = Wirebind::JSON.decode(json, Route)

      assert_equal route.segments, back.segments, backend.to_s
      assert_equal [[9.0, 42.5], [], nil], back.shape, backend.to_s
      assert_equal route.history, back.history, backend.to_s
    end
  end

  def test_a_wrong_value_in_a_list_of_lists_is_an_encode_error_at_its_place
    cases = [
      [Route.new(segments: [[Point.new], [Point.new, "x"]]), "segments[1][1]", 'expected a SerializerJSONTypeNestedTest::Point object, got String "x"'],
      [Route.new(segments: [[Point.new], 5]), "segments[1]", "expected an Array, got Integer 5"],
      [Route.new(segments: 5), "segments", "expected an Array, got Integer 5"],
      [Route.new(shape: [[1.0], ["x"]]), "shape[1][0]", 'expected a Float or Integer, got String "x"'],
      [Route.new(shape: [[Float::NAN]]), "shape[0][0]", "cannot write NaN"]
    ]
    backends.each do |backend|
      cases.each do |record, path, message|
        error = assert_raises(Wirebind::EncodeError, "#{path} #{backend}") { RouteSerializer.new(record, backend: backend).to_json }
        reference = assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(record) }

        assert_equal [path, reference.message], [error.path, error.message], backend.to_s
        assert_includes error.message, message, backend.to_s
      end
    end
  end
end
