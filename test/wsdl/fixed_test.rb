# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19, item 4: XML Schema fixed values, hand-made in the shape of FedEx's
  # VersionId (ServiceId fixed "ship", Major fixed 26).
  class WSDLFixedTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
        <xsd:complexType name="VersionId"><xsd:sequence>
          <xsd:element name="ServiceId" type="xsd:string" fixed="ship"/>
          <xsd:element name="Major" type="xsd:int" fixed="26"/>
          <xsd:element name="Note" type="xsd:string" minOccurs="0"/>
        </xsd:sequence><xsd:attribute name="kind" type="xsd:string" fixed="version"/></xsd:complexType>
        <xsd:complexType name="ShipVersionId"><xsd:complexContent><xsd:extension base="tns:VersionId"><xsd:sequence>
          <xsd:element name="Extra" type="xsd:string" minOccurs="0"/>
        </xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
      </xsd:schema>
    XML

    def test_new_instances_carry_the_fixed_values
      mod = define_wsdl(TYPES)
      version = mod::VersionId.new(note: "n")
      assert_equal ["ship", 26, "version", "n"], [version.service_id, version.major, version.kind, version.note]
      assert_equal "ship", mod::ShipVersionId.new(extra: "e").service_id
      assert_equal 26, mod::ShipVersionId.new.major
      written = version.to_xml
      assert_includes written, "<ServiceId>ship</ServiceId><Major>26</Major>"
      assert_equal version, mod::VersionId.from_xml(written)
    end

    def test_another_value_is_refused_both_ways
      mod = define_wsdl(TYPES)
      xml = '<VersionId xmlns="urn:test"><ServiceId>rate</ServiceId><Major>26</Major></VersionId>'
      error = assert_raises(DecodeError) { mod::VersionId.from_xml(xml) }
      assert_includes error.message, "ServiceId"
      assert_raises(EncodeError) { mod::VersionId.new(service_id: "rate").to_xml }
    end

    def test_a_fixed_value_outside_its_type_is_an_invalid_error
      error = assert_raises(WSDL::InvalidError) { define_wsdl(TYPES.sub('fixed="26"', 'fixed="twenty"')) }
      assert_includes error.message, "twenty"
    end
  end
end
