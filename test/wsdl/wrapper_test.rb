# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19, item 8: document/literal ArrayOfX wrappers (hand-made, in the shape
  # .NET and wirebind's own WSDL writer publish).
  class WSDLWrapperTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:test" xmlns:tns="urn:test" elementFormDefault="qualified">
        <xsd:complexType name="LineItem"><xsd:sequence><xsd:element name="sku" type="xsd:string"/></xsd:sequence></xsd:complexType>
        <xsd:complexType name="ArrayOfLineItem"><xsd:sequence>
          <xsd:element name="item" type="tns:LineItem" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="Order"><xsd:sequence>
          <xsd:element name="id" type="xsd:string"/><xsd:element name="items" type="tns:ArrayOfLineItem"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="ArrayOfOrder"><xsd:sequence>
          <xsd:element name="Order" type="tns:Order" minOccurs="0" maxOccurs="unbounded" nillable="true"/>
        </xsd:sequence></xsd:complexType>
        <xsd:element name="listOrders"><xsd:complexType><xsd:sequence><xsd:element name="limit" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
        <xsd:element name="listOrdersResponse"><xsd:complexType><xsd:sequence>
          <xsd:element name="listOrdersResult" type="tns:ArrayOfOrder"/>
        </xsd:sequence></xsd:complexType></xsd:element>
      </xsd:schema>
    XML
    REST = <<~XML
      <wsdl:message name="in"><wsdl:part name="parameters" element="tns:listOrders"/></wsdl:message>
      <wsdl:message name="out"><wsdl:part name="parameters" element="tns:listOrdersResponse"/></wsdl:message>
      <wsdl:portType name="Shop"><wsdl:operation name="listOrders"><wsdl:input message="tns:in"/><wsdl:output message="tns:out"/></wsdl:operation></wsdl:portType>
      <wsdl:binding name="ShopSoap" type="tns:Shop"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
        <wsdl:operation name="listOrders"><soap:operation soapAction="urn:list"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
      </wsdl:binding>
      <wsdl:service name="ShopService"><wsdl:port name="ShopSoap" binding="tns:ShopSoap"><soap:address location="http://127.0.0.1/shop"/></wsdl:port></wsdl:service>
    XML

    def test_wrappers_unwrap_to_lists_and_stay_available
      mod = define_wsdl(TYPES, bindings: REST)
      items = mod::Order.attributes.find { |a| a.name == :items }
      assert_equal [mod::LineItem, true, "items/item"], [items.type, items.list?, items.xml]
      order = mod::Order.from_xml('<Order xmlns="urn:test"><id>1</id><items><item><sku>a</sku></item><item><sku>b</sku></item></items></Order>')
      assert_equal %w[a b], order.items.map(&:sku)
      assert_equal order, mod::Order.from_xml(order.to_xml)
      assert_match(%r{<(\w+:)?items><(\w+:)?item><(\w+:)?sku>a</}, order.to_xml)
      assert_equal [mod::Order], mod::ArrayOfOrder.attributes.map(&:type) # the wrapper class stays
      client = mod::Client
      assert client.method_defined?(:each_list_orders)
      source = WSDL.load(StringIO.new(wsdl(types: TYPES, bindings: REST))).generate("Shop").values.last
      assert_includes source, %(returns: [Order], at: "*/listOrdersResult/Order")
    end
  end
end
