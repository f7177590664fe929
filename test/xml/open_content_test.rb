# frozen_string_literal: true

require "test_helper"
require_relative "../support/linear_time"

# Issue 13, items 8 and 9: :xml (an element's content as XML text), :any
# (nested Hashes, Arrays and Strings) and :qname (a Wirebind::QName) on the
# backend in use (rake test runs the suite once per backend; the native
# differential test holds the two equal).
class OpenContentTest < Minitest::Test
  include Wirebind::LinearTime

  XML = Wirebind::XML
  QName = Wirebind::QName
  SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/"
  XSI = "http://www.w3.org/2001/XMLSchema-instance"

  class Detail
    include Wirebind::Model
    xml_root "fault"
    attribute :code, :qname, xml: "faultcode"
    attribute :detail, :xml
    attribute :extra, :any
    attribute :codes, [:qname], xml: "codes/code"
    attribute :parts, [:xml], xml: "part"
  end

  class Record
    include Wirebind::Model
    xml_namespace "urn:rec", prefix: "r"
    xml_root "record"
    attribute :id, :integer
    attribute :fields, :any
    attribute :raw, :xml
    attribute :type, :qname
  end

  # Issue 19: what an xsd:any beside declared elements generates.
  class Open
    include Wirebind::Model
    xml_root "open"
    attribute :id, :integer
    attribute :rest, [:any], xml: "*"
  end

  def decode(xml, type = Detail, **options)
    XML.decode(xml, type, **options)
  end

  # ---- :xml ---------------------------------------------------------------------------

  def test_xml_captures_content_with_the_declarations_it_uses
    xml = <<~XML.chomp
      <soap:Envelope xmlns:soap="#{SOAP_NS}" xmlns:ns1="urn:one" xmlns:unused="urn:unused" xmlns="urn:default">
      <fault xmlns=""><detail xmlns:ns2="urn:two"><ns1:Problem id="7" ns2:level="high"><ns2:why>a &amp; b &lt; c</ns2:why><empty/><inner xmlns="urn:inner"><x/></inner></ns1:Problem> and text <!-- dropped --><![CDATA[<raw>]]></detail></fault>
      </soap:Envelope>
    XML
    fault = decode(xml, Detail, at: "Envelope/fault")
    assert_equal '<ns1:Problem xmlns:ns1="urn:one" xmlns:ns2="urn:two" id="7" ns2:level="high"><ns2:why>a &amp; b &lt; c</ns2:why>' \
                 '<empty/><inner xmlns="urn:inner"><x/></inner></ns1:Problem> and text &lt;raw&gt;', fault.detail
  end

  def test_xml_content_is_well_formed_and_namespace_equivalent_on_its_own
    xml = %(<fault xmlns:a="urn:a" xmlns="urn:d"><detail><a:x><y>1</y></a:x></detail></fault>)
    captured = decode(xml).detail
    assert_equal '<a:x xmlns:a="urn:a" xmlns="urn:d"><y>1</y></a:x>', captured
    inner = Class.new do
      include Wirebind::Model
      attribute :y, :integer, xml: "{urn:d}y"
    end
    assert_equal 1, XML.decode(captured, inner).y
  end

  def test_xml_carries_prefixes_used_in_attribute_values
    xml = %(<fault xmlns:xsi="#{XSI}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:sf="urn:sobject" xmlns:no="urn:no">) +
          %(<detail><sf:record xsi:type="sf:sObject"><Name xsi:type="xsd:string">Acme</Name><note text="no:colon here"/></sf:record></detail></fault>)
    assert_equal %(<sf:record xmlns:sf="urn:sobject" xmlns:xsi="#{XSI}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="sf:sObject">) +
                 %(<Name xsi:type="xsd:string">Acme</Name><note text="no:colon here"/></sf:record>), decode(xml).detail
  end

  def test_xml_of_text_only_empty_nil_and_lists
    assert_equal "a &amp; b", decode("<fault><detail>a &amp; b</detail></fault>").detail
    assert_equal "", decode("<fault><detail/></fault>").detail
    assert_nil decode(%(<fault><detail xmlns:xsi="#{XSI}" xsi:nil="true"/></fault>)).detail
    assert_nil decode("<fault/>").detail
    parts = decode("<fault><part><a/></part><part>t</part><part><b>1</b> <c/></part></fault>").parts
    assert_equal ["<a/>", "t", "<b>1</b> <c/>"], parts
  end

  def test_xml_inside_a_namespaced_model_round_trips
    record = Record.new(id: 1, raw: %(<x:thing xmlns:x="urn:x" a="1">text</x:thing>))
    xml = XML.encode(record)
    assert_includes xml, %(<r:raw><x:thing xmlns:x="urn:x" a="1">text</x:thing></r:raw>)
    assert_equal record, XML.decode(xml, Record)
  end

  def test_malformed_xml_is_an_encode_error_with_its_path
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Detail.new(detail: "<a><b></a>")) }
    assert_equal "fault/detail", error.path
    assert_match(/the :xml value is not well-formed XML content/, error.message)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Detail.new(detail: "<!DOCTYPE x><x/>")) }
    assert_match(/not well-formed/, error.message)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Detail.new(detail: 42)) }
    assert_match(/expected XML text \(a String\) for :xml, got Integer 42/, error.message)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Detail.new(detail: "<p:a/>")) }
    assert_match(/prefix 'p'/, error.message)
    assert_equal "<fault><detail>plain &amp; text</detail><codes></codes></fault>", XML.encode(Detail.new(detail: "plain &amp; text"))
  end

  # (:xml as "." is the element's whole content: declarations_test.)
  def test_open_types_map_to_elements_only
    [%i[xml @raw], %i[any @raw], %i[any .]].each do |type, path|
      error = assert_raises(Wirebind::SchemaError) do
        Class.new do
          include Wirebind::Model
          attribute :raw, type, xml: path.to_s
        end
      end
      assert_match(/:#{type} maps to an element/, error.message)
    end
    # A :qname is text: an element's or an XML attribute's (faithful_values_test), not the record's own.
    assert_raises(Wirebind::SchemaError) do
      Class.new do
        include Wirebind::Model
        attribute :code, :qname, xml: "."
      end
    end
  end

  # ---- :any ---------------------------------------------------------------------------

  def test_any_shape
    xml = <<~XML
      <fault xmlns="urn:d" xmlns:o="urn:o" xmlns:xsi="#{XSI}"><extra kind="k" xsi:type="o:T">
        <name>n</name>
        <tag>a</tag><tag>b</tag><tag lang="en">c</tag>
        <o:other>x</o:other>
        <plain xmlns=""><deep>1</deep></plain>
        <empty/>
        <mixed>one <b>two</b> three</mixed>
      </extra></fault>
    XML
    expected = {
      "@kind" => "k", "@{#{XSI}}type" => "o:T",
      "name" => "n",
      "tag" => ["a", "b", { "@lang" => "en", "#text" => "c" }],
      "{urn:o}other" => "x",
      "{}plain" => { "deep" => "1" },
      "empty" => "",
      # Text after a child element: "#content" keeps the order the Hash cannot.
      "mixed" => { "#text" => "one  three", "b" => "two", "#content" => ["one ", { "b" => "two" }, " three"] }
    }
    assert_equal expected, decode(xml).extra
    assert_equal "text", decode("<fault><extra>text</extra></fault>").extra
    assert_equal({ "@a" => "1" }, decode(%(<fault><extra a="1"/></fault>)).extra)
    assert_equal({ "@a" => "1", "#text" => "t" }, decode(%(<fault><extra a="1">t</extra></fault>)).extra)
  end

  def test_any_round_trips_through_encode
    value = {
      "@kind" => "k", "@{#{XSI}}type" => "xsd:string", "@{http://www.w3.org/XML/1998/namespace}lang" => "en",
      "name" => "n & m", "tag" => ["a", { "@lang" => "en", "#text" => "c" }],
      "{urn:o}other" => { "child" => "in urn:o" }, "{}plain" => { "deep" => "1" }, "empty" => ""
    }
    # "{}plain" under a parent in no namespace is "plain": keys are relative to the parent.
    [Detail.new(extra: value.merge("plain" => value.delete("{}plain"))), Record.new(id: 2, fields: value.merge("{}plain" => { "deep" => "1" }))].each do |record|
      xml = XML.encode(record)
      assert_equal record, XML.decode(xml, record.class), xml
    end
    xml = XML.encode(Record.new(fields: { "a" => "1" }))
    assert_includes xml, "<r:fields><r:a>1</r:a></r:fields>", "unbraced children are in the element's namespace"
  end

  def test_any_bad_shapes_are_encode_errors
    {
      { "a b" => "1" } => /"a b" in the :any value is not a name/,
      { 1 => "x" } => /expected String keys in the :any value, got Integer 1/,
      { "a" => { "b" => Object.new } } => %r{expected a String, Hash or Array in the :any value at "a/b", got Object},
      [1] => /expected a String, Hash or Array in the :any value, got Array/
    }.each do |value, message|
      error = assert_raises(Wirebind::EncodeError) { XML.encode(Detail.new(extra: value)) }
      assert_match message, error.message
      assert_equal "fault/extra", error.path
    end
  end

  def test_any_is_written_without_recursion
    value = "leaf"
    5_000.times { value = { "n" => value } }
    xml = XML.encode(Detail.new(extra: value))
    assert_equal 5_000, xml.scan("<n>").size
    assert_equal value, decode(xml, max_depth: 6_000).extra
  end

  def test_captured_content_keeps_the_decoder_limits
    deep = "<fault><extra>#{'<n>' * 40}x#{'</n>' * 40}</extra></fault>"
    [Detail].each do
      error = assert_raises(Wirebind::LimitError) { decode(deep, max_depth: 20) }
      assert_match(/max_depth \(20\)/, error.message)
      error = assert_raises(Wirebind::LimitError) { decode(deep.sub("<fault><extra>", "<fault><detail>").sub("</extra></fault>", "</detail></fault>"), max_depth: 20) }
      assert_match(/max_depth \(20\)/, error.message)
    end
    many = %(<fault><detail><a #{(1..20).map { |i| "a#{i}='1'" }.join(' ')}/></detail></fault>)
    assert_raises(Wirebind::LimitError) { decode(many, max_attributes: 10) }
    big = "<fault><detail><a>#{'x' * 100}</a><b c='#{'y' * 200}'/></detail></fault>"
    assert_raises(Wirebind::LimitError) { decode(big, max_token_size: 150) }
  end

  def test_capture_is_linear_in_the_content
    # One big top-level element of multibyte text and many children, many
    # namespace declarations in scope and a prefix in every attribute value:
    # nothing may scan the output or the bindings per element.
    decls = (1..200).map { |i| %( xmlns:p#{i}="urn:#{i}") }.join
    assert_linear_time("a large :xml capture", 2000) do |n|
      body = %(<p1:big>#{(1..n).map { |i| %(<p2:e a="p3:v">日本語テキスト#{i}</p2:e><f/>) }.join}</p1:big>)
      xml = %(<fault#{decls}><detail>#{body}</detail><extra>#{body}</extra></fault>)
      -> { decode(xml) }
    end
  end

  # ---- :qname -------------------------------------------------------------------------

  def test_qname_resolves_where_the_value_appears
    xml = <<~XML
      <fault xmlns:soap="#{SOAP_NS}" xmlns="urn:default"><faultcode>soap:Server</faultcode>
        <codes><code xmlns:soap="urn:rebound">soap:Client</code><code>Plain</code><code> xml:lang </code>
        <code>a:<!-- split -->B<a:x xmlns:a="urn:other"/></code></codes></fault>
    XML
    error = assert_raises(Wirebind::DecodeError) { decode(xml) }
    assert_match(/a scalar holds text only/, error.message)
    xml = xml.sub(%(<a:x xmlns:a="urn:other"/>), "").sub("<code>a:", %(<code xmlns:a="urn:a">a:))
    fault = decode(xml)
    assert_equal QName.new(SOAP_NS, "Server"), fault.code
    assert_equal "soap", fault.code.prefix
    assert_equal [QName.new("urn:rebound", "Client"), QName.new("urn:default", "Plain"),
                  QName.new("http://www.w3.org/XML/1998/namespace", "lang"), QName.new("urn:a", "B")], fault.codes
    assert_nil decode("<fault><faultcode> </faultcode></fault>").code
  end

  def test_undeclared_prefix_and_bad_text_are_decode_errors
    error = assert_raises(Wirebind::DecodeError) { decode("<fault>\n<faultcode>soap:Server</faultcode></fault>") }
    assert_equal "fault/faultcode", error.path
    assert_equal 2, error.line
    assert_match(/the prefix 'soap' of QName "soap:Server" is not declared where it appears/, error.message)
    error = assert_raises(Wirebind::DecodeError) { decode("<fault><codes><code>a:b:c</code></codes></fault>") }
    assert_equal "fault/codes/code", error.path
    assert_match(/expected a QName \(prefix:local or local\), got "a:b:c"/, error.message)
  end

  def test_qname_is_written_with_a_declared_prefix
    fault = Detail.new(code: QName.new(SOAP_NS, "Server", prefix: "soap"),
                       codes: [QName.new("urn:x", "A"), QName.new(nil, "B"), "{urn:y}C", QName.new("urn:z", "D", prefix: "xmlns")])
    xml = XML.encode(fault)
    assert_includes xml, %(<faultcode xmlns:soap="#{SOAP_NS}">soap:Server</faultcode>)
    assert_includes xml, %(<code>B</code>)
    assert_equal fault.codes.map { |code| Wirebind::Types::QNameType.coerce(code) }, XML.decode(xml, Detail).codes
    assert_equal fault.code, XML.decode(xml, Detail).code
    record = Record.new(type: QName.new("urn:other", "T", prefix: "r"))
    xml = XML.encode(record)
    refute_includes xml, %(xmlns:r="urn:other"), "the element's own prefix is not rebound"
    assert_equal record, XML.decode(xml, Record)
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Detail.new(code: 12)) }
    assert_equal "fault/faultcode", error.path
    assert_match(/expected a Wirebind::QName or a String in \{uri\}local notation for :qname, got Integer 12/, error.message)
  end

  def test_qname_has_no_json_form
    error = assert_raises(Wirebind::SchemaError) { Wirebind::JSON.encode(Detail.new) }
    assert_match(/:qname maps to XML only/, error.message)
  end

  def test_wildcard_any_items_keep_their_names_in_order
    xml = %(<open xmlns:x="urn:x"><x:a k="1">t</x:a><id>3</id><b><c/></b><x:a/><d xmlns:xsi="#{XSI}" xsi:nil="true"/></open>)
    record = decode(xml, Open)
    assert_equal 3, record.id
    assert_equal [{ "{urn:x}a" => { "@k" => "1", "#text" => "t" } }, { "b" => { "c" => "" } }, { "{urn:x}a" => "" },
                  { "d" => { "@{#{XSI}}nil" => "true" } }], record.rest
    assert_equal record, decode(XML.encode(record), Open)
    assert_includes XML.encode(record), '<a xmlns="urn:x" k="1">t</a><b><c></c></b>'
    [[{ "a" => "1", "b" => "2" }, "one-pair Hash"], ["text", "one-pair Hash"], [{ "a b" => "1" }, "is not a name"]].each do |item, message|
      error = assert_raises(Wirebind::EncodeError) { XML.encode(Open.new(rest: [item])) }
      assert_includes error.message, message
    end
  end
end
