# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19, item 2: substitution groups, hand-made in the shape of Exchange
  # EWS's t:Path (abstract head, FieldURI/ExtendedFieldURI substitutes).
  class WSDLSubstitutionTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:t" xmlns:t="urn:t" elementFormDefault="qualified">
        <xsd:complexType name="BasePathToElementType" abstract="true"/>
        <xsd:element name="Path" type="t:BasePathToElementType" abstract="true"/>
        <xsd:complexType name="PathToUnindexedFieldType"><xsd:complexContent><xsd:extension base="t:BasePathToElementType">
          <xsd:attribute name="FieldURI" type="xsd:string" use="required"/></xsd:extension></xsd:complexContent></xsd:complexType>
        <xsd:element name="FieldURI" type="t:PathToUnindexedFieldType" substitutionGroup="t:Path"/>
        <xsd:complexType name="PathToExtendedFieldType"><xsd:complexContent><xsd:extension base="t:BasePathToElementType">
          <xsd:attribute name="PropertyTag" type="xsd:string"/></xsd:extension></xsd:complexContent></xsd:complexType>
        <xsd:element name="ExtendedFieldURI" type="t:PathToExtendedFieldType" substitutionGroup="t:Path"/>
        <xsd:element name="IndexedFieldURI" substitutionGroup="t:Path"><xsd:complexType><xsd:complexContent>
          <xsd:extension base="t:BasePathToElementType"><xsd:attribute name="FieldIndex" type="xsd:string"/></xsd:extension>
        </xsd:complexContent></xsd:complexType></xsd:element>
        <xsd:complexType name="NonEmptyArrayOfPathsToElementType"><xsd:sequence>
          <xsd:element ref="t:Path" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="ItemResponseShapeType"><xsd:sequence>
          <xsd:element name="BaseShape" type="xsd:string"/>
          <xsd:element name="AdditionalProperties" type="t:NonEmptyArrayOfPathsToElementType" minOccurs="0"/>
        </xsd:sequence></xsd:complexType>
      </xsd:schema>
    XML

    def test_substitutes_decode_to_their_own_classes_and_encode_under_their_own_names
      mod = define_wsdl(TYPES)
      paths = mod::NonEmptyArrayOfPathsToElementType.attributes.first
      assert_equal [mod::FieldURI, mod::ExtendedFieldURI, mod::IndexedFieldURI], paths.choices
      assert_operator mod::FieldURI, :<, mod::PathToUnindexedFieldType
      xml = '<ItemResponseShapeType xmlns="urn:t"><BaseShape>IdOnly</BaseShape><AdditionalProperties>' \
            '<FieldURI FieldURI="item:Subject"/><ExtendedFieldURI PropertyTag="0x1000"/><FieldURI FieldURI="item:Body"/>' \
            "</AdditionalProperties></ItemResponseShapeType>"
      shape = mod::ItemResponseShapeType.from_xml(xml)
      items = shape.additional_properties.path
      assert_equal [mod::FieldURI, mod::ExtendedFieldURI, mod::FieldURI], items.map(&:class)
      assert_equal %w[item:Subject item:Body], items.values_at(0, 2).map(&:field_uri)
      written = shape.to_xml
      assert_match(/<(\w+:)?FieldURI FieldURI="item:Subject"/, written)
      refute_match(/Path|xsi:type/, written)
      assert_equal shape, mod::ItemResponseShapeType.from_xml(written)
    end
  end
end
