# frozen_string_literal: true

require_relative "json_test_support"
require_relative "../support/gc_stress"

# The native JSON codecs under a hostile GC: GC.stress (a collection at every
# allocation, so any object C holds without marking is swept at once), and
# compaction (GC.compact, GC.verify_compaction_references, auto-compaction
# under stress), so any address C holds without pinning or updating goes
# stale. Each answer is checked against the pure backend's, computed
# beforehand. Slow: `rake test:gc_stress` runs it (WIREBIND_GC_STRESS=1).
class JSONGCStressTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  include Wirebind::GCStress

  def setup
    require_gc_stress
  end

  LONG = ("x" * 100) + "é\"\\\n\u2028"

  # Records that take every path of the encoder, Ruby's fallbacks included (a
  # Rational decimal, an odd offset, a Latin-1 string, a huge decimal), with
  # strings long enough not to be embedded in their object.
  def records
    [
      Issue.new(id: "10001", key: "PROJ-1", votes: 2**70, watched: true, updated: Time.at(1.5, in: "+05:30"),
                affects_versions: [Version.new(id: "1", name: LONG, release_date: Time.utc(2010), sequence: 1), nil, Version.new],
                labels: ["bug", LONG, nil]),
      AllTypes.new(s: "caf\xE9".dup.force_encoding("ISO-8859-1"), i: -1, f: 1.5, d: Rational(1, 8), b: false,
                   t: Time.at(0, in: 3601), dt: Date.new(1500), bin: LONG.b),
      AllTypes.new(s: LONG, i: 1, f: 1e300, d: BigDecimal("1e200"), b: true, t: Time.at(Rational(1, 1024)), dt: Date.new(2000), bin: ""),
      AllLists.new(s: [LONG, :sym], i: [1, 2**64], f: [0.1, -0.0], d: [BigDecimal("12.5"), 3], b: [true, nil],
                   t: [Time.at(1_700_000_000, 123_456_789, :nsec)], dt: [Date.new(1)], bin: ["ab"]),
      Camel.new(release_date: Date.new(2020, 1, 2), fix_versions: [Version.new(name: LONG)], time_spent: BigDecimal("2.25"), id: "c"),
      OddKeys.new(dotted: 1, spaced: LONG, unicode: 3, quoted: 4),
      Node.new(name: "root", value: 1, children: [Node.new(name: LONG, children: [Node.new(name: "a1")])], parent_ref: Node.new(name: "p")),
      Holder.new(label: LONG, main: SpecialVersion.new(name: "m", codename: LONG), others: [Version.new], types: AllTypes.new),
      Empty.new
    ]
  end

  def plain
    [nil, true, { "a" => [1, 2.5, LONG, { b: [nil, BigDecimal("1.5"), Time.utc(2000), Date.new(2001)] }] }, [[[LONG]]], records.first]
  end

  # Values that must fail, each with its EncodeError.
  def bad_values
    [Issue.new(votes: "12"), Issue.new(key: "a\xFF".b), Issue.new(affects_versions: [Version.new(sequence: 1.5)]),
     Holder.new(main: Issue.new), AllTypes.new(d: Rational(1, 3)), Issue.new(labels: "x"), { 1 => 2 }, [Float::NAN], 1..2]
  end

  def documents
    records.map { |record| [record.class, JSON.encode(record, backend: :pure)] } +
      [[[Issue], JSON.encode(records.grep(Issue) * 3, backend: :pure)], [:any, JSON.encode(plain, backend: :pure)],
       [Issue, %({"id":"1","key":#{LONG.dump},"unknown":{"a":[1,{"b":null}]},"labels":["\\ud83d\\ude80",#{LONG.dump}]})]]
  end

  def broken
    ['{"id": 5}', '{"votes": 1.5}', '{"updated": "2001-02-29T00:00:00Z"}', '{"affects_versions": [{"sequence": "x"}]}',
     '{"labels": ["a", "\\ud800"]}', '{"id": "abc', "[1e400]"]
  end

  def outcomes(backend)
    decoded = documents.map { |type, json| deep_shape(JSON.decode(json, type, backend: backend)) }
    each = []
    JSON.each(documents[-3][1], Issue, backend: backend) { |issue| each << deep_shape(issue) }
    errors = broken.map do |json|
      JSON.decode(json, Issue, backend: backend)
    rescue Wirebind::DecodeError, Wirebind::ParseError => e
      [e.class, e.message]
    end
    trickled = deep_shape(JSON.decode(TrickleIO.new(documents[-3][1], seed: 3, max: 300), [Issue], backend: backend))
    encoded = (records + plain).map { |value| JSON.encode(value, backend: backend) }
    io = StringIO.new
    JSON.encode(records, io: io, backend: backend)
    encode_errors = bad_values.map do |value|
      JSON.encode(value, backend: backend)
    rescue Wirebind::EncodeError => e
      [e.message, e.path]
    end
    [decoded, each, errors, trickled, encoded, io.string, encode_errors]
  end

  def test_decode_and_encode_under_gc_stress
    expected = outcomes(:pure)
    forget_plans(JSONTestModels)
    assert_equal(expected, stressed { outcomes(:native) })
  end

  def test_compaction_between_calls_with_plans_cached
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    expected = outcomes(:pure)
    assert_equal expected, outcomes(:native) # compiles and caches every plan
    plans = records.map { |record| record.class.wirebind_plan(:native_json) { flunk "#{record.class}'s plan should be cached" } }
    3.times do |round|
      round.even? ? GC.compact : GC.verify_compaction_references(double_heap: true, toward: :empty)
      cached = records.map { |record| record.class.wirebind_plan(:native_json) { flunk "the plan was lost" } }
      assert_equal plans.map(&:object_id), cached.map(&:object_id), "compaction keeps the cached plans"
      assert_equal expected, outcomes(:native), "after compaction #{round + 1}"
    end
  end

  def test_compaction_inside_an_each_block
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    json = JSON.encode(records.grep(Issue) * 5, backend: :pure)
    expected = JSON.decode(json, [Issue], backend: :pure)
    seen = []
    JSON.each(TrickleIO.new(json, seed: 1, max: 200), Issue, backend: :native) do |issue|
      GC.compact
      seen << issue
    end
    assert_equal expected, seen
  end

  def test_auto_compaction_under_gc_stress
    expected = outcomes(:pure)
    actual = stressed_and_compacting { outcomes(:native) }
    assert_equal expected, actual
  end
end
