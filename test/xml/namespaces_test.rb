# frozen_string_literal: true

require_relative "xml_test_support"

# Namespaces: names match by local name unless the schema names a namespace
# ({uri}local); models carry a namespace (and prefix) when encoded.
class XMLNamespacesTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  XSI = "http://www.w3.org/2001/XMLSchema-instance"

  # Each element's [local name, namespace URI], in document order, read with the
  # tokenizer's hooks.
  class Names < Wirebind::XML::Tokenizer
    attr_reader :seen_names

    def initialize(input)
      super(input, **Wirebind::XML::DEFAULT_LIMITS, dtd: :reject)
      @seen_names = []
    end

    def on_start(local, uri, _attrs)
      @seen_names << [local, uri]
    end

    def on_leaf(local, uri, _attrs, _text)
      @seen_names << [local, uri]
    end
  end

  def names_in(xml)
    reader = Names.new(xml)
    reader.run
    reader.seen_names
  end

  # ---- decoding: local names ------------------------------------------------------

  def test_any_prefix_any_namespace_matches_by_local_name
    xml = <<~XML
      <p:Issue xmlns:p="urn:p" xmlns:q="urn:q" xmlns="urn:default">
        <q:key>K</q:key>
        <votes>3</votes>
        <r:watched xmlns:r="urn:r">true</r:watched>
        <p:label>a</p:label><label xmlns="">b</label><q:label>c</q:label>
        <p:affectsVersions><q:v><p:name>n</p:name></q:v></p:affectsVersions>
      </p:Issue>
    XML
    issue = decode_everywhere(xml, Issue)

    assert_equal "K", issue.key
    assert_equal 3, issue.votes
    assert_equal true, issue.watched
    assert_equal %w[a b c], issue.labels
    assert_equal ["n"], issue.affects_versions.map(&:name)
  end

  def test_unprefixed_names_in_a_default_namespace
    xml = %(<Issue xmlns="urn:jira"><key>K</key></Issue>)

    assert_equal "K", XML.decode(xml, Issue).key
  end

  # An unprefixed attribute is in no namespace (Namespaces in XML 1.0, 6.2): "@lang"
  # reads lang="..." only, never x:lang or xml:lang (issue 13).
  def test_an_unqualified_attribute_declaration_reads_only_the_unprefixed_attribute
    xml = %(<Issue xmlns:x="urn:x" x:lang="en"><key>K</key></Issue>)

    assert_nil decode_everywhere(xml, Issue).lang
    assert_nil decode_everywhere(%(<Issue xml:lang="fr"/>), Issue).lang
    assert_equal "de", decode_everywhere(%(<Issue xmlns="urn:d" xmlns:x="urn:x" x:lang="en" lang="de"/>), Issue).lang
    assert_equal "de", decode_everywhere(%(<Issue lang="de" xmlns:x="urn:x" x:lang="en"/>), Issue).lang
  end

  def test_xmlns_declarations_are_not_attributes
    klass = Class.new do
      include Wirebind::Model
      attribute :p_value, :string, xml: "@p"
    end
    record = XML.decode(%(<r xmlns="urn:a" xmlns:p="urn:p"/>), klass)

    assert_nil record.p_value
    # Nor can a schema map one: encoding it would declare a namespace.
    assert_raises(Wirebind::SchemaError) { klass.attribute :xmlns_value, :string, xml: "@xmlns" }
  end

  # ---- decoding: {uri}local -----------------------------------------------------------

  def test_qualified_names_match_only_their_namespace
    xml = <<~XML
      <q xmlns:a="urn:a" xmlns:b="urn:b">
        <a:name>A</a:name>
        <b:name>B</b:name>
        <b:only>not a</b:only>
        <only>no namespace</only>
      </q>
    XML
    record = decode_everywhere(xml, Qualified)

    assert_equal "A", record.a_name
    assert_equal "B", record.b_name
    assert_nil record.only_a
  end

  def test_the_unqualified_name_takes_what_the_qualified_ones_do_not
    xml = %(<q xmlns:a="urn:a" xmlns:c="urn:c"><a:name>A</a:name><c:name>C</c:name></q>)
    record = XML.decode(xml, Qualified)

    assert_equal "A", record.a_name
    assert_nil record.b_name
    assert_equal "C", record.any_name
  end

  def test_qualified_names_follow_the_binding_in_scope_not_the_prefix
    xml = <<~XML
      <q xmlns:a="urn:b" xmlns="urn:a">
        <name>default is urn:a</name>
        <a:name>prefix a is urn:b here</a:name>
        <only xmlns="urn:a">yes</only>
      </q>
    XML
    record = XML.decode(xml, Qualified)

    assert_equal "default is urn:a", record.a_name
    assert_equal "prefix a is urn:b here", record.b_name
    assert_equal "yes", record.only_a
  end

  def test_rebinding_a_prefix_in_a_child
    xml = %(<q xmlns:p="urn:a"><p:only>outer</p:only><p:name xmlns:p="urn:b">rebound</p:name><p:name>A</p:name></q>)
    record = XML.decode(xml, Qualified)

    assert_equal "outer", record.only_a
    assert_equal "rebound", record.b_name
    assert_equal "A", record.a_name
  end

  def test_undeclaring_the_default_namespace
    xml = %(<q xmlns="urn:a"><only xmlns="">no namespace</only><name>A</name></q>)
    record = XML.decode(xml, Qualified)

    assert_nil record.only_a
    assert_equal "A", record.a_name
  end

  def test_qualified_attributes
    xml = %(<q xmlns:a="urn:a" xmlns:z="urn:z" a:code="A" z:code="Z"/>)

    assert_equal "A", XML.decode(xml, Qualified).a_attr
    assert_nil XML.decode(%(<q xmlns:z="urn:z" z:code="Z"/>), Qualified).a_attr
  end

  def test_unprefixed_attributes_are_in_no_namespace
    # The default namespace does not apply to attributes (Namespaces in XML 1.0 §6.2).
    assert_nil XML.decode(%(<q xmlns="urn:a" code="C"/>), Qualified).a_attr
  end

  def test_two_attributes_of_one_local_name_in_two_namespaces
    klass = Class.new do
      include Wirebind::Model
      xml_root "t"
      attribute :a_code, :string, xml: "@{urn:a}code"
      attribute :b_code, :string, xml: "@{urn:b}code"
    end
    record = XML.decode(%(<t xmlns:a="urn:a" xmlns:b="urn:b" b:code="B" a:code="A"/>), klass)

    assert_equal %w[A B], [record.a_code, record.b_code]
  end

  def test_a_qualified_and_an_unqualified_attribute_of_one_local_name
    klass = Class.new do
      include Wirebind::Model
      xml_root "t"
      attribute :a_code, :string, xml: "@{urn:a}code"
      attribute :code, :string, xml: "@code"
    end
    record = XML.decode(%(<t xmlns:a="urn:a" code="plain" a:code="A"/>), klass)

    assert_equal %w[A plain], [record.a_code, record.code]
  end

  # ---- at: with namespaces ---------------------------------------------------------------

  def test_at_steps_match_local_names
    xml = %(<s:Envelope xmlns:s="urn:soap"><s:Body><m:r xmlns:m="urn:m"><m:item><key>1</key></m:item></m:r></s:Body></s:Envelope>)

    assert_equal ["1"], XML.decode(xml, [Issue], at: "Envelope/Body/r/item").map(&:key)
  end

  def test_at_steps_with_a_namespace
    xml = <<~XML
      <r xmlns:p="urn:p" xmlns:q="urn:q">
        <p:item><key>p1</key></p:item>
        <q:item><key>q1</key></q:item>
        <item><key>none</key></item>
        <p:item><key>p2</key></p:item>
      </r>
    XML

    assert_equal %w[p1 p2], decode_everywhere(xml, [Issue], at: "r/{urn:p}item").map(&:key)
    assert_equal %w[q1], XML.decode(xml, [Issue], at: "r/{urn:q}item").map(&:key)
    assert_equal %w[p1 q1 none p2], XML.decode(xml, [Issue], at: "r/item").map(&:key)
    assert_equal [], XML.decode(xml, [Issue], at: "{urn:p}r/item")
    assert_equal "q1", XML.decode(xml, Issue, at: "r/{urn:q}item").key
  end

  def test_at_with_the_soap_envelope_namespace
    soap11 = "http://schemas.xmlsoap.org/soap/envelope/"
    soap12 = "http://www.w3.org/2003/05/soap-envelope"
    xml = %(<e:Envelope xmlns:e="#{soap11}"><e:Body><item><key>1</key></item></e:Body></e:Envelope>)

    assert_equal ["1"], XML.decode(xml, [Issue], at: "{#{soap11}}Envelope/{#{soap11}}Body/item").map(&:key)
    assert_equal [], XML.decode(xml, [Issue], at: "{#{soap12}}Envelope/Body/item")
  end

  def test_namespace_uris_with_slashes_in_xml_paths
    soap = "http://schemas.xmlsoap.org/soap/envelope/"
    klass = Class.new do
      include Wirebind::Model
      xml_root "r"
      attribute :code, :string, xml: "{#{soap}}Code"
      attribute :reason, :string, xml: "{#{soap}}Reason/{#{soap}}Text"
      attribute :lang, :string, xml: "@{http://www.w3.org/XML/1998/namespace}lang"
    end
    xml = %(<r xmlns:s="#{soap}" xml:lang="en"><s:Code>c</s:Code><Code>not this</Code><s:Reason><s:Text>why</s:Text></s:Reason></r>)
    record = XML.decode(xml, klass)

    assert_equal %w[c why en], [record.code, record.reason, record.lang]
  end

  def test_xsi_nil_is_found_by_namespace
    xml = %(<Issue xmlns:i="#{XSI}" xmlns:xsi="urn:not-xsi"><key i:nil="true"/><id xsi:nil="true"/></Issue>)
    issue = XML.decode(xml, Issue)

    assert_nil issue.key
    assert_equal "", issue.id
  end

  # ---- well-formedness of namespaces ------------------------------------------------------------

  def test_namespace_errors
    [
      "<p:a/>",
      "<a><p:b/></a>",
      "<a p:x='1'/>",
      "<a xmlns:p=''/>",
      "<xmlns:a/>",
      "<a xmlns:xmlns='urn:x'/>",
      "<a xmlns:xml='urn:not-xml'/>",
      "<a xmlns:p='http://www.w3.org/XML/1998/namespace'/>",
      "<a xmlns='http://www.w3.org/2000/xmlns/'/>",
      "<a xmlns:p='urn:x' xmlns:q='urn:x' p:b='1' q:b='2'/>",
      "<a><b xmlns:p='urn:p'/><p:c/></a>"
    ].each do |xml|
      assert_raises(Wirebind::ParseError, xml) { XML.check(xml) }
      assert_raises(Wirebind::ParseError, xml) { XML.decode(xml, Issue) }
    end
  end

  def test_namespace_edge_cases_that_are_fine
    [
      "<a xmlns:xml='http://www.w3.org/XML/1998/namespace'/>",
      "<a xml:lang='en' xml:space='preserve'/>",
      "<a xmlns='urn:a'><b xmlns=''/></a>",
      "<a xmlns:p='urn:x' p:b='1' b='2'/>",
      "<p:a xmlns:p='urn:p'><p:b xmlns:p='urn:q'/></p:a>"
    ].each do |xml|
      assert XML.check(xml), xml
    end
  end

  # ---- encoding ----------------------------------------------------------------------------------

  def test_a_prefixed_namespace_on_the_root_and_its_children
    order = Order.new(number: "7", customer: "Ann", total: BigDecimal("9.5"), lines: [Price.new(currency: "EUR", amount: BigDecimal(1))])
    xml = XML.encode(order)

    assert_match(/\A<o:order /, xml)
    assert_includes xml, %(xmlns:o="urn:example:orders")
    names = names_in(xml)
    assert_equal ["order", "urn:example:orders"], names.first
    assert_equal ["customer", "urn:example:orders"], names[1]
    assert_equal order, XML.decode(xml, Order)
    assert_equal order, XML.decode(xml, Order, at: "{urn:example:orders}order")
  end

  def test_a_default_namespace
    widget = Widget.new(name: "w", size: 2)
    xml = XML.encode(widget)

    assert_match(/\A<widget xmlns="urn:example:widgets">/, xml)
    assert(names_in(xml).all? { |_, uri| uri == "urn:example:widgets" })
    assert_equal widget, XML.decode(xml, Widget)
  end

  def test_a_list_of_namespaced_models
    xml = XML.encode([Order.new(number: "1"), Order.new(number: "2")], root: "orders")

    assert XML.check(xml)
    assert_equal %w[1 2], XML.decode(xml, [Order], at: "orders/{urn:example:orders}order").map(&:number)
  end

  def test_qualified_child_names_are_written_in_their_namespace
    klass = Class.new do
      include Wirebind::Model
      xml_root "doc"
      attribute :plain, :string
      attribute :other, :string, xml: "{urn:other}other"
      attribute :deep, :string, xml: "{urn:w}wrap/{urn:w}inner"
    end
    record = klass.new(plain: "p", other: "o", deep: "d")
    xml = XML.encode(record)
    names = names_in(xml).to_h

    assert_equal "urn:other", names["other"]
    assert_equal "urn:w", names["wrap"]
    assert_equal "urn:w", names["inner"]
    assert_nil names["plain"]
    assert_equal record, XML.decode(xml, klass)
  end

  def test_namespaced_models_inside_namespaced_models_round_trip_with_qualified_names
    outer = Class.new do
      include Wirebind::Model
      xml_root "outer"
      xml_namespace "urn:outer"
      attribute :widget, Widget, xml: "{urn:outer}widget"
      attribute :order, Order, xml: "{urn:outer}order"
      attribute :price, Price, xml: "{urn:outer}price"
      attribute :note, :string, xml: "{urn:outer}note"
    end
    record = outer.new(widget: Widget.new(name: "w"), order: Order.new(customer: "c"), price: Price.new(amount: BigDecimal(1)), note: "n")
    xml = XML.encode(record)

    assert XML.check(xml)
    assert_equal record, XML.decode(xml, outer), "a child declared as {urn:outer}x must be written in urn:outer: #{xml}"
  end

  def test_models_with_a_prefix_inside_models_with_another
    outer = Class.new do
      include Wirebind::Model
      xml_root "outer"
      xml_namespace "urn:outer", prefix: "out"
      attribute :order, Order
      attribute :widget, Widget
      attribute :other, :string, xml: "{urn:other}x"
    end
    record = outer.new(order: Order.new(customer: "c", lines: [Price.new(currency: "x")]), widget: Widget.new(size: 1), other: "o")
    xml = XML.encode(record)

    assert XML.check(xml)
    assert_equal record, XML.decode(xml, outer)
  end

  def test_a_namespaced_xml_attribute_is_written_in_its_namespace
    xml = XML.encode(Qualified.new(a_attr: "A", plain_attr: "P"))

    assert XML.check(xml)
    record = XML.decode(xml, Qualified)
    assert_equal "A", record.a_attr
    assert_equal "P", record.plain_attr
  end

  def test_xsi_nil_declares_its_namespace
    xml = XML.encode(Order.new(number: "1"), nil: :xsi)

    assert XML.check(xml)
    assert_equal Order.new(number: "1"), XML.decode(xml, Order)
  end

  def test_inherited_namespaces
    sub = Class.new(Order) { attribute :extra, :string }
    xml = XML.encode(sub.new(customer: "c", extra: "e"))

    assert_match(/\A<o:order xmlns:o="urn:example:orders"/, xml)
    assert_equal "e", XML.decode(xml, sub).extra
  end
end
