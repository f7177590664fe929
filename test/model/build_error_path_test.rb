# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "../support/backend_differential"

# Issue 20: a value the record builder refuses (outside enum:, a fixed value,
# not in its :time format:, not a list of lists of its type) is reported at its
# whole place in the document, as the decoders' own errors are (JSON
# "segments[0][1].s", XML "root/es/s"), not at the attribute's name alone; on
# both backends with the same message, for decode and each.
class BuildErrorPathTest < Minitest::Test
  include Wirebind::BackendDifferential

  class Point
    include Wirebind::Model
    xml_root "pt"
    attribute :s, :string, enum: %w[a b]
    attribute :kind, :string, xml: "@kind", enum: %w[x y]
    attribute :service, :string, xml: "meta/service", json: "serviceId", enum: ["ship"] # a WSDL fixed value
    attribute :tags, [:string], xml: "tags/tag", enum: %w[red green]
    attribute :at, :time, format: :rfc822
    attribute :created, :time, format: :epoch, xml: "@created"
  end

  class Unit
    include Wirebind::Model
    xml_root "unit"
    attribute :code, :string, xml: ".", enum: %w[kg m]
    attribute :system, :string, xml: "@system", enum: %w[si]
  end

  class Track
    include Wirebind::Model
    xml_root "root"
    attribute :name, :string
    attribute :es, [Point], xml: "es"
    attribute :one, Point
    attribute :unit, Unit
    attribute :units, [Unit], xml: "units/unit"
  end

  class Gpx
    include Wirebind::Model
    attribute :segments, [[Point]]
    attribute :track, Track
    attribute :shape, [[:float]]
  end

  class Camel
    include Wirebind::Model
    json_keys :camel
    attribute :pay_state, :string, enum: %w[open paid]
  end

  class Ledger
    include Wirebind::Model
    attribute :entries, [Camel]
  end

  class Entry
    include Wirebind::Model
    attribute :id, :string
  end

  class Charge < Entry
    attribute :status, :string, enum: %w[succeeded failed]
  end

  class Refund < Entry
    attribute :reason, :string
  end

  Entry.json_type "object", "charge" => Charge, "refund" => Refund

  class Account
    include Wirebind::Model
    attribute :history, [Entry]
  end

  # [json, type, path, message part]
  JSON_CASES = [
    ['{"es":[{"s":"a"},{"s":"c"}]}', Track, "es[1].s", '"c" is not one of ["a", "b"]'],
    ['{"one":{"kind":"z"}}', Track, "one.kind", '"z" is not one of ["x", "y"]'],
    ['{"es":[{},{},{"serviceId":"plane"}]}', Track, "es[2].serviceId", '"plane" is not one of ["ship"]'],
    ['{"es":[{"tags":["red","blue"]}]}', Track, "es[0].tags", '"blue" is not one of ["red", "green"]'],
    ['{"es":[{"at":"Tue, 03 Jun 2003 09:39:21 GMT"},{"at":"yesterday"}]}', Track, "es[1].at", "RFC 822"],
    ['{"segments":[[{"s":"a"}],[{"s":"b"},{"s":"q"}]]}', Gpx, "segments[1][1].s", '"q" is not one of'],
    ['{"track":{"es":[{"s":"a"}],"units":[{"code":"kg"},{"system":"imperial"}]}}', Gpx, "track.units[1].system",
     '"imperial" is not one of ["si"]'],
    ['{"shape":[[1.5,2],["x"]]}', Gpx, "shape[1][0]", 'expected a number, got the string "x"'],
    ['{"track":{"one":{"s":"a","at":"Mon, 03 Jun 2003 09:39:21 GMT"}}}', Gpx, "track.one.at", "RFC 822"],
    ['[{"s":"a"},{"s":"c"}]', [Point], "[1].s", '"c" is not one of'],
    ['{"s":"c"}', Point, "s", '"c" is not one of'],
    ['{"entries":[{"payState":"open"},{"payState":"lost"}]}', Ledger, "entries[1].payState", '"lost" is not one of'],
    ['{"history":[{"object":"refund"},{"status":"pending","object":"charge","id":"ch_1"}]}', Account, "history[1].status",
     '"pending" is not one of ["succeeded", "failed"]']
  ].freeze

  # [xml, type, path, message part, options]
  XML_CASES = [
    ["<root><es><s>a</s></es><es><s>c</s></es></root>", Track, "root/es/s", '"c" is not one of ["a", "b"]'],
    ['<root><one kind="z"><s>a</s></one></root>', Track, "root/one/@kind", '"z" is not one of ["x", "y"]'],
    ['<root><one kind="z"/></root>', Track, "root/one/@kind", '"z" is not one of ["x", "y"]'],
    ["<root>\n <one kind=\"z\"></one></root>", Track, "root/one/@kind", '"z" is not one of ["x", "y"]'],
    ["<root><es/><es><meta><service>plane</service></meta></es></root>", Track, "root/es/meta/service", '"plane" is not one of ["ship"]'],
    ["<root><es><tags><tag>red</tag><tag>blue</tag></tags></es></root>", Track, "root/es/tags/tag", '"blue" is not one of'],
    ["<root><es><at>Tue, 03 Jun 2003 09:39:21 GMT</at></es><es><at>yesterday</at></es></root>", Track, "root/es/at", "RFC 822"],
    ["<root><unit>lb</unit></root>", Track, "root/unit", '"lb" is not one of ["kg", "m"]'],
    ['<root><units><unit>kg</unit><unit system="imperial">m</unit></units></root>', Track, "root/units/unit/@system",
     '"imperial" is not one of ["si"]'],
    ['<root><units><unit system="si">kg</unit><unit system="si">ft</unit></units></root>', Track, "root/units/unit",
     '"ft" is not one of ["kg", "m"]'],
    ["<pt><s>c</s></pt>", Point, "pt/s", '"c" is not one of'],
    ['<doc><pt><s>a</s></pt><pt kind="w"/></doc>', [Point], "pt/@kind", '"w" is not one of', { at: "doc/pt" }]
  ].freeze

  def test_json_decode_errors_name_the_whole_path
    JSON_CASES.each do |json, type, path, part|
      assert_refused(Wirebind::JSON, json, type, path, part)
    end
  end

  def test_json_each_errors_name_the_item
    json = '[{"s":"a"},{"es":[{"s":"b"},{"kind":"x"},{"tags":["red",null,"grey"]}]}]'
    error = assert_refused_each(Wirebind::JSON, json, Track, "[1].es[2].tags", '"grey" is not one of', 1)
    assert_equal 1, error.line
  end

  def test_xml_decode_errors_name_the_whole_path
    XML_CASES.each do |xml, type, path, part, options|
      assert_refused(Wirebind::XML, xml, type, path, part, **options.to_h)
    end
  end

  def test_xml_each_errors_name_the_record_element
    xml = "<feed>\n<pt><s>a</s></pt>\n<pt><s>b</s><tags><tag>green</tag></tags></pt>\n<pt><s>z</s></pt>\n</feed>"
    error = assert_refused_each(Wirebind::XML, xml, Point, "pt/s", '"z" is not one of', 2, at: "feed/pt")
    assert_equal 4, error.line
  end

  def test_a_refusal_outside_a_decoder_still_names_the_attribute
    error = assert_raises(Wirebind::DecodeError) { Point.attributes[1].check_decoded("q") }

    assert_equal "@kind", error.path
    assert_equal '"q" is not one of ["x", "y"] (at @kind)', error.message
  end

  def test_valid_documents_still_decode
    track = Wirebind::JSON.decode('{"es":[{"s":"a","kind":"x","tags":["red"],"created":1}],"units":[{"code":"m","system":"si"}]}', Track)

    assert_equal %w[a x], [track.es[0].s, track.es[0].kind]
    assert_equal Time.at(1).utc, track.es[0].created
    assert_equal "m", track.units[0].code
    assert_equal Track.new(unit: Unit.new(code: "kg")), Wirebind::XML.decode("<root><unit>kg</unit></root>", Track)
  end

  private

  # The decode fails with a DecodeError at +path+ on the backend in use, and
  # (where the native one is in use) both backends fail alike: class,
  # message, path and position.
  def assert_refused(codec, text, type, path, part, **options)
    label = "#{codec.name} #{text}"
    error = assert_raises(Wirebind::DecodeError, label) { codec.decode(text, type, **options) }
    check_refusal(error, path, part, label)
    agree_on_decode(codec, text, type, label, seeds: [3], **options) if Wirebind.backend == :native
    error
  end

  def assert_refused_each(codec, text, type, path, part, yielded, **options)
    label = "#{codec.name}.each #{text}"
    seen = []
    error = assert_raises(Wirebind::DecodeError, label) { codec.each(StringIO.new(text), type, **options) { |item| seen << item } }
    check_refusal(error, path, part, label)
    assert_equal yielded, seen.size, label
    agree_on_each(codec, text, type, label, seeds: [5], **options) if Wirebind.backend == :native
    error
  end

  def check_refusal(error, path, part, label)
    assert_instance_of Wirebind::DecodeError, error, label
    assert_equal path, error.path, label
    assert_includes error.message, part, label
    assert_includes error.message, "(at #{path}, line ", label
  end
end
