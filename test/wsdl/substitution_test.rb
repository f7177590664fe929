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
        <xsd:complexType name="FindItemType"><xsd:sequence>
          <xsd:element name="Traversal" type="xsd:string"/>
          <xsd:element ref="t:Path" maxOccurs="unbounded"/>
          <xsd:element name="Note" type="xsd:string" minOccurs="0"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="SortFieldType"><xsd:sequence>
          <xsd:element ref="t:Path"/>
          <xsd:element name="Order" type="xsd:string"/>
          <xsd:element ref="t:Shape" minOccurs="0"/>
        </xsd:sequence></xsd:complexType>
        <xsd:complexType name="ShapeType" abstract="true"/>
        <xsd:element name="Shape" type="t:ShapeType" abstract="true"/>
        <xsd:complexType name="CircleType"><xsd:complexContent><xsd:extension base="t:ShapeType">
          <xsd:attribute name="r" type="xsd:int"/></xsd:extension></xsd:complexContent></xsd:complexType>
        <xsd:element name="Circle" type="t:CircleType" substitutionGroup="t:Shape"/>
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

    # t:Path's type is abstract: only a substitute's class may be written.
    def test_an_abstract_type_is_not_written_without_a_concrete_subclass
      mod = define_wsdl(TYPES)
      assert_predicate mod::BasePathToElementType, :xml_abstract?
      refute_predicate mod::PathToUnindexedFieldType, :xml_abstract?
      error = assert_raises(EncodeError) { mod::SortFieldType.new(path: [mod::BasePathToElementType.new], order: "Ascending").to_xml }
      assert_includes error.message, "BasePathToElementType is abstract"
      assert_raises(EncodeError) { mod::BasePathToElementType.new.to_xml }
      assert_includes mod::SortFieldType.new(path: [mod::FieldURI.new(field_uri: "item:Subject")], order: "A").to_xml, "<FieldURI "
    end

    # A single head (EWS's FieldOrder: one t:Path, then Order): a substitute
    # element of several is read into a list of at most one item (an attribute
    # maps one class per element name); a group of one substitute is a single value.
    def test_a_single_head_beside_other_elements
      mod = define_wsdl(TYPES)
      xml = '<SortFieldType xmlns="urn:t"><ExtendedFieldURI PropertyTag="0x1000"/><Order>Ascending</Order><Circle r="2"/></SortFieldType>'
      sort = mod::SortFieldType.from_xml(xml)
      assert_equal [mod::ExtendedFieldURI.new(property_tag: "0x1000")], sort.path
      assert_equal "Ascending", sort.order
      assert_equal mod::Circle.new(r: 2), sort.shape
      written = sort.to_xml
      assert_match(/<ExtendedFieldURI PropertyTag="0x1000">(<.ExtendedFieldURI>)?<Order>Ascending<.Order><Circle r="2">/, written)
      assert_equal sort, mod::SortFieldType.from_xml(written)
    end

    # A list of the head beside other elements: each substitute by its own name,
    # the other elements by theirs.
    def test_a_list_of_the_head_beside_other_elements
      mod = define_wsdl(TYPES)
      xml = '<FindItemType xmlns="urn:t"><Traversal>Shallow</Traversal><FieldURI FieldURI="item:Subject"/>' \
            '<IndexedFieldURI FieldIndex="3"/><Note>n</Note></FindItemType>'
      find = mod::FindItemType.from_xml(xml)
      assert_equal "Shallow", find.traversal
      assert_equal "n", find.note
      assert_equal [mod::FieldURI, mod::IndexedFieldURI], find.path.map(&:class)
      written = find.to_xml
      assert_match(%r{<Traversal>Shallow</Traversal><FieldURI FieldURI="item:Subject">(</FieldURI>)?<IndexedFieldURI FieldIndex="3">(</IndexedFieldURI>)?<Note>n</Note>}, written)
      assert_equal find, mod::FindItemType.from_xml(written)
    end

    # OWS 1.1's DatasetDescriptionSummaryBaseType names ows:WGS84BoundingBox itself,
    # then the group ows:BoundingBox, of which WGS84BoundingBox is a member: an
    # element maps to one attribute, so a member another reference names is
    # that reference's (here a group of its own, whose member LocalBox is
    # then its too); a member declared without a type has its head's.
    def test_a_member_another_element_of_the_type_names_is_that_elements
      mod = define_wsdl(<<~XML)
        <xsd:schema targetNamespace="urn:o" xmlns:o="urn:o" elementFormDefault="qualified">
          <xsd:complexType name="BoxType"><xsd:sequence><xsd:element name="Corner" type="xsd:string"/></xsd:sequence></xsd:complexType>
          <xsd:element name="BoundingBox" type="o:BoxType"/>
          <xsd:element name="WGS84BoundingBox" substitutionGroup="o:BoundingBox"/>
          <xsd:element name="LocalBox" substitutionGroup="o:WGS84BoundingBox"/>
          <xsd:complexType name="SummaryType"><xsd:sequence>
            <xsd:element ref="o:WGS84BoundingBox" minOccurs="0" maxOccurs="unbounded"/>
            <xsd:element name="Identifier" type="xsd:string"/>
            <xsd:element ref="o:BoundingBox" minOccurs="0" maxOccurs="unbounded"/>
          </xsd:sequence></xsd:complexType>
        </xsd:schema>
      XML
      attributes = mod::SummaryType.attributes.to_h { |attribute| [attribute.name, attribute] }
      assert_equal [mod::WGS84BoundingBox, mod::LocalBox], attributes[:wgs84_bounding_box].choices
      assert_equal mod::BoundingBox, attributes[:bounding_box].type
      assert_predicate attributes[:bounding_box], :list?
      assert_operator mod::WGS84BoundingBox, :<, mod::BoxType
      assert_operator mod::LocalBox, :<, mod::BoxType
      xml = '<SummaryType xmlns="urn:o"><WGS84BoundingBox><Corner>a</Corner></WGS84BoundingBox><Identifier>l</Identifier>' \
            "<BoundingBox><Corner>b</Corner></BoundingBox><LocalBox><Corner>c</Corner></LocalBox></SummaryType>"
      summary = mod::SummaryType.from_xml(xml)
      assert_equal [mod::WGS84BoundingBox.new(corner: "a"), mod::LocalBox.new(corner: "c")], summary.wgs84_bounding_box
      assert_equal [mod::BoundingBox.new(corner: "b")], summary.bounding_box
      assert_equal summary, mod::SummaryType.from_xml(summary.to_xml)
    end
  end
end
