# frozen_string_literal: true

require_relative "xml_test_support"
require_relative "../support/backend_differential"

# The native encoder (ext/wirebind/xml_encoder*.c) against the pure one, its
# reference: on randomly generated schemas and values (seeded: a failure prints
# WIREBIND_SEED to replay it), both must write the same bytes, or raise the same
# error (class, message and path), with and without io:.
class XMLNativeEncoderTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels
  include Wirebind::BackendDifferential

  def setup
    require_native_backend
  end

  # ---- the differential harness ----------------------------------------------------------

  # What may be raised: wirebind's errors (class, message and path compared),
  # and a value's own refusal.
  ENCODE_ERRORS = [Wirebind::Error, Wirebind::Types::InvalidValue].freeze

  # Encodes with both backends (test/support/backend_differential.rb: the same
  # bytes in the same encoding, or the same error), then with the native one to
  # an IO, which must receive what the String holds.
  def assert_same_encoding(value, context = nil, **options)
    pure = agree(value, "#{context} with #{options.inspect}", errors: ENCODE_ERRORS) do |input, backend|
      XML.encode(input, backend: backend, **options)
    end
    return pure unless pure.first == :ok

    sink = RecordingSink.new
    written = XML.encode(value, io: sink, backend: :native, **options)
    xml, = pure[1]
    assert_equal xml.b, sink.string.b, -> { "#{context}\nio: output differs from the String" }
    assert_equal xml.bytesize, written, "io: returns the bytes written"
    assert sink.writes.all? { |w| w.bytesize <= 64 * 1024 && w.encoding == Encoding::UTF_8 }, "pieces of at most 64 KiB, UTF-8"
    assert sink.writes.all?(&:valid_encoding?), "pieces are cut between characters" if xml.valid_encoding?
    pure
  end

  # ---- random schemas ------------------------------------------------------------------

  URIS = ["urn:a", "urn:b", %(urn:x?a="1"&b=<2>), "urn:日本"].freeze
  PREFIXES = %w[p q ns].freeze

  # Builds model classes with every shape a schema may take: XML attributes
  # (plain and prefixed), element text, elements in and out of the model's
  # namespace, shared and nested wrappers, "*" lists, lists of records,
  # records that contain their own class, nil: :xsi, and subclasses.
  class SchemaFactory
    attr_reader :classes

    def initialize(random)
      @random = random
      @classes = []
    end

    def build
      random = @random
      klass = Class.new { include Wirebind::Model }
      klass.xml_root(%w[rec item Entry x-y a.b _u].sample(random: random) + @classes.size.to_s) if random.rand < 0.8
      case random.rand(5)
      when 0 then klass.xml_namespace(URIS.sample(random: random))
      when 1 then klass.xml_namespace(URIS.sample(random: random), prefix: PREFIXES.sample(random: random))
      end
      anys = {}
      text = false
      random.rand(1..9).times do |i|
        declare(klass, i, anys) { text ? false : (text = true) }
      end
      @classes << klass
      if random.rand < 0.25
        subclass = Class.new(klass) { attribute :extra, :string, xml: "extra" }
        subclass.xml_root("sub#{@classes.size}") if random.rand < 0.5
        @classes << subclass
      end
      klass
    end

    private

    def declare(klass, index, anys)
      random = @random
      name = :"a#{index}"
      nil_style = random.rand < 0.2 ? :xsi : :omit
      model = random.rand < 0.3 && (@classes.any? || random.rand < 0.5)
      type = model ? (@classes.sample(random: random) || klass) : Wirebind::Types::SCALARS.sample(random: random)
      type = klass if model && random.rand < 0.2 # a record that may contain its own class
      list = random.rand < 0.35
      case random.rand(10)
      when 0
        return if model || list

        klass.attribute(name, type, xml: attribute_path(klass, index), nil: nil_style)
      when 1
        return if model || list || !yield

        klass.attribute(name, type, xml: ".", nil: nil_style)
      else
        klass.attribute(name, list ? [type] : type, xml: element_path(index, anys, list), nil: nil_style)
      end
    end

    def attribute_path(klass, index)
      return "@n#{index}" if @random.rand < 0.8 || klass.xml_namespace_uri.nil?

      # Valid only with a prefix and the model's own namespace: otherwise both
      # backends must refuse the schema with the same SchemaError.
      uri = @random.rand < 0.8 ? klass.xml_namespace_uri : URIS.sample(random: @random)
      "@{#{uri}}n#{index}"
    end

    def element_path(index, anys, list)
      random = @random
      steps = Array.new(random.rand < 0.4 ? random.rand(1..3) : 0) do
        group = "g#{random.rand(3)}"
        random.rand < 0.2 ? "{#{URIS.sample(random: random)}}#{group}" : group
      end
      holder = steps.join("/")
      leaf =
        if list && !anys[holder] && random.rand < 0.4
          anys[holder] = true
          "*"
        elsif random.rand < 0.2
          "{#{URIS.sample(random: random)}}e#{index}"
        else
          "e#{index}"
        end
      (steps + [leaf]).join("/")
    end
  end

  # ---- random values ---------------------------------------------------------------------

  STRING_PIECES = [
    "a", "Z", "0", " ", "\t", "\n", "\r", "\r\n", "<", ">", "&", '"', "'", "]]>", "&amp;", "=", "/",
    "é", "日本語", "\u00A0", "\u0085", "\u2028", "\uD7FF", "\uE000", "\uFFFD", "😀", "\u{10FFFF}", "\u007F"
  ].freeze

  # Values that do not fit, for every type: both backends must refuse each the same way.
  BAD_SCALARS = {
    string: [1, 1.5, nil.to_a, Object, "a\u0000b", "\u0001", "\u000B", "\uFFFE", "\uFFFF", "ab\xFFcd", "\xC0\x80",
             "\xED\xA0\x80", "\xF4\x90\x80\x80", "caf\xE9".b, "\xE9".dup.force_encoding(Encoding::US_ASCII)],
    integer: ["12", 1.0, BigDecimal("1"), Rational(1, 2), true],
    float: ["1.5", BigDecimal("1"), Rational(1, 2), 2**1100],
    decimal: [1.5, "1", BigDecimal("NaN"), BigDecimal("Infinity"), Rational(1, 3)],
    boolean: ["true", 1, 0, nil.to_a],
    # JRuby's Time and Date cannot even hold the year 10**10 (RangeError, Date::Error):
    # the native backend never runs there.
    time: [Date.new(2000), "2000", DateTime.new(2000), Time.at(Rational(1, 3)), *(Time.utc(10**10) unless RUBY_ENGINE == "jruby"), 1],
    date: [Time.now, "2000-01-01", DateTime.now, *(Date.new(10**10) unless RUBY_ENGINE == "jruby")],
    base64: [1, :sym, nil.to_a]
  }.freeze

  def gen_value(random, type, depth, bad)
    return nil if random.rand < 0.15
    return BAD_SCALARS.fetch(type).sample(random: random) if bad && type.is_a?(Symbol) && random.rand < 0.05

    case type
    when :string then gen_string(random)
    when :integer then [random.rand(-10..10), random.rand(-(2**62)..(2**62)), random.rand(-(10**40)..(10**40))].sample(random: random)
    when :float then gen_float(random)
    when :decimal then gen_decimal(random)
    when :boolean then random.rand < 0.5
    when :time then gen_time(random)
    when :date then gen_date(random)
    when :base64 then random.bytes(random.rand(0..10))
    else gen_record(random, type, depth, bad)
    end
  end

  def gen_string(random)
    text = Array.new(random.rand(0..6)) { STRING_PIECES.sample(random: random) }.join
    case random.rand(12)
    when 0 then text.to_sym
    when 1 then text.encode(Encoding::UTF_16LE)
    when 2 then "caf\u00E9 #{text.ascii_only? ? text : 'x'}".encode(Encoding::ISO_8859_1)
    when 3 then "日本 #{text.ascii_only? ? text : 'x'}".encode(Encoding::Shift_JIS)
    when 4 then text.ascii_only? ? text.dup.force_encoding(Encoding::US_ASCII) : text
    when 5 then text.ascii_only? ? text.b : text
    else text
    end
  end

  def gen_float(random)
    case random.rand(5)
    when 0 then [0.0, -0.0, Float::INFINITY, -Float::INFINITY, Float::NAN, Float::MAX, 5e-324, 0.1, 1e22, 1e16].sample(random: random)
    when 1 then random.rand(-1000.0..1000.0)
    when 2 then random.rand(-(2**60)..(2**60)) # an Integer is a fine :float
    else
      loop do
        value = random.bytes(8).unpack1("E")
        break value if value.finite?
      end
    end
  end

  def gen_decimal(random)
    case random.rand(4)
    when 0 then random.rand(-(10**30)..(10**30))
    when 1 then Rational(random.rand(-1000..1000), [1, 2, 4, 5, 8, 10, 16, 1000, 1024].sample(random: random))
    else
      digits = Array.new(random.rand(1..30)) { random.rand(10) }.join
      scale = random.rand(0..digits.size)
      BigDecimal("#{['', '-'].sample(random: random)}#{digits}E#{-scale}")
    end
  end

  OFFSETS = ["Z", "UTC", "+00:00", "-00:00", "+01:00", "-05:00", "+05:30", "-03:30", "+14:00", "-14:00", "+13:59",
             3601, -7199, 14 * 3600 + 60, nil].freeze
  FRACTIONS = [0, 0, Rational(1, 2), Rational(123, 1000), Rational(123_456, 10**6), Rational(123_456_789, 10**9),
               Rational(1, 2**20), Rational(1, 10**12), Rational(7, 2**40)].freeze

  def gen_time(random)
    seconds =
      case random.rand(4)
      when 0 then random.rand(-(2**34)..(2**34))
      when 1 then random.rand(-(10**11)..(10**11)) # negative and five-digit years
      else random.rand(0..(2**31))
      end
    offset = OFFSETS.sample(random: random)
    time = offset.nil? ? Time.at(seconds + FRACTIONS.sample(random: random)) : Time.at(seconds + FRACTIONS.sample(random: random), in: offset)
    random.rand < 0.2 ? time.utc : time
  end

  def gen_date(random)
    case random.rand(4)
    when 0 then Date.jd(random.rand(2_298_000..2_300_500)) # around the Gregorian reform (2299161)
    when 1 then Date.new(random.rand(-5000..5000), random.rand(1..12), random.rand(1..28), Date::GREGORIAN)
    when 2 then Date.jd(random.rand(-(10**9)..(10**9)))
    else Date.new(random.rand(1900..2100), random.rand(1..12), random.rand(1..28))
    end
  end

  def gen_record(random, klass, depth, bad)
    if bad && depth.positive? && random.rand < 0.03
      return [Object.new, "a record", 5, Version.new].sample(random: random)
    end
    return nil if depth > 3 || (depth.positive? && random.rand < 0.1)

    klass = klass.subclasses.sample(random: random) || klass if random.rand < 0.3
    record = klass.allocate
    klass.attributes.each do |attribute|
      next if random.rand < 0.1 # never set: the ivar is missing altogether

      value =
        if attribute.list?
          if bad && random.rand < 0.03
            "not a list"
          elsif random.rand < 0.2
            nil
          else
            Array.new(random.rand(0..3)) { gen_value(random, attribute.type, depth + 1, bad) }
          end
        else
          gen_value(random, attribute.type, depth + 1, bad)
        end
      record.instance_variable_set(attribute.ivar, value)
    end
    record
  end

  # ---- the differential tests ------------------------------------------------------------

  def test_random_schemas_and_values_encode_the_same
    random = Random.new(random_seed)
    factory = SchemaFactory.new(random)
    outcomes = Hash.new(0)
    60.times do |round|
      klass = factory.build
      8.times do |n|
        bad = n.odd?
        record = gen_record(random, klass, 0, bad) || klass.new
        options = random_options(random)
        result = assert_same_encoding(record, "round #{round}, record #{n}", **options)
        outcomes[result.first == :ok ? :ok : result[1]] += 1 # :ok, or the error's class name

        list = Array.new(random.rand(0..4)) { gen_record(random, factory.classes.sample(random: random), 0, bad) }
        assert_same_encoding(list, "round #{round}, list #{n}", root: "list", item: [nil, "it"].sample(random: random),
                                                                **options.except(:root))
      end
    end
    assert_operator outcomes[:ok], :>, 100, "most random records should encode: #{outcomes}"
    assert_operator outcomes["Wirebind::EncodeError"], :>, 5, "some random bad values should be refused: #{outcomes}"
  end

  def random_options(random)
    options = {}
    options[:nil] = :xsi if random.rand < 0.3
    options[:declaration] = true if random.rand < 0.2
    options[:root] = %w[doc x rec0].sample(random: random) if random.rand < 0.2
    options
  end

  def test_the_contract_models_encode_the_same
    issue = Issue.new(
      id: "10001", lang: "en", key: "PROJ-1", votes: 12, watched: true,
      updated: Time.new(2011, 7, 13, 10, 15, 30.25r, "+02:00"),
      affects_versions: [Version.new(id: "1", name: "1.0", release_date: Time.utc(2010), sequence: 1), nil, Version.new(name: "2.0")],
      labels: ["bug", "", nil, "ui"]
    )
    records = [
      issue, Issue.new, AllTypes.new, AllLists.new(s: ["a", nil], i: [1, 2**80], b: [true, false]),
      AllTypesAttrs.new(s: %(a"b'c<d>e&f\tg\nh\r\ni), i: 1, f: 1.5, d: BigDecimal("1.25"), b: true, t: Time.at(0, in: "+05:30"),
                        dt: Date.new(1, 1, 1), bin: "\x00\xFF".b),
      Price.new(currency: "EUR", amount: BigDecimal("12.5")), Note.new(lang: "x", text: "a < b"),
      Wrapped.new(title: "t", author: "a", created: Date.new(2020, 1, 2), count: 3, tags: %w[x y], anything: %w[p q],
                  price: Price.new(currency: "c")),
      Wrapped.new,
      Node.new(name: "root", value: 1, children: [Node.new(name: "a", children: [Node.new(name: "a1")]), Node.new(name: "b")]),
      Holder.new(label: "l", main: Version.new(name: "m"), others: [Version.new], notes: [Note.new(text: "n")], prices: [Price.new]),
      Order.new(number: "1", customer: "c", total: 12, lines: [Price.new(currency: "EUR")]),
      Widget.new(name: "w", size: 1), Nillable.new, Nillable.new(always: "a", count: 1, sometimes: "x", when: Time.utc(2000))
    ]
    records.each do |record|
      [{}, { nil: :xsi }, { declaration: true }, { root: "r" }, { root: "r", nil: :xsi }].each do |options|
        assert_same_encoding(record, **options)
      end
    end
    assert_same_encoding(records, root: "all")
    assert_same_encoding(records, root: "all", item: "one", nil: :xsi, declaration: true)
    assert_same_encoding([], root: "none")
  end

  def test_namespaced_models_nested_in_each_other
    inner_default = Class.new { include Wirebind::Model; xml_root "d"; xml_namespace "urn:d"; attribute :v, :string }
    inner_prefixed = Class.new { include Wirebind::Model; xml_root "p"; xml_namespace "urn:p", prefix: "p"; attribute :v, :string }
    plain = Class.new { include Wirebind::Model; xml_root "n"; attribute :v, :string }
    outer = Class.new do
      include Wirebind::Model
      xml_root "o"
      xml_namespace "urn:d"
      attribute :d, inner_default
      attribute :p, inner_prefixed
      attribute :n, plain
      attribute :ds, [inner_default], xml: "ds/*"
      attribute :ps, [inner_prefixed], xml: "{urn:p}ps"
      attribute :q, :string, xml: "{urn:q}q"
    end
    record = outer.new(d: inner_default.new(v: "1"), p: inner_prefixed.new(v: "2"), n: plain.new(v: "3"),
                       ds: [inner_default.new, nil], ps: [inner_prefixed.new(v: "x"), inner_prefixed.new], q: "q")
    assert_same_encoding(record)
    assert_same_encoding(record, nil: :xsi)
    assert_same_encoding(inner_prefixed.new(v: "x"), root: "other")
  end

  # Namespaces declared where a class's tree cannot say in advance (a subclass
  # written with xsi:type, a prefix another namespace took), xml_prefix, and the
  # error of a name whose prefix its content rebinds.
  def test_namespaces_declared_on_the_way_encode_the_same
    base = Class.new { include Wirebind::Model; xml_root "b"; attribute :v, :string }
    typed = Class.new(base) do
      xml_type "T", namespace: "urn:t"
      xml_namespace "urn:t", prefix: "ns"
      xml_prefix "x", "urn:x"
      attribute :x, :string, xml: "{urn:x}x"
      attribute :y, :string, xml: "@{urn:y}y"
    end
    loose = Class.new(base) { xml_type "L"; xml_namespace "urn:l"; attribute :w, :string }
    outer = Class.new do
      include Wirebind::Model
      xml_root "o"
      xml_namespace "urn:o", prefix: "ns"
      attribute :one, base, xml: "{}one"
      attribute :many, [base], xml: "{urn:m}many"
      attribute :any, [base], xml: "{}all/*"
    end
    values = [typed.new(v: "1", x: "2", y: "3"), loose.new(w: "4"), base.new(v: "5"), nil]
    values.product(values).each do |one, many|
      assert_same_encoding(outer.new(one: one, many: [many, one], any: [one].compact))
    end
    # <ns:b> named in urn:o while its content needs ns for urn:t: an EncodeError on both.
    named = Class.new { include Wirebind::Model; xml_root "o"; xml_namespace "urn:o", prefix: "ns"; attribute :b, base }
    assert_same_encoding(named.new(b: typed.new(v: "1")))
    assert_same_encoding([typed.new(v: "1"), loose.new, base.new], root: "list")
  end

  def test_each_kind_of_bad_value_fails_the_same_way
    BAD_SCALARS.each do |type, values|
      values.each do |value|
        [AllTypes, AllTypesAttrs, AllLists].each do |klass|
          attribute = klass.attributes.find { |a| a.type == type }
          record = klass.new(attribute.name => attribute.list? ? ["ok", value].drop(type == :string ? 0 : 1) : value)
          result = assert_same_encoding(record, "#{klass} #{type} #{value.inspect}")
          assert_equal :error, result.first, "#{klass}.#{attribute.name} = #{value.inspect} must be refused"
        end
      end
    end
  end

  def test_errors_carry_the_path_of_nested_records
    cases = [
      Issue.new(votes: "12"),
      Issue.new(key: "\u0000"),
      Issue.new(lang: "ab\xFFcd"),
      Issue.new(affects_versions: [Version.new, Version.new(sequence: "x")]),
      Issue.new(affects_versions: [Issue.new]),
      Issue.new(affects_versions: "v1"),
      Issue.new(labels: ["a", 1]),
      Holder.new(main: Version.new(release_date: 1)),
      Holder.new(main: Issue.new),
      Holder.new(notes: [Note.new(lang: "\uFFFF")]),
      Wrapped.new(price: Price.new(amount: Rational(1, 3))),
      Order.new(lines: [Price.new(currency: "\u0008")]),
      Node.new(children: [Node.new(children: [Node.new(value: 1.5)])])
    ]
    cases.each do |record|
      result = assert_same_encoding(record)
      assert_equal [:error, "Wirebind::EncodeError"], result.first(2), record.inspect
      assert_same_encoding([Issue.new, record], root: "l", item: "i")
    end
  end

  def test_attributes_and_elements_in_other_namespaces
    foreign = Class.new do
      include Wirebind::Model
      attribute :a, :string, xml: "@{urn:a}code"
      attribute :b, :string, xml: "@code"
      attribute :e, :string, xml: "{urn:e}e"
    end
    assert_same_encoding(foreign.new(a: "x", b: "y", e: "z"))
    assert_same_encoding(foreign.new, nil: :xsi)
    holder = Class.new { include Wirebind::Model; xml_namespace "urn:h"; attribute :inner, foreign; attribute :more, [foreign], xml: "{urn:m}more" }
    assert_same_encoding(holder.new(inner: foreign.new(a: "1"), more: [foreign.new, nil]), nil: :xsi)
    assert_same_encoding(Qualified.new(a_name: "a", b_name: "b", any_name: "c", only_a: "d", a_attr: "e", plain_attr: "f"))
  end

  # Refused when declared (a SchemaError), so no encoder ever meets one.
  def test_a_namespace_xml_cannot_write
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; xml_namespace "urn:\u0001" } }
    assert_match(/U\+0001/, error.message)
  end

  def test_strings_in_other_encodings
    ["café".encode("ISO-8859-1"), "日本".encode("Shift_JIS"), "ab".encode("UTF-16LE"), "abc".b, "caf\xE9".b,
     "abc".dup.force_encoding("US-ASCII"), "\xFF".dup.force_encoding("US-ASCII"), :"日本", :abc,
     "\xE9".dup.force_encoding("ISO-8859-1"), "a<&>\r".encode("UTF-16BE"), "\u0000".encode("UTF-16LE")].each do |value|
      assert_same_encoding(Issue.new(key: value, lang: value), value.inspect)
    end
  end

  def test_times_and_dates_at_their_edges
    times = [
      Time.utc(2000), Time.utc(-1, 12, 31, 23, 59, 59), Time.utc(0), Time.utc(99_999), Time.utc(999_999_999, 12, 31),
      Time.utc(-999_999_999), Time.utc(1_000_000_000), Time.utc(-1_000_000_000), Time.at(0, in: "+00:00"),
      Time.at(-1, Rational(1, 2)), Time.at(-0.5), Time.at(0, 1, :nsec, in: "-14:00"), Time.at(0, in: "+14:01"),
      Time.at(0, in: 59), Time.at(0, in: -61), Time.at(Rational(1, 3)), Time.at(Rational(1, 2**60)),
      Time.at(0, Rational(1, 1000), :nsec), Time.at(2**40), Time.now, Time.now.utc, Time.at(0).localtime("+09:00"),
      Time.utc(1582, 10, 10), Time.new(2000, 1, 1, 0, 0, 0, "+05:45")
    ]
    times.each { |time| assert_same_encoding(AllTypes.new(t: time), time.inspect) }
    times.each { |time| assert_same_encoding(AllTypesAttrs.new(t: time), time.inspect) }
    dates = [
      Date.new(2000), Date.new(1582, 10, 4), Date.new(1582, 10, 15), Date.new(1000, 2, 29), Date.new(0), Date.new(-1, 2, 28),
      Date.new(-4712), Date.jd(0), Date.jd(-1), Date.new(999_999_999, 12, 31), Date.new(-999_999_999), Date.new(1_000_000_000),
      Date.new(1000, 1, 1, Date::GREGORIAN), Date.new(2000, 1, 1, Date::JULIAN), Date.new(1700, 2, 29, Date::JULIAN),
      Class.new(Date).new(2001, 2, 3), DateTime.new(2000)
    ]
    dates.each { |date| assert_same_encoding(AllTypes.new(dt: date), date.inspect) }
  end

  def test_times_under_a_time_zone_that_counts_leap_seconds
    zone = "right/America/New_York"
    skip "no #{zone} in the time zone database" unless File.exist?("/usr/share/zoneinfo/#{zone}")
    script = <<~RUBY
      require "wirebind"
      klass = Class.new { include Wirebind::Model; attribute :t, :time }
      times = [Time.utc(2000), Time.at(0), Time.now, Time.at(1_500_000_000, in: "+05:30"), Time.new(2016, 12, 31, 23, 59, 59)]
      times.each do |time|
        record = klass.new(t: time)
        pure = Wirebind::XML.encode(record, backend: :pure)
        native = Wirebind::XML.encode(record, backend: :native)
        puts(pure == native ? "same" : "differ: \#{pure} \#{native}")
      end
    RUBY
    lib = File.expand_path("../../lib", __dir__)
    output = IO.popen({ "TZ" => zone, "WIREBIND_BACKEND" => "native" }, [RbConfig.ruby, "-I", lib, "-e", script], err: %i[child out], &:read)

    assert_equal ["same"] * 5, output.lines.map(&:chomp), output
  end

  def test_numbers_at_their_edges
    integers = [0, -1, 2**62 - 1, -(2**62), 2**62, 2**64, -(2**64) - 1, 10**100, -(10**100)]
    integers.each { |i| assert_same_encoding(AllTypes.new(i: i, f: i, d: i), i.inspect) }
    floats = [0.0, -0.0, 1e22, 1e21, 1e16, 1e15, 123_456_789.123, 1e-5, 1e-4, 5e-324, Float::MAX, Float::NAN, -Float::INFINITY]
    floats.each { |f| assert_same_encoding(AllTypes.new(f: f), f.inspect) }
    decimals = [BigDecimal("0"), BigDecimal("-0"), BigDecimal("1e-20"), BigDecimal("1e40"), BigDecimal("-1.5"), Rational(3, 8),
                Rational(-1, 1024), Rational(5, 1), BigDecimal("NaN"), BigDecimal("-Infinity")]
    decimals.each { |d| assert_same_encoding(AllTypes.new(d: d), d.inspect) }
  end

  # ---- what only the native encoder has to promise ---------------------------------------------

  def test_deep_nesting_does_not_recurse
    depth = 20_000
    node = Node.new(name: "leaf")
    (depth - 1).times { |i| node = Node.new(value: i, children: [node]) }
    xml = XML.encode(node, backend: :native)

    assert_equal depth - 1, xml.scan("<child").size
    assert xml.end_with?("</child></child></node>")
    io = StringIO.new
    assert_equal xml.bytesize, XML.encode(node, io: io, backend: :native)
    assert_equal xml, io.string.force_encoding(Encoding::UTF_8)

    shallow = Node.new(name: "leaf")
    100.times { |i| shallow = Node.new(value: i, children: [shallow]) }
    assert_same_encoding(shallow)
  end

  def test_a_record_inside_itself_is_an_encode_error
    node = Node.new(name: "loop")
    node.children = [node]
    error = assert_raises(Wirebind::EncodeError) { XML.encode(node, backend: :native) }

    assert_match(/nest more than \d+ deep/, error.message)
    assert_equal "node", error.path
  end

  def test_large_documents_reach_an_io_in_pieces
    list = Array.new(3000) { |i| Issue.new(key: "K-#{i}", labels: ["日本語😀" * 7, "é" * (i % 50)]) }
    sink = RecordingSink.new
    written = XML.encode(list, root: "issues", io: sink, backend: :native)
    whole = XML.encode(list, root: "issues", backend: :pure)

    assert_equal whole, sink.string
    assert_equal whole.bytesize, written
    assert_operator sink.writes.size, :>, 5
    sink.writes.each do |piece|
      assert_operator piece.bytesize, :<=, 64 * 1024
      assert_predicate piece, :valid_encoding?, "a piece must not split a character"
    end
    huge = Issue.new(key: "€" * 200_000)
    sink = RecordingSink.new
    XML.encode(huge, io: sink, backend: :native)
    assert_equal XML.encode(huge, backend: :pure), sink.string
    assert_operator sink.writes.size, :>=, 9, "one large value is flushed in pieces too"
  end

  def test_io_errors_propagate
    broken = Object.new
    def broken.write(_data) = raise(IOError, "closed stream")
    list = Array.new(2000) { |i| Issue.new(key: "K-#{i}" * 10) }

    assert_raises(IOError) { XML.encode(list, root: "l", io: broken, backend: :native) }
    assert_raises(IOError) { XML.encode(Issue.new, io: broken, backend: :native) }
  end

  def test_plans_are_cached_frozen_and_shareable
    XML.encode(Holder.new(main: Version.new), backend: :native)
    plan = Holder.wirebind_plan(:native_xml_encoder) { flunk "the plan should be cached" }

    assert_instance_of Wirebind::XML::Native::EncoderPlan, plan
    assert_predicate plan, :frozen?
    assert Ractor.shareable?(plan)
    assert_raises(NoMethodError, TypeError) { Wirebind::XML::Native::EncoderPlan.new }
    refute_nil Version.wirebind_plan(:native_xml_encoder) { nil }, "nested classes' plans are cached too"
  end

  def test_a_changed_schema_is_recompiled
    klass = Class.new { include Wirebind::Model; xml_root "k"; attribute :a, :string }
    inner = Class.new { include Wirebind::Model; xml_root "i"; attribute :x, :integer }
    klass.attribute :inner, inner
    record = klass.new(a: "1", inner: inner.new(x: 2))
    assert_same_encoding(record)

    klass.attribute :b, :integer, xml: "@b"
    inner.attribute :y, :string
    inner.xml_namespace "urn:i", prefix: "i"
    record.b = 3
    record.inner.y = "why"
    assert_same_encoding(record)
    # The nested class's namespace is declared once, on the document element.
    assert_equal %(<k xmlns:i="urn:i" b="3"><a>1</a><inner><i:x>2</i:x><i:y>why</i:y></inner></k>), XML.encode(record, backend: :native)
  end

  def test_records_missing_ivars_frozen_records_and_subclasses
    assert_same_encoding(Issue.allocate)
    assert_same_encoding(Issue.new(key: "k", labels: %w[a b]).freeze)
    subclass = Class.new(Version) { attribute :extra, :string, xml: "@extra" }
    assert_same_encoding(Holder.new(main: subclass.new(name: "n", extra: "e"), others: [subclass.new, Version.new]))
    assert_same_encoding(Issue.new(affects_versions: [subclass.new(extra: "x")]))
  end

  # A record whose values sit in text, in an attribute and in the element's text.
  class Escaped
    include Wirebind::Model
    xml_root "e"
    attribute :code, :string, xml: "@code"
    attribute :name, :string
    attribute :body, :string, xml: "."
  end

  # The escaper skips plain ASCII 16 bytes a step and leaves the rest to its
  # byte loop: whatever sits at whatever offset, and a long run of text in
  # another script, is written as the reference writes it (or refused alike).
  def test_values_escape_alike_whatever_sits_where
    specials = ["&", "<", ">", '"', "'", "\t", "\n", "\r", "]]>", "é", "中", "\u{1F600}", "\u0001", "\uFFFE", "\u007F"]
    specials.each do |special|
      (0..40).each do |offset|
        value = "#{'a' * offset}#{special}#{'b' * (40 - offset)}"
        assert_same_encoding(Escaped.new(code: value, name: value, body: value), "#{special.inspect} at #{offset}")
      end
    end
    assert_same_encoding(Escaped.new(code: "ちょっと長い日本語の文" * 5, name: "søren.k & «co» " * 6))
    written = XML.encode(Escaped.new(code: "#{'x' * 20}\"<\n", name: "#{'y' * 17}&>\t"), backend: :native)
    assert_equal %(<e code="#{'x' * 20}&quot;&lt;&#10;"><name>#{'y' * 17}&amp;&gt;\t</name></e>), written
  end

  # A plan's names are appended 16 bytes at a time: names of every length
  # around that, in elements, wrappers, attributes and lists, end where they end.
  def test_names_of_every_length_are_written_whole
    klass = Class.new do
      include Wirebind::Model
      xml_root "r#{'o' * 20}"
      (1..34).each { |length| attribute :"a#{length}", :string, xml: "n#{'x' * (length - 1)}" }
      attribute :wrapped, [:integer], xml: "#{'w' * 15}/#{'i' * 17}"
      attribute :tag, :string, xml: "@#{'t' * 16}"
    end
    values = (1..34).to_h { |length| [:"a#{length}", "v" * length] }
    record = klass.new(**values, wrapped: [1, 22, 333], tag: "q")
    xml = assert_same_encoding(record)[1].first
    assert_includes xml, "<n#{'x' * 15}>#{'v' * 16}</n#{'x' * 15}>"
    assert_includes xml, "<#{'w' * 15}><#{'i' * 17}>1</#{'i' * 17}>"
    assert_equal record, XML.decode(xml, klass, backend: :pure)
  end

  # Values are read from the slot each attribute's ivar holds in records of
  # exactly the model's class (learned from a record where that slot alone
  # holds the value): shared values, nils, ivars never set, ivars set in another
  # order, extra ivars, singleton classes and subclasses all read as by name.
  def test_values_are_read_from_the_right_ivar_whatever_the_record
    shared = "same"
    records = [
      Version.new(name: shared, id: shared, sequence: 1),
      Version.allocate.tap { |v| v.instance_variable_set(:@sequence, 7) },
      Version.allocate.tap do |v|
        v.instance_variable_set(:@extra, "not encoded")
        v.instance_variable_set(:@sequence, 2)
        v.instance_variable_set(:@name, "set last")
      end,
      Version.new(name: "own", id: "9", sequence: 3),
      Version.new(name: "singleton", sequence: 4).tap { |v| v.singleton_class.define_method(:name) { "reader" } },
      Class.new(Version).new(name: "subclass", id: "8", sequence: 5),
      Version.new(name: nil, id: "only id", sequence: nil),
      Version.new(name: "again", id: "7", sequence: 6)
    ]
    holder = Holder.new(label: "l", main: records.first, others: records)
    assert_same_encoding(holder)
    records[3].instance_variable_set(:@name, "changed")
    records[3].remove_instance_variable(:@id)
    xml = assert_same_encoding(holder)[1].first
    assert_includes xml, "<name>changed</name><sequence>3</sequence>"
    assert_includes xml, "<name>set last</name>"
    assert_includes xml, "<id>7</id><name>again</name>"
  end

  # Both backends encode the instance variables (what decoding sets), not readers.
  def test_overridden_readers_do_not_change_what_is_encoded
    klass = Class.new(Version) do
      def name = "from the reader"
    end
    pure = XML.encode(klass.new(name: "from the ivar"), backend: :pure)
    native = XML.encode(klass.new(name: "from the ivar"), backend: :native)
    assert_equal pure, native
    assert_includes pure, "<name>from the ivar</name>"
  end
end
