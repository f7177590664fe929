# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19: xsd:anyType, xsd:any and mixed content as real WSDLs use them
  # (hand-made schemas in the shape of vSphere's DynamicProperty and ONVIF's
  # wsnt:Message).
  class WSDLOpenContentTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
        <xsd:complexType name="DynamicProperty"><xsd:sequence>
          <xsd:element name="name" type="xsd:string"/>
          <xsd:element name="val" type="xsd:anyType"/>
          <xsd:element name="vals" type="xsd:anyType" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence><xsd:attribute name="note" type="xsd:anyType"/></xsd:complexType>
        <xsd:complexType name="ManagedObjectReference"><xsd:simpleContent><xsd:extension base="xsd:string">
          <xsd:attribute name="type" type="xsd:string"/>
        </xsd:extension></xsd:simpleContent></xsd:complexType>
        <xsd:complexType name="ObjectContent"><xsd:sequence>
          <xsd:element name="obj" type="tns:ManagedObjectReference"/>
          <xsd:element name="propSet" type="tns:DynamicProperty" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="NotificationMessage"><xsd:sequence>
          <xsd:element name="Topic" type="tns:Topic" minOccurs="0"/>
          <xsd:element name="Message"><xsd:complexType><xsd:sequence>
            <xsd:any namespace="##any" processContents="lax"/>
          </xsd:sequence></xsd:complexType></xsd:element>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="Topic" mixed="true"><xsd:sequence>
          <xsd:any minOccurs="0" maxOccurs="unbounded" processContents="lax"/>
        </xsd:sequence><xsd:attribute name="Dialect" type="xsd:anyURI" use="required"/><xsd:anyAttribute/></xsd:complexType>
      </xsd:schema>
    XML

    def test_any_type_keeps_attributes_text_and_children
      mod = define_wsdl(TYPES)
      kinds = mod::DynamicProperty.attributes.map { |a| [a.name, a.type, a.list?] }
      assert_equal [[:name, :string, false], [:val, :any, false], [:vals, :any, true], [:note, :string, false]], kinds
      xml = '<DynamicProperty xmlns="urn:test" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><name>parent</name>' \
            '<val xsi:type="ManagedObjectReference" type="Folder">group-v3</val>' \
            "<vals><a>1</a><b>2</b></vals><vals>plain</vals></DynamicProperty>"
      record = mod::DynamicProperty.from_xml(xml.sub('xsi:type="ManagedObjectReference"', 'xsi:type="Unknown"'))
      assert_equal "Folder", record.val["@type"]
      assert_equal "group-v3", record.val["#text"]
      assert_equal "Unknown", record.val["@{http://www.w3.org/2001/XMLSchema-instance}type"]
      assert_equal [{ "a" => "1", "b" => "2" }, "plain"], record.vals
      assert_equal record, mod::DynamicProperty.from_xml(record.to_xml)
    end

    # vSphere's PropertyCollector: DynamicProperty.val holds whatever the
    # xsi:type names; a type the WSDL defines decodes to its generated class.
    def test_any_type_decodes_a_known_xsi_type_to_its_class
      mod = define_wsdl(TYPES)
      xml = '<ObjectContent xmlns="urn:test" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:v="urn:test">' \
            '<obj type="Datacenter">datacenter-2</obj><propSet><name>parent</name>' \
            '<val xsi:type="v:ManagedObjectReference" type="Folder">group-v3</val>' \
            '<vals xsi:type="ObjectContent"><obj type="Folder">group-d1</obj><propSet><name>name</name><val>Datacenters</val></propSet></vals>' \
            '<vals xsi:type="ManagedObjectReference" type="HostSystem"/>' \
            "</propSet></ObjectContent>"
      record = mod::ObjectContent.from_xml(xml)
      prop = record.prop_set.first
      assert_equal mod::ManagedObjectReference.new(type: "Folder", value: "group-v3"), prop.val
      nested, empty = prop.vals
      assert_instance_of mod::ObjectContent, nested
      assert_equal "group-d1", nested.obj.value
      assert_equal "Datacenters", nested.prop_set.first.val
      assert_equal mod::ManagedObjectReference.new(type: "HostSystem", value: ""), empty
      assert_equal record, mod::ObjectContent.from_xml(record.to_xml)
      untyped = Class.new do
        include Wirebind::Model
        attribute :a, :string
      end
      error = assert_raises(EncodeError) { mod::DynamicProperty.new(name: "n", val: untyped.new(a: "x")).to_xml }
      assert_includes error.message, "needs an xml_type"
    end

    # A class of the same local name declared in no namespace, or in any
    # (matching: :any), is not the WSDL's type: the content stays a Hash.
    class LooseManagedObjectReference
      include Wirebind::Model
      xml_type "ManagedObjectReference", matching: :any
      attribute :value, :string, xml: "."
    end

    def test_any_type_ignores_a_type_of_the_same_name_in_another_namespace
      mod = define_wsdl(TYPES)
      xml = '<DynamicProperty xmlns="urn:test" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><name>p</name>' \
            '<val xmlns:o="urn:other" xsi:type="o:ManagedObjectReference" type="Folder">group-v3</val></DynamicProperty>'
      assert_equal "group-v3", mod::DynamicProperty.from_xml(xml).val["#text"]
    end

    def test_an_element_of_only_xsd_any_or_mixed_content_keeps_it
      mod = define_wsdl(TYPES)
      fields = mod::NotificationMessage.attributes.to_h { |a| [a.name, a.type] }
      assert_equal({ topic: :any, message: :any }, fields)
      xml = '<NotificationMessage xmlns="urn:test"><Topic Dialect="urn:simple">tns1:Device/Trigger</Topic>' \
            '<Message><tt:Message xmlns:tt="urn:tt" UtcTime="2026-01-01T00:00:00Z"><tt:Data><tt:SimpleItem Name="State" Value="true"/></tt:Data></tt:Message></Message>' \
            "</NotificationMessage>"
      record = mod::NotificationMessage.from_xml(xml)
      assert_equal({ "@Dialect" => "urn:simple", "#text" => "tns1:Device/Trigger" }, record.topic)
      message = record.message.fetch("{urn:tt}Message")
      assert_equal "2026-01-01T00:00:00Z", message["@UtcTime"]
      assert_equal({ "@Name" => "State", "@Value" => "true" }, message["Data"]["SimpleItem"])
      assert_equal record, mod::NotificationMessage.from_xml(record.to_xml)
    end

    # ONVIF's NotificationMessageHolderType: a wsa:EndpointReferenceType
    # (Address, ReferenceParameters, Metadata, then xsd:any ##other) beside
    # the Topic and the Message.
    HOLDER = <<~XML
      <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
        <xsd:complexType name="EndpointReferenceType"><xsd:sequence>
          <xsd:element name="Address" type="xsd:anyURI"/>
          <xsd:element name="ReferenceParameters" type="tns:ReferenceParametersType" minOccurs="0"/>
          <xsd:element name="Metadata" type="xsd:string" minOccurs="0"/>
          <xsd:any namespace="##other" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence><xsd:anyAttribute namespace="##other"/></xsd:complexType>
        <xsd:complexType name="ReferenceParametersType"><xsd:sequence>
          <xsd:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="NotificationMessageHolderType"><xsd:sequence>
          <xsd:element name="SubscriptionReference" type="tns:EndpointReferenceType" minOccurs="0"/>
          <xsd:element name="Topic" type="xsd:string" minOccurs="0"/>
          <xsd:element name="ProducerReference" type="tns:EndpointReferenceType" minOccurs="0"/>
          <xsd:element name="Message"><xsd:complexType><xsd:sequence>
            <xsd:element name="Source" type="xsd:string" minOccurs="0"/>
            <xsd:any namespace="##any" processContents="lax"/>
          </xsd:sequence></xsd:complexType></xsd:element>
        </xsd:sequence></xsd:complexType>
      </xsd:schema>
    XML

    def test_xsd_any_beside_declared_elements_keeps_the_other_elements_in_order
      mod = define_wsdl(HOLDER)
      fields = mod::EndpointReferenceType.attributes.map { |a| [a.name, a.type, a.list?, a.xml] }
      assert_equal [:any, :any, true, "*"], fields.last
      xml = '<NotificationMessageHolderType xmlns="urn:test" xmlns:x="urn:x">' \
            '<SubscriptionReference><Address>http://cam/sub</Address><x:Extra id="1">a</x:Extra>' \
            "<ReferenceParameters><x:Id>7</x:Id></ReferenceParameters><x:Other/><x:Extra>b</x:Extra></SubscriptionReference>" \
            "<Topic>tns1:Device/Trigger</Topic>" \
            '<Message><Source>cam</Source><x:Message UtcTime="2026-01-01T00:00:00Z"><x:Data>1</x:Data></x:Message></Message>' \
            "</NotificationMessageHolderType>"
      record = mod::NotificationMessageHolderType.from_xml(xml)
      reference = record.subscription_reference
      assert_equal "http://cam/sub", reference.address
      assert_equal({ "{urn:x}Id" => "7" }, reference.reference_parameters)
      assert_equal [{ "{urn:x}Extra" => { "@id" => "1", "#text" => "a" } }, { "{urn:x}Other" => "" }, { "{urn:x}Extra" => "b" }], reference.any
      assert_equal "cam", record.message.source
      assert_equal [{ "{urn:x}Message" => { "@UtcTime" => "2026-01-01T00:00:00Z", "Data" => "1" } }], record.message.any
      again = mod::NotificationMessageHolderType.from_xml(record.to_xml)
      assert_equal record, again
      written = mod::EndpointReferenceType.new(address: "urn:a", any: [{ "{urn:x}Extra" => "c" }, { "Local" => "d" }]).to_xml
      assert_includes written, '<Extra xmlns="urn:x">c</Extra>'
      assert_equal [{ "{urn:x}Extra" => "c" }, { "Local" => "d" }], mod::EndpointReferenceType.from_xml(written).any
      error = assert_raises(EncodeError) { mod::EndpointReferenceType.new(address: "urn:a", any: ["c"]).to_xml }
      assert_includes error.message, "one-pair Hash"
    end
  end
end
