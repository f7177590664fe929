# frozen_string_literal: true

require_relative "wsdl_test_support"
require "wirebind/soap/test_helper"

module Wirebind
  # Issue 19, the reader's leftovers: SOAP-encoded arrays whose items have no
  # type name. wsdl:arrayType may name a global element rather than a type (some
  # published rpc/encoded WSDLs do), and a soapenc:Array restriction may declare
  # its repeated element with an anonymous type. The items are the element's
  # type; written with an xsi:type only where that type has a name, under an
  # arrayType of xsd:anyType otherwise (an element's name is no type).
  class WSDLEncodedArraysTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:test" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">
        <xsd:import namespace="http://schemas.xmlsoap.org/soap/encoding/"/>
        <xsd:element name="Issue"><xsd:complexType><xsd:sequence>
          <xsd:element name="key" type="xsd:string"/><xsd:element name="votes" type="xsd:int"/>
        </xsd:sequence></xsd:complexType></xsd:element>
        <xsd:complexType name="Label"><xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence></xsd:complexType>
        <xsd:element name="Tag" type="tns:Label"/>
        <xsd:complexType name="ArrayOfIssue"><xsd:complexContent><xsd:restriction base="soapenc:Array">
          <xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="tns:Issue[]"/>
        </xsd:restriction></xsd:complexContent></xsd:complexType>
        <xsd:complexType name="ArrayOfTag"><xsd:complexContent><xsd:restriction base="soapenc:Array">
          <xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="tns:Tag[]"/>
        </xsd:restriction></xsd:complexContent></xsd:complexType>
        <xsd:complexType name="ArrayOfRow"><xsd:complexContent><xsd:restriction base="soapenc:Array">
          <xsd:sequence><xsd:element name="row" minOccurs="0" maxOccurs="unbounded"><xsd:complexType><xsd:sequence>
            <xsd:element name="cell" type="xsd:string"/>
          </xsd:sequence></xsd:complexType></xsd:element></xsd:sequence>
        </xsd:restriction></xsd:complexContent></xsd:complexType>
      </xsd:schema>
    XML

    OPERATIONS = { "putIssues" => "tns:ArrayOfIssue", "putTags" => "tns:ArrayOfTag", "putRows" => "tns:ArrayOfRow" }.freeze

    def encoded_wsdl
      body = '<soap:body use="encoded" namespace="urn:test" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/>'
      messages = OPERATIONS.map do |name, type|
        %(<wsdl:message name="#{name}In"><wsdl:part name="list" type="#{type}"/></wsdl:message>) +
          %(<wsdl:message name="#{name}Out"><wsdl:part name="return" type="#{type}"/></wsdl:message>)
      end
      operations = OPERATIONS.keys.map { |name| %(<wsdl:operation name="#{name}"><wsdl:input message="tns:#{name}In"/><wsdl:output message="tns:#{name}Out"/></wsdl:operation>) }
      bindings = OPERATIONS.keys.map { |name| %(<wsdl:operation name="#{name}"><soap:operation soapAction=""/><wsdl:input>#{body}</wsdl:input><wsdl:output>#{body}</wsdl:output></wsdl:operation>) }
      wsdl(types: TYPES, messages: messages.join,
           port_types: %(<wsdl:portType name="P">#{operations.join}</wsdl:portType>),
           bindings: %(<wsdl:binding name="B" type="tns:P"><soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>#{bindings.join}</wsdl:binding>),
           services: %(<wsdl:service name="S"><wsdl:port name="B" binding="tns:B"><soap:address location="http://127.0.0.1:1/s"/></wsdl:port></wsdl:service>))
    end

    def define_encoded
      with_files("s.wsdl" => encoded_wsdl) do |dir|
        mod = Module.new
        WSDL.load(File.join(dir, "s.wsdl")).define(mod)
        return mod
      end
    end

    def response(operation, array)
      <<~XML
        <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema"
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">
          <soapenv:Body><ns1:#{operation}Response soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="urn:test">#{array}</ns1:#{operation}Response></soapenv:Body>
        </soapenv:Envelope>
      XML
    end

    def client_of(mod)
      mod.const_get(mod.constants.grep(/Client\z/).first).new
    end

    def test_an_array_type_naming_an_element_lists_that_elements_type
      mod = define_encoded
      operations = client_of(mod).class::OPERATIONS
      assert_equal [mod::Issue], operations[:put_issues].returns
      assert_nil mod::Issue.xml_type, "the element's anonymous type has no name"
      assert_equal [mod::Label], operations[:put_tags].returns
      assert_equal [mod::Row], operations[:put_rows].returns
      refute mod.const_defined?(:ArrayOfIssue), "an encoded array is a list, not a class"
    end

    def test_items_are_written_with_an_xsi_type_only_where_their_type_has_a_name
      mod = define_encoded
      client = client_of(mod)
      SOAP::Stub.with(client) do |stub|
        %i[putIssues putTags putRows].each { |operation| stub.on(operation, xml: response(operation, "")) }
        client.put_issues(list: [mod::Issue.new(key: "K-1", votes: 1), mod::Issue.new(key: "K-2", votes: 2)])
        assert_includes stub.calls.last.body, '<list xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[2]"><item><key xsi:type="xsd:string">K-1</key>'
        client.put_tags(list: [mod::Label.new(text: "t")])
        assert_includes stub.calls.last.body, '<list xsi:type="soapenc:Array" soapenc:arrayType="ns2:Label[1]" xmlns:ns2="urn:test"><item xsi:type="'
        client.put_rows(list: [mod::Row.new(cell: "c")])
        assert_includes stub.calls.last.body, '<list xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[1]"><item><cell xsi:type="xsd:string">c</cell></item></list>'
        # Built by hand too: the general path (an Enumerator of unknown length) says the same.
        xml = SOAP::Envelope.write(+"", operation: "op", namespace: "urn:test", parts: { list: [mod::Row.new(cell: "c")].each }, style: :rpc_encoded)
        assert_includes xml, '<list xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[]"><item><cell'
      end
    end

    def test_items_decode_as_the_declared_type
      mod = define_encoded
      client = client_of(mod)
      SOAP::Stub.with(client) do |stub|
        # The second item says the element's name as its xsi:type, as a server echoing its WSDL's arrayType may.
        issues = '<return xsi:type="soapenc:Array" soapenc:arrayType="ns1:Issue[2]"><item><key>A-1</key><votes>3</votes></item>' \
                 '<item xsi:type="ns1:Issue"><key>A-2</key><votes>4</votes></item></return>'
        stub.on(:putIssues, xml: response("putIssues", issues))
        assert_equal [mod::Issue.new(key: "A-1", votes: 3), mod::Issue.new(key: "A-2", votes: 4)], client.put_issues(list: [])
        rows = '<return xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[2]"><row><cell>x</cell></row><row><cell>y</cell></row></return>'
        stub.on(:putRows, xml: response("putRows", rows))
        assert_equal [mod::Row.new(cell: "x"), mod::Row.new(cell: "y")], client.put_rows(list: [])
        stub.on(:putIssues, xml: response("putIssues", issues.sub("<votes>3</votes>", "<votes>three</votes>")))
        assert_raises(DecodeError) { client.put_issues(list: []) }
      end
    end
  end
end
