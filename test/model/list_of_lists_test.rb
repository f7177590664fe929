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
