# frozen_string_literal: true

require "test_helper"

# Issue 20, item 6: lists of lists of scalars, as GeoJSON's coordinates are,
# in JSON on the backend the run selects; refused in XML, which has no shape for them.
class ListOfListsTest < Minitest::Test
  class LineString
    include Wirebind::Model
    attribute :type, :string
    attribute :coordinates, [[:float]]
  end

  class Matrix
    include Wirebind::Model
    attribute :rows, [[:integer]]
    attribute :labels, [[:string]]
  end

  GEOMETRY = '{"type":"LineString","coordinates":[[102.0,0.0],[103,1.5],[104.0,-0.25]]}'

  def test_geojson_coordinates_read_as_floats_and_write_back
    line = Wirebind::JSON.decode(GEOMETRY, LineString)

    assert_equal [[102.0, 0.0], [103.0, 1.5], [104.0, -0.25]], line.coordinates
    assert(line.coordinates.flatten.all?(Float))
    assert_equal '{"type":"LineString","coordinates":[[102.0,0.0],[103.0,1.5],[104.0,-0.25]]}', Wirebind::JSON.encode(line)
    assert_equal line, Wirebind::JSON.decode(Wirebind::JSON.encode(line), LineString)
  end

  def test_other_scalars_empty_lists_null_and_absent
    matrix = Wirebind::JSON.decode('{"rows":[[1,2],[],[3]],"labels":[["a"],null]}', Matrix)

    assert_equal [[1, 2], [], [3]], matrix.rows
    assert_equal [["a"], nil], matrix.labels
    assert_equal [], Wirebind::JSON.decode("{}", Matrix).rows
    assert_equal [], Matrix.new.rows
    assert_equal '{"rows":[[1,2],[],[3]],"labels":[["a"],null]}', Wirebind::JSON.encode(matrix)
  end

  def test_wrong_shapes_are_decode_errors_with_the_path
    ['{"coordinates":[1.0,2.0]}', '{"coordinates":[[1.0,"2"]]}', '{"coordinates":{"a":1}}', '{"coordinates":[[[1.0]]]}',
     '{"coordinates":"x"}'].each do |json|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, LineString) }
      assert_includes error.message, "coordinates", json
    end
    assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"rows":[[1.5]]}', Matrix) }
  end

  def test_wrong_values_are_encode_errors_with_the_path
    [[1.0, 2.0], [["1"]], [[Float::NAN]], "x"].each do |coordinates|
      error = assert_raises(Wirebind::EncodeError, coordinates.inspect) { Wirebind::JSON.encode(LineString.new(coordinates: coordinates)) }
      assert_includes error.message, "coordinates", coordinates.inspect
    end
  end

  def test_xml_refuses_them_saying_why
    error = assert_raises(Wirebind::SchemaError) { Wirebind::XML.encode(LineString.new(coordinates: [[1.0]]), root: "line") }
    assert_includes error.message, "list of lists"
    assert_raises(Wirebind::SchemaError) { Wirebind::XML.decode("<line/>", LineString) }
  end

  def test_lists_of_model_lists_are_refused_at_declaration
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:segments, [[LineString]]) }
    assert_includes error.message, "wrap the inner list in a model"
  end
end
