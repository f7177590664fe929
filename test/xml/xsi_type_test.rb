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
    assert_includes xml, %(<main xsi:type="#{Wirebind::XML::Escape.automatic_prefix('urn:rel_2020')}:Customer")
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

  # ---- NetSuite's published responses (netsuite 0.9.3, MIT): plain XML.decode of
  # document/literal payloads, the prefix listRel bound per document to one
  # version or another of the relationships namespace --------------------------------------

  NETSUITE = "netsuite-0.9.3"
  REL_2011 = "urn:relationships_2011_2.lists.webservices.netsuite.com"
  REL_2020 = "urn:relationships_2020_2.lists.webservices.netsuite.com"
  ANY_RELATIONSHIPS = /\Aurn:relationships_\d{4}_\d\.lists\.webservices\.netsuite\.com\z/

  class NSRecord
    include Wirebind::Model
    attribute :internal_id, :string, xml: "@internalId"
    attribute :external_id, :string, xml: "@externalId"
    attribute :entity_id, :string
  end

  # Written as 2020_2; read in any version of the namespace.
  class NSCustomer < NSRecord
    xml_type "Customer", namespace: REL_2020, matching: ANY_RELATIONSHIPS
    attribute :company_name, :string
  end

  class NSContact < NSRecord
    xml_type "Contact", namespace: REL_2020
    attribute :title, :string
  end

  class NSSearchRow
    include Wirebind::Model
  end

  class NSCustomerSearchRow < NSSearchRow
    xml_type "CustomerSearchRow", matching: :any
    attribute :alt_names, [:string], xml: "basic/altName/searchValue"
  end

  def netsuite(file)
    File.read(fixture_gem_path(NETSUITE, "spec/support/fixtures/#{file}"))
  end

  def decode_on_each_backend(*args, **options)
    results = backends.map { |backend| XML.decode(*args, backend: backend, **options) }
    assert_equal 1, results.uniq.size, "the backends disagree"
    results.first
  end

  def test_netsuite_single_record_of_another_namespace_version_by_matching
    xml = netsuite("get/get_customer.xml") # listRel = relationships_2011_2
    customer = decode_on_each_backend(xml, NSRecord, at: "Envelope/Body/getResponse/readResponse/record")

    assert_instance_of NSCustomer, customer
    assert_equal ["988", "100157", "100157", "Test Inc."], [customer.internal_id, customer.external_id, customer.entity_id, customer.company_name]
  end

  def test_netsuite_list_of_records_in_the_declared_namespace
    xml = netsuite("search/basic_search_contact.xml") # listRel = relationships_2020_2
    records = decode_on_each_backend(xml, [NSRecord], at: "Envelope/Body/searchResponse/searchResult/recordList/record")

    assert_equal [NSContact], records.map(&:class)
    assert_equal([%w[7272 Mary President/CEO]], records.map { |r| [r.internal_id, r.entity_id, r.title] })
  end

  def test_netsuite_search_rows_matched_in_any_namespace
    xml = netsuite("search/saved_search_joined_custom_customer.xml") # relationships_2012_1
    rows = decode_on_each_backend(xml, [NSSearchRow], at: "Envelope/Body/searchResponse/searchResult/searchRowList/searchRow")

    assert_equal [NSCustomerSearchRow, NSCustomerSearchRow], rows.map(&:class)
    assert_equal "A Awesome Name", rows.first.alt_names.first
    streamed = []
    XML.each(xml, NSSearchRow, at: "Envelope/Body/searchResponse/searchResult/searchRowList/searchRow") { |row| streamed << row.class }
    assert_equal rows.map(&:class), streamed
  end

  def test_a_type_in_another_namespace_version_without_matching_stays_the_declared_class
    xml = netsuite("get/get_customer.xml")
    older_contact = xml.sub('xsi:type="listRel:Customer"', 'xsi:type="listRel:Contact"')
    record = decode_on_each_backend(older_contact, NSRecord, at: "Envelope/Body/getResponse/readResponse/record")

    assert_instance_of NSRecord, record, "Contact is declared in 2020_2 only"
    error = assert_raises(Wirebind::DecodeError) do
      XML.decode(older_contact, NSRecord, at: "Envelope/Body/getResponse/readResponse/record", strict: true, backend: :pure)
    end
    assert_match(/Contact/, error.message)
  end

  # Exact namespace first, then a matching: pattern, then a class declared without a namespace.
  class Ranked
    include Wirebind::Model
    attribute :v, :string
  end

  class RankedExact < Ranked
    xml_type "T", namespace: "urn:v1"
  end

  class RankedPattern < Ranked
    xml_type "T", namespace: "urn:v2", matching: /\Aurn:v\d\z/
  end

  class RankedLoose < Ranked
    xml_type "T"
  end

  def test_which_declaration_an_xsi_type_finds
    xml = %(<r #{XSI} xmlns:a="urn:v1" xmlns:b="urn:v2" xmlns:c="urn:v3" xmlns:d="urn:other">) +
          %(<x xsi:type="a:T"/><x xsi:type="b:T"/><x xsi:type="c:T"/><x xsi:type="d:T"/><x xsi:type="T"/></r>)

    assert_equal [RankedExact, RankedPattern, RankedPattern, RankedLoose, RankedLoose], decode_on_each_backend(xml, [Ranked]).map(&:class)
    assert_equal RankedPattern.xml_type_matching, /\Aurn:v\d\z/
    assert_predicate RankedPattern.xml_type_matching, :frozen?
    assert_raises(Wirebind::SchemaError) { Class.new(Ranked) { xml_type "U", matching: "urn:v1" } }
  end

  def test_the_encoder_writes_the_declared_namespace_with_the_classes_prefix
    klass = Class.new(Record) { xml_type "Prefixed", namespace: "urn:rel_2020"; xml_prefix "rel", "urn:rel_2020" }
    outputs = backends.map { |backend| XML.encode(Holder.new(main: klass.new(name: "n")), backend: backend) }

    assert_equal 1, outputs.uniq.size
    assert_includes outputs.first, %(<main xsi:type="rel:Prefixed" xmlns:rel="urn:rel_2020")
    ns_holder = Class.new { include Wirebind::Model; xml_root "h"; attribute :record, NSRecord }
    assert_includes XML.encode(ns_holder.new(record: NSCustomer.new)), %(xsi:type="wb#{Zlib.crc32(REL_2020).to_s(36)}:Customer")
  end

  class Scalars
    include Wirebind::Model
    attribute :text, :string
    attribute :texts, [:string]
    attribute :count, :integer
    attribute :ratio, :float
  end

  # The instance xsi:type of a built-in XML Schema type, where a scalar is
  # declared (SOAP::Lite writes non-ASCII text as xsd:base64Binary).
  def test_instance_xsi_type_of_a_builtin_scalar
    xml = <<~XML
      <s #{XSI} xmlns:xsd="http://www.w3.org/2001/XMLSchema">
        <text xsi:type="xsd:base64Binary">R3LDvMOfZSwgYW5u</text>
        <texts xsi:type="xsd:base64Binary">w6k=</texts><texts xsi:type="xsd:int">7</texts><texts>plain</texts>
        <count xsi:type="xsd:string">42</count><ratio xsi:type="xsd:int">2</ratio>
      </s>
    XML
    backends.each do |backend|
      record = XML.decode(xml, Scalars, backend: backend)
      assert_equal "Grüße, ann", record.text, backend
      assert_equal Encoding::UTF_8, record.text.encoding, backend
      assert_equal %w[é 7 plain], record.texts, backend
      assert_equal 42, record.count, backend
      assert_equal 2.0, record.ratio, backend
      assert_equal "é", XML.decode(%(<v #{XSI} xmlns:b="http://www.w3.org/2001/XMLSchema" xsi:type="b:base64Binary">w6k=</v>), :string, backend: backend)
      # Not XML Schema's namespace, or not one of its scalars: the text as it is.
      assert_equal "w6k=", XML.decode(%(<v #{XSI} xmlns:b="urn:other" xsi:type="b:base64Binary">w6k=</v>), :string, backend: backend)
    end
  end

  # Text that arrives split (across IO reads, around entity and character
  # references, in CDATA pieces) gives the value unsplit text gives: the
  # xsi:type applies to the text as assembled. Read 1 byte at a time too.
  def test_instance_xsi_type_on_split_text
    xml = <<~XML
      <s #{XSI} xmlns:xsd="http://www.w3.org/2001/XMLSchema">
        <text xsi:type="xsd:base64Binary">R3LD<![CDATA[vMOf]]>ZS&#x77;g<!-- c -->YW5u</text>
        <texts xsi:type="xsd:base64Binary">w6k&#61;</texts><texts xsi:type="xsd:base64Binary"><![CDATA[w6]]><![CDATA[k=]]></texts>
        <texts xsi:type="xsd:base64Binary">R3LDvMOf
          ZSwgYW5u</texts>
        <count xsi:type="xsd:int">4&#50;</count><ratio xsi:type="xsd:double"><![CDATA[2.]]>5</ratio>
      </s>
    XML
    expected = ["Grüße, ann", ["é", "é", "Grüße, ann"], 42, 2.5]
    backends.each do |backend|
      [xml, StringIO.new(xml), Wirebind::CodecTestHelpers::TrickleIO.new(xml, max: 1)].each do |input|
        record = XML.decode(input, Scalars, backend: backend)
        assert_equal expected, [record.text, record.texts, record.count, record.ratio], "#{backend} #{input.class}"
      end
    end
  end

  def test_instance_xsi_type_that_does_not_fit_is_a_decode_error
    backends.each do |backend|
      error = assert_raises(Wirebind::DecodeError) do
        XML.decode(%(<s #{XSI} xmlns:xsd="http://www.w3.org/2001/XMLSchema"><count xsi:type="xsd:base64Binary">MQ==</count></s>), Scalars, backend: backend)
      end
      assert_match(/xsi:type "base64Binary" does not fit a value declared :integer/, error.message, backend)
      # Bytes that are not UTF-8 text on a :string: an error, not mojibake (declare :base64 for bytes).
      error = assert_raises(Wirebind::DecodeError) do
        XML.decode(%(<s #{XSI} xmlns:xsd="http://www.w3.org/2001/XMLSchema"><text xsi:type="xsd:base64Binary">/w==</text></s>), Scalars, backend: backend)
      end
      assert_match(/holds bytes that are not UTF-8 text \(declare it :base64/, error.message, backend)
    end
  end

  # Two modules generated from schemas that share a type (vSphere's pbm and
  # vim25 clients both hold vim25's ManagedObjectReference): an :any value's
  # xsi:type takes the class of the module whose record holds the field, not
  # the one declared last.
  CLIENTS = Array.new(2) do
    Module.new.tap do |client|
      client.const_set(:Reference, Class.new do
        include Wirebind::Model
        xml_type "Reference", namespace: "urn:shared"
        attribute :value, :string, xml: "."
      end)
      client.const_set(:Property, Class.new do
        include Wirebind::Model
        attribute :val, :any
      end)
    end
  end

  def test_an_any_value_takes_the_class_of_its_records_module
    xml = %(<Property><val #{XSI} xmlns:s="urn:shared" xsi:type="s:Reference">group-h6</val></Property>)
    backends.each do |backend|
      CLIENTS.each do |client|
        property = Wirebind::XML.decode(xml, client::Property, backend: backend)
        assert_instance_of client::Reference, property.val, backend
        assert_equal "group-h6", property.val.value
      end
    end
  end
end
