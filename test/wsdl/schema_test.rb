# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  class WSDLSchemaTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified" xmlns:other="urn:other">
        <xsd:import namespace="urn:other" schemaLocation="xsd/other.xsd"/>
        <xsd:include schemaLocation="xsd/included.xsd"/>
        <xsd:simpleType name="Color">
          <xsd:restriction base="xsd:string"><xsd:enumeration value="red"/><xsd:enumeration value="green"/></xsd:restriction>
        </xsd:simpleType>
        <xsd:simpleType name="Codes"><xsd:list itemType="xsd:int"/></xsd:simpleType>
        <xsd:complexType name="Base">
          <xsd:sequence><xsd:element name="id" type="xsd:long"/></xsd:sequence>
          <xsd:attribute name="lang" type="xsd:string" default="en"/>
        </xsd:complexType>
        <xsd:complexType name="Node">
          <xsd:complexContent><xsd:extension base="tns:Base">
            <xsd:sequence>
              <xsd:element name="sessionId" type="xsd:string" minOccurs="0" nillable="true"/>
              <xsd:choice><xsd:element name="color" type="tns:Color"/><xsd:element name="codes" type="tns:Codes"/></xsd:choice>
              <xsd:element name="children" type="tns:Node" maxOccurs="unbounded"/>
              <xsd:group ref="tns:Extra"/>
              <xsd:element ref="other:Thing"/>
              <xsd:element name="price"><xsd:complexType><xsd:simpleContent>
                <xsd:extension base="xsd:decimal"><xsd:attribute name="currency" type="xsd:string"/></xsd:extension>
              </xsd:simpleContent></xsd:complexType></xsd:element>
              <xsd:any processContents="skip"/>
            </xsd:sequence>
            <xsd:attributeGroup ref="tns:Audit"/>
            <xsd:anyAttribute/>
          </xsd:extension></xsd:complexContent>
        </xsd:complexType>
        <xsd:group name="Extra"><xsd:sequence><xsd:element name="note" type="xsd:string"/></xsd:sequence></xsd:group>
        <xsd:attributeGroup name="Audit"><xsd:attribute name="by" type="xsd:string"/></xsd:attributeGroup>
        <xsd:complexType name="Thing"><xsd:sequence><xsd:element name="here" type="xsd:boolean"/></xsd:sequence></xsd:complexType>
        <xsd:complexType name="ArrayOfNode">
          <xsd:complexContent><xsd:restriction base="soapenc:Array">
            <xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="tns:Node[]"/>
          </xsd:restriction></xsd:complexContent>
        </xsd:complexType>
        <xsd:complexType name="Holder"><xsd:sequence><xsd:element name="nodes" type="tns:ArrayOfNode"/></xsd:sequence></xsd:complexType>
        <xsd:element name="getNode"><xsd:complexType><xsd:sequence>
          <xsd:element name="nodeId" type="xsd:long"/><xsd:element name="depth" type="xsd:int" minOccurs="0"/>
        </xsd:sequence></xsd:complexType></xsd:element>
        <xsd:element name="getNodeResponse"><xsd:complexType><xsd:sequence>
          <xsd:element name="node" type="tns:Node" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:complexType></xsd:element>
      </xsd:schema>
    XML
    OTHER = <<~XML
      <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:other" xmlns:o="urn:other">
        <xsd:include schemaLocation="deeper/more.xsd"/>
        <xsd:complexType name="Thing"><xsd:sequence><xsd:element name="size" type="o:Size"/></xsd:sequence></xsd:complexType>
        <xsd:element name="Thing" type="o:Thing"/>
      </xsd:schema>
    XML
    MORE = <<~XML
      <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:other">
        <xsd:simpleType name="Size"><xsd:restriction base="xsd:int"/></xsd:simpleType>
      </xsd:schema>
    XML
    INCLUDED = <<~XML
      <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:complexType name="Included"><xsd:sequence>
        <xsd:element name="x" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:schema>
    XML
    REST = <<~XML
      <wsdl:message name="getNodeIn"><wsdl:part name="parameters" element="tns:getNode"/></wsdl:message>
      <wsdl:message name="getNodeOut"><wsdl:part name="parameters" element="tns:getNodeResponse"/></wsdl:message>
      <wsdl:portType name="NodePort"><wsdl:operation name="getNode"><wsdl:input message="tns:getNodeIn"/><wsdl:output message="tns:getNodeOut"/></wsdl:operation></wsdl:portType>
      <wsdl:binding name="NodeSoap" type="tns:NodePort"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
        <wsdl:operation name="getNode"><soap:operation soapAction="urn:test/getNode"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
      </wsdl:binding>
      <wsdl:binding name="NodeSoap12" type="tns:NodePort"><soap12:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
        <wsdl:operation name="getNode"><soap12:operation soapAction="urn:test/getNode"/><wsdl:input><soap12:body use="literal"/></wsdl:input><wsdl:output><soap12:body use="literal"/></wsdl:output></wsdl:operation>
      </wsdl:binding>
      <wsdl:service name="NodeService">
        <wsdl:port name="NodeSoap" binding="tns:NodeSoap"><soap:address location="http://127.0.0.1/node"/></wsdl:port>
        <wsdl:port name="NodeSoap12" binding="tns:NodeSoap12"><soap12:address location="http://127.0.0.1/node12"/></wsdl:port>
      </wsdl:service>
    XML

    def load_test_wsdl
      document = wsdl(types: TYPES.sub("<xsd:schema ", '<xsd:schema xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" '), bindings: REST)
      files = { "service.wsdl" => document, "xsd/other.xsd" => OTHER, "xsd/deeper/more.xsd" => MORE, "xsd/included.xsd" => INCLUDED }
      with_files(files) { |dir| yield WSDL.load(File.join(dir, "service.wsdl")) }
    end

    def test_what_the_schema_says
      load_test_wsdl do |description|
        mod = Module.new
        description.define(mod)
        node = mod::Node
        assert_equal mod::Base, node.superclass
        fields = node.attributes.to_h { |a| [a.name, [a.type.is_a?(Class) ? a.type.name&.split("::")&.last || a.type : a.type, a.list?, a.xml]] }
        assert_equal %i[id lang session_id color codes children note thing price any by], fields.keys
        assert_equal [:any, true, "*"], fields[:any]
        assert_equal [:integer, false, "id"], fields[:id]
        assert_equal [:string, false, "@lang"], fields[:lang]
        assert_equal [:string, false, "codes"], fields[:codes]
        assert_equal([node, true, "children"], node.attributes[5].then { |a| [a.type, a.list?, a.xml] })
        # The same name in two namespaces: sorted by namespace, the second suffixed.
        assert_equal ["urn:test"], mod::Thing2.xml_type.drop(1)
        assert_equal([mod::Thing, false, "{urn:other}Thing"], node.attributes[7].then { |a| [a.type, a.list?, a.xml] })
        assert_equal %w[red green], node.attributes[3].enum.keys
        assert_equal "urn:test", node.xml_namespace_uri
        price = node.attributes[8].type
        assert_equal %w[. @currency], price.attributes.map(&:xml)
        assert_equal :decimal, price.attributes.first.type
        assert_equal([[mod::Node, true, "nodes/*"]], mod::Holder.attributes.map { |a| [a.type, a.list?, a.xml] })
        assert mod.const_defined?(:Included)
        assert_nil mod::Thing.xml_namespace_uri # urn:other is unqualified
        assert_equal ["Thing", "urn:other"], mod::Thing.xml_type

        record = sample(node)
        assert_equal record, node.from_xml(record.to_xml)
        # Thing's children are unqualified: urn:test takes a prefix, declared once on the document element.
        # Node extends a base type: at the top of a document it says so with xsi:type.
        assert_match(/\A<(wb\w+):Node xsi:type="\1:Node" xmlns:xsi="[^"]+" xmlns:\w+="urn:other" xmlns:\1="urn:test"[ >]/, record.to_xml)

        clients = description.ports.map(&:binding).map(&:version)
        assert_equal [SOAP::SOAP11, SOAP::SOAP12], clients
        assert_equal mod::NodeSoapClient, mod::Client
        assert_equal [%i[key node_id], %i[key depth], %i[keyrest options]], mod::NodeSoapClient.instance_method(:get_node).parameters
        assert mod::NodeSoap12Client.method_defined?(:each_get_node)
      end
    end

    def test_imports_and_includes_are_read_once_even_in_a_cycle
      a = <<~XML
        <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:a" xmlns:b="urn:b">
          <xsd:import namespace="urn:b" schemaLocation="b/b.xsd"/>
          <xsd:complexType name="A"><xsd:sequence><xsd:element name="b" type="b:B" nillable="true"/></xsd:sequence></xsd:complexType>
        </xsd:schema>
      XML
      b = <<~XML
        <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b" xmlns:a="urn:a">
          <xsd:import namespace="urn:a" schemaLocation="../a.xsd"/>
          <xsd:import namespace="urn:a" schemaLocation="./../a.xsd"/>
          <xsd:complexType name="B"><xsd:sequence><xsd:element name="a" type="a:A" minOccurs="0" nillable="true"/></xsd:sequence></xsd:complexType>
        </xsd:schema>
      XML
      document = wsdl.sub("<wsdl:types></wsdl:types>", '<wsdl:import namespace="urn:a" location="a.xsd"/><wsdl:import namespace="urn:a" location="a.xsd"/>')
      with_files("s.wsdl" => document, "a.xsd" => a, "b/b.xsd" => b) do |dir|
        loader = WSDL::Loader.new(fetch: false, limits: {}).run(File.join(dir, "s.wsdl"), nil)
        assert_equal 2, loader.schemas.size # a.xsd and b/b.xsd, once each
        mod = Module.new
        WSDL.load(File.join(dir, "s.wsdl")).define(mod)
        assert_equal mod::B, mod::A.attributes.first.type
        assert_equal :xsi, mod::A.attributes.first.nil_style # required and nillable
        assert_equal :omit, mod::B.attributes.first.nil_style # optional
        assert_includes mod::A.new.to_xml, 'xsi:nil="true"'
        refute_includes mod::B.new.to_xml, "xsi:nil"
      end
    end

    def test_an_enumeration_is_closed_on_encode_and_open_on_decode
      load_test_wsdl do |description|
        mod = Module.new
        description.define(mod)
        bad = mod::Node.new(color: "blue")
        error = assert_raises(EncodeError) { bad.to_xml }
        assert_match(/"blue" is not one of \["red", "green"\]/, error.message)
        assert_raises(EncodeError) { Wirebind::JSON.encode(bad) }
        nested = mod::Node.new(children: [mod::Node.new, mod::Node.new(color: "blue")])
        assert_equal "children[1]/color", assert_raises(EncodeError) { nested.to_xml }.path.sub(/\A.*?(?=children)/, "")
        # A server newer than the WSDL sends a value it did not list: kept as the String.
        assert_equal "blue", mod::Node.from_xml('<Node xmlns="urn:test"><color>blue</color></Node>').color
        assert mod::Node.attributes[3].open_enum?
        assert_equal "red", mod::Node.from_xml('<Node xmlns="urn:test"><color>red</color></Node>').color
      end
    end

    # An extension of a base no schema defines (a wrong prefix) is an error
    # naming it: generating the class without the base's fields lost them silently.
    def test_an_undefined_extension_base_is_an_invalid_error
      types = <<~XML
        <xsd:schema targetNamespace="urn:fedex" elementFormDefault="qualified">
          <xsd:complexType name="VersionId"><xsd:sequence><xsd:element name="a" type="xsd:string"/></xsd:sequence></xsd:complexType>
          <xsd:complexType name="Ship"><xsd:complexContent><xsd:extension base="tns:VersionId"/></xsd:complexContent></xsd:complexType>
        </xsd:schema>
      XML
      error = assert_raises(WSDL::InvalidError) { define_wsdl(types) }
      assert_includes error.message, "the base type {urn:test}VersionId is not defined"
    end

    # A named group's (attribute group's) declarations take the namespace and
    # forms of the schema that declares the group, not those of the type that
    # refers to it: XLink's simpleLink in OWS 1.1 types has a qualified
    # xlink:type; it was read (and written) as ows:type.
    def test_what_a_group_declares_is_in_the_groups_namespace
      types = <<~XML
        <xsd:schema targetNamespace="urn:x" xmlns:x="urn:x" elementFormDefault="qualified">
          <xsd:attributeGroup name="simpleLink">
            <xsd:attribute name="type" type="xsd:string" fixed="simple" form="qualified"/>
            <xsd:attribute name="href" type="xsd:anyURI"/>
          </xsd:attributeGroup>
          <xsd:group name="Titled"><xsd:sequence><xsd:element name="Title" type="xsd:string"/></xsd:sequence></xsd:group>
        </xsd:schema>
        <xsd:schema targetNamespace="urn:o" xmlns:x="urn:x">
          <xsd:import namespace="urn:x"/>
          <xsd:complexType name="Link">
            <xsd:sequence><xsd:element name="Name" type="xsd:string"/><xsd:group ref="x:Titled"/></xsd:sequence>
            <xsd:attributeGroup ref="x:simpleLink"/>
          </xsd:complexType>
        </xsd:schema>
      XML
      mod = define_wsdl(types)
      xml = '<o:Link xmlns:o="urn:o" xmlns:x="urn:x" x:type="simple" href="urn:h"><Name>n</Name><x:Title>t</x:Title></o:Link>'
      link = mod::Link.from_xml(xml)
      assert_equal({ name: "n", title: "t", type: "simple", href: "urn:h" }, link.to_h)
      written = link.to_xml
      assert_match(/ (\w+):type="simple"/, written)
      assert_equal "urn:x", written[/xmlns:#{written[/ (\w+):type="simple"/, 1]}="([^"]*)"/, 1]
      assert_equal link, mod::Link.from_xml(written)
    end

    # An element declared without a type is of xsd:anyType: its content is kept
    # whatever it is (it was read as a string: an element child failed the decode).
    def test_an_element_without_a_type_keeps_its_content
      types = <<~XML
        <xsd:schema targetNamespace="urn:test" elementFormDefault="qualified">
          <xsd:complexType name="Holder"><xsd:sequence>
            <xsd:element name="Payload"/>
            <xsd:element name="Note" type="xsd:string"/>
          </xsd:sequence></xsd:complexType>
        </xsd:schema>
      XML
      mod = define_wsdl(types)
      assert_equal :any, mod::Holder.attributes.first.type
      holder = mod::Holder.from_xml('<Holder xmlns="urn:test"><Payload id="1"><Part>x</Part></Payload><Note>n</Note></Holder>')
      assert_equal "1", holder.payload["@id"]
      assert_equal "n", holder.note
      assert_equal holder, mod::Holder.from_xml(holder.to_xml)
    end
  end
end
