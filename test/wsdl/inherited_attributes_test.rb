# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19, item 11 (speed): a generated subclass takes its base's attributes
  # (Model.inherit_schema) instead of declaring them again, which was most of
  # the declarations of a vSphere-shaped WSDL (deep extension chains). The
  # models must be the same as when every class declared them all.
  class WSDLInheritedAttributesTest < Minitest::Test
    include WSDLTestSupport

    CHAIN = <<~XML
      <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
        <xsd:complexType name="DynamicData"><xsd:sequence>
          <xsd:element name="dynamicType" type="xsd:string" minOccurs="0"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="HostConfig"><xsd:complexContent><xsd:extension base="tns:DynamicData"><xsd:sequence>
          <xsd:element name="name" type="xsd:string"/>
          <xsd:element name="state" minOccurs="0"><xsd:simpleType><xsd:restriction base="xsd:string">
            <xsd:enumeration value="on"/><xsd:enumeration value="off"/>
          </xsd:restriction></xsd:simpleType></xsd:element>
        </xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
        <xsd:complexType name="HostConfigSpec"><xsd:complexContent><xsd:extension base="tns:HostConfig"><xsd:sequence>
          <xsd:element name="port" type="xsd:int" minOccurs="0" maxOccurs="unbounded"/>
          <xsd:element name="parent" type="tns:HostConfig" minOccurs="0"/>
        </xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
      </xsd:schema>
    XML

    def models_source(types)
      with_files("s.wsdl" => wsdl(types: types)) do |dir|
        return WSDL.load(File.join(dir, "s.wsdl")).generate("Chain").fetch("chain/models.rb")
      end
    end

    def test_each_attribute_is_declared_once_along_a_chain
      source = models_source(CHAIN)
      %w[dynamic_type name state port].each do |name|
        assert_equal 1, source.scan(/attribute :#{name},/).size, "attribute :#{name} in\n#{source}"
      end
      assert_equal 2, source.scan(/^    inherit_schema$/).size
    end

    def test_the_models_are_those_of_a_chain_declared_in_full
      mod = define_wsdl(CHAIN)
      spec = mod::HostConfigSpec
      assert_equal %i[dynamic_type name state port parent], spec.attributes.map(&:name)
      assert_same mod::DynamicData, spec.attributes.first.owner
      assert_equal %w[dynamicType name state port parent], spec.attributes.map(&:xml)
      assert_equal({ "on" => true, "off" => true }, spec.attributes[2].enum)
      assert_equal "urn:test", spec.xml_namespace_uri
      assert_equal ["HostConfigSpec", "urn:test"], spec.xml_type
      record = spec.new(dynamic_type: "d", name: "esx1", state: "on", port: [443, 902],
                        parent: mod::HostConfig.new(name: "esx0"))
      xml = record.to_xml
      assert_includes xml, "<dynamicType>d</dynamicType><name>esx1</name><state>on</state><port>443</port><port>902</port>"
      assert_equal record, spec.from_xml(xml)
      assert_equal({ name: "esx1", state: "off" }, mod::HostConfig.from_xml(
        '<HostConfig xmlns="urn:test"><name>esx1</name><state>off</state></HostConfig>'
      ).to_h.compact)
      assert_raises(EncodeError) { spec.new(name: "x", state: "standby").to_xml }
    end

    # A base in another namespace: its elements are written relative to the
    # subclass's namespace, so the subclass declares them all, as before.
    def test_a_base_in_another_namespace_is_declared_in_full
      types = <<~XML
        <xsd:schema targetNamespace="urn:base" xmlns:b="urn:base" elementFormDefault="qualified">
          <xsd:complexType name="Base"><xsd:sequence><xsd:element name="id" type="xsd:string"/></xsd:sequence></xsd:complexType>
        </xsd:schema>
        <xsd:schema targetNamespace="urn:test" xmlns:b="urn:base" elementFormDefault="qualified">
          <xsd:import namespace="urn:base"/>
          <xsd:complexType name="Derived"><xsd:complexContent><xsd:extension base="b:Base"><xsd:sequence>
            <xsd:element name="extra" type="xsd:string"/>
          </xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
        </xsd:schema>
      XML
      source = models_source(types)
      refute_includes source, "inherit_schema"
      assert_includes source, %(attribute :id, :string, xml: "{urn:base}id")
      derived = define_wsdl(types)::Derived
      record = derived.from_xml('<Derived xmlns="urn:test" xmlns:b="urn:base"><b:id>1</b:id><extra>e</extra></Derived>')
      assert_equal({ id: "1", extra: "e" }, record.to_h)
    end
  end
end
