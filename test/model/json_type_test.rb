# frozen_string_literal: true

require "test_helper"
require_relative "../support/geojson_models"
require "json"
require_relative "../support/backend_differential"

# Issue 20, item 6: JSON polymorphism by a discriminator member (Stripe's
# "object"), on the backend the run selects; both backends compared where the
# native one is in use.
class JSONTypeTest < Minitest::Test
  include Wirebind::BackendDifferential

  class StripeObject
    include Wirebind::Model
    attribute :id, :string
  end

  class Charge < StripeObject
    attribute :amount, :integer
    attribute :currency, :string
    attribute :paid, :boolean
  end

  class Refund < StripeObject
    attribute :amount, :integer
    attribute :charge, :string
    attribute :reason, :string
  end

  StripeObject.json_type "object", "charge" => Charge, "refund" => Refund

  class Page
    include Wirebind::Model
    attribute :object, :string
    attribute :data, [StripeObject]
    attribute :has_more, :boolean
    attribute :latest, StripeObject
  end

  PAGE = '{"object":"list","data":[' \
         '{"id":"ch_1","object":"charge","amount":2000,"currency":"usd","paid":true},' \
         '{"amount":500,"charge":"ch_1","reason":"duplicate","id":"re_1","object":"refund"},' \
         '{"object":"charge","id":"ch_2","amount":10,"currency":"eur","paid":false}],' \
         '"has_more":false,"latest":{"id":"re_2","amount":1,"object":"refund"}}'

  def test_the_member_picks_the_class_wherever_it_is
    page = Wirebind::JSON.decode(PAGE, Page)

    assert_equal [Charge, Refund, Charge], page.data.map(&:class)
    assert_equal Charge.new(id: "ch_1", amount: 2000, currency: "usd", paid: true), page.data[0]
    assert_equal Refund.new(id: "re_1", amount: 500, charge: "ch_1", reason: "duplicate"), page.data[1]
    assert_equal Charge.new(id: "ch_2", amount: 10, currency: "eur", paid: false), page.data[2]
    assert_equal Refund.new(id: "re_2", amount: 1), page.latest
  end

  def test_encoding_writes_the_member_first_and_reads_back
    page = Wirebind::JSON.decode(PAGE, Page)
    json = Wirebind::JSON.encode(page)

    assert_includes json, '{"object":"charge","id":"ch_1","amount":2000,"currency":"usd","paid":true}'
    assert_includes json, '{"object":"refund","id":"re_1","amount":500,"charge":"ch_1","reason":"duplicate"}'
    assert_equal page, Wirebind::JSON.decode(json, Page)
    assert_equal '{"object":"charge","id":null,"amount":null,"currency":null,"paid":null}', Wirebind::JSON.encode(Charge.new)
    assert_equal '{"id":"x"}', Wirebind::JSON.encode(StripeObject.new(id: "x"))
  end

  def test_top_level_and_each
    assert_equal Refund.new(id: "re_9", reason: "fraud"), Wirebind::JSON.decode('{"reason":"fraud","object":"refund","id":"re_9"}', StripeObject)
    list = Wirebind::JSON.decode('[{"object":"charge"},{"object":"refund"},null]', [StripeObject])
    assert_equal [Charge, Refund, NilClass], list.map(&:class)
    seen = []
    Wirebind::JSON.each('[{"object":"refund","id":"a"},{"id":"b"}]', StripeObject) { |item| seen << item }
    assert_equal [Refund.new(id: "a"), StripeObject.new(id: "b")], seen
  end

  def test_absent_or_null_member_gives_the_declared_class
    assert_equal StripeObject.new(id: "x"), Wirebind::JSON.decode('{"id":"x"}', StripeObject)
    assert_instance_of StripeObject, Wirebind::JSON.decode('{"object":null,"id":"x"}', StripeObject)
  end

  def test_a_subclass_reads_its_own_member_and_refuses_another
    assert_equal Charge.new(id: "c"), Wirebind::JSON.decode('{"id":"c","object":"charge"}', Charge, strict: true)
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"id":"c","object":"refund"}', Charge) }
    assert_includes error.message, '"refund"'
    assert_equal "object", error.path
  end

  def test_an_unknown_value_names_the_value_and_the_path
    json = '{"object":"list","data":[{"object":"charge"},{"id":"dp_1","object":"dispute","amount":3}]}'
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode(json, Page) }
    assert_includes error.message, '"dispute"'
    assert_includes error.message, '"charge", "refund"'
    assert_equal "data[1].object", error.path
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"object":7}', StripeObject) }
    assert_equal "object", error.path
  end

  def test_declarations_are_checked
    base = Class.new { include Wirebind::Model }
    base.attribute :object, :string
    sub = Class.new(base)
    other = Class.new { include Wirebind::Model }
    [["object", { "a" => sub }, "JSON key"], ["type", { "a" => other }, "subclass"], ["type", { 1 => sub }, "String"],
     ["", { "a" => sub }, "key"], ["type", {}, "at least one"]].each do |key, mapping, message|
      error = assert_raises(Wirebind::SchemaError, [key, mapping].inspect) do
        base.json_type(key, mapping)
        Wirebind::JSON.encode(sub.new)
      end
      assert_includes error.message, message, [key, mapping].inspect
    end
  end

  class Dispute
    include Wirebind::Model
    attribute :charge, StripeObject, string_as: :id
  end

  def test_a_string_as_string_makes_a_record_of_the_declared_class
    dispute = Wirebind::JSON.decode('{"charge":"ch_1"}', Dispute)

    assert_equal StripeObject.new(id: "ch_1"), dispute.charge
    assert_equal [:@id], dispute.charge.instance_variables
  end

  # GeoJSON: one "type" member over the seven geometry types (test/support/geojson_models.rb),
  # whose "coordinates" differ in list levels. The discriminator may come after it.
  include Wirebind::GeoJSONModels

  GEOMETRIES = {
    "Point" => [1, 2.5],
    "MultiPoint" => [[1, 2], [3, 4]],
    "LineString" => [[1, 2], [3, 4.5]],
    "MultiLineString" => [[[1, 2], [3, 4]], [[5, 6]]],
    "Polygon" => [[[0, 0], [1, 0], [1, 1], [0, 0]]],
    "MultiPolygon" => [[[[0, 0], [1, 0], [0, 0]]], [[[5, 5], [6, 5], [5, 5]]]]
  }.freeze

  def test_one_discriminator_over_coordinates_of_every_depth_in_either_order
    GEOMETRIES.each do |type, coordinates|
      floats = float_leaves(coordinates)
      ["{\"type\":\"#{type}\",\"coordinates\":#{JSON.generate(coordinates)}}",
       "{\"coordinates\":#{JSON.generate(coordinates)},\"type\":\"#{type}\"}"].each do |json|
        geometry = Wirebind::JSON.decode(json, Geometry)
        assert_equal type, geometry.class.name.split("::").last, json
        assert_equal floats, geometry.coordinates, json
        assert_equal geometry, Wirebind::JSON.decode(Wirebind::JSON.encode(geometry), Geometry), json
      end
    end
    collection = Wirebind::JSON.decode('{"geometries":[{"coordinates":[[[1,2]]],"type":"Polygon"},{"type":"Point","coordinates":[3,4]}],' \
                                       '"type":"GeometryCollection"}', Geometry)
    assert_equal GeometryCollection.new(geometries: [Polygon.new(coordinates: [[[1.0, 2.0]]]), Point.new(coordinates: [3.0, 4.0])]), collection
    assert_equal '{"type":"GeometryCollection","geometries":[{"type":"Polygon","coordinates":[[[1.0,2.0]]]},' \
                 '{"type":"Point","coordinates":[3.0,4.0]}]}', Wirebind::JSON.encode(collection)
    seen = []
    Wirebind::JSON.each('[{"coordinates":[1,2],"type":"Point"},{"type":"LineString","coordinates":[[1,2]]}]', Geometry) { |item| seen << item }
    assert_equal [Point.new(coordinates: [1.0, 2.0]), LineString.new(coordinates: [[1.0, 2.0]])], seen
  end

  def test_a_member_that_does_not_fit_its_class_is_an_error_at_its_exact_path_in_either_order
    ['{"type":"GeometryCollection","geometries":[{"type":"Polygon","coordinates":[[[1,2],[3,"x"]]]}]}',
     '{"type":"GeometryCollection","geometries":[{"coordinates":[[[1,2],[3,"x"]]],"type":"Polygon"}]}'].each do |json|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, Geometry) }
      assert_equal "geometries[0].coordinates[0][1][1]", error.path, json
      assert_includes error.message, 'expected a number, got the string "x"', json
    end
    ['{"type":"Polygon","coordinates":[[1,2]]}', '{"coordinates":[[1,2]],"type":"Polygon"}'].each do |json|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, Geometry) }
      assert_equal "coordinates[0][0]", error.path, json
      assert_includes error.message, "expected an array (of number items), got the number 1", json
    end
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"coordinates":[1,2],"type":"Circle"}', Geometry) }
    assert_equal "type", error.path
    assert_nil Wirebind::JSON.decode('{"coordinates":[1,2],"type":"GeometryCollection"}', Geometry).geometries.first
  end

  def test_a_key_read_differently_must_not_lose_what_a_plain_reading_would
    base = Class.new { include Wirebind::Model }
    exact = Class.new(base) { attribute :amount, :decimal }
    rough = Class.new(base) { attribute :amount, :float }
    base.json_type "kind", "exact" => exact, "rough" => rough
    error = assert_raises(Wirebind::SchemaError) { Wirebind::JSON.decode("{}", base) }
    assert_includes error.message, "not :decimal"
  end

  def test_geojson_backends_agree
    require_native_backend
    GEOMETRIES.each do |type, coordinates|
      ["{\"type\":\"#{type}\",\"coordinates\":#{JSON.generate(coordinates)}}",
       "{\"coordinates\":#{JSON.generate(coordinates)},\"type\":\"#{type}\"}"].each do |json|
        agree_on_decode(Wirebind::JSON, json, Geometry, json, seeds: [6])
      end
    end
    ['{"coordinates":[[1,"x"]],"type":"LineString"}', '{"type":"LineString","coordinates":[[1,"x"]]}',
     '{"coordinates":[1,2],"type":"Polygon"}', '{"coordinates":null,"type":"Point"}', '{"coordinates":[1,2]}',
     '{"type":"GeometryCollection","geometries":[{"coordinates":[[[1,2],[3,"x"]]],"type":"Polygon"}]}'].each do |json|
      agree_on_decode(Wirebind::JSON, json, Geometry, json, seeds: [6])
    end
  end

  def test_the_backends_agree
    require_native_backend
    [PAGE, '{"data":[{"object":"dispute"}]}', '{"data":[{"amount":1,"object":5}]}', '{"latest":{"object":"refund","amount":"x"}}',
     '{"latest":{"object":null}}', '{"data":[{"id":"a","object":"charge","object":"refund"}]}'].each do |json|
      agree_on_decode(Wirebind::JSON, json, Page, json, seeds: [5])
    end
    page = Wirebind::JSON.decode(PAGE, Page)
    agree(page, "encode") { |value, backend| Wirebind::JSON.encode(value, backend: backend) }
  end
end
