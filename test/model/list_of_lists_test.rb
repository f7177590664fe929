# frozen_string_literal: true

require "test_helper"
require_relative "../support/backend_differential"

# Issue 20, item 6: lists of lists of scalars, as GeoJSON's coordinates are,
# in JSON on the backend the run selects; refused in XML, which has no shape for them.
class ListOfListsTest < Minitest::Test
  include Wirebind::BackendDifferential
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
    { '{"coordinates":[1.0,2.0]}' => "coordinates[0]", '{"coordinates":[[1.0,"2"]]}' => "coordinates[0][1]",
      '{"coordinates":{"a":1}}' => "coordinates", '{"coordinates":[[[1.0]]]}' => "coordinates[0][0]",
      '{"coordinates":"x"}' => "coordinates" }.each do |json, path|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, LineString) }
      assert_equal path, error.path, json
    end
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"rows":[[1.5]]}', Matrix) }
    assert_equal "rows[0][0]", error.path
  end

  def test_wrong_values_are_encode_errors_with_the_path
    { [1.0, 2.0] => "coordinates[0]", [["1"]] => "coordinates[0][0]", [[Float::NAN]] => "coordinates[0][0]",
      "x" => "coordinates" }.each do |coordinates, path|
      error = assert_raises(Wirebind::EncodeError, coordinates.inspect) { Wirebind::JSON.encode(LineString.new(coordinates: coordinates)) }
      assert_equal path, error.path, coordinates.inspect
    end
  end

  def test_xml_refuses_them_saying_why
    error = assert_raises(Wirebind::SchemaError) { Wirebind::XML.encode(LineString.new(coordinates: [[1.0]]), root: "line") }
    assert_includes error.message, "list of lists"
    assert_raises(Wirebind::SchemaError) { Wirebind::XML.decode("<line/>", LineString) }
  end

  class Polygon
    include Wirebind::Model
    attribute :coordinates, [[[:float]]]
  end

  class MultiPolygon
    include Wirebind::Model
    attribute :coordinates, [[[[:float]]]]
    attribute :tags, [[[:string]]]
  end

  POLYGON = '{"coordinates":[[[100.0,0.0],[101,0],[101.0,1.0],[100.0,0.0]],[[100.2,0.2],[100.8,0.2],[100.2,0.2]]]}'
  MULTI = '{"coordinates":[[[[102.0,2.0],[103.0,2.0],[102.0,2.0]]],[],null,[null,[[1,2.5]]]],"tags":[[["a"],[]],[null]]}'

  def test_deeper_lists_of_scalars_read_as_their_type_and_write_back
    polygon = Wirebind::JSON.decode(POLYGON, Polygon)
    assert_equal [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 0.0]], [[100.2, 0.2], [100.8, 0.2], [100.2, 0.2]]], polygon.coordinates
    assert(polygon.coordinates.flatten.all?(Float))
    assert_equal polygon, Wirebind::JSON.decode(Wirebind::JSON.encode(polygon), Polygon)

    multi = Wirebind::JSON.decode(MULTI, MultiPolygon)
    assert_equal [[[[102.0, 2.0], [103.0, 2.0], [102.0, 2.0]]], [], nil, [nil, [[1.0, 2.5]]]], multi.coordinates
    assert_equal [[["a"], []], [nil]], multi.tags
    assert_equal '{"coordinates":[[[[102.0,2.0],[103.0,2.0],[102.0,2.0]]],[],null,[null,[[1.0,2.5]]]],"tags":[[["a"],[]],[null]]}',
                 Wirebind::JSON.encode(multi)
    assert_equal multi, Wirebind::JSON.decode(Wirebind::JSON.encode(multi), MultiPolygon)
    seen = []
    assert_equal 2, Wirebind::JSON.each("[#{MULTI}, #{MULTI}]", MultiPolygon) { |item| seen << item }
    assert_equal [multi, multi], seen
  end

  def test_deeper_lists_wrong_shapes_are_decode_errors_at_the_exact_path
    {
      '{"coordinates":[[[1.0,"2"]]]}' => ["coordinates[0][0][1]", "expected a number, got the string \"2\""],
      '{"coordinates":[[[1.0],[2.0,true]]]}' => ["coordinates[0][1][1]", "got true"],
      '{"coordinates":[[1.0]]}' => ["coordinates[0][0]", "expected an array (of number items), got the number 1.0"],
      '{"coordinates":[1.0]}' => ["coordinates[0]", "expected an array (of arrays of number items), got the number 1.0"],
      '{"coordinates":[[[[1.0]]]]}' => ["coordinates[0][0][0]", "got an array"],
      '{"coordinates":{"a":1}}' => ["coordinates", "expected an array (of arrays of arrays of number items), got an object"]
    }.each do |json, (path, message)|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, Polygon) }
      assert_equal path, error.path, json
      assert_includes error.message, message, json
    end
    error = assert_raises(Wirebind::DecodeError) { Wirebind::JSON.decode('{"coordinates":[[],[[[1,2],[3,"x"]]]]}', MultiPolygon) }
    assert_equal "coordinates[1][0][1][1]", error.path
  end

  def test_deeper_lists_wrong_values_are_encode_errors_at_the_exact_path
    { [[[1.0, "2"]]] => "coordinates[0][0][1]", [[1.0]] => "coordinates[0][0]", [[[Float::NAN]]] => "coordinates[0][0][0]",
      [5] => "coordinates[0]" }.each do |coordinates, path|
      error = assert_raises(Wirebind::EncodeError, coordinates.inspect) { Wirebind::JSON.encode(Polygon.new(coordinates: coordinates)) }
      assert_equal path, error.path, coordinates.inspect
    end
  end

  def test_deeper_lists_backends_agree
    require_native_backend
    [POLYGON, '{"coordinates":[[[1.0,"2"]]]}', '{"coordinates":[[1.0]]}', '{"coordinates":[ [ [ 1 , 2 ] ] , null ]}',
     '{"coordinates":[[[1,2]]'].each do |json|
      agree_on_decode(Wirebind::JSON, json, Polygon, json, seeds: [3])
    end
    agree_on_decode(Wirebind::JSON, MULTI, MultiPolygon, MULTI, seeds: [4])
    [[[[1.0, "2"]]], [[1]], [[[1, 2.5]], nil]].each do |coordinates|
      agree(Polygon.new(coordinates: coordinates), coordinates.inspect) { |polygon, backend| Wirebind::JSON.encode(polygon, backend: backend) }
    end
  end

  def test_more_levels_of_models_are_refused
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:rings, [[[TrackPoint]]]) }
    assert_includes error.message, "a list of lists holds"
  end

  # A GPX track in JSON (the shape GPX-to-JSON converters write): each inner list a <trkseg>.
  class TrackPoint
    include Wirebind::Model
    attribute :lat, :decimal
    attribute :lon, :decimal
    attribute :ele, :float
    attribute :time, :time
  end

  class Track
    include Wirebind::Model
    attribute :name, :string
    attribute :segments, [[TrackPoint]]
  end

  TRACK = '{"name":"Example GPX Document","segments":[[{"lat":47.644548,"lon":-122.326897,"ele":4.46,"time":"2009-10-17T18:37:26Z"},' \
          '{"lat":47.644549,"lon":-122.326898,"ele":4.94,"time":"2009-10-17T18:37:31Z"}],[],null,[null,' \
          '{"lat":47.64455,"lon":-122.3269,"ele":6.87,"time":"2009-10-17T18:37:34Z"}]]}'

  def test_lists_of_model_lists_read_and_write_back
    track = Wirebind::JSON.decode(TRACK, Track)

    assert_equal([2, 0, nil, 2], track.segments.map { |segment| segment&.size })
    first = track.segments[0][0]
    assert_instance_of TrackPoint, first
    assert_equal [BigDecimal("47.644548"), BigDecimal("-122.326897"), 4.46, Time.utc(2009, 10, 17, 18, 37, 26)],
                 [first.lat, first.lon, first.ele, first.time]
    assert_nil track.segments[3][0]
    assert_equal BigDecimal("47.64455"), track.segments[3][1].lat
    assert_equal TRACK, Wirebind::JSON.encode(track)
    assert_equal track, Wirebind::JSON.decode(Wirebind::JSON.encode(track), Track)
    assert_equal [[{ lat: first.lat, lon: first.lon, ele: 4.46, time: first.time }]], Track.new(segments: [[first]]).to_h[:segments]
    assert_equal [], Wirebind::JSON.decode("{}", Track).segments
  end

  def test_lists_of_model_lists_read_with_each_and_nested_deeper
    tracks = []
    count = Wirebind::JSON.each("[#{TRACK},#{TRACK}]", Track) { |track| tracks << track }

    assert_equal 2, count
    assert_equal tracks[0], tracks[1]
    assert_equal 3, tracks[0].segments.flatten.compact.size
  end

  def test_lists_of_model_lists_wrong_shapes_name_the_item
    {
      '{"segments":[{"lat":1}]}' => ["segments[0]", "expected an array (of"],
      '{"segments":[[1]]}' => ["segments[0][0]", "expected a ListOfListsTest::TrackPoint object, got the number 1"],
      '{"segments":[[{"lat":"x"}]]}' => ["segments[0][0].lat", "expected a number"],
      '{"segments":[[],[[{}]]]}' => ["segments[1][0]", "got an array"],
      '{"segments":{"a":1}}' => ["segments", "got an object"]
    }.each do |json, (path, message)|
      error = assert_raises(Wirebind::DecodeError, json) { Wirebind::JSON.decode(json, Track) }
      assert_equal path, error.path, json
      assert_includes error.message, message, json
    end
  end

  def test_lists_of_model_lists_backends_agree_on_values_and_errors
    require_native_backend
    [TRACK, '{"segments":[[{"lat":1}],7]}', '{"segments":[[{"lat":1},{"ele":true}]]}', '{"segments":[[null,[]]]}',
     '{"segments":[ [ ] , [ {"lat" : 2} ] ]}', '{"segments":[[{"lat":1}]'].each do |json|
      agree_on_decode(Wirebind::JSON, json, Track, json, seeds: [3])
    end
    agree(Track.new(segments: [[TrackPoint.new(lat: 1)], [nil, 5]]), "encode") { |track, backend| Wirebind::JSON.encode(track, backend: backend) }
    agree(Track.new(segments: [[], 5]), "encode a row") { |track, backend| Wirebind::JSON.encode(track, backend: backend) }
  end

  def test_lists_of_model_lists_wrong_values_are_encode_errors_with_the_path
    point = TrackPoint.new(lat: 1, lon: 2)
    { [point] => "segments[0]", [[point, "x"]] => "segments[0][1]", [[], [TrackPoint.new(lat: "x")]] => "segments[1][0].lat",
      "x" => "segments" }.each do |segments, path|
      error = assert_raises(Wirebind::EncodeError, segments.inspect) { Wirebind::JSON.encode(Track.new(segments: segments)) }
      assert_includes error.message, path, segments.inspect
    end
  end

  def test_lists_of_model_lists_are_json_only
    error = assert_raises(Wirebind::SchemaError) { Wirebind::XML.encode(Track.new(segments: []), root: "trk") }
    assert_includes error.message, "list of lists"
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:rings, [[TrackPoint]], one_or_many: true) }
    assert_includes error.message, "only the json: option"
  end
end
