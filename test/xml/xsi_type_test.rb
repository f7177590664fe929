# frozen_string_literal: true

require_relative "xml_test_support"

# Polymorphism by xsi:type: a subclass that declared xml_type is decoded where
# its parent class is declared.
class XMLXsiTypeTest < Minitest::Test
  include XMLTestHelpers

  XSI = %(xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance")

  class Record
    include Wirebind::Model
    xml_type "Record", namespace: "urn:rel_2020"
    attribute :internal_id, :string, xml: "@internalId"
    attribute :name, :string
  end

  class Customer < Record
    xml_type "Customer", namespace: "urn:rel_2020"
    attribute :email, :string
  end

  class Vendor < Record
    xml_type "Vendor" # any namespace: matched by local name
    attribute :terms, :string
  end

  class Holder
    include Wirebind::Model
    attribute :main, Record
    attribute :others, [Record], xml: "others/*"
  end

  def backends
    Wirebind.backend == :native ? %i[native pure] : %i[pure]
  end

  def test_list_and_single_values_of_subclasses
    xml = <<~XML
      <list #{XSI} xmlns:rel="urn:rel_2020" xmlns:other="urn:rel_2011">
        <record xsi:type="rel:Customer" internalId="1"><name>Ann</name><email>a@x</email></record>
        <record xsi:type="other:Vendor" internalId="2"><name>Bob</name><terms>net 30</terms></record>
        <record xsi:type="rel:Record" internalId="3"><name>Plain</name></record>
        <record internalId="4"><name>Untyped</name></record>
        <record xsi:type="rel:Unknown" internalId="5"><name>Unknown</name><email>e</email></record>
        <record xsi:type="other:Customer" internalId="6"><name>Other namespace</name></record>
      </list>
    XML
    records = XML.decode(xml, [Record])
    assert_equal records, XML.decode(xml, [Record], backend: :pure)
    assert_equal [Customer, Vendor, Record, Record, Record, Record], records.map(&:class)
    assert_equal "a@x", records[0].email
    assert_equal "net 30", records[1].terms
    assert_equal %w[1 2 3 4 5 6], records.map(&:internal_id)
    assert_instance_of Customer, XML.decode(xml, Record, at: "list/record")
    streamed = []
    XML.each(xml, Record) { |r| streamed << r.class }
    assert_equal records.map(&:class), streamed
  end

  def test_prefixes_resolve_per_document
    one = %(<r #{XSI} xmlns:listRel="urn:relationships_2011_2"><record xsi:type="listRel:Vendor"><terms>a</terms></record></r>)
    two = %(<r #{XSI} xmlns:listRel="urn:relationships_2020_2"><record xsi:type="listRel:Vendor"><terms>b</terms></record></r>)
    assert_equal [Vendor], XML.decode(one, [Record]).map(&:class)
    assert_equal [Vendor], XML.decode(two, [Record]).map(&:class)
    default = %(<r #{XSI} xmlns="urn:rel_2020"><record xsi:type="Customer"><email>d</email></record></r>)
    assert_equal ["d"], XML.decode(default, [Record]).map(&:email)
  end

  def test_nested_slots_and_leaf_elements
    xml = <<~XML
      <holder #{XSI} xmlns:rel="urn:rel_2020">
        <main xsi:type="rel:Customer" internalId="9"/>
        <others><x xsi:type="rel:Customer"><email>n</email></x><y xsi:type="Vendor"/></others>
      </holder>
    XML
    holder = XML.decode(xml, Holder)
    assert_equal holder, XML.decode(xml, Holder, backend: :pure)
    assert_instance_of Customer, holder.main
    assert_equal "9", holder.main.internal_id
    assert_equal [Customer, Vendor], holder.others.map(&:class)
  end

  def test_strict_refuses_unknown_types
    xml = %(<r #{XSI}><record xsi:type="Nope"><name>x</name></record></r>)
    assert_equal [Record], XML.decode(xml, [Record]).map(&:class)
    messages = backends.map do |backend|
      assert_raises(Wirebind::DecodeError) { XML.decode(xml, [Record], strict: true, backend: backend) }.message
    end
    assert_match(/xsi:type "Nope"/, messages.first)
    assert_equal 1, messages.uniq.size, messages.inspect
  end

  def test_a_subclass_type_does_not_apply_where_an_unrelated_class_is_declared
    other = Class.new do
      include Wirebind::Model
      attribute :name, :string
    end
    xml = %(<r #{XSI} xmlns:rel="urn:rel_2020"><record xsi:type="rel:Customer"><name>x</name></record></r>)
    assert_equal [other], XML.decode(xml, [other]).map(&:class)
  end

  class Plain < Record
    attribute :x, :string
  end

  def test_the_encoder_writes_xsi_type_for_subclasses_that_declared_one
    holder = Holder.new(main: Customer.new(name: "a", email: "e"), others: [Record.new(name: "r"), Vendor.new(terms: "t"), Plain.new(x: "p")])
    outputs = backends.map { |backend| XML.encode(holder, backend: backend) }
    assert_equal 1, outputs.uniq.size, "both backends write the same bytes"
    xml = outputs.first
    assert_includes xml, %(<main xsi:type="#{Wirebind::XML::Pure::Encoder.automatic_prefix('urn:rel_2020')}:Customer")
    assert_includes xml, %(<Vendor xsi:type="Vendor" xmlns:xsi=)
    refute_match(/<Record[^>]*xsi:type/, xml) # the declared class itself: nothing to say
    refute_match(/<Plain[^>]*xsi:type/, xml)  # a subclass without xml_type: nothing it could say
    backends.each do |backend|
      back = XML.decode(xml, Holder, backend: backend)
      assert_equal [Customer, Record, Vendor, Record], [back.main.class, *back.others.map(&:class)]
      assert_equal holder.main, back.main
      assert_equal "t", back.others[1].terms
    end
  end

  def test_xml_type_declarations
    assert_equal ["Customer", "urn:rel_2020"], Customer.xml_type
    assert_equal ["Vendor", nil], Vendor.xml_type
    assert_nil Class.new(Customer).xml_type
    assert_raises(Wirebind::SchemaError) { Class.new(Record) { xml_type "not a name" } }
    assert_raises(Wirebind::SchemaError) { Class.new(Record) { xml_type "X", namespace: "" } }
  end
end
