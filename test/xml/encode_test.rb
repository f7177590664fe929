# frozen_string_literal: true

require_relative "xml_test_support"

# Wirebind::XML.encode / Model#to_xml: what a record becomes on the wire.
class XMLEncodeTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  XSI = "http://www.w3.org/2001/XMLSchema-instance"

  # The child elements of the document element, as [name, text] pairs in order
  # (read back with the library's own tokenizer hooks, to stay independent of the
  # decoder under test).
  class Children < Wirebind::XML::Tokenizer
    attr_reader :children, :root_attrs

    def initialize(input)
      super(input, **Wirebind::XML::DEFAULT_LIMITS, dtd: :reject)
      @children = []
      @depth = 0
      @text = nil
    end

    def on_start(local, _uri, attrs)
      @depth += 1
      @root_attrs = attrs if @depth == 1
      @children << [local, nil] if @depth == 2
    end

    def on_leaf(local, _uri, attrs, text)
      @root_attrs = attrs if @depth.zero?
      @children << [local, text] if @depth == 1
    end

    def on_end
      @depth -= 1
    end
  end

  def children_of(xml)
    reader = Children.new(xml)
    reader.run
    reader.children
  end

  def issue
    Issue.new(
      id: "10001", lang: "en", key: "PROJ-1", votes: 12, watched: true,
      updated: Time.new(2011, 7, 13, 10, 15, 30.25r, "+02:00"),
      affects_versions: [Version.new(id: "1", name: "1.0", release_date: Time.utc(2010), sequence: 1), Version.new(name: "2.0")],
      labels: %w[bug ui]
    )
  end

  # ---- shape -------------------------------------------------------------------

  def test_the_issue_example
    xml = XML.encode(issue)

    assert_kind_of String, xml
    assert_equal Encoding::UTF_8, xml.encoding
    assert XML.check(xml)
    assert_match(/\A<Issue lang="en">/, xml)
    assert_match(%r{</Issue>\z}, xml)
    assert_equal issue, XML.decode(xml, Issue)
  end

  def test_elements_in_declaration_order_inherited_first
    names = children_of(XML.encode(issue)).map(&:first)

    assert_equal %w[id key votes watched updated affectsVersions label label], names
  end

  def test_element_names_default_to_lower_camel_case
    xml = XML.encode(Version.new(id: "1", name: "n", release_date: Time.utc(2000), sequence: 2))

    assert_equal %w[id name releaseDate sequence], children_of(xml).map(&:first)
    assert_match(%r{<releaseDate>2000-01-01T00:00:00Z</releaseDate>}, xml)
  end

  def test_the_root_element_is_named_after_the_class_or_xml_root
    assert_match(/\A<Version>/, XML.encode(Version.new))
    assert_match(/\A<price>/, XML.encode(Price.new))
    assert_match(/\A<other-name>/, XML.encode(Version.new, root: "other-name"))
    assert_match(%r{</other-name>\z}, XML.encode(Version.new, root: "other-name"))
  end

  def test_anonymous_and_nested_class_names
    anonymous = Class.new { include Wirebind::Model; attribute :a, :string }
    xml = XML.encode(anonymous.new(a: "x"))

    assert XML.check(xml)
    assert_equal "x", XML.decode(xml, anonymous).a
    assert_match(/\A<Issue[ >]/, XML.encode(Issue.new), "the root name leaves the modules out")
  end

  def test_scalar_values_in_canonical_form
    record = AllTypes.new(
      s: "s", i: -12, f: 1.5, d: BigDecimal("0.10"), b: false,
      t: Time.new(2000, 1, 2, 3, 4, 5.123r, "-03:30"), dt: Date.new(2000, 1, 2), bin: "\x00\xFF".b
    )
    children = children_of(XML.encode(record)).to_h

    assert_equal "s", children["s"]
    assert_equal "-12", children["i"]
    assert_equal 1.5, Float(children["f"])
    assert_equal BigDecimal("0.1"), BigDecimal(children["d"])
    assert_equal "false", children["b"]
    assert_equal "2000-01-02T03:04:05.123-03:30", children["t"]
    assert_equal "2000-01-02", children["dt"]
    assert_equal "AP8=", children["bin"]
  end

  def test_special_floats
    assert_equal "INF", children_of(XML.encode(AllTypes.new(f: Float::INFINITY))).to_h["f"]
    assert_equal "-INF", children_of(XML.encode(AllTypes.new(f: -Float::INFINITY))).to_h["f"]
    assert_equal "NaN", children_of(XML.encode(AllTypes.new(f: Float::NAN))).to_h["f"]
    assert_equal 3.0, XML.decode(XML.encode(AllTypes.new(f: 3)), AllTypes).f, "an Integer is a fine :float"
  end

  def test_times_keep_offset_and_fraction
    time = Time.new(1999, 12, 31, 23, 59, 59 + Rational(123_456_789, 1_000_000_000), "+14:00")
    text = children_of(XML.encode(AllTypes.new(t: time))).to_h["t"]

    assert_equal "1999-12-31T23:59:59.123456789+14:00", text
    assert_equal "2000-01-01T00:00:00Z", children_of(XML.encode(AllTypes.new(t: Time.utc(2000)))).to_h["t"]
  end

  def test_symbols_are_strings
    assert_equal "PROJ", XML.decode(XML.encode(Issue.new(key: :PROJ)), Issue).key
  end

  def test_strings_in_other_encodings_are_transcoded
    latin = "caf\xE9".dup.force_encoding(Encoding::ISO_8859_1)
    xml = XML.encode(Issue.new(key: latin))

    assert_equal Encoding::UTF_8, xml.encoding
    assert_predicate xml, :valid_encoding?
    assert_equal "café", XML.decode(xml, Issue).key
    assert_equal "日本", XML.decode(XML.encode(Issue.new(key: "日本".encode("Shift_JIS"))), Issue).key
  end

  def test_base64_of_any_bytes
    bytes = (0..255).map(&:chr).join.b
    xml = XML.encode(AllTypes.new(bin: bytes))

    assert_equal bytes, XML.decode(xml, AllTypes).bin
    refute_match(/\n/, xml, "base64 is written without line breaks")
  end

  # ---- escaping --------------------------------------------------------------------

  def test_text_is_escaped
    key = %(a < b && c > d ]]> "q" 'a')
    xml = XML.encode(Issue.new(key: key))

    assert XML.check(xml)
    assert_equal key, XML.decode(xml, Issue).key
    refute_includes xml, "]]>", "']]>' may not appear in text"
    content = xml[%r{<key>(.*)</key>}, 1]
    refute_includes content, "<"
    assert_equal content.scan("&").size, content.scan(/&(?:lt|gt|amp|quot|apos|#\d+|#x\h+);/).size, "a raw & in text"
  end

  def test_line_ends_and_tabs_in_text_survive
    key = "a\r\nb\rc\nd\te"
    xml = XML.encode(Issue.new(key: key))

    assert_equal key, XML.decode(xml, Issue).key, "a CR must be written as a reference, or the parser turns it into LF"
  end

  def test_attributes_are_escaped
    lang = %(a"b'c<d>e&f\tg\nh\r\ni  j)
    xml = XML.encode(Issue.new(lang: lang))

    assert XML.check(xml)
    assert_equal lang, XML.decode(xml, Issue).lang, "tab, LF and CR must be references in attributes, or they become spaces"
    refute_match(/lang="[^"]*[\t\n\r][^"]*"/, xml)
  end

  def test_markup_like_strings_cannot_inject_elements
    evil = "</key><votes>666</votes><key>"
    xml = XML.encode(Issue.new(key: evil, lang: %("><votes>1</votes><x y=")))

    decoded = XML.decode(xml, Issue)
    assert_nil decoded.votes
    assert_equal evil, decoded.key
  end

  def test_characters_xml_cannot_carry_are_encode_errors
    ["\u0000", "a\u0001b", "\u0008", "\u000B", "\u000C", "\u001F", "\uFFFE", "\uFFFF"].each do |bad|
      error = assert_raises(Wirebind::EncodeError, bad.inspect) { XML.encode(Issue.new(key: bad)) }
      assert_equal "Issue/key", error.path
      error = assert_raises(Wirebind::EncodeError, bad.inspect) { XML.encode(Issue.new(lang: bad)) }
      assert_match(/lang/, error.path)
    end
  end

  def test_characters_xml_can_carry_are_fine
    text = "\t\n\u0020\u007F\u0085\u00A0\uD7FF\uE000\uFFFD\u{10000}\u{10FFFF}"

    assert_equal text, XML.decode(XML.encode(Issue.new(key: text)), Issue).key
  end

  def test_invalid_utf8_is_an_encode_error
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(key: "ab\xFFcd")) }

    assert_equal "Issue/key", error.path
    assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(key: "caf\xE9".b)) }
  end

  # The same rule as JSON: a binary-tagged String holding valid UTF-8 is
  # written as text; anything else is refused (binary data belongs in :base64).
  def test_binary_strings_holding_utf8_are_text
    assert_includes XML.encode(Issue.new(key: "café".b)), "<key>café</key>"
    assert_includes XML.encode(Issue.new(lang: "é".b)), %(<Issue lang="é">)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(key: "caf\xE9".b)) }
    assert_match(/invalid UTF-8 in "caf\\xE9" \(binary data belongs in a :base64 attribute\)/, error.message)
  end

  # ---- nil ----------------------------------------------------------------------------

  def test_nil_values_are_omitted
    xml = XML.encode(Issue.new(key: "k"))

    assert_equal ["key"], children_of(xml).map(&:first) - ["affectsVersions"]
    refute_match(/lang=/, xml)
    refute_match(/nil/, xml)
    assert_equal Issue.new(key: "k"), XML.decode(xml, Issue)
  end

  def test_nil_xsi_writes_xsi_nil
    xml = XML.encode(Issue.new(key: "k"), nil: :xsi)

    assert XML.check(xml)
    %w[id votes watched updated].each do |name|
      assert_match(/<#{name} [^>]*nil="true"/, xml, name)
    end
    decoded = XML.decode(xml, Issue)
    assert_equal Issue.new(key: "k"), decoded
    refute_match(/lang=/, xml, "an XML attribute has no nil form: it is left out")
  end

  def test_nil_xsi_uses_the_xsi_namespace
    xml = XML.encode(AllTypes.new, nil: :xsi)
    nils = []
    reader = Class.new(Wirebind::XML::Tokenizer) do
      define_method(:on_leaf) { |local, _uri, attrs, _text| nils << local if attrs&.each_slice(3)&.include?(["nil", XSI, "true"]) }
    end
    reader.new(xml, **Wirebind::XML::DEFAULT_LIMITS, dtd: :reject).run

    assert_equal AllTypes.attributes.map(&:xml), nils
  end

  def test_nil_xsi_on_an_attribute
    xml = XML.encode(Nillable.new(sometimes: nil))
    names = children_of(xml).map(&:first)

    assert_equal %w[always count when], names
    assert_equal Nillable.new, XML.decode(xml, Nillable)
    assert_equal %w[always count sometimes when], children_of(XML.encode(Nillable.new, nil: :xsi)).map(&:first)
    assert_equal %w[sometimes x], children_of(XML.encode(Nillable.new(always: "a", count: 1, sometimes: "x", when: Time.utc(2000))))[2]
  end

  def test_nil_models_and_empty_lists
    xml = XML.encode(Holder.new(label: "l"))

    assert_equal Holder.new(label: "l"), XML.decode(xml, Holder)
    xml = XML.encode(Holder.new(label: "l"), nil: :xsi)
    assert_match(/<main [^>]*nil="true"/, xml)
    assert_equal Holder.new(label: "l"), XML.decode(xml, Holder)
  end

  # A nil item is written even with nil: :omit: leaving it out would lose it
  # and shift the items after it.
  def test_nil_items_of_lists_are_written_as_xsi_nil
    issue = Issue.new(key: "K", labels: ["a", nil, "b"],
                      affects_versions: [Version.new(name: "1"), nil, Version.new(name: "2")])
    xml = XML.encode(issue)

    assert_equal 3, xml.scan("<label").size
    assert_match(%r{<label xsi:nil="true" xmlns:xsi="#{XSI}"/>}, xml)
    assert_equal 2, xml.scan(/ xsi:nil="true"/).size
    assert_equal issue, XML.decode(xml, Issue)
    list = AllLists.new(i: [nil, 1], dt: [Date.new(2024, 1, 2), nil], bin: [nil])

    assert_equal list, XML.decode(XML.encode(list), AllLists)
    assert_equal list, XML.decode(XML.encode(list, nil: :xsi), AllLists)
  end

  def test_empty_strings_are_not_nil
    xml = XML.encode(Issue.new(key: "", lang: ""))
    decoded = XML.decode(xml, Issue)

    assert_equal "", decoded.key
    assert_equal "", decoded.lang
    assert_nil decoded.id
  end

  # ---- structure -------------------------------------------------------------------------

  def test_lists_of_scalars_repeat_the_element
    xml = XML.encode(Issue.new(labels: ["a", "", "c"]))

    assert_equal([["label", "a"], ["label", ""], ["label", "c"]], children_of(xml).select { |n, _| n == "label" })
  end

  def test_wrapped_lists_of_models
    xml = XML.encode(issue)

    assert_match(%r{<affectsVersions><Version><id>1</id>}, xml, "items of an any-name list are named after their class")
    assert_equal issue.affects_versions, XML.decode(xml, Issue).affects_versions
  end

  def test_shared_wrappers_are_written_once
    record = Wrapped.new(title: "t", author: "a", created: Date.new(2020, 1, 2), count: 3, tags: %w[x y],
                         anything: %w[p q], price: Price.new(currency: "EUR", amount: BigDecimal("1.5")))
    xml = XML.encode(record)

    assert_equal 1, xml.scan("<meta>").size
    assert_equal 1, xml.scan("<info>").size
    assert_equal 1, xml.scan("<tags>").size
    assert_match(%r{<meta><info><author>a</author><created>2020-01-02</created></info><count>3</count>}, xml)
    assert_equal record, XML.decode(xml, Wrapped)
  end

  def test_dot_and_attributes
    xml = XML.encode(Price.new(currency: "EUR", amount: BigDecimal("12.5")))

    assert_match(%r{\A<price currency="EUR">12\.50?</price>\z}, xml)
    assert_equal "<note>a &lt; b</note>", XML.encode(Note.new(text: "a < b"))
    assert_equal Note.new(text: " spaced ", lang: "x"), XML.decode(XML.encode(Note.new(text: " spaced ", lang: "x")), Note)
  end

  def test_nested_models_are_named_by_their_attribute
    xml = XML.encode(Holder.new(main: Version.new(name: "m"), others: [Version.new(name: "o")]))

    assert_match(%r{<main><name>m</name></main>}, xml)
    assert_match(%r{<other><name>o</name></other>}, xml)
  end

  def test_recursive_models
    tree = Node.new(name: "root", value: 1, children: [Node.new(name: "a", children: [Node.new(name: "a1")]), Node.new(name: "b")])
    xml = XML.encode(tree)

    assert_equal tree, XML.decode(xml, Node)
  end

  # ---- lists and documents ---------------------------------------------------------------------

  def test_a_list_needs_root
    error = assert_raises(ArgumentError) { XML.encode([issue]) }

    assert_match(/root/, error.message)
  end

  def test_a_list_with_root_and_item
    xml = XML.encode([issue, Issue.new(key: "2")], root: "issues", item: "item")

    assert_match(/\A<issues><item lang="en">/, xml)
    assert_equal %w[item item], children_of(xml).map(&:first)
    assert_equal [issue, Issue.new(key: "2")], XML.decode(xml, [Issue])
    assert_equal [issue, Issue.new(key: "2")], XML.decode(xml, [Issue], at: "issues/item")
  end

  def test_a_list_items_default_to_their_root_names
    xml = XML.encode([Version.new(name: "v"), Price.new(currency: "c")], root: "mixed")

    assert_equal %w[Version price], children_of(xml).map(&:first)
  end

  def test_an_empty_list
    xml = XML.encode([], root: "issues")

    assert XML.check(xml)
    assert_equal [], XML.decode(xml, [Issue])
  end

  def test_declaration
    xml = XML.encode(issue, declaration: true)

    assert xml.start_with?(%(<?xml version="1.0" encoding="UTF-8"?>))
    assert_equal issue, XML.decode(xml, Issue)
    assert XML.encode([issue], root: "l", declaration: true).start_with?("<?xml ")
    refute XML.encode(issue).start_with?("<?xml")
  end

  def test_to_xml_takes_the_options_of_encode
    assert_equal XML.encode(issue, nil: :xsi, declaration: true, root: "x"), issue.to_xml(nil: :xsi, declaration: true, root: "x")
    assert_raises(ArgumentError) { issue.to_xml(bogus: 1) }
  end

  def test_encoding_does_not_change_the_record
    record = issue
    before = record.to_h
    XML.encode(record)

    assert_equal before, record.to_h
  end

  # ---- io: ------------------------------------------------------------------------------

  def test_io_receives_the_same_bytes_and_the_count
    io = StringIO.new
    written = XML.encode(issue, io: io)

    assert_equal XML.encode(issue), io.string.force_encoding(Encoding::UTF_8)
    assert_equal io.string.bytesize, written
    assert_kind_of Integer, written
  end

  def test_io_with_non_ascii_counts_bytes
    io = StringIO.new
    written = XML.encode(Issue.new(key: "日本語 😀"), io: io, declaration: true)

    assert_equal io.string.bytesize, written
    assert_operator written, :>, io.string.force_encoding(Encoding::UTF_8).length
  end

  def test_io_for_a_large_list_writes_in_pieces
    list = Array.new(4000) { |i| Issue.new(key: "K-#{i}", labels: ["x" * 40]) }
    sink = RecordingSink.new
    written = XML.encode(list, root: "issues", io: sink)
    whole = XML.encode(list, root: "issues")

    assert_equal whole, sink.string
    assert_equal whole.bytesize, written
    assert_operator sink.writes.size, :>, 1, "a large document should be flushed in pieces, not built whole"
    assert sink.writes.all? { |w| w.bytesize <= 2 * 64 * 1024 }, "pieces should stay around 64 KiB"
    assert_equal list, XML.decode(sink.string, [Issue])
  end

  def test_io_gets_nothing_when_encoding_fails_early
    io = StringIO.new

    assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(votes: "x"), io: io) }
  end

  # ---- wrong values ----------------------------------------------------------------------------

  def test_values_of_the_wrong_class_are_encode_errors
    {
      votes: "12", watched: "true", updated: "2000-01-01T00:00:00Z", key: 12, id: 1.5
    }.each do |name, value|
      error = assert_raises(Wirebind::EncodeError, name) { XML.encode(Issue.new(name => value)) }
      xml_name = Issue.attributes.find { |a| a.name == name }.xml
      assert_equal "Issue/#{xml_name}", error.path, name
      assert_match(/expected/, error.message)
      assert_includes error.message, value.inspect, "the message shows the value"
    end
  end

  def test_wrong_values_of_every_type
    {
      i: [1.0, "1", nil.to_a], f: ["1.5", BigDecimal("1")], d: [1.5, "1"], b: [nil.to_a, "true", 1],
      t: [Date.new(2000), "2000", DateTime.new(2000)], dt: [Time.now, "2000-01-01"], bin: [1, :sym], s: [1, Object.new]
    }.each do |name, values|
      values.each do |value|
        error = assert_raises(Wirebind::EncodeError, "#{name}: #{value.inspect}") { XML.encode(AllTypes.new(name => value)) }
        assert_equal "AllTypes/#{name}", error.path
      end
    end
  end

  def test_wrong_values_in_nested_models_say_where
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(affects_versions: [Version.new, Version.new(sequence: "x")])) }

    assert_match(%r{\AIssue/}, error.path)
    assert_match(%r{/sequence\z}, error.path)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Holder.new(main: Version.new(release_date: 1))) }
    assert_match(%r{\AHolder/main/release_?[dD]ate\z}, error.path)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Wrapped.new(count: "3")) }
    assert_match(%r{\AWrapped/(meta/)?count\z}, error.path)
  end

  def test_wrong_models_and_lists
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Holder.new(main: Issue.new)) }
    assert_match(/main/, error.path)
    assert_match(/Version/, error.message)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(affects_versions: [Issue.new])) }
    assert_match(/affects_?[vV]ersions/, error.path)
    assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(labels: "not a list")) }
    assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(labels: [1])) }
    assert_raises(Wirebind::EncodeError) { XML.encode(Holder.new(main: "a version")) }
  end

  def test_subclasses_of_a_declared_model_are_fine
    subclass = Class.new(Version) { attribute :extra, :string }
    xml = XML.encode(Holder.new(main: subclass.new(name: "n", extra: "e")))

    assert XML.check(xml)
    assert_equal "n", XML.decode(xml, Holder).main.name
  end

  def test_bad_arguments
    assert_raises(ArgumentError) { XML.encode("a string") }
    assert_raises(ArgumentError) { XML.encode(nil) }
    assert_raises(ArgumentError) { XML.encode({ key: "k" }) }
    assert_raises(ArgumentError) { XML.encode([issue, "x"], root: "r") }
    assert_raises(ArgumentError) { XML.encode(issue, nil: :null) }
    assert_raises(ArgumentError) { XML.encode(issue, root: "") }
    assert_raises(ArgumentError) { XML.encode(issue, root: "1abc") }
    assert_raises(ArgumentError) { XML.encode(issue, root: "a b") }
    assert_raises(ArgumentError) { XML.encode(issue, root: "<x>") }
    assert_raises(ArgumentError) { XML.encode(issue, root: :sym) }
    assert_raises(ArgumentError) { XML.encode([issue], root: "r", item: "bad name") }
    assert_raises(ArgumentError) { XML.encode(issue, backend: :bogus) }
    assert_raises(ArgumentError) { XML.encode(issue, unknown: true) }
  end

  def test_a_prefixed_root_name_gives_well_formed_xml_or_is_refused
    xml =
      begin
        XML.encode(issue, root: "p:issue")
      rescue ArgumentError
        nil
      end
    return pass if xml.nil?

    begin
      XML.check(xml)
    rescue Wirebind::ParseError => e
      flunk "root: \"p:issue\" wrote a document that is not well-formed (#{e.message}): #{xml[0, 40]}"
    end
    pass
  end

  def test_encoding_is_deterministic
    assert_equal XML.encode(issue), XML.encode(issue)
  end

  # A model's values are its instance variables (what decoding sets), on both
  # backends: readers overridden in a subclass or on one record change nothing
  # written, at the top or nested, in elements, attributes and lists.
  def test_a_models_values_are_its_instance_variables
    overriding = Class.new(Version) do
      xml_root "Version"
      def name = "from the reader"
      def id = "reader-id"
    end
    version = overriding.new(id: "v", name: "from the ivar", sequence: 1)
    version.define_singleton_method(:sequence) { 99 }
    issue = Issue.new(lang: "en", key: "K", affects_versions: [version], labels: %w[a])
    issue.define_singleton_method(:lang) { "reader-lang" }
    issue.define_singleton_method(:labels) { %w[reader] }

    plain = Version.new(id: "v", name: "from the ivar", sequence: 1)
    assert_equal XML.encode(plain), XML.encode(version)
    expected = XML.encode(Issue.new(lang: "en", key: "K", affects_versions: [plain], labels: %w[a]))
    assert_equal expected, XML.encode(issue)
    refute_match(/reader/, XML.encode(issue))
  end
end
