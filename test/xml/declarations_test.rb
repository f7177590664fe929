# frozen_string_literal: true

require_relative "xml_test_support"

# Shapes real documents have that issue 20 made declarable in XML: each test
# runs on every backend this process has, checks the values and
# decode(encode(x)) == x.
class XMLDeclarationsTest < Minitest::Test
  include XMLTestHelpers

  XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
  CAMT = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"
  UBL_CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"

  # ISO 20022 camt.053: an amount's text and its currency on one element.
  class Entry
    include Wirebind::Model
    xml_namespace CAMT
    xml_root "Ntry"
    attribute :amount, :decimal, xml: "Amt"
    attribute :currency, :string, xml: "Amt/@Ccy"
    attribute :indicator, :string, xml: "CdtDbtInd"
  end

  # The same, the attribute declared first (it made <Amt> a wrapper at first).
  class EntryAttributeFirst
    include Wirebind::Model
    xml_namespace CAMT
    xml_root "Ntry"
    attribute :currency, :string, xml: "Amt/@Ccy"
    attribute :indicator, :string, xml: "CdtDbtInd"
    attribute :amount, :decimal, xml: "Amt"
  end

  # UBL: @currencyID on namespaced amounts, two of them in a wrapper.
  class MonetaryTotal
    include Wirebind::Model
    xml_namespace "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2", prefix: "cac"
    xml_prefix "cbc", UBL_CBC
    xml_root "LegalMonetaryTotal"
    attribute :line_extension, :decimal, xml: "{#{UBL_CBC}}LineExtensionAmount"
    attribute :line_extension_currency, :string, xml: "{#{UBL_CBC}}LineExtensionAmount/@currencyID"
    attribute :payable, :decimal, xml: "{#{UBL_CBC}}PayableAmount"
    attribute :payable_currency, :string, xml: "{#{UBL_CBC}}PayableAmount/@currencyID"
    attribute :scheme, :integer, xml: "{#{UBL_CBC}}PayableAmount/@schemeVersion"
  end

  CAMT_ENTRY = <<~XML
    <Ntry xmlns="#{CAMT}">
      <Amt Ccy="SEK">105678.50</Amt>
      <CdtDbtInd>CRDT</CdtDbtInd>
    </Ntry>
  XML

  UBL_TOTAL = <<~XML
    <cac:LegalMonetaryTotal xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
        xmlns:cbc="#{UBL_CBC}">
      <cbc:LineExtensionAmount currencyID="EUR">1436.50</cbc:LineExtensionAmount>
      <cbc:PayableAmount currencyID="EUR" schemeVersion="2"><!-- due -->1729.00</cbc:PayableAmount>
    </cac:LegalMonetaryTotal>
  XML

  def backends
    Wirebind.backend == :native ? %i[native pure] : %i[pure]
  end

  def test_an_elements_text_and_its_attribute_by_two_paths
    [Entry, EntryAttributeFirst].each do |klass|
      encoded = backends.map do |backend|
        entry = XML.decode(CAMT_ENTRY, klass, backend: backend)
        assert_equal BigDecimal("105678.50"), entry.amount, "#{backend} #{klass}"
        assert_equal "SEK", entry.currency, "#{backend} #{klass}"
        assert_equal "CRDT", entry.indicator, "#{backend} #{klass}"
        xml = XML.encode(entry, backend: backend)
        assert_includes xml, %(<Amt Ccy="SEK">105678.5</Amt>), "#{backend} #{klass}"
        assert_equal entry, XML.decode(xml, klass, backend: backend)
        xml
      end
      assert_equal 1, encoded.uniq.size, "the backends write the same bytes: #{encoded.inspect}"
    end
  end

  def test_attributes_of_namespaced_amounts_beside_their_text
    backends.each do |backend|
      total = XML.decode(UBL_TOTAL, MonetaryTotal, backend: backend)
      assert_equal [BigDecimal("1436.50"), "EUR", BigDecimal("1729.00"), "EUR", 2],
                   [total.line_extension, total.line_extension_currency, total.payable, total.payable_currency, total.scheme], backend.to_s
      xml = XML.encode(total, backend: backend)
      assert_includes xml, %(<cbc:PayableAmount currencyID="EUR" schemeVersion="2">1729.0</cbc:PayableAmount>), backend.to_s
      assert_equal total, XML.decode(xml, MonetaryTotal, backend: backend)
    end
  end

  # A nil value whose attribute has one is written as xsi:nil beside it, so that
  # neither is lost; with no value at all, the element is left out as before.
  def test_a_nil_value_keeps_its_attributes
    backends.each do |backend|
      only_currency = Entry.new(currency: "EUR")
      xml = XML.encode(only_currency, backend: backend)
      assert_match(/<Amt Ccy="EUR" xsi:nil="true"/, xml, backend.to_s)
      assert_equal only_currency, XML.decode(xml, Entry, backend: backend)
      refute_includes XML.encode(Entry.new(indicator: "DBIT"), backend: backend), "Amt", backend.to_s
      assert_equal Entry.new(amount: BigDecimal(1)), XML.decode(XML.encode(Entry.new(amount: BigDecimal(1)), backend: backend), Entry, backend: backend)
    end
  end

  def test_bad_text_or_attribute_is_a_decode_error_naming_its_path
    backends.each do |backend|
      error = assert_raises(Wirebind::DecodeError, backend.to_s) do
        XML.decode(%(<Ntry xmlns="#{CAMT}"><Amt Ccy="EUR">12,5</Amt></Ntry>), Entry, backend: backend)
      end
      assert_equal "Ntry/Amt", error.path, backend.to_s
      error = assert_raises(Wirebind::DecodeError, backend.to_s) do
        XML.decode(UBL_TOTAL.sub('schemeVersion="2"', 'schemeVersion="two"'), MonetaryTotal, backend: backend)
      end
      assert_equal "LegalMonetaryTotal/PayableAmount/@schemeVersion", error.path, backend.to_s
    end
  end

  # Only a single scalar carries attributes beside its text: a list's items or a
  # model (which maps its own attributes) still refuse them.
  def test_attributes_beside_a_list_or_a_model_are_refused
    [[[:string], "a"], [Wirebind::TestModels::Price, "a"], [:qname, "a"]].each do |type, path|
      klass = Class.new { include Wirebind::Model; xml_root "r" }
      klass.attribute :v, type, xml: path
      error = assert_raises(Wirebind::SchemaError, type.inspect) { klass.attribute :w, :string, xml: "a/@b" }
      assert_match(/<a> is already mapped to a value, it cannot also be a wrapper/, error.message)
      klass = Class.new { include Wirebind::Model; xml_root "r" }
      klass.attribute :w, :string, xml: "a/@b"
      assert_raises(Wirebind::SchemaError, type.inspect) { klass.attribute :v, type, xml: path }
    end
  end

  ATOM = "http://www.w3.org/2005/Atom"
  XHTML = "http://www.w3.org/1999/xhtml"

  # Atom's content of type xhtml: the element's whole content, raw.
  class Content
    include Wirebind::Model
    xml_namespace ATOM
    xml_root "content"
    attribute :type, :string, xml: "@type"
    attribute :body, :xml, xml: "."
  end

  class AtomEntry
    include Wirebind::Model
    xml_namespace ATOM
    xml_root "entry"
    attribute :title, :string
    attribute :content, Content
    attribute :updated, :string
  end

  ATOM_ENTRY = <<~XML
    <entry xmlns="#{ATOM}">
      <title>Atom-Powered Robots Run Amok</title>
      <content type="xhtml"><div xmlns="#{XHTML}"><p>Some <em>text</em> &amp; more.</p><!-- note --></div></content>
      <updated>2003-12-13T18:30:02Z</updated>
    </entry>
  XML

  def test_xml_as_dot_is_the_elements_whole_content
    results = backends.map do |backend|
      entry = XML.decode(ATOM_ENTRY, AtomEntry, backend: backend)
      assert_equal "Atom-Powered Robots Run Amok", entry.title, backend.to_s
      assert_equal "2003-12-13T18:30:02Z", entry.updated, backend.to_s
      assert_equal "xhtml", entry.content.type, backend.to_s
      body = entry.content.body
      assert_equal %(<div xmlns="#{XHTML}"><p>Some <em>text</em> &amp; more.</p></div>), body, backend.to_s
      xml = XML.encode(entry, backend: backend)
      assert_includes xml, %(<content type="xhtml">#{body}</content>), backend.to_s
      assert_equal entry, XML.decode(xml, AtomEntry, backend: backend)
      # The record as the document element, its content text only, or empty.
      assert_equal Content.new(type: "text", body: "a &lt; b"), XML.decode(%(<content xmlns="#{ATOM}" type="text">a &lt; b</content>), Content, backend: backend)
      assert_equal Content.new(type: "html", body: ""), XML.decode(%(<content xmlns="#{ATOM}" type="html"/>), Content, backend: backend)
      top = XML.decode(%(<content xmlns="#{ATOM}">x <b>y</b></content>), Content, backend: backend)
      # Self-contained: a default namespace in scope is declared where the content uses it.
      assert_equal %(x <b xmlns="#{ATOM}">y</b>), top.body, backend.to_s
      assert_equal top, XML.decode(XML.encode(top, backend: backend), Content, backend: backend)
      [entry, xml]
    end
    assert_equal 1, results.uniq.size, "the backends agree"
  end

  def test_xml_as_dot_refuses_bad_content_and_children_beside_it
    backends.each do |backend|
      error = assert_raises(Wirebind::EncodeError, backend.to_s) { XML.encode(Content.new(body: "<a>"), backend: backend) }
      assert_match(/not well-formed/, error.message)
    end
    klass = Class.new do
      include Wirebind::Model
      xml_root "r"
      attribute :body, :xml, xml: "."
      attribute :child, :string
    end
    error = assert_raises(Wirebind::SchemaError) { XML.decode("<r/>", klass) }
    assert_match(/holds the element's whole content; no child element can be mapped beside it/, error.message)
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; attribute :v, :any, xml: "." } }
    assert_match(/:any maps to an element/, error.message)
  end
end
