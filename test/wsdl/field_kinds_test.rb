# frozen_string_literal: true

require_relative "wsdl_test_support"
require "rack/mock"
require "rexml/document"

module Wirebind
  # Field kinds the service's ?wsdl and the rpc/encoded writer must not lose or
  # crash on: a "*" wildcard of :any items, :xml as the element's whole content,
  # a :qname XML attribute. Each round trips rpc/encoded and is read back from
  # the WSDL by wirebind's generator.
  class WSDLFieldKindsTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    class Extensible
      include Wirebind::Model
      xml_type "Extensible", namespace: "urn:kinds"
      attribute :name, :string
      attribute :extra, [:any], xml: "*"
    end

    class Fragment
      include Wirebind::Model
      xml_type "Fragment", namespace: "urn:kinds"
      attribute :kind, :qname, xml: "@kind"
      attribute :body, :xml, xml: "."
    end

    EXTENSIBLE = Extensible.new(name: "n", extra: [{ "{urn:e}E" => "1" }, { "{urn:e}F" => { "@a" => "2", "#text" => "x" } }])
    FRAGMENT = Fragment.new(kind: QName.new("urn:k", "Folder"), body: "text <b>bold</b> tail")

    def service(style)
      Class.new(SOAP::Service) do
        namespace "urn:kinds:service"
        style style
        operation(:extend, args: { in0: Extensible }, returns: Extensible) { |value| value }
        operation(:fragment, args: { in0: Fragment }, returns: Fragment) { |value| value }
      end
    end

    def wsdl_of(style)
      ::Rack::MockRequest.new(service(style).new).get("/x?wsdl").body
    end

    def encoded(value)
      SOAP::Envelope.write(+"", operation: "op", namespace: "urn:kinds:service", parts: { in0: value }, style: :rpc_encoded)
    end

    def test_rpc_encoded_writes_wildcard_items_under_their_own_names
      xml = encoded(EXTENSIBLE)
      assert_match(%r{<name xsi:type="xsd:string">n</name><E xmlns="urn:e">1</E><F xmlns="urn:e" a="2">x</F></in0>}, xml)
      assert_equal EXTENSIBLE, SOAP::Envelope::Reader.new(xml).decode(Extensible, at: "*/in0")
    end

    def test_rpc_encoded_writes_xml_content_and_a_qname_attribute
      xml = encoded(FRAGMENT)
      assert_match(%r{ kind="([\w-]+):Folder" xmlns:\1="urn:k">text <b>bold</b> tail</in0>}, xml)
      assert_equal FRAGMENT, SOAP::Envelope::Reader.new(xml).decode(Fragment, at: "*/in0")
    end

    def test_the_wsdl_describes_a_wildcard_and_whole_content
      %i[document rpc rpc_encoded].each do |style|
        doc = REXML::Document.new(wsdl_of(style))
        extensible = REXML::XPath.first(doc, "//xsd:complexType[@name='Extensible']")
        assert_equal ["name"], REXML::XPath.match(extensible, ".//xsd:element/@name").map(&:value), style
        any = REXML::XPath.first(extensible, "xsd:sequence/xsd:any")
        assert any, "#{style}: the wildcard is an xsd:any"
        assert_equal %w[unbounded lax], [any.attribute("maxOccurs").value, any.attribute("processContents").value], style
        fragment = REXML::XPath.first(doc, "//xsd:complexType[@name='Fragment']")
        assert_equal "true", fragment.attribute("mixed")&.value, "#{style}: :xml as \".\" is mixed content"
        assert REXML::XPath.first(fragment, "xsd:sequence/xsd:any"), style
        assert_nil REXML::XPath.first(fragment, "xsd:simpleContent"), style
        assert_equal "xsd:QName", REXML::XPath.first(fragment, "xsd:attribute[@name='kind']/@type").value, style

        mod = Module.new
        with_files("k.wsdl" => wsdl_of(style)) { |dir| WSDL.load(File.join(dir, "k.wsdl")).define(mod) }
        wildcard = mod::Extensible.attributes.find { |a| a.xml == "*" }
        assert_equal [:any, :any, true], [wildcard.name, wildcard.type, wildcard.list?], style
        record = mod::Extensible.new(name: "n", any: EXTENSIBLE.extra)
        assert_equal record, mod::Extensible.from_xml(record.to_xml), style
      end
    end
  end
end
