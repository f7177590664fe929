# frozen_string_literal: true

require_relative "xml_test_support"

# Wirebind::XML.decode / .each / Model.from_xml: what a payload becomes.
class XMLDecodeTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  ISSUE_XML = <<~XML
    <?xml version="1.0" encoding="UTF-8"?>
    <Issue lang="en">
      <id>10001</id>
      <key>PROJ-1</key>
      <votes> 12 </votes>
      <watched>true</watched>
      <updated>2011-07-13T10:15:30.250+02:00</updated>
      <affectsVersions>
        <Version><id>1</id><name>1.0</name><releaseDate>2010-01-01T00:00:00Z</releaseDate><sequence>1</sequence></Version>
        <item><id>2</id><name>2.0</name><sequence>2</sequence></item>
      </affectsVersions>
      <label>bug</label>
      <label>ui</label>
    </Issue>
  XML

  def one(xml, type = AllTypes, **options)
    decode_everywhere(xml, type, **options)
  end

  def value_of(type_attr, text, model = AllTypes)
    one("<AllTypes><#{type_attr}>#{text}</#{type_attr}></AllTypes>", model).public_send(type_attr)
  end

  # ---- the contract's example ------------------------------------------------

  def test_the_issue_example
    issue = decode_everywhere(ISSUE_XML, Issue)

    assert_instance_of Issue, issue
    assert_equal "10001", issue.id
    assert_equal "en", issue.lang
    assert_equal "PROJ-1", issue.key
    assert_equal 12, issue.votes
    assert_equal true, issue.watched
    assert_equal Time.utc(2011, 7, 13, 8, 15, 30.25r), issue.updated
    assert_equal 7200, issue.updated.utc_offset
    assert_equal %w[bug ui], issue.labels
    assert_equal 2, issue.affects_versions.size
    assert(issue.affects_versions.all?(Version))
    first, second = issue.affects_versions
    assert_equal ["1", "1.0", Time.utc(2010), 1], [first.id, first.name, first.release_date, first.sequence]
    assert_equal ["2", "2.0", nil, 2], [second.id, second.name, second.release_date, second.sequence]
  end

  def test_decoding_equals_a_record_built_by_hand
    expected = Issue.new(
      id: "10001", lang: "en", key: "PROJ-1", votes: 12, watched: true,
      updated: Time.new(2011, 7, 13, 10, 15, 30.25r, "+02:00"),
      affects_versions: [
        Version.new(id: "1", name: "1.0", release_date: Time.utc(2010), sequence: 1),
        Version.new(id: "2", name: "2.0", sequence: 2)
      ],
      labels: %w[bug ui]
    )

    assert_equal expected, XML.decode(ISSUE_XML, Issue)
    assert_equal expected, Issue.from_xml(ISSUE_XML)
  end

  def test_from_xml_takes_the_options_of_decode
    soap = "<Envelope><Body><r><Issue><key>K</key><bogus/></Issue></r></Body></Envelope>"

    assert_equal "K", Issue.from_xml(soap, at: "Envelope/Body/r/Issue").key
    assert_nil Issue.from_xml(soap, at: "Envelope/Body/nothing")
    assert_raises(Wirebind::DecodeError) { Issue.from_xml(soap, at: "Envelope/Body/r/Issue", strict: true) }
    assert_raises(Wirebind::ParseError) { Issue.from_xml("<!DOCTYPE Issue><Issue/>") }
    assert_raises(ArgumentError) { Issue.from_xml(soap, no_such_option: 1) }
  end

  def test_to_xml_then_from_xml
    issue = XML.decode(ISSUE_XML, Issue)
    xml = issue.to_xml

    assert_kind_of String, xml
    assert_equal issue, Issue.from_xml(xml)
    assert_equal XML.encode(issue), xml
  end

  def test_inherited_attributes_are_decoded
    version = XML.decode("<Version><id>v1</id><name>n</name></Version>", Version)

    assert_equal "v1", version.id
    assert_equal "n", version.name
  end

  # ---- strings -------------------------------------------------------------

  def test_strings_keep_their_whitespace_exactly
    assert_equal "  a  b\t\n c ", value_of(:s, "  a  b\t\n c ")
    assert_equal " ", value_of(:s, " ")
    assert_equal "\n\n", value_of(:s, "\n\n")
  end

  def test_strings_are_utf8
    value = value_of(:s, "ünïcödé ✓ 😀")

    assert_equal "ünïcödé ✓ 😀", value
    assert_equal Encoding::UTF_8, value.encoding
    assert_predicate value, :valid_encoding?
  end

  def test_decoded_strings_can_be_changed
    record = XML.decode("<AllTypes><s>abc</s></AllTypes>", AllTypes)
    record.s << "d"

    assert_equal "abcd", record.s
    other = XML.decode("<AllTypes><s>abc</s></AllTypes>", AllTypes)
    assert_equal "abc", other.s, "a decoded string must not be shared between decodes"
  end

  def test_predefined_entities_and_character_references
    assert_equal %(<>&'"), value_of(:s, "&lt;&gt;&amp;&apos;&quot;")
    assert_equal "AB\u00E9\u{1F600}", value_of(:s, "&#65;&#x42;&#233;&#x1f600;")
    assert_equal "a\tb\rc", value_of(:s, "a&#9;b&#13;c"), "a character reference to CR is kept, unlike a literal CR"
    assert_equal "&lt;", value_of(:s, "&amp;lt;"), "references are expanded once, not twice"
  end

  def test_cdata_sections
    assert_equal "<a & b>", value_of(:s, "<![CDATA[<a & b>]]>")
    assert_equal "x<y>z", value_of(:s, "x<![CDATA[<y>]]>z")
    assert_equal "]]", value_of(:s, "<![CDATA[]]]]><![CDATA[]]>")
    assert_equal "", value_of(:s, "<![CDATA[]]>")
    assert_equal "&amp;", value_of(:s, "<![CDATA[&amp;]]>"), "no references inside CDATA"
    assert_equal " a\nb ", value_of(:s, "<![CDATA[ a\r\nb ]]>")
    assert_equal 42, value_of(:i, " <![CDATA[ 42 ]]> ")
  end

  def test_a_lone_bracket_in_text
    assert_equal "a]b]]c", value_of(:s, "a]b]]c")
    assert_equal "[x]", value_of(:s, "[x]")
  end

  def test_comments_and_processing_instructions_inside_values_are_skipped
    assert_equal "ab", value_of(:s, "a<!-- comment -->b")
    assert_equal "ab", value_of(:s, "a<?pi data?>b")
    assert_equal 12, value_of(:i, "1<!-- -->2")
    assert_equal "", value_of(:s, "<!-- only a comment -->")
    assert_nil value_of(:i, "<!-- only a comment -->")
  end

  # A scalar is text: markup inside one would be dropped without a word (issue 13).
  def test_child_elements_inside_a_scalar_are_a_decode_error
    { [:s, "AB<b>ignored</b>C"] => "AllTypes/s/b", [:s, "A<b><c>deep</c><s>not me</s></b>C"] => "AllTypes/s/b",
      [:i, "1<x>9</x>2"] => "AllTypes/i/x", [:s, "<b>nothing direct</b>"] => "AllTypes/s/b",
      [:s, "<b/>"] => "AllTypes/s/b" }.each do |(field, text), path|
      error = assert_raises(Wirebind::DecodeError, text) { XML.decode("<AllTypes><#{field}>#{text}</#{field}></AllTypes>", AllTypes) }
      assert_equal path, error.path, text
      assert_match(/<[bx]> is an element inside a :(string|integer) value; a scalar holds text only/, error.message)
    end
  end

  # ---- integers ------------------------------------------------------------

  def test_integers
    assert_equal 12, value_of(:i, "12")
    assert_equal 12, value_of(:i, " 12 ")
    assert_equal 12, value_of(:i, "\n\t 12 \r\n")
    assert_equal(-7, value_of(:i, "-7"))
    assert_equal 7, value_of(:i, "+7")
    assert_equal 7, value_of(:i, "007")
    assert_equal 0, value_of(:i, "-0")
    assert_equal 2**100, value_of(:i, (2**100).to_s)
    assert_equal(-(2**70), value_of(:i, (-(2**70)).to_s))
  end

  def test_bad_integers_are_decode_errors
    ["many", "1.5", "1e3", "1 2", "0x10", "١٢", "--1", "+", "12a"].each do |text|
      error = assert_raises(Wirebind::DecodeError, text.inspect) { value_of(:i, text) }
      assert_match(/integer/, error.message)
      assert_equal "AllTypes/i", error.path
    end
  end

  # ---- floats --------------------------------------------------------------

  def test_floats
    assert_equal 1.5, value_of(:f, "1.5")
    assert_equal 1.5, value_of(:f, " 1.5 ")
    assert_equal(-2e10, value_of(:f, "-2E10"))
    assert_equal 0.5, value_of(:f, ".5")
    assert_equal 1.0, value_of(:f, "1.")
    assert_equal 3.0, value_of(:f, "3")
    assert_equal 0.1, value_of(:f, "0.1")
    assert_equal Float::INFINITY, value_of(:f, "INF")
    assert_equal(-Float::INFINITY, value_of(:f, "-INF"))
    assert_predicate value_of(:f, "NaN"), :nan?
    assert_equal 5e-324, value_of(:f, "4.9406564584124654E-324")
    assert_equal Float::MAX, value_of(:f, "1.7976931348623157E308")
    negative_zero = value_of(:f, "-0.0")
    assert_equal "-0.0", negative_zero.to_s
  end

  def test_bad_floats_are_decode_errors
    ["abc", "1,5", "inf", "nan", "Infinity", "1.2.3", "e5", ""].each do |text|
      next if text.empty? # empty is nil, tested elsewhere

      error = assert_raises(Wirebind::DecodeError, text.inspect) { value_of(:f, text) }
      assert_match(/double/, error.message)
    end
  end

  # ---- decimals ------------------------------------------------------------

  def test_decimals_are_exact_big_decimals
    value = value_of(:d, "1234567890.123456789012345678901234567890")

    assert_instance_of BigDecimal, value
    assert_equal BigDecimal("1234567890.123456789012345678901234567890"), value
    assert_equal BigDecimal("12"), value_of(:d, "12.")
    assert_equal BigDecimal("-0.001"), value_of(:d, " -0.001 ")
    assert_equal BigDecimal("0.5"), value_of(:d, ".5")
    assert_equal BigDecimal("100"), value_of(:d, "+100")
  end

  def test_bad_decimals_are_decode_errors
    %w[1e5 abc 1,5 NaN INF 1.2.3].each do |text|
      assert_raises(Wirebind::DecodeError, text) { value_of(:d, text) }
    end
  end

  # ---- booleans ------------------------------------------------------------

  def test_booleans
    assert_equal true, value_of(:b, "true")
    assert_equal false, value_of(:b, "false")
    assert_equal true, value_of(:b, "1")
    assert_equal false, value_of(:b, "0")
    assert_equal true, value_of(:b, " true\n")
    assert_equal false, value_of(:b, "\t0 ")
  end

  def test_bad_booleans_are_decode_errors
    %w[TRUE True yes no on 2 t f 01].each do |text|
      error = assert_raises(Wirebind::DecodeError, text) { value_of(:b, text) }
      assert_match(/boolean/, error.message)
    end
  end

  # ---- times ---------------------------------------------------------------

  def test_times_keep_their_offset
    time = value_of(:t, "2011-07-13T10:15:30+05:30")

    assert_equal Time.utc(2011, 7, 13, 4, 45, 30), time
    assert_equal 19_800, time.utc_offset
    assert_equal [2011, 7, 13, 10, 15, 30], [time.year, time.month, time.day, time.hour, time.min, time.sec]
    negative = value_of(:t, "2011-07-13T10:15:30-08:00")
    assert_equal(-28_800, negative.utc_offset)
    assert_equal Time.utc(2011, 7, 13, 18, 15, 30), negative
  end

  def test_times_in_utc
    zulu = value_of(:t, "2011-07-13T10:15:30Z")

    assert_predicate zulu, :utc?
    assert_equal Time.utc(2011, 7, 13, 10, 15, 30), zulu
    plain = value_of(:t, " 2011-07-13T10:15:30 ")
    assert_equal Time.utc(2011, 7, 13, 10, 15, 30), plain
    assert_equal 0, plain.utc_offset
  end

  def test_time_fractions_are_exact
    assert_equal 250_000_000, value_of(:t, "2011-07-13T10:15:30.25Z").nsec
    assert_equal 123_456_789, value_of(:t, "2011-07-13T10:15:30.123456789Z").nsec
    assert_equal 1, value_of(:t, "2011-07-13T10:15:30.000000001+01:00").nsec
  end

  def test_time_fractions_finer_than_a_nanosecond_are_exact
    skip_on_jruby "Time keeps whole nanoseconds: finer fractions of a second are cut"
    assert_equal Rational(1_234_567_891, 10_000_000_000), value_of(:t, "2011-07-13T10:15:30.1234567891Z").subsec
  end

  def test_midnight_24_is_the_next_day
    assert_equal Time.utc(2000, 1, 1), value_of(:t, "1999-12-31T24:00:00Z")
  end

  def test_bad_times_are_decode_errors
    %w[
      2011-13-01T00:00:00Z 2011-02-30T00:00:00Z 2011-07-13T25:00:00Z 2011-07-13T10:60:00Z
      2011-07-13 10:15:30 2011-07-13T10:15Z 2011-07-13T10:15:30+15:00 2011-7-13T10:15:30Z yesterday
    ].each do |text|
      error = assert_raises(Wirebind::DecodeError, text) { value_of(:t, text) }
      assert_match(/date-time/, error.message)
    end
  end

  # ---- dates ---------------------------------------------------------------

  def test_dates
    date = value_of(:dt, "2020-02-29")

    assert_instance_of Date, date
    assert_equal Date.new(2020, 2, 29), date
    assert_equal Date.new(2020, 1, 1), value_of(:dt, " 2020-01-01Z ")
    assert_equal Date.new(2020, 1, 1), value_of(:dt, "2020-01-01+05:00")
  end

  def test_bad_dates_are_decode_errors
    %w[2021-02-29 2020-13-01 2020-1-1 20200101 2020-01-01T00:00:00Z].each do |text|
      error = assert_raises(Wirebind::DecodeError, text) { value_of(:dt, text) }
      assert_match(/date/, error.message)
    end
  end

  # ---- base64 --------------------------------------------------------------

  def test_base64_gives_binary_strings
    value = value_of(:bin, "aGVsbG8gd29ybGQ=")

    assert_equal "hello world".b, value
    assert_equal Encoding::BINARY, value.encoding
    assert_equal "\x00\xFF\xFE".b, value_of(:bin, "AP/+")
    assert_equal "hello world".b, value_of(:bin, "\n  aGVsbG8g\n  d29ybGQ=\n"), "line-wrapped base64"
  end

  def test_bad_base64_is_a_decode_error
    ["not base64!", "aGVsbG8", "a===", "aGVsbG8=x"].each do |text|
      assert_raises(Wirebind::DecodeError, text) { value_of(:bin, text) }
    end
  end

  # ---- empty, absent, nil ----------------------------------------------------

  def test_absent_elements_are_nil_and_absent_lists_empty
    record = one("<AllTypes/>")

    AllTypes.attributes.each { |a| assert_nil record.public_send(a.name), a.name }
    lists = one("<AllLists></AllLists>", AllLists)
    AllLists.attributes.each { |a| assert_equal [], lists.public_send(a.name), a.name }
  end

  # An empty base64Binary is a value, zero bytes: decode(encode("".b)) == "".b.
  def test_empty_elements_are_empty_strings_zero_bytes_and_nil_otherwise
    %w[<x/> <x></x>].each do |form|
      children = AllTypes.attributes.map { |a| form.gsub("x", a.xml) }.join
      record = one("<AllTypes>#{children}</AllTypes>")

      assert_equal "", record.s, form
      assert_equal "".b, record.bin, form
      assert_equal Encoding::BINARY, record.bin.encoding, form
      (AllTypes.attributes.map(&:name) - %i[s bin]).each { |name| assert_nil record.public_send(name), "#{name} in #{form}" }
    end
  end

  def test_whitespace_only_non_strings_are_nil
    children = AllTypes.attributes.map { |a| "<#{a.xml}> \n\t </#{a.xml}>" }.join
    record = one("<AllTypes>#{children}</AllTypes>")

    assert_equal " \n\t ", record.s
    assert_equal "".b, record.bin
    (AllTypes.attributes.map(&:name) - %i[s bin]).each { |name| assert_nil record.public_send(name), name }
  end

  def test_empty_elements_in_lists
    record = one("<AllLists><s/><s></s><i/><i> </i><i>3</i><bin/><bin>AA==</bin></AllLists>", AllLists)

    assert_equal ["", ""], record.s
    assert_equal [nil, nil, 3], record.i
    assert_equal ["".b, "\0".b], record.bin
  end

  def test_empty_base64_round_trips
    record = AllTypes.new(bin: "".b)

    assert_equal "".b, XML.decode(XML.encode(record), AllTypes).bin
    assert_equal "".b, XML.decode(XML.encode(AllTypesAttrs.new(bin: "".b)), AllTypesAttrs).bin
  end

  def test_empty_strings_are_not_frozen_literals
    record = XML.decode("<AllTypes><s/></AllTypes>", AllTypes)
    record.s << "x"

    assert_equal "", XML.decode("<AllTypes><s/></AllTypes>", AllTypes).s
  end

  def test_xsi_nil
    xsi = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    children = AllTypes.attributes.map { |a| %(<#{a.xml} xsi:nil="true"/>) }.join
    record = one("<AllTypes #{xsi}>#{children}</AllTypes>")

    AllTypes.attributes.each { |a| assert_nil record.public_send(a.name), a.name }
    assert_nil one(%(<AllTypes #{xsi}><s xsi:nil="true"></s></AllTypes>)).s
    assert_nil one(%(<AllTypes #{xsi}><s xsi:nil="1">ignored</s></AllTypes>)).s
    assert_nil one(%(<AllTypes #{xsi}><i xsi:nil="true">not a number</i></AllTypes>)).i
    assert_nil one(%(<AllTypes #{xsi}><i xsi:nil=" true "/></AllTypes>)).i, "xsi:nil is an xs:boolean, whitespace collapsed"
  end

  def test_xsi_nil_false_keeps_the_value
    xsi = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'

    assert_equal "", one(%(<AllTypes #{xsi}><s xsi:nil="false"/></AllTypes>)).s
    assert_equal 5, one(%(<AllTypes #{xsi}><i xsi:nil="false">5</i></AllTypes>)).i
    assert_equal 5, one(%(<AllTypes #{xsi}><i xsi:nil="0">5</i></AllTypes>)).i
  end

  def test_nil_means_xsi_nil_only_in_the_xsi_namespace
    assert_equal "", one(%(<AllTypes><s nil="true"/></AllTypes>)).s
    assert_equal "", one(%(<AllTypes xmlns:x="urn:not-xsi"><s x:nil="true"/></AllTypes>)).s
    other_prefix = %(<AllTypes xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><s i:nil="true"/></AllTypes>)
    assert_nil one(other_prefix).s
  end

  def test_xsi_nil_on_models
    xsi = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    holder = one(%(<Holder #{xsi}><label>x</label><main xsi:nil="true"><id>ignored</id></main></Holder>), Holder)

    assert_nil holder.main
    assert_equal "x", holder.label
    record = one(%(<Issue #{xsi} xsi:nil="true"><key>K</key></Issue>), Issue)
    assert_nil record, "a nil record element decodes to nil"
  end

  def test_an_empty_model_element_is_an_empty_record
    holder = one("<Holder><main/><other></other><other><name>n</name></other></Holder>", Holder)

    assert_equal Version.new, holder.main
    assert_equal [Version.new, Version.new(name: "n")], holder.others
  end

  # ---- XML attributes --------------------------------------------------------

  def test_xml_attributes_of_every_type
    xml = %(<attrs s=" a b " i=" 12 " f="1.5" d="0.10" b="true" t="2001-02-03T04:05:06-07:00" dt="2001-02-03" bin="AAE="/>)
    record = one(xml, AllTypesAttrs)

    assert_equal " a b ", record.s
    assert_equal 12, record.i
    assert_equal 1.5, record.f
    assert_equal BigDecimal("0.1"), record.d
    assert_equal true, record.b
    assert_equal Time.utc(2001, 2, 3, 11, 5, 6), record.t
    assert_equal(-25_200, record.t.utc_offset)
    assert_equal Date.new(2001, 2, 3), record.dt
    assert_equal "\x00\x01".b, record.bin
  end

  def test_xml_attribute_values_are_normalized_and_expanded
    record = one(%(<attrs s="a&amp;b&lt;&#x9;&#10;&quot;c\td\ne\r\nf" i='&#x31;2'/>), AllTypesAttrs)

    assert_equal %(a&b<\t\n"c d e f), record.s
    assert_equal 12, record.i
  end

  def test_empty_xml_attributes
    record = one(%(<attrs s="" i="" b=" " bin=""/>), AllTypesAttrs)

    assert_equal "", record.s
    assert_nil record.i
    assert_nil record.b
    assert_equal "".b, record.bin
  end

  def test_bad_xml_attribute_values_are_decode_errors
    error = assert_raises(Wirebind::DecodeError) { XML.decode(%(<attrs i="twelve"/>), AllTypesAttrs) }

    assert_match(/integer/, error.message)
    assert_match(/twelve/, error.message)
    assert_equal "attrs/@i", error.path
  end

  def test_xml_attributes_on_a_record_with_children
    issue = one(%(<Issue lang="de" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Issue"><key>K</key></Issue>), Issue)

    assert_equal "de", issue.lang
    assert_equal "K", issue.key
  end

  def test_attributes_and_elements_of_the_same_name_do_not_mix
    issue = one(%(<Issue key="from-attribute" lang="en"><lang>from-element</lang><key>k</key></Issue>), Issue)

    assert_equal "en", issue.lang
    assert_equal "k", issue.key
  end

  # ---- the element's own text ------------------------------------------------

  def test_dot_maps_the_text_of_the_element
    price = one(%(<price currency="EUR"> 12.50 </price>), Price)

    assert_equal BigDecimal("12.5"), price.amount
    assert_equal "EUR", price.currency
    note = one(%(<note lang="fr">  Bonjour &amp; <![CDATA[<salut>]]> </note>), Note)
    assert_equal "  Bonjour & <salut> ", note.text
  end

  def test_dot_with_markup_inside
    note = one(%(<note>a<!-- c -->b<?pi?>c<x>skipped</x>d</note>), Note)

    assert_equal "abcd", note.text
    price = one(%(<price>1<!-- -->2</price>), Price)
    assert_equal BigDecimal("12"), price.amount
  end

  def test_dot_of_an_empty_element
    assert_equal "", one("<note/>", Note).text
    assert_equal "", one("<note></note>", Note).text
    assert_nil one("<price/>", Price).amount
    assert_nil one("<price>  </price>", Price).amount
  end

  def test_models_with_dot_in_lists
    holder = one(%(<Holder><price currency="A">1</price><label>l</label><price currency="B">2<!----></price></Holder>), Holder)

    assert_equal [Price.new(currency: "A", amount: BigDecimal(1)), Price.new(currency: "B", amount: BigDecimal(2))], holder.prices
  end

  def test_bad_text_of_a_dot_attribute
    error = assert_raises(Wirebind::DecodeError) { XML.decode(%(<price currency="X">lots</price>), Price) }

    assert_match(/decimal/, error.message)
    assert_equal "price", error.path.split("/").first
  end

  # ---- structure -------------------------------------------------------------

  def test_element_order_does_not_matter
    random = Random.new(random_seed)
    parts = [
      "<id>10001</id>", "<key>PROJ-1</key>", "<votes>12</votes>", "<watched>0</watched>",
      "<updated>2011-07-13T10:15:30Z</updated>", "<label>a</label>", "<unknown><key>NOT</key></unknown>",
      "<affectsVersions><v><name>1</name></v><v><name>2</name></v></affectsVersions>"
    ]
    expected = XML.decode("<Issue>#{parts.join}</Issue>", Issue)
    10.times do
      shuffled = parts.shuffle(random: random)
      decoded = XML.decode("<Issue>\n  #{shuffled.join("\n  ")}\n</Issue>", Issue)

      assert_equal expected, decoded, shuffled.join
    end
  end

  def test_list_items_keep_document_order_when_interleaved
    issue = one("<Issue><label>1</label><key>k</key><label>2</label><votes>3</votes><label>3</label></Issue>", Issue)

    assert_equal %w[1 2 3], issue.labels
  end

  def test_a_repeated_single_value_keeps_the_last
    # Documents should not repeat a single value; when they do, the later one wins
    # (as a streaming reader that does not buffer can only do).
    issue = XML.decode("<Issue><key>first</key><key>second</key></Issue>", Issue)

    assert_includes %w[first second], issue.key
  end

  def test_unknown_elements_are_skipped_however_deep
    deep = ("<junk><key>WRONG</key><label>WRONG</label>" * 300) + ("</junk>" * 300)
    issue = one("<Issue><key>right</key>#{deep}<label>ok</label><votes>1</votes></Issue>", Issue)

    assert_equal "right", issue.key
    assert_equal ["ok"], issue.labels
    assert_equal 1, issue.votes
  end

  def test_unknown_elements_with_text_attributes_cdata_and_references
    junk = %(<junk a="1" b='&amp;'>text &lt; <![CDATA[ <key>no</key> ]]><x/>&#65;</junk>)
    issue = one("<Issue>#{junk}<key>k</key>#{junk}</Issue>", Issue)

    assert_equal "k", issue.key
  end

  def test_unknown_elements_still_must_be_well_formed
    assert_raises(Wirebind::ParseError) { XML.decode("<Issue><junk><a></junk></a></Issue>", Issue) }
    assert_raises(Wirebind::ParseError) { XML.decode("<Issue><junk>&undefined;</junk></Issue>", Issue) }
    assert_raises(Wirebind::ParseError) { XML.decode("<Issue><junk a='1' a='2'/></Issue>", Issue) }
  end

  def test_comments_and_pis_everywhere
    xml = <<~XML
      <?xml version="1.0"?>
      <!-- before -->
      <?pi before?>
      <Issue><!-- in --><?pi in?><key><!-- a -->K<!-- b --></key><!-- between --><votes>1</votes></Issue>
      <!-- after -->
      <?pi after?>
    XML
    issue = one(xml, Issue)

    assert_equal "K", issue.key
    assert_equal 1, issue.votes
  end

  def test_whitespace_between_elements_is_ignored
    xml = "<Issue>\n\t <key>K</key> \r\n <votes>\n1\n</votes>\n</Issue>\n\n"

    assert_equal Issue.new(key: "K", votes: 1), one(xml, Issue)
  end

  def test_text_mixed_between_elements_of_a_record_is_ignored
    assert_equal Issue.new(key: "K", votes: 1), one("<Issue>stray <key>K</key> text<votes>1</votes>more</Issue>", Issue)
  end

  def test_crlf_and_cr_in_text_become_lf
    assert_equal "a\nb\nc\n\nd", value_of(:s, "a\r\nb\rc\r\n\rd")
  end

  # ---- lists -----------------------------------------------------------------

  def test_lists_of_every_scalar_type
    xml = <<~XML
      <AllLists>
        <s>a</s><s> b </s>
        <i>1</i><i> -2 </i>
        <f>1.5</f><f>INF</f>
        <d>0.1</d><d>2</d>
        <b>true</b><b>0</b>
        <t>2000-01-01T00:00:00Z</t><t>2000-01-01T00:00:00+01:00</t>
        <dt>2000-01-01</dt>
        <bin>AA==</bin><bin></bin>
      </AllLists>
    XML
    record = one(xml, AllLists)

    assert_equal ["a", " b "], record.s
    assert_equal [1, -2], record.i
    assert_equal [1.5, Float::INFINITY], record.f
    assert_equal [BigDecimal("0.1"), BigDecimal("2")], record.d
    assert_equal [true, false], record.b
    assert_equal [Time.utc(2000), Time.utc(1999, 12, 31, 23)], record.t
    assert_equal [0, 3600], record.t.map(&:utc_offset)
    assert_equal [Date.new(2000, 1, 1)], record.dt
    assert_equal ["\x00".b, "".b], record.bin
  end

  def test_a_list_with_one_item_is_still_a_list
    assert_equal ["only"], one("<Issue><label>only</label></Issue>", Issue).labels
  end

  def test_wrapped_list_of_models_with_any_item_name
    xml = "<Issue><affectsVersions><Version><name>a</name></Version><v><name>b</name></v><x:y xmlns:x='urn:x'><name>c</name></x:y></affectsVersions></Issue>"

    assert_equal %w[a b c], one(xml, Issue).affects_versions.map(&:name)
  end

  def test_empty_wrapper_gives_an_empty_list
    assert_equal [], one("<Issue><affectsVersions/></Issue>", Issue).affects_versions
    assert_equal [], one("<Issue><affectsVersions>\n  </affectsVersions></Issue>", Issue).affects_versions
    assert_equal [], one("<Issue><affectsVersions><!-- none --></affectsVersions></Issue>", Issue).affects_versions
  end

  def test_a_wrapper_that_appears_twice_adds_to_the_same_list
    xml = "<Issue><affectsVersions><v><name>a</name></v></affectsVersions><key>k</key><affectsVersions><v><name>b</name></v></affectsVersions></Issue>"

    assert_equal %w[a b], one(xml, Issue).affects_versions.map(&:name)
  end

  def test_lists_of_models_unwrapped
    xml = "<Holder><other><name>1</name></other><label>L</label><other><name>2</name></other><other/></Holder>"
    holder = one(xml, Holder)

    assert_equal ["1", "2", nil], holder.others.map(&:name)
    assert_equal "L", holder.label
  end

  def test_lists_are_distinct_objects_per_record
    a, b = XML.decode("<r><Issue/><Issue/></r>", [Issue])
    a.labels << "x"

    assert_equal [], b.labels
  end

  # ---- wrappers ----------------------------------------------------------------

  def test_nested_and_shared_wrappers
    xml = <<~XML
      <Wrapped>
        <title>T</title>
        <meta>
          <count>3</count>
          <info><author>Ann</author><created>2020-05-06</created></info>
          <tags><tag>x</tag><tag>y</tag></tags>
          <price currency="USD">9.99</price>
          <unknown/>
        </meta>
        <extras><a>1</a><b>2</b><c/></extras>
      </Wrapped>
    XML
    record = one(xml, Wrapped)

    assert_equal "T", record.title
    assert_equal "Ann", record.author
    assert_equal Date.new(2020, 5, 6), record.created
    assert_equal 3, record.count
    assert_equal %w[x y], record.tags
    assert_equal %w[1 2] + [""], record.anything
    assert_equal Price.new(currency: "USD", amount: BigDecimal("9.99")), record.price
  end

  def test_wrapper_names_only_count_as_wrappers
    # <author> outside <meta><info> is not the author.
    record = one("<Wrapped><author>no</author><info><author>no</author></info><meta><author>no</author></meta></Wrapped>", Wrapped)

    assert_nil record.author
  end

  def test_a_wrapper_with_text_or_as_a_leaf
    record = one("<Wrapped><meta>text only</meta><extras>x</extras></Wrapped>", Wrapped)

    assert_nil record.count
    assert_equal [], record.anything
  end

  def test_recursive_models
    xml = %(<node name="root"><value>1</value><child name="a"><child name="a1"><value>3</value></child></child><child name="b"/></node>)
    root = one(xml, Node)

    assert_equal "root", root.name
    assert_equal %w[a b], root.children.map(&:name)
    assert_equal ["a1"], root.children.first.children.map(&:name)
    assert_equal 3, root.children.first.children.first.value
    assert_equal [], root.children.last.children
  end

  def test_deeply_recursive_models_do_not_use_the_ruby_stack
    depth = 900
    xml = %(<node name="root">) + (%(<child name="c">) * depth) + ("</child>" * depth) + "</node>"
    root = XML.decode(xml, Node, max_depth: 4 * depth)
    level = 0
    node = root
    while (node = node.children.first)
      level += 1
    end

    assert_equal depth, level
  end

  # ---- at: --------------------------------------------------------------------

  SOAP = <<~XML
    <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
      <soap:Header><item><key>HEADER</key></item></soap:Header>
      <soap:Body>
        <ns1:getIssuesResponse xmlns:ns1="urn:jira">
          <return>
            <item><key>A-1</key><votes>1</votes></item>
            <item><key>A-2</key><votes>2</votes></item>
            <other><key>NOT-AN-ITEM</key></other>
            <item><key>A-3</key><votes>3</votes></item>
          </return>
        </ns1:getIssuesResponse>
      </soap:Body>
    </soap:Envelope>
  XML

  def test_at_with_a_list_type_gives_all_matches_in_order
    issues = decode_everywhere(SOAP, [Issue], at: "Envelope/Body/getIssuesResponse/return/item")

    assert_equal %w[A-1 A-2 A-3], issues.map(&:key)
    assert_equal [1, 2, 3], issues.map(&:votes)
  end

  def test_at_with_stars
    assert_equal %w[A-1 A-2 NOT-AN-ITEM A-3], XML.decode(SOAP, [Issue], at: "Envelope/Body/*/return/*").map(&:key)
    assert_equal %w[A-1 A-2 A-3], XML.decode(SOAP, [Issue], at: "*/Body/*/*/item").map(&:key)
    assert_equal %w[HEADER], XML.decode(SOAP, [Issue], at: "Envelope/*/item").map(&:key)
    assert_equal %w[HEADER A-1 A-2 A-3], XML.decode(SOAP, [Issue], at: "Envelope/*/item").map(&:key) +
                                         XML.decode(SOAP, [Issue], at: "Envelope/*/*/*/item").map(&:key)
  end

  def test_at_with_a_single_type_gives_the_first_match
    issue = XML.decode(SOAP, Issue, at: "Envelope/Body/getIssuesResponse/return/item")

    assert_equal "A-1", issue.key
    assert_equal "NOT-AN-ITEM", XML.decode(SOAP, Issue, at: "Envelope/Body/*/return/other").key
  end

  def test_at_that_matches_nothing
    assert_nil XML.decode(SOAP, Issue, at: "Envelope/Body/nothing")
    assert_equal [], XML.decode(SOAP, [Issue], at: "Envelope/Body/nothing")
    assert_nil XML.decode(SOAP, Issue, at: "Wrong/Body")
    assert_equal [], XML.decode(SOAP, [Issue], at: "Envelope/Body/getIssuesResponse/return/item/key/deeper/still")
  end

  def test_at_must_start_at_the_document_element
    assert_equal [], XML.decode(SOAP, [Issue], at: "Body/getIssuesResponse/return/item"), "at: is not a search anywhere"
    assert_nil XML.decode(SOAP, Issue, at: "return/item")
  end

  def test_at_the_document_element_itself
    issue = XML.decode("<Issue><key>K</key></Issue>", Issue, at: "Issue")

    assert_equal "K", issue.key
    assert_nil XML.decode("<Issue><key>K</key></Issue>", Issue, at: "Other")
    assert_equal ["K"], XML.decode("<Issue><key>K</key></Issue>", [Issue], at: "*").map(&:key)
  end

  def test_at_names_are_local_names
    xml = %(<a:Root xmlns:a="urn:a"><b:Item xmlns:b="urn:b"><key>1</key></b:Item><Item xmlns="urn:c"><key>2</key></Item></a:Root>)

    assert_equal %w[1 2], XML.decode(xml, [Issue], at: "Root/Item").map(&:key)
  end

  def test_records_nested_in_records_are_not_matched_twice
    xml = "<r><item><key>outer</key><item><key>inner</key></item></item></r>"

    assert_equal ["outer"], XML.decode(xml, [Issue], at: "r/item").map(&:key)
  end

  def test_at_with_scalar_types
    xml = "<r><n> 1 </n><x>skip</x><n>2</n><g><n>3</n></g></r>"

    assert_equal [1, 2], decode_everywhere(xml, [:integer], at: "r/n")
    assert_equal 1, XML.decode(xml, :integer, at: "r/n")
    assert_equal [" 1 ", "skip", "2"], XML.decode(xml.sub(%r{<g>.*</g>}, ""), [:string], at: "r/*")
    assert_raises(Wirebind::DecodeError) { XML.decode(xml, [:string], at: "r/*") }
    assert_equal [3], XML.decode(xml, [:integer], at: "r/g/n")
    assert_equal [Date.new(2000, 1, 2)], XML.decode("<r><d>2000-01-02</d></r>", [:date], at: "r/d")
    assert_nil XML.decode(xml, :integer, at: "r/none")
  end

  def test_scalar_type_records_with_markup
    xml = "<r><n>1<!-- c -->2</n><n><![CDATA[3]]></n><n>4</n></r>"

    assert_equal [12, 3, 4], decode_everywhere(xml, [:integer], at: "r/n")
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml.sub("4", "4<x>5</x>"), [:integer], at: "r/n") }
    assert_equal "n/x", error.path
  end

  def test_a_scalar_record_that_does_not_fit
    error = assert_raises(Wirebind::DecodeError) { XML.decode("<r><n>1</n><n>x</n></r>", [:integer], at: "r/n") }

    assert_match(/integer/, error.message)
    assert_equal "n", error.path
  end

  def test_no_at_decodes_the_document_element
    assert_equal "K", XML.decode("<Whatever><key>K</key></Whatever>", Issue).key, "the root's name is not checked"
    assert_equal 7, XML.decode("<n> 7 </n>", :integer)
    assert_equal "x", XML.decode("<n>x</n>", :string)
  end

  def test_no_at_with_a_list_type_decodes_the_children
    xml = "<issues>\n  <Issue><key>1</key></Issue>\n  <item><key>2</key></item>\n  <!-- c -->\n</issues>"

    assert_equal %w[1 2], decode_everywhere(xml, [Issue]).map(&:key)
    assert_equal [], XML.decode("<issues/>", [Issue])
    assert_equal [], XML.decode("<issues>  </issues>", [Issue])
    assert_equal [1, 2], XML.decode("<l><i>1</i><i>2</i></l>", [:integer])
  end

  def test_a_single_record_is_checked_to_the_end_of_the_document
    assert_raises(Wirebind::ParseError) { XML.decode("<r><item><key>1</key></item><broken></r>", Issue, at: "r/item") }
    assert_raises(Wirebind::ParseError) { XML.decode("<r><item><key>1</key></item></r><trailing/>", Issue, at: "r/item") }
  end

  # ---- each ---------------------------------------------------------------------

  def test_each_yields_records_and_returns_the_count
    keys = []
    count = XML.each(SOAP, Issue, at: "Envelope/Body/*/return/item") { |issue| keys << issue.key }

    assert_equal %w[A-1 A-2 A-3], keys
    assert_equal 3, count
    assert_equal 0, XML.each(SOAP, Issue, at: "Envelope/None") { flunk "nothing to yield" }
  end

  def test_each_without_a_block_is_an_enumerator
    enum = XML.each(SOAP, Issue, at: "Envelope/Body/*/return/item")

    assert_kind_of Enumerator, enum
    assert_equal %w[A-1 A-2 A-3], enum.map(&:key)
    assert_equal %w[A-1 A-2], enum.first(2).map(&:key)
    assert_equal "A-3", enum.find { |i| i.votes == 3 }.key
    assert_equal 3, enum.count
  end

  def test_each_enumerator_from_an_io
    io = TrickleIO.new(SOAP, seed: 4)
    enum = XML.each(io, Issue, at: "Envelope/Body/*/return/item")

    assert_equal %w[A-1 A-2 A-3], enum.to_a.map(&:key)
  end

  def test_each_with_a_list_type_and_without_at
    keys = []
    count = XML.each("<l><Issue><key>a</key></Issue><Issue><key>b</key></Issue></l>", Issue) { |i| keys << i.key }

    assert_equal 2, count
    assert_equal %w[a b], keys
  end

  def test_each_with_scalars
    values = []

    assert_equal 3, XML.each("<l><v>1</v><v>2</v><v>3</v></l>", :integer, at: "l/v") { |v| values << v }
    assert_equal [1, 2, 3], values
  end

  def test_each_yields_each_record_before_reading_the_rest
    items = Array.new(50) { |i| "<item><key>#{i}</key></item>" }.join
    xml = "<r>#{items}</r>"
    io = TrickleIO.new(xml, seed: 1)
    positions = []
    XML.each(io, Issue, at: "r/item") { positions << io.pos }

    assert_equal 50, positions.size
    assert_operator positions.first, :<, xml.bytesize / 2, "the first record came only after half the document was read"
    assert_equal positions.sort, positions
    assert_operator positions.uniq.size, :>, 40
  end

  def test_each_stops_when_the_block_breaks
    io = TrickleIO.new(SOAP, seed: 2)
    first = XML.each(io, Issue, at: "Envelope/Body/*/return/item") { |issue| break issue }

    assert_equal "A-1", first.key
    refute io.eof?, "breaking out of each should not read the rest of the input"
  end

  def test_each_reports_errors_after_yielding_earlier_records
    seen = []
    xml = "<r><item><votes>1</votes></item><item><votes>bad</votes></item></r>"

    assert_raises(Wirebind::DecodeError) { XML.each(xml, Issue, at: "r/item") { |i| seen << i.votes } }
    assert_equal [1], seen
  end

  def test_each_and_decode_agree_on_random_documents
    random = Random.new(random_seed)
    20.times do
      items = Array.new(random.rand(0..6)) do |i|
        label_count = random.rand(0..3)
        "<item><key>k#{i}</key>#{'<label>l</label>' * label_count}<votes>#{random.rand(-99..99)}</votes></item>"
      end
      noise = Array.new(random.rand(0..3)) { "<noise><item><key>no</key></item></noise>" }
      xml = "<r>#{(items + noise).shuffle(random: random).join}</r>"
      listed = XML.decode(xml, [Issue], at: "r/item")
      streamed = []
      count = XML.each(TrickleIO.new(xml, seed: random.rand(1000)), Issue, at: "r/item") { |i| streamed << i }

      assert_equal listed, streamed
      assert_equal items.size, count
      assert_equal_decoded listed.first, XML.decode(xml, Issue, at: "r/item")
    end
  end

  # ---- strict ----------------------------------------------------------------------

  def test_strict_refuses_unknown_elements
    error = assert_raises(Wirebind::DecodeError) { XML.decode("<Issue><key>k</key>\n<bogus>x</bogus></Issue>", Issue, strict: true) }

    assert_match(/bogus/, error.message)
    assert_match(/unknown/, error.message)
    assert_equal "Issue/bogus", error.path
    assert_equal 2, error.line
  end

  def test_strict_refuses_unknown_elements_inside_wrappers_and_nested_models
    assert_raises(Wirebind::DecodeError) { XML.decode("<Wrapped><meta><bogus/></meta></Wrapped>", Wrapped, strict: true) }
    error = assert_raises(Wirebind::DecodeError) do
      XML.decode("<Issue><affectsVersions><v><name>n</name><bogus><deeper/></bogus></v></affectsVersions></Issue>", Issue, strict: true)
    end
    assert_match(/bogus/, error.message)
    assert_equal "Issue/affectsVersions/v/bogus", error.path
  end

  def test_strict_accepts_known_documents
    assert_equal XML.decode(ISSUE_XML, Issue), XML.decode(ISSUE_XML, Issue, strict: true)
    assert_equal "ab", XML.decode("<note>a<!-- c -->b<?pi?></note>", Note, strict: true).text
  end

  def test_strict_only_looks_inside_records
    issues = XML.decode(SOAP, [Issue], at: "Envelope/Body/*/return/item", strict: true)

    assert_equal %w[A-1 A-2 A-3], issues.map(&:key)
  end

  def test_not_strict_by_default
    assert_equal "k", XML.decode("<Issue><bogus/><key>k</key></Issue>", Issue).key
    assert_equal "k", XML.decode("<Issue><bogus/><key>k</key></Issue>", Issue, strict: false).key
  end

  # ---- inputs -------------------------------------------------------------------------

  def test_inputs_of_every_kind
    xml = "<Issue><key>K</key></Issue>"
    expected = Issue.new(key: "K")

    assert_equal expected, XML.decode(xml, Issue)
    assert_equal expected, XML.decode(xml.dup.force_encoding(Encoding::BINARY), Issue)
    assert_equal expected, XML.decode(xml.dup.force_encoding(Encoding::US_ASCII), Issue)
    assert_equal expected, XML.decode(-xml, Issue)
    assert_equal expected, XML.decode(StringIO.new(xml), Issue)
    assert_equal expected, XML.decode(ReadOnlyIO.new(xml), Issue)
    Tempfile.create("wirebind") do |file|
      file.write(xml)
      file.rewind
      assert_equal expected, XML.decode(file, Issue)
    end
    reader, writer = IO.pipe
    writer.write(xml)
    writer.close
    assert_equal expected, XML.decode(reader, Issue)
    reader.close
  end

  def test_the_input_string_is_not_changed
    xml = "<Issue>\r\n<key>K\r\n</key></Issue>"
    copy = xml.dup
    XML.decode(xml, Issue)

    assert_equal copy, xml
    assert_equal copy.encoding, xml.encoding
  end

  def test_decoding_a_large_document
    items = Array.new(3000) { |i| "<item><key>k#{i}</key><votes>#{i}</votes><label>#{'x' * (i % 50)}</label></item>\n" }
    xml = "<r>#{items.join}</r>"

    assert_operator xml.bytesize, :>, 3 * 64 * 1024
    from_string = XML.decode(xml, [Issue], at: "r/item")
    from_io = XML.decode(StringIO.new(xml), [Issue], at: "r/item")

    assert_equal 3000, from_string.size
    assert_equal (0...3000).to_a, from_string.map(&:votes)
    assert_equal from_string, from_io
  end

  def test_concurrent_decodes_and_encodes_agree
    fresh = Class.new(Version) { attribute :extra, :integer } # a plan nobody compiled yet
    xml = "<r>#{'<v><name>n</name><sequence>1</sequence><extra>2</extra></v>' * 200}</r>"
    expected = fresh.new(name: "n", sequence: 1, extra: 2)
    results = Array.new(8) do
      Thread.new do
        Array.new(5) { [XML.decode(xml, [fresh], at: "r/v"), XML.encode(expected)] }
      end
    end.flat_map(&:value)

    results.each do |list, encoded|
      assert_equal 200, list.size
      assert(list.all?(expected))
      assert_equal expected, XML.decode(encoded, fresh)
    end
  end

  def test_bad_types_are_argument_errors
    assert_raises(ArgumentError) { XML.decode("<a/>", String) }
    assert_raises(ArgumentError) { XML.decode("<a/>", :int) }
    assert_raises(ArgumentError) { XML.decode("<a/>", [Issue, Version]) }
    assert_raises(ArgumentError) { XML.decode("<a/>", []) }
    assert_raises(ArgumentError) { XML.decode("<a/>", [[Issue]]) }
    assert_raises(ArgumentError) { XML.decode("<a/>", nil) }
    assert_raises(ArgumentError) { XML.each("<a/>", :int) { nil } }
  end

  def test_bad_inputs_are_argument_errors
    assert_raises(ArgumentError) { XML.decode(42, Issue) }
    assert_raises(ArgumentError) { XML.decode(nil, Issue) }
    assert_raises(ArgumentError) { XML.decode(Object.new, Issue) }
  end
end
