# frozen_string_literal: true

require_relative "wsdl_test_support"
require "rexml/document"
require "wirebind/soap/test_helper"

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

    # In the shape of Bing Ads' WCF services: SOAP headers whose elements are
    # strings, an argument of a type of Serialization/Arrays, and one of a
    # wrapper type (ArrayOfCampaign) of the service's own namespace.
    HEADERS_AND_ARRAYS = <<~XML
      <?xml version="1.0"?>
      <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
          xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:cm" targetNamespace="urn:cm">
        <wsdl:types>
          <xsd:schema targetNamespace="urn:cm" elementFormDefault="qualified" xmlns:arr="urn:arrays">
            <xsd:import namespace="urn:arrays"/>
            <xsd:complexType name="Campaign"><xsd:sequence><xsd:element name="Name" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="ArrayOfCampaign"><xsd:sequence>
              <xsd:element name="Campaign" type="tns:Campaign" minOccurs="0" maxOccurs="unbounded"/>
            </xsd:sequence></xsd:complexType>
            <xsd:element name="AddCampaignsRequest"><xsd:complexType><xsd:sequence>
              <xsd:element name="AccountIds" type="arr:ArrayOflong"/>
              <xsd:element name="Campaigns" type="tns:ArrayOfCampaign"/>
            </xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="AddCampaignsResponse"><xsd:complexType><xsd:sequence>
              <xsd:element name="Count" type="xsd:int"/>
            </xsd:sequence></xsd:complexType></xsd:element>
            <xsd:element name="AuthenticationToken" type="xsd:string"/>
            <xsd:element name="CustomerId" type="xsd:long"/>
          </xsd:schema>
          <xsd:schema targetNamespace="urn:arrays" elementFormDefault="qualified">
            <xsd:complexType name="ArrayOflong"><xsd:sequence><xsd:element name="long" type="xsd:long" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
          </xsd:schema>
        </wsdl:types>
        <wsdl:message name="AddCampaignsRequest"><wsdl:part name="parameters" element="tns:AddCampaignsRequest"/></wsdl:message>
        <wsdl:message name="AddCampaignsRequest_Headers">
          <wsdl:part name="AuthenticationToken" element="tns:AuthenticationToken"/><wsdl:part name="CustomerId" element="tns:CustomerId"/>
        </wsdl:message>
        <wsdl:message name="AddCampaignsResponse"><wsdl:part name="parameters" element="tns:AddCampaignsResponse"/></wsdl:message>
        <wsdl:portType name="ICampaigns"><wsdl:operation name="AddCampaigns">
          <wsdl:input name="AddCampaignsRequest" message="tns:AddCampaignsRequest"/><wsdl:output name="AddCampaignsResponse" message="tns:AddCampaignsResponse"/>
        </wsdl:operation></wsdl:portType>
        <wsdl:binding name="BasicHttpBinding_ICampaigns" type="tns:ICampaigns"><soap:binding transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="AddCampaigns"><soap:operation soapAction="AddCampaigns" style="document"/>
            <wsdl:input name="AddCampaignsRequest">
              <soap:header message="tns:AddCampaignsRequest_Headers" part="AuthenticationToken" use="literal"/>
              <soap:header message="tns:AddCampaignsRequest_Headers" part="CustomerId" use="literal"/>
              <soap:body use="literal"/>
            </wsdl:input>
            <wsdl:output name="AddCampaignsResponse"><soap:body use="literal"/></wsdl:output>
          </wsdl:operation>
        </wsdl:binding>
        <wsdl:service name="CampaignService"><wsdl:port name="BasicHttpBinding_ICampaigns" binding="tns:BasicHttpBinding_ICampaigns">
          <soap:address location="http://127.0.0.1/campaigns"/></wsdl:port></wsdl:service>
      </wsdl:definitions>
    XML

    # Headers of simple types were refused (ArgumentError: "SOAP headers are
    # model instances..."), every call with one failed; an argument of a type
    # of another namespace was written in that namespace (a WCF service reads
    # it as absent); a list for a wrapper argument was written as repeated
    # wrapper elements.
    def test_string_headers_arguments_of_other_namespaces_and_wrapper_lists_are_written_as_the_schema_says
      mod = Module.new
      WSDL.load(StringIO.new(HEADERS_AND_ARRAYS)).define(mod)
      client = mod::Client.new
      request = nil
      count = SOAP::Stub.with(client) do |stub|
        stub.on(:AddCampaignsRequest, xml: '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>' \
                                    '<AddCampaignsResponse xmlns="urn:cm"><Count>2</Count></AddCampaignsResponse></s:Body></s:Envelope>')
        result = client.add_campaigns(account_ids: mod::ArrayOflong.new(long: [7, 8]), campaigns: [mod::Campaign.new(name: "a"), mod::Campaign.new(name: "b")],
                                      authentication_token: "tok & co", customer_id: 12)
        request = REXML::Document.new(stub.calls.last.body)
        result
      end
      assert_equal 2, count
      names = ->(path) { REXML::XPath.match(request, path).map { |element| [element.namespace, element.name, element.text] } }
      assert_equal [["urn:cm", "AuthenticationToken", "tok & co"], ["urn:cm", "CustomerId", "12"]], names.call("/*/*[local-name()='Header']/*")
      assert_equal [["urn:cm", "AccountIds", nil], ["urn:cm", "Campaigns", nil]], names.call("//*[local-name()='AddCampaignsRequest']/*")
      assert_equal [["urn:arrays", "long", "7"], ["urn:arrays", "long", "8"]], names.call("//*[local-name()='AccountIds']/*")
      assert_equal [["urn:cm", "Name", "a"], ["urn:cm", "Name", "b"]], names.call("//*[local-name()='Campaigns']/*[local-name()='Campaign']/*")
    ensure
      client&.close
    end
  end
end
