# frozen_string_literal: true

require_relative "serializer_test_support"
require "set"

# The native serializer engine (ext/wirebind/serializer_engine.c) against the
# generated Ruby methods, the reference: on seeded random records (nils,
# unicode, escapes, every scalar type and the values each one refuses,
# nested one/many, lists, link blocks giving nil), in every format, the two
# backends must write the same bytes, or raise the same error (class, message
# and path). Skipped when the extension is not loaded.
class SerializerNativeDifferentialTest < Minitest::Test
  include SerializerTestSupport

  class Tag
    include Wirebind::Model
    attribute :id, :string
    attribute :label, :string
  end

  class Part
    include Wirebind::Model
    json_keys :camel
    attribute :id, :integer
    attribute :name, :string
    attribute :made_at, :time
    attribute :weight, :float
    attribute :tags, [Tag]
  end

  class Thing
    include Wirebind::Model
    attribute :id, :string
    attribute :text, :string
    attribute :count, :integer
    attribute :ratio, :float
    attribute :amount, :decimal
    attribute :flag, :boolean
    attribute :at, :time
    attribute :on, :date
    attribute :bytes, :base64
    attribute :words, [:string]
    attribute :numbers, [:integer]
    attribute :times, [:time]
    attribute :inner, Tag
    attribute :main, Part
    attribute :parts, [Part]
    attribute :tags, [Tag]
    attribute :child, Thing
  end

  # A subclass (records of it are not of the model class exactly: the C
  # engine reads their ivars by name) and a model whose reader is overridden.
  class SubThing < Thing; end

  class Odd
    include Wirebind::Model
    attribute :id, :string
    attribute :name, :string

    def name
      "odd:#{super}"
    end
  end

  class TagSerializer < Wirebind::Serializer
    type "tag"
    attributes :label
    link(:self) { |tag| tag.id && "/tags/#{tag.id}" }
  end

  class PartSerializer < Wirebind::Serializer
    type "part"
    attributes :id, :name, :made_at, :weight
    link(:self) { |part, context| context[:nil_links] ? nil : "/parts/#{part.id}" }
    link("alt\u2028rel") { |part| part.name }
    many :tags, TagSerializer
  end

  class ThingSerializer < Wirebind::Serializer
    type "thing"
    attributes :id, :count, :ratio, :amount, :flag, :at, :on, :bytes, :words, :numbers, :times, :inner
    attribute :text, key: "te\"xt\n"
    link(:self) { |thing| "/things/#{thing.id}" }
    link(:next) { |_thing, context| context[:next] }
    link(:odd) { |thing, context| context[:odd_links] ? thing.count : nil }
    one :main, PartSerializer
    many :parts, PartSerializer
    many :tags, TagSerializer, key: "labels"
    one :child, ThingSerializer
  end

  class LinklessSerializer < Wirebind::Serializer
    model Thing
    one :main, PartSerializer
    attributes :text
  end

  class OneOnlySerializer < Wirebind::Serializer
    one :main, PartSerializer
    one :inner, TagSerializer
  end

  # JSON:API's own members: relationship links (one giving nil or a
  # non-String by the context), links on a many, and a one written again.
  class ApiThingSerializer < Wirebind::Serializer
    type "thing"
    model Thing
    attributes :text, :count, :at
    one :main, PartSerializer, links: {
      self: ->(thing, _) { "/things/#{thing.id}/relationships/main" },
      related: ->(thing, context) { context[:odd_links] ? thing.count : context[:next] }
    }
    many :parts, PartSerializer, links: { related: ->(thing, context) { context[:nil_links] ? nil : "/things/#{thing.id}/parts" } }
    many :tags, TagSerializer, key: "labels"
    one :child, ApiThingSerializer
    link(:self) { |thing| "/things/#{thing.id}" }
  end

  class OddSerializer < Wirebind::Serializer
    type "odd"
    attributes :id, :name
  end

  FORMATS = %i[plain hal siren json_api].freeze

  def setup
    skip "the native extension is not loaded" unless Wirebind.backend == :native
  end

  # ---- random values ----------------------------------------------------------

  STRINGS = [
    "", "plain", "q\"uote", "back\\slash", "tab\tnew\nline\r", "\u0000\u0001\u001f\u007f", "é café ✓ «»", "🚀 emoji",
    "line\u2028sep\u2029para", "\u2027\u202a\u00e2\u0080", "x" * 300, "é" * 100 + "\"", "/slash/", :symbol, :"sym\"bol"
  ].freeze
  BAD_STRINGS = ["bad \xFF utf8".dup.force_encoding("UTF-8"), 12, "caf\xE9".dup.force_encoding("ISO-8859-1"),
                 "ascii".encode("US-ASCII"), "bin\"ary".b, "\xFF".b, "é".encode("UTF-16LE")].freeze

  def pick(random, values)
    values[random.rand(values.size)]
  end

  def maybe(random, bad, value, bad_values)
    return nil if random.rand < 0.15
    return pick(random, bad_values) if random.rand < bad

    value
  end

  def gen_string(random, bad)
    maybe(random, bad, pick(random, STRINGS), BAD_STRINGS)
  end

  def gen_integer(random, bad)
    maybe(random, bad, pick(random, [0, -1, 42, 2**62, -2**63, 2**64 + 1, random.rand(-1000..1000)]), ["1", 1.5, nil, true])
  end

  def gen_float(random, bad)
    maybe(random, bad, pick(random, [0.0, -0.0, 0.1, 1e20, 1.5e-300, 123.456, 3, 2**70]), [Float::NAN, Float::INFINITY, "1.5"])
  end

  def gen_decimal(random, bad)
    good = [BigDecimal("12.50"), BigDecimal("-0.001"), BigDecimal("1e200"), BigDecimal("1e-150"), BigDecimal("0"), 7, 2**70,
            Rational(1, 8)]
    maybe(random, bad, pick(random, good), [BigDecimal("NaN"), BigDecimal("Infinity"), Rational(1, 3), 1.5, "1"])
  end

  def gen_boolean(random, bad)
    maybe(random, bad, pick(random, [true, false]), ["true", 1])
  end

  ZONES = ["Z", "+00:00", "+05:30", "-03:30", "+14:00", "-14:00", "+00:00:30", "+14:30", nil].freeze

  def gen_time(random, bad)
    seconds = random.rand(-100_000_000_000..300_000_000_000)
    fractions = [0, random.rand(1000) * 1_000_000, random.rand(1_000_000_000), random.rand(1_000_000) * 1000, Rational(1, 1024)]
    fractions << Rational(1, 3) if bad.positive? # no finite decimal form: an error
    fraction = pick(random, fractions)
    zone = pick(random, ZONES)
    value = zone ? Time.at(seconds, fraction, :nsec, in: zone) : Time.at(seconds, fraction, :nsec).utc
    value = pick(random, [Time.utc(999, 12, 31), Time.utc(10_000), Time.utc(1000), Time.at(1.5).localtime]) if random.rand < 0.05
    maybe(random, bad, value, ["2014-01-01", Date.new(2014), DateTime.new(2014)])
  end

  def gen_date(random, bad)
    value = pick(random, [Date.new(2014, 3, 1), Date.new(1, 1, 1), Date.new(-100, 1, 1), Date.new(99_999, 12, 31),
                          Date.new(1582, 10, 15, Date::JULIAN), Date.new(2000, 2, 29)])
    maybe(random, bad, value, [DateTime.new(2014), Time.utc(2014), "2014-01-01"])
  end

  def gen_base64(random, bad)
    maybe(random, bad, pick(random, ["", "a", "ab", "abc", "\x00\xFF".b, "é" * 40]), [12, :sym])
  end

  def gen_list(random, bad, &each)
    return nil if random.rand < 0.1
    return pick(random, ["not a list", 12]) if random.rand < bad

    Array.new(random.rand(0..3)) { each.call }
  end

  def gen_tag(random, bad)
    return nil if random.rand < 0.1
    return Part.new if random.rand < bad

    Tag.new(id: random.rand < bad * 10 ? nil : "t#{random.rand(100)}", label: gen_string(random, bad))
  end

  def gen_part(random, bad)
    return nil if random.rand < 0.1
    return Tag.new if random.rand < bad

    Part.new(id: gen_integer(random, bad), name: gen_string(random, bad), made_at: gen_time(random, bad), weight: gen_float(random, bad),
             tags: gen_list(random, bad) { gen_tag(random, bad) })
  end

  def gen_thing(random, bad, depth = 0)
    klass = random.rand < 0.1 ? SubThing : Thing
    record = klass.new(
      id: random.rand < 0.9 ? "th#{random.rand(1000)}" : nil, text: gen_string(random, bad), count: gen_integer(random, bad),
      ratio: gen_float(random, bad), amount: gen_decimal(random, bad), flag: gen_boolean(random, bad), at: gen_time(random, bad),
      on: gen_date(random, bad), bytes: gen_base64(random, bad), words: gen_list(random, bad) { gen_string(random, bad) },
      numbers: gen_list(random, bad) { gen_integer(random, bad) }, times: gen_list(random, bad) { gen_time(random, bad) },
      inner: random.rand < bad ? Part.new : gen_tag(random, bad), main: gen_part(random, bad),
      parts: gen_list(random, bad) { gen_part(random, bad) }, tags: gen_list(random, bad) { gen_tag(random, bad) },
      child: depth < 2 && random.rand < 0.3 ? gen_thing(random, bad, depth + 1) : nil
    )
    record.define_singleton_method(:text) { "singleton" } if random.rand < 0.03
    record
  end

  # ---- comparing ----------------------------------------------------------------

  def outcome(serializer, resource, backend, io: false, **options)
    document = serializer.new(resource, backend: backend, **options)
    if io
      out = StringIO.new
      written = document.to_json(io: out)
      [:io, out.string.force_encoding(Encoding::UTF_8), written]
    else
      [:ok, document.to_json]
    end
  rescue StandardError => e
    [:error, e.class, e.message, e.respond_to?(:path) ? e.path : nil]
  end

  def assert_same_outcome(serializer, resource, **options)
    pure = outcome(serializer, resource, :pure, **options)
    native = outcome(serializer, resource, :native, **options)
    assert_equal pure, native, "#{serializer} #{options.inspect}"
    pure
  end

  def test_random_records_in_every_format
    random = Random.new(random_seed)
    errors = 0
    150.times do |round|
      bad = round.even? ? 0.0 : 0.01
      resource = random.rand < 0.8 ? Array.new(random.rand(0..4)) { random.rand < 0.1 ? nil : gen_thing(random, bad) } : gen_thing(random, bad)
      hrefs = [nil, "/next", "/n\"e\u2028xt", :sym]
      hrefs << 12 if bad.positive?
      context = { next: pick(random, hrefs), nil_links: random.rand < 0.3, odd_links: random.rand < bad * 5 }
      FORMATS.each do |format|
        result = assert_same_outcome(ThingSerializer, resource, format: format, context: context, rel: pick(random, ["item", "it\"em", :things]))
        errors += 1 if result.first == :error
      end
      assert_same_outcome(LinklessSerializer, resource, format: pick(random, %i[plain hal siren]))
      # Relationship links declared before the resource's links (their blocks come first).
      assert_same_outcome(ApiThingSerializer, resource, format: pick(random, %i[plain hal siren]), context: context)
      assert_same_outcome(OneOnlySerializer, resource, format: pick(random, %i[plain hal siren]))
      assert_same_outcome(ThingSerializer, resource, format: pick(random, %i[plain hal siren]), io: true, context: context)
    end
    assert_operator errors, :>, 0, "some documents should fail"
  end

  def test_errors_have_the_same_class_message_and_path
    bad = [
      Thing.new(count: "12"), Thing.new(text: "a\xFF".dup.force_encoding("UTF-8")), Thing.new(words: "x"),
      Thing.new(parts: [Part.new, Part.new(tags: [Tag.new, Part.new])]), Thing.new(main: Tag.new), Thing.new(inner: Part.new),
      Thing.new(amount: Rational(1, 3)), Thing.new(at: Time.utc(1_000_000_000)), Thing.new(ratio: Float::NAN),
      Thing.new(times: [Time.utc(2000), "x"]), Thing.new(child: Thing.new(child: Thing.new(numbers: [1, "2"]))), "not a record", 12
    ]
    bad.each do |record|
      FORMATS.each do |format|
        result = assert_same_outcome(ThingSerializer, record, format: format)
        assert_equal :error, result.first, "#{record.inspect} #{format}"
        result = assert_same_outcome(ThingSerializer, [Thing.new, record], format: format)
        assert_equal :error, result.first
      end
    end
    odd_href = assert_same_outcome(ThingSerializer, [Thing.new(count: 3)], format: :hal, context: { odd_links: true })
    assert_equal [:error, Wirebind::EncodeError, "expected a String, got Integer 3 (at [0].odd)", "[0].odd"], odd_href
  end

  def test_records_that_contain_themselves_are_too_deep
    record = Thing.new(id: "loop")
    record.child = record
    %i[plain hal siren].each do |format|
      result = assert_same_outcome(ThingSerializer, record, format: format)
      assert_equal Wirebind::EncodeError, result[1]
      assert_match(/deeper than 1024/, result[2])
    end
    chain = Thing.new
    1023.times { chain = Thing.new(child: chain) }
    %i[plain hal siren].each { |format| assert_equal :ok, assert_same_outcome(ThingSerializer, chain, format: format).first }
  end

  # A model's values are its instance variables: overridden readers (in
  # the class, a subclass or a singleton) change nothing written.
  def test_readers_overridden_and_subclasses
    records = [Odd.new(id: "1", name: "n"), Odd.new(id: "2")]
    %i[plain hal siren].each do |format|
      assert_equal :ok, assert_same_outcome(OddSerializer, records, format: format).first
      json = OddSerializer.new(records, format: format, backend: :native).to_json
      assert_includes json, '"n"'
      refute_includes json, "odd:"
    end
    sub = SubThing.new(id: "s", text: "sub", count: 1)
    sub.define_singleton_method(:count) { 99 }
    assert_includes ThingSerializer.new(sub, backend: :native).to_json, '"count":1'
    assert_equal :ok, assert_same_outcome(ThingSerializer, [sub, Thing.new(id: "t")], format: :hal).first
  end

  def test_large_documents_through_io
    random = Random.new(random_seed)
    things = Array.new(400) { gen_thing(random, 0.0) }
    things.select! { |thing| outcome(ThingSerializer, thing, :pure).first == :ok }
    %i[plain hal siren].each do |format|
      pure = outcome(ThingSerializer, things, :pure, io: true, format: format)
      native = outcome(ThingSerializer, things, :native, io: true, format: format)
      assert_equal pure, native
      assert_equal :io, pure.first
      assert_operator pure[2], :>, 64 * 1024
    end
  end

  # ---- JSON:API compound documents ------------------------------------------------

  INCLUDES = [nil, [], "main", "parts.tags", "labels", "child.child.main.tags", "main.tags,labels", "child,child.parts",
              "nothing.there", "main.tags.more"].freeze
  FIELDSETS = [nil, { "thing" => "text" }, { "thing" => %w[text main labels], "part" => "name,tags" }, { "part" => [] },
               { "tag" => "label", "thing" => "count,child,nothing" }, { "other" => "x" }].freeze

  def json_api_options(random, bad)
    hrefs = [nil, "/next", "/n\"e\u2028xt", :sym]
    hrefs << 12 if bad.positive?
    options = { context: { next: pick(random, hrefs), nil_links: random.rand < 0.3, odd_links: random.rand < bad * 5 },
                include: pick(random, INCLUDES), fields: pick(random, FIELDSETS) }
    options[:meta] = { "total" => random.rand(100), "note" => pick(random, STRINGS) } if random.rand < 0.3
    options[:links] = { self: "/things", next: pick(random, [nil, "/things?page=2"]) } if random.rand < 0.3
    options[:meta] = { "bad" => Object.new } if random.rand < bad
    options
  end

  def test_json_api_compound_documents
    random = Random.new(random_seed)
    errors = 0
    oks = 0
    200.times do |round|
      bad = round.even? ? 0.0 : 0.01
      resource = random.rand < 0.8 ? Array.new(random.rand(0..4)) { random.rand < 0.1 ? nil : gen_thing(random, bad) } : gen_thing(random, bad)
      # The same resources again: written once, in data or in included.
      resource += resource.first(random.rand(0..2)) if resource.is_a?(Array) && random.rand < 0.2
      [ThingSerializer, ApiThingSerializer].each do |serializer|
        options = json_api_options(random, bad)
        result = assert_same_outcome(serializer, resource, format: :json_api, **options)
        assert_same_outcome(serializer, resource, format: :json_api, io: true, **options)
        result.first == :error ? errors += 1 : oks += 1
      end
    end
    assert_operator errors, :>, 0, "some documents should fail"
    assert_operator oks, :>, 100, "most documents should be written"
  end

  def test_json_api_ids_included_records_and_their_errors
    part = ->(id, **rest) { Part.new(id: id, name: "p#{id}", **rest) }
    shared = part.call(2)
    cases = [
      Thing.new(id: "1", main: shared, parts: [shared, nil, part.call(2**70), part.call(-3)], child: Thing.new(id: "1")),
      [Thing.new(id: "1", child: Thing.new(id: "2")), Thing.new(id: "2", child: Thing.new(id: "1"))],
      Thing.new(id: "é\"\u2028", tags: [Tag.new(id: "t", label: "x"), Tag.new(id: "t", label: "again")]),
      # Errors: ids that are not Strings or Integers, in data and in included, and a record in included that fails.
      Thing.new(id: 1.5), [Thing.new(id: "1"), Thing.new(id: :sym)], Thing.new(id: "1", main: part.call(7.5)),
      Thing.new(id: "1", parts: [part.call(1), part.call(nil)]), Thing.new(id: "1", main: part.call(1, tags: [Tag.new(id: "t"), Part.new])),
      Thing.new(id: "1", main: part.call(1, weight: Float::NAN)), Thing.new(id: "bad \xFF".dup.force_encoding("UTF-8")),
      Thing.new(id: "1", parts: [Tag.new(id: "x")]), Thing.new(id: "1", tags: "not a list"), [Thing.new(id: "1"), Tag.new(id: "t")]
    ]
    cases.each_with_index do |resource, n|
      [ThingSerializer, ApiThingSerializer].each do |serializer|
        [nil, "main", "parts,child"].each do |paths|
          result = assert_same_outcome(serializer, resource, format: :json_api, include: paths, context: {})
          assert_equal n < 3 ? :ok : :error, result.first, "case #{n} #{serializer} #{result.inspect}" if paths.nil?
        end
      end
    end
    error = assert_raises(Wirebind::EncodeError) do
      ApiThingSerializer.new(Thing.new(id: "1", main: part.call(1, weight: Float::NAN)), format: :json_api, backend: :native).to_json
    end
    assert_equal "included[0].weight", error.path
  end

  def test_json_api_records_that_contain_themselves
    record = Thing.new(id: "loop", main: Part.new(id: 1))
    record.child = record
    result = assert_same_outcome(ApiThingSerializer, record, format: :json_api, context: {})
    assert_equal :ok, result.first
    assert_equal 1, result[1].scan('"id":"loop"').size - 1, "the record is in data, and identified once as its own child"
  end

  def test_json_api_large_documents_through_io
    random = Random.new(random_seed)
    things = Array.new(300) do |n|
      Thing.new(id: "t#{n}", text: gen_string(random, 0.0), main: Part.new(id: n, name: "x" * 200),
                parts: Array.new(3) { |k| Part.new(id: (n * 3) + k, name: "y" * 100) })
    end
    pure = outcome(ApiThingSerializer, things, :pure, io: true, format: :json_api, context: {})
    native = outcome(ApiThingSerializer, things, :native, io: true, format: :json_api, context: {})
    assert_equal pure, native
    assert_equal :io, pure.first
    assert_operator pure[2], :>, 128 * 1024
  end

  # ---- records read through their readers ------------------------------------------

  STRUCTS = {}.compare_by_identity

  # The same record as a Struct of the model's attributes (nested records
  # too); a list of records becomes, now and then, an Enumerable that is not
  # an Array (a Set), as an ActiveRecord relation is.
  def struct_of(value, random)
    case value
    when Array
      items = value.map { |item| struct_of(item, random) }
      value.any? { |item| item.is_a?(Wirebind::Model) } && random.rand < 0.3 ? Set.new(items) : items
    when Wirebind::Model
      names = value.class.attributes.map(&:name)
      struct = (STRUCTS[value.class] ||= Struct.new(*names, keyword_init: true))
      struct.new(**names.to_h { |name| [name, struct_of(value.public_send(name), random)] })
    else value
    end
  end

  def test_records_read_through_readers_in_every_format
    random = Random.new(random_seed)
    errors = 0
    120.times do |round|
      bad = round.even? ? 0.0 : 0.01
      things = Array.new(random.rand(0..4)) { random.rand < 0.1 ? nil : gen_thing(random, bad) }
      resource = random.rand < 0.8 ? things.map { |thing| struct_of(thing, random) } : struct_of(gen_thing(random, bad), random)
      context = { next: pick(random, [nil, "/next", :sym]), nil_links: random.rand < 0.3, odd_links: random.rand < bad * 5 }
      FORMATS.each do |format|
        options = format == :json_api ? json_api_options(random, bad) : { context: context, rel: pick(random, ["item", :things]) }
        result = assert_same_outcome(ThingSerializer, resource, format: format, **options)
        errors += 1 if result.first == :error
        assert_same_outcome(ApiThingSerializer, resource, format: :json_api, io: true, **json_api_options(random, bad)) if format == :json_api
      end
      assert_same_outcome(OneOnlySerializer, resource, format: pick(random, %i[plain hal siren]))
    end
    assert_operator errors, :>, 0, "some documents should fail"
    # A reader that raises, a missing reader, values Values.any writes by Ruby (Hashes, Dates, nested Arrays).
    odd = Struct.new(:id, :name)
    raising = odd.new("1", nil)
    raising.define_singleton_method(:name) { raise ArgumentError, "no name" }
    [raising, Struct.new(:id).new("1"), odd.new("2", { "a" => [1, Date.new(2020), { b: nil }] }), odd.new("3", [[Time.at(0).utc, 1.5]]),
     odd.new("4", Date.new(2020)), odd.new("5", Float::NAN), odd.new("6", BigDecimal("1.5")), odd.new("7", Object.new)].each do |record|
      FORMATS.each do |format|
        assert_same_outcome(OddSerializer, [record], format: format)
      end
    end
  end

  def test_the_backend_option
    assert_equal :native, ThingSerializer.new(nil).backend
    assert_equal :pure, ThingSerializer.new(nil, backend: :pure).backend
    assert_raises(ArgumentError) { ThingSerializer.new(nil, backend: :fast) }
    assert_equal "null", ThingSerializer.new(nil, backend: :native).to_json
    assert_equal ::JSON.generate({ "a" => ThingSerializer.new([Thing.new], backend: :pure) }),
                 ::JSON.generate({ "a" => ThingSerializer.new([Thing.new], backend: :native) })
  end
end
