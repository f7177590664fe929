# frozen_string_literal: true

require_relative "xml_test_support"
require_relative "../support/gc_stress"

# The native codecs under a hostile GC: GC.stress (a collection at every
# allocation, so any object C holds without marking is swept at once), and
# compaction (GC.compact, GC.verify_compaction_references, auto-compaction
# under stress), so any address C holds without pinning or updating goes
# stale. Each document is checked against the pure backend's answer, computed
# beforehand. Slow: `rake test:gc_stress` runs it (WIREBIND_GC_STRESS=1).
class XMLGCStressTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  include Wirebind::GCStress

  def setup
    require_gc_stress
  end

  # A subclass written with xsi:type, whose namespaces its element declares
  # itself (the scope's bindings pushed and popped at run time).
  class Typed < Version
    xml_type "Typed", namespace: "urn:typed"
    xml_namespace "urn:typed", prefix: "t"
    attribute :extra, :string, xml: "{urn:other}extra"
  end

  # Records that take every path of the encoder: namespaces (prefixed, default,
  # automatic, declared on a subclass's element), wrappers, "*" lists, nil: :xsi, every scalar type (Ruby's
  # fallbacks included: a Rational decimal, an odd offset, a Latin-1 string), and
  # strings long enough not to be embedded in their object.
  def records
    long = "x" * 100 + "é<&>"
    [
      Issue.new(id: "10001", lang: "en", key: "PROJ-1", votes: 2**70, watched: true, updated: Time.at(1.5, in: "+05:30"),
                affects_versions: [Version.new(id: "1", name: long, release_date: Time.utc(2010), sequence: 1), nil, Version.new],
                labels: ["bug", long, nil]),
      AllTypes.new(s: "caf\xE9".dup.force_encoding("ISO-8859-1"), i: -1, f: 1.5, d: Rational(1, 8), b: false,
                   t: Time.at(0, in: 3601), dt: Date.new(1500), bin: long.b),
      AllTypesAttrs.new(s: long, i: 1, f: Float::NAN, d: BigDecimal("1.25"), b: true, t: Time.at(Rational(1, 1024)),
                        dt: Date.new(2000), bin: ""),
      AllLists.new(s: [long, :sym], i: [1, 2**64], t: [Time.at(1_700_000_000, 123_456_789, :nsec)], dt: [Date.new(1)], bin: ["ab"]),
      Wrapped.new(title: "t", author: long, created: Date.new(2020, 1, 2), count: 3, tags: %w[x y], anything: [long],
                  price: Price.new(currency: "EUR", amount: BigDecimal("12.5"))),
      Node.new(name: "root", value: 1, children: [Node.new(name: long, children: [Node.new(name: "a1")])]),
      Holder.new(label: long, main: Version.new(name: "m"), others: [Version.new], notes: [Note.new(text: long)], prices: [Price.new]),
      Holder.new(main: Typed.new(name: long, extra: "e"), others: [Typed.new(extra: long), Version.new, Typed.new]),
      Order.new(number: "1", customer: long, total: 12, lines: [Price.new(currency: "EUR")]),
      Widget.new(name: long, size: 1),
      Qualified.new(a_name: "a", b_name: long, any_name: "c", only_a: "d", a_attr: "e", plain_attr: "f"),
      Nillable.new,
      Open.new(raw: %(<x:a xmlns:x="urn:x" k="#{'y' * 100}">#{'y' * 100} &amp;<b/></x:a>t), data: { "@k" => long, "n" => [long, { "m" => "1" }], "{urn:q}z" => "" },
               codes: [Wirebind::QName.new("urn:q", "Q", prefix: "q"), Wirebind::QName.new(nil, "plain")])
    ]
  end

  # Records that must fail, each with its EncodeError.
  def bad_records
    [
      Issue.new(votes: "12"), Issue.new(key: "a\u0000"), Issue.new(affects_versions: [Version.new(sequence: 1.5)]),
      Holder.new(main: Issue.new), Wrapped.new(price: Price.new(amount: Rational(1, 3))), Issue.new(labels: "x"),
      Open.new(raw: "<a>"), Open.new(data: { "a b" => "1" }), Open.new(codes: [1])
    ]
  end

  def expected_outputs
    records.flat_map do |record|
      [XML.encode(record, backend: :pure), XML.encode(record, nil: :xsi, declaration: true, backend: :pure)]
    end + [XML.encode(records, root: "all", backend: :pure)]
  end

  def native_outputs
    records.flat_map do |record|
      [XML.encode(record, backend: :native), XML.encode(record, nil: :xsi, declaration: true, backend: :native)]
    end + [XML.encode(records, root: "all", backend: :native)]
  end

  def errors(backend)
    bad_records.map do |record|
      XML.encode(record, backend: backend)
    rescue Wirebind::EncodeError => e
      [e.message, e.path]
    end
  end

  def test_encode_under_gc_stress
    expected = expected_outputs
    expected_errors = errors(:pure)
    forget_plans(XMLTestModels)

    actual = stressed { native_outputs }
    assert_equal expected, actual
    assert_equal(expected_errors, stressed { errors(:native) })
    io = StringIO.new
    stressed { XML.encode(records, root: "all", io: io, backend: :native) }
    assert_equal expected.last, io.string.force_encoding(Encoding::UTF_8)
  end

  def test_decode_under_gc_stress
    skip "the native decoder is not there yet" unless Wirebind::XML::Native.respond_to?(:decode_source)
    documents = records.map { |record| [record.class, XML.encode(record, backend: :pure)] }
    expected = documents.map { |klass, xml| XML.decode(xml, klass, backend: :pure) }

    actual = stressed { documents.map { |klass, xml| XML.decode(xml, klass, backend: :native) } }
    expected.zip(actual).each { |e, a| assert_equal_decoded e, a }
    list = XML.encode(records.grep(Issue) * 3, root: "l", item: "item", backend: :pure)
    assert_equal(XML.decode(list, [Issue], backend: :pure), stressed { XML.decode(list, [Issue], backend: :native) })
  end

  def test_compaction_between_encodes_with_plans_cached
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    expected = expected_outputs
    assert_equal expected, native_outputs # compiles and caches every plan
    plans = records.map { |record| record.class.wirebind_plan(:native_xml_encoder) { flunk "#{record.class}'s plan should be cached" } }

    3.times do |round|
      round.even? ? GC.compact : GC.verify_compaction_references(double_heap: true, toward: :empty)
      cached = records.map { |record| record.class.wirebind_plan(:native_xml_encoder) { flunk "the plan was lost" } }
      assert_equal plans.map(&:object_id), cached.map(&:object_id), "compaction keeps the cached plans"
      assert_equal expected, native_outputs, "after compaction #{round + 1}"
      assert_equal errors(:pure), errors(:native)
    end
  end

  def test_auto_compaction_under_gc_stress
    expected = expected_outputs
    actual = stressed_and_compacting { native_outputs }
    assert_equal expected, actual
  end
end
