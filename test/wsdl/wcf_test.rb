# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19, item 5: constructs published WSDLs use although the specs frown on
  # them (hand-made in the shape of a WCF service with an empty targetNamespace).
  class WSDLWCFTest < Minitest::Test
    include WSDLTestSupport

    EMPTY_TNS = <<~XML
      <?xml version="1.0"?>
      <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
          xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="">
        <wsdl:types><xsd:schema targetNamespace="" elementFormDefault="qualified">
          <xsd:element name="Ping"><xsd:complexType><xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="PingResponse"><xsd:complexType><xsd:sequence><xsd:element name="echo" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
        </xsd:schema></wsdl:types>
        <wsdl:message name="PingIn"><wsdl:part name="parameters" element="Ping"/></wsdl:message>
        <wsdl:message name="PingOut"><wsdl:part name="parameters" element="PingResponse"/></wsdl:message>
        <wsdl:portType name="IPing"><wsdl:operation name="Ping"><wsdl:input message="PingIn"/><wsdl:output message="PingOut"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="BasicHttpBinding_IPing" type="IPing"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Ping"><soap:operation soapAction="urn:Ping"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
        </wsdl:binding>
        <wsdl:service name="PingService"><wsdl:port name="BasicHttpBinding_IPing" binding="BasicHttpBinding_IPing"><soap:address location="http://127.0.0.1/ping"/></wsdl:port></wsdl:service>
      </wsdl:definitions>
    XML

    def test_an_empty_target_namespace_gives_a_full_client
      description = WSDL.load(StringIO.new(EMPTY_TNS))
      assert_empty description.warnings
      mod = Module.new
      description.define(mod)
      assert mod::Client.method_defined?(:ping)
      assert_equal [%i[key text], %i[keyrest options]], mod::Client.instance_method(:ping).parameters
    end

    def test_an_xsd_import_directly_in_wsdl_types_is_followed
      document = wsdl.sub("<wsdl:types></wsdl:types>", '<wsdl:types><xsd:import namespace="urn:x" schemaLocation="x.xsd"/></wsdl:types>')
      with_files("s.wsdl" => document, "x.xsd" => X_SCHEMA) do |dir|
        assert_equal ["X"], WSDL.load(File.join(dir, "s.wsdl")).types.map(&:name)
      end
    end

    def test_a_construct_not_understood_in_types_is_a_warning
      document = wsdl.sub("<wsdl:types></wsdl:types>", '<wsdl:types><foo:schema xmlns:foo="urn:relax-ng"/></wsdl:types>')
      warnings = WSDL.load(StringIO.new(document)).warnings
      assert_equal 1, warnings.size, warnings.inspect
      assert_match(/<schema>: \{urn:relax-ng\}schema in wsdl:types is not understood/, warnings.first)
    end
  end
end
