# frozen_string_literal: true

require_relative "xml_test_support"

# Mapping real payloads (issue 13): the values that used to come back wrong
# without an error, and the shapes real APIs use. Every test runs on both
# backends (each_backend) and reads, where one exists, a document somebody else
# wrote (fixture gems, see rakelib/fixtures.rake).
class XMLMappingTest < Minitest::Test
  include XMLTestHelpers

  XSI = "http://www.w3.org/2001/XMLSchema-instance"
  XML_NS = "http://www.w3.org/XML/1998/namespace"
  NETSUITE = "netsuite-0.9.3"
  HAPPYMAPPER = "nokogiri-happymapper-0.5.9"

  # Yields each backend this process has; the values must agree.
  def each_backend(&block)
    backends = Wirebind.backend == :native ? %i[pure native] : %i[pure]
    results = backends.map(&block)
    results.each_cons(2) { |a, b| assert_equal a, b, "the backends disagree" }
    results.first
  end

  def fixture_text(gem, file)
    File.read(fixture_gem_path(gem, file))
  end

  # ---- 1. attributes and namespaces -------------------------------------------------

  # NetSuite: <baseRef internalId="999" type="invoice" xsi:type="platformCore:RecordRef"/>
  class RecordRef
    include Wirebind::Model
    attribute :internal_id, :string, xml: "@internalId"
    attribute :type, :string, xml: "@type"
    attribute :xsi_type, :string, xml: "@{#{XSI}}type"
  end

  class WriteResponse
    include Wirebind::Model
    attribute :success, :boolean, xml: "status/@isSuccess"
    attribute :base_ref, RecordRef, xml: "baseRef"
  end

  def test_unprefixed_attribute_is_not_xsi_type_netsuite
    xml = fixture_text(NETSUITE, "spec/support/fixtures/add/add_invoice.xml")
    ref = each_backend do |backend|
      XML.decode(xml, WriteResponse, at: "Envelope/Body/addResponse/writeResponse", backend: backend).base_ref
    end

    assert_equal RecordRef.new(internal_id: "999", type: "invoice", xsi_type: "platformCore:RecordRef"), ref
  end

  def test_attribute_order_does_not_change_the_value
    [%(<r type="a" xsi:type="x:T" xmlns:xsi="#{XSI}"/>), %(<r xsi:type="x:T" type="a" xmlns:xsi="#{XSI}"/>)].each do |xml|
      ref = each_backend { |backend| XML.decode(xml, RecordRef, backend: backend) }

      assert_equal "a", ref.type
      assert_equal "x:T", ref.xsi_type
    end
  end

  class Titled
    include Wirebind::Model
    attribute :plain, :string, xml: "{}title"
    attribute :any, :string, xml: "name"
  end

  def test_empty_braces_mean_no_namespace_for_elements
    xml = %(<r xmlns:a="urn:a"><a:title>wrong</a:title><title>right</title></r>)
    record = each_backend { |backend| XML.decode(xml, Titled, backend: backend) }

    assert_equal "right", record.plain
    assert_nil each_backend { |backend| XML.decode(%(<r xmlns="urn:d"><title>in urn:d</title></r>), Titled, backend: backend) }.plain
  end

  # A path's steps split at the slashes outside braces, whatever characters the URIs hold.
  def test_paths_through_namespaces_holding_slashes_and_any_characters
    model = Class.new do
      include Wirebind::Model
      xml_root "r"
      attribute :city, :string, xml: "{urn:日本/地名}address/{urn:日本/地名}city"
      attribute :zone, :string, xml: "{urn:日本/地名}address/@{urn:é/ü}zone"
    end
    xml = %(<r xmlns:j="urn:日本/地名" xmlns:z="urn:é/ü"><j:address z:zone="関西"><j:city>京都</j:city></j:address></r>)
    record = each_backend { |backend| XML.decode(xml, model, backend: backend) }

    assert_equal %w[京都 関西], [record.city, record.zone]
  end

  def test_a_single_value_takes_the_first_matching_element_whatever_its_namespace
    %w[a b].permutation.each do |first, second|
      xml = %(<r xmlns:a="urn:a" xmlns:b="urn:b"><#{first}:name>#{first}</#{first}:name><#{second}:name>#{second}</#{second}:name></r>)
      record = each_backend { |backend| XML.decode(xml, Titled, backend: backend) }

      assert_equal first, record.any, "documented: the first element that gives a value"
    end
  end

  # ---- 2. markup inside a scalar, blank text between children -------------------------

  class Description
    include Wirebind::Model
    attribute :dtext, :string
  end

  class Labeled
    include Wirebind::Model
    attribute :text, :string, xml: "."
    attribute :code, :string
  end

  def test_a_scalar_on_an_element_with_children_is_a_decode_error
    xml = "<d>\n<dtext>a, <bn>Cacatua</bn>, white</dtext></d>"
    each_backend do |backend|
      error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, Description, backend: backend) }
      assert_equal "d/dtext/bn", error.path
      assert_equal 2, error.line
      assert_match(/<bn> is an element inside a :string value/, error.message)
      error.message
    end
  end

  def test_text_that_is_only_white_space_between_children_is_nil
    assert_nil each_backend { |backend| XML.decode("<l>\n  <code>c</code>\n</l>", Labeled, backend: backend) }.text
    assert_equal "x ", each_backend { |backend| XML.decode("<l>x <code>c</code></l>", Labeled, backend: backend) }.text
    assert_equal "  ", each_backend { |backend| XML.decode("<l>  </l>", Labeled, backend: backend) }.text,
                 "without children, white space is the text"
  end

  # ---- 3. the xml prefix ------------------------------------------------------------

  class Text
    include Wirebind::Model
    xml_root "text"
    attribute :lang, :string, xml: "@xml:lang"
    attribute :value, :string, xml: "."
  end

  class Feed
    include Wirebind::Model
    xml_namespace "http://www.w3.org/2005/Atom"
    xml_root "feed"
    attribute :lang, :string, xml: "@{#{XML_NS}}lang"
    attribute :title, :string
  end

  def test_the_xml_namespace_is_written_with_its_own_prefix_and_never_declared
    xml = each_backend { |backend| XML.encode(Text.new(lang: "en", value: "hi"), backend: backend) }

    assert_equal %(<text xml:lang="en">hi</text>), xml
    each_backend { |backend| assert_equal Text.new(lang: "en", value: "hi"), XML.decode(xml, Text, backend: backend) }
  end

  def test_atom_feed_xml_lang_happymapper
    xml = fixture_text(HAPPYMAPPER, "spec/fixtures/atom.xml")
    feed = each_backend { |backend| XML.decode(xml, Feed, backend: backend) }

    assert_equal "en-US", feed.lang
    assert_equal "TV Shows", feed.title
    encoded = each_backend { |backend| XML.encode(feed, backend: backend) }

    refute_match(/xmlns:\w+="#{Regexp.escape(XML_NS)}"/, encoded)
    assert_equal feed, XML.decode(encoded, Feed)
  end

  # ---- 4. date-times without an offset ----------------------------------------------

  class Shipment
    include Wirebind::Model
    attribute :utc, :time
    attribute :local, :time, default_offset: "-05:00"
  end

  def test_a_time_without_offset_is_utc_unless_an_offset_is_declared
    xml = "<s><utc>2009-01-02T06:00:00</utc><local>2009-01-02T06:00:00</local></s>"
    shipment = each_backend { |backend| XML.decode(xml, Shipment, backend: backend) }

    assert_equal Time.utc(2009, 1, 2, 6), shipment.utc
    assert shipment.utc.utc?
    assert_equal Time.new(2009, 1, 2, 6, 0, 0, "-05:00"), shipment.local
    assert_equal(-5 * 3600, shipment.local.utc_offset)
  end

  def test_a_time_with_its_own_offset_keeps_it
    xml = "<s><local> 2009-01-02T06:00:00.5+01:00 </local><utc>2009-01-02T06:00:00Z</utc></s>"
    shipment = each_backend { |backend| XML.decode(xml, Shipment, backend: backend, default_offset: "+09:00") }

    assert_equal 3600, shipment.local.utc_offset
    assert shipment.utc.utc?
  end

  def test_the_call_default_offset_applies_where_the_attribute_names_none
    xml = "<s><utc>2009-01-02T06:00:00</utc><local>2009-01-02T06:00:00</local></s>"
    shipment = each_backend { |backend| XML.decode(xml, Shipment, backend: backend, default_offset: "+09:00") }

    assert_equal 9 * 3600, shipment.utc.utc_offset
    assert_equal(-5 * 3600, shipment.local.utc_offset, "the attribute's own offset wins")
    assert_equal [Time.new(2009, 1, 2, 6, 0, 0, "+09:00")], XML.decode("<r><t>2009-01-02T06:00:00</t></r>", [:time], at: "r/t", default_offset: "+09:00")
  end

  def test_default_offset_is_checked
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; attribute :t, :time, default_offset: "5" } }
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; attribute :t, :date, default_offset: "Z" } }
    assert_raises(ArgumentError) { XML.decode("<s/>", Shipment, default_offset: "+25:00") }
  end

  # ---- 5. at: that matches nothing --------------------------------------------------

  def test_missing_raise_tells_a_wrong_path_from_an_empty_list
    xml = "<Envelope><Body><list></list></Body></Envelope>"
    each_backend do |backend|
      assert_equal [], XML.decode(xml, [:string], at: "Envelope/Body/list/item", missing: :raise, backend: backend)
      assert_equal [], XML.decode(xml, [:string], at: "Body/list/item", backend: backend), "without missing: an empty list"
      error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, [:string], at: "Body/list/item", missing: :raise, backend: backend) }
      assert_match(%r{at: "Body/list/item" matched no element \(a path starts with the document element}, error.message)
      assert_raises(Wirebind::DecodeError) { XML.decode(xml, :string, at: "Envelope/Body/list/item", missing: :raise, backend: backend) }
      assert_equal 0, XML.each(xml, :string, at: "Envelope/Body/list/item", missing: :raise, backend: backend) { flunk }
      assert_raises(Wirebind::DecodeError) { XML.each(xml, :string, at: "Envelope/list/item", missing: :raise, backend: backend) { flunk } }
      assert_nil XML.decode(%(<Envelope><Body><list xsi:nil="true" xmlns:xsi="#{XSI}"/></Body></Envelope>), Labeled,
                            at: "Envelope/Body/list", missing: :raise, backend: backend), "matched, and nil"
      error.message
    end
    assert_raises(ArgumentError) { XML.decode(xml, [:string], missing: :warn) }
  end

  # ---- 7. attributes of a child element, by path --------------------------------------

  # NetSuite saved search rows: the value is an attribute two elements down.
  class ItemRow
    include Wirebind::Model
    attribute :department_id, :integer, xml: "basic/department/searchValue/@internalId"
    attribute :department_label, :string, xml: "basic/department/customLabel"
    attribute :item_id, :string, xml: "basic/itemId/searchValue"
    attribute :available, :float, xml: "basic/locationQuantityAvailable/searchValue"
  end

  class SearchResult
    include Wirebind::Model
    attribute :success, :boolean, xml: "status/@isSuccess"
    attribute :total, :integer, xml: "totalRecords"
    attribute :rows, [ItemRow], xml: "searchRowList/searchRow"
  end

  def test_attributes_of_child_elements_by_path_netsuite
    xml = fixture_text(NETSUITE, "spec/support/fixtures/search/saved_search_item.xml")
    result = each_backend { |backend| XML.decode(xml, SearchResult, at: "Envelope/Body/searchResponse/searchResult", backend: backend) }

    assert_equal true, result.success
    assert_equal 49, result.total
    assert_equal ItemRow.new(department_id: 113, department_label: "Business Unit", item_id: "9781945179747", available: 3307.0), result.rows.first
    assert_equal true, each_backend { |backend|
      XML.decode(fixture_text(NETSUITE, "spec/support/fixtures/add/add_invoice.xml"), WriteResponse, at: "Envelope/Body/addResponse/writeResponse", backend: backend)
    }.success
  end

  class Address
    include Wirebind::Model
    xml_root "address"
    attribute :street, :string
    attribute :country_code, :string, xml: "country/@code"
    attribute :zip, :integer, xml: "city-state/@zipcode"
    attribute :city, :string, xml: "city-state/city"
    attribute :lang, :string, xml: "country/@xml:lang"
    attribute :region, :string, xml: "country/@{urn:geo}region"
  end

  def test_attributes_by_path_decode_and_encode
    xml = fixture_text(HAPPYMAPPER, "spec/fixtures/address.xml")
    address = each_backend { |backend| XML.decode(xml, Address, backend: backend) }

    assert_equal Address.new(street: "Milchstrasse", country_code: "de"), address
    full = Address.new(street: "s", country_code: "de", zip: 26_131, city: "Oldenburg", lang: "de", region: "north")
    encoded = each_backend { |backend| XML.encode(full, backend: backend) }

    # The namespace is declared once, on the record's element, not on the wrapper that uses it.
    assert_equal %(<address xmlns:wb#{Zlib.crc32('urn:geo').to_s(36)}="urn:geo"><street>s</street><country code="de" xml:lang="de" ) +
                 %(wb#{Zlib.crc32('urn:geo').to_s(36)}:region="north"></country><city-state zipcode="26131"><city>Oldenburg</city></city-state></address>),
                 encoded
    each_backend { |backend| assert_equal full, XML.decode(encoded, Address, backend: backend) }
    each_backend { |backend| assert_equal full, XML.decode(encoded.gsub("></country>", "/>"), Address, backend: backend) }
  end

  def test_a_bad_attribute_path_is_a_schema_error_at_declaration
    { "a/@b/c" => /'@'\) can only end a path/, "*/@b" => /'\*' cannot lead to an XML attribute/, "a/@" => /not an element name/,
      "a/{x" => /no closing/, "a/@{urn:x" => /no closing/ }.each do |path, message|
      error = assert_raises(Wirebind::SchemaError, path) { Class.new { include Wirebind::Model; attribute :v, :string, xml: path } }
      assert_match message, error.message
    end
    klass = Class.new { include Wirebind::Model; attribute :v, [:string], xml: "a" }
    error = assert_raises(Wirebind::SchemaError) { klass.attribute :w, :string, xml: "a/@b" }
    assert_match(%r{:w \(xml: "a/@b"\): <a> is already mapped to a value, it cannot also be a wrapper \(by :v\)}, error.message)
  end

  # Two attributes on one element, XML attribute or text, an element that is
  # both a value and a wrapper, a namespace XML reserves or cannot hold: a
  # SchemaError when the second attribute is declared, on either backend,
  # leaving the class as it was.
  def test_clashing_and_reserved_mappings_are_schema_errors_at_declaration
    {
      [%w[a a]] => /:w \(xml: "a"\): <a> is already mapped \(by :v\)/,
      [%w[{urn:x}a {urn:x}a]] => /<a> is already mapped/,
      [%w[@a @a]] => /XML attribute '@a' is already mapped/,
      [%w[@a @{}a]] => /XML attribute '@\{\}a' is already mapped/,
      [%w[w/@a w/@a]] => %r{XML attribute 'w/@a' is already mapped},
      [%w[. .]] => /the element's text is already mapped/,
      [%w[a a/b]] => /<a> is already mapped to a value, it cannot also be a wrapper/,
      [%w[a/b a]] => /<a> is already a wrapper, it cannot also be a value/,
      [%w[a/b a/b]] => /<b> is already mapped/,
      [%w[a/b/c a/b]] => /<b> is already a wrapper/
    }.each do |(paths), message|
      klass = Class.new { include Wirebind::Model; xml_root "r" }
      klass.attribute :v, :string, xml: paths[0]
      error = assert_raises(Wirebind::SchemaError, paths.inspect) { klass.attribute :w, :string, xml: paths[1] }
      assert_match message, error.message
      assert_equal [:v], klass.attributes.map(&:name), "the class is left as it was"
      assert_instance_of klass, XML.decode("<r/>", klass)
    end
    klass = Class.new { include Wirebind::Model; attribute :v, [:string], xml: "*" }
    assert_raises(Wirebind::SchemaError) { klass.attribute :w, [:string], xml: "*" }

    # Mappings that do not clash: text beside children, an XML attribute on a list's wrapper,
    # an element beside "*" in a wrapper, the same name in two namespaces or two wrappers.
    ok = Class.new do
      include Wirebind::Model
      xml_root "r"
      attribute :text, :string, xml: "."
      attribute :child, :string, xml: "c"
      attribute :items, [:string], xml: "list/*"
      attribute :size, :integer, xml: "list/@size"
      attribute :first, :string, xml: "list/first"
      attribute :plain, :string, xml: "n"
      attribute :other, :string, xml: "{urn:x}n"
      attribute :deep, :string, xml: "w/n"
    end
    record = ok.new(text: "t", child: "c", items: %w[x], size: 1, first: "f", plain: "p", other: "o", deep: "d")
    each_backend { |backend| assert_equal record, XML.decode(XML.encode(record, backend: backend), ok, backend: backend) }

    # A subclass redeclares an inherited attribute with another mapping: not a clash with itself.
    sub = Class.new(ok) { attribute :child, :string, xml: "@c" }
    sub.attribute :again, :string, xml: "c"
    assert_raises(Wirebind::SchemaError) { sub.attribute :twice, :string, xml: "@c" }
  end

  def test_reserved_and_unwritable_namespaces_are_schema_errors_at_declaration
    {
      "@xmlns" => /xmlns is a namespace declaration/,
      "@{}xmlns" => /xmlns is a namespace declaration/,
      "{http://www.w3.org/2000/xmlns/}a" => /reserved for namespace declarations/,
      "@{http://www.w3.org/2000/xmlns/}a" => /reserved for namespace declarations/,
      "{urn:\u0001}a" => /cannot be written: character U\+0001/,
      "{urn:\xFF}a".b => /cannot be written: invalid UTF-8/
    }.each do |path, message|
      error = assert_raises(Wirebind::SchemaError, path) { Class.new { include Wirebind::Model; attribute :v, :string, xml: path } }
      assert_match message, error.message
    end
    klass = Class.new { include Wirebind::Model; attribute :v, :string }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "http://www.w3.org/2000/xmlns/" }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "http://www.w3.org/XML/1998/namespace", prefix: "p" }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "urn:\u0001" }
    assert_raises(Wirebind::SchemaError) { klass.xml_prefix "p", "http://www.w3.org/2000/xmlns/" }
    assert_raises(Wirebind::SchemaError) { klass.xml_type "T", namespace: "http://www.w3.org/2000/xmlns/" }
    # XML's own namespace is written with its prefix xml in a path.
    lang = Class.new { include Wirebind::Model; xml_root "r"; attribute :lang, :string, xml: "@{http://www.w3.org/XML/1998/namespace}lang" }
    each_backend { |backend| assert_equal %(<r xml:lang="en"></r>), XML.encode(lang.new(lang: "en"), backend: backend) }
  end

  # ---- 12. mixed repeated elements, in document order ---------------------------------

  class Customer
    include Wirebind::Model
    attribute :id, :integer, xml: "Id"
    attribute :name, :string, xml: "DisplayName"
  end

  class Invoice
    include Wirebind::Model
    attribute :id, :integer, xml: "Id"
    attribute :total, :decimal, xml: "TotalAmt"
  end

  class Fault
    include Wirebind::Model
    attribute :type, :string, xml: "@type"
    attribute :messages, [:string], xml: "Error/Message"
  end

  class QueryResponse
    include Wirebind::Model
    xml_namespace "http://schema.intuit.com/finance/v3"
    xml_root "QueryResponse"
    attribute :entities, [Customer, Invoice, Fault], xml: "*"
    attribute :start, :integer, xml: "@startPosition"
  end

  # A QuickBooks change-data-capture response: an XSD choice, unbounded.
  CDC = <<~XML
    <IntuitResponse xmlns="http://schema.intuit.com/finance/v3" time="2013-04-03T10:36:19.393Z">
      <CDCResponse>
        <QueryResponse startPosition="1">
          <Customer><Id>1</Id><DisplayName>Amy's Bird Sanctuary</DisplayName></Customer>
          <Invoice><Id>130</Id><TotalAmt>362.07</TotalAmt></Invoice>
          <Fault type="ValidationFault"><Error><Message>Stale object</Message></Error></Fault>
          <Customer><Id>2</Id><DisplayName>Bill's Windsurf Shop</DisplayName></Customer>
          <Estimate><Id>9</Id></Estimate>
        </QueryResponse>
      </CDCResponse>
    </IntuitResponse>
  XML

  def test_a_list_of_several_model_classes_keeps_document_order
    response = each_backend { |backend| XML.decode(CDC, QueryResponse, at: "IntuitResponse/CDCResponse/QueryResponse", backend: backend) }

    assert_equal [Customer.new(id: 1, name: "Amy's Bird Sanctuary"), Invoice.new(id: 130, total: BigDecimal("362.07")),
                  Fault.new(type: "ValidationFault", messages: ["Stale object"]), Customer.new(id: 2, name: "Bill's Windsurf Shop")],
                 response.entities, "each item by its element name; <Estimate> is not declared"
    assert_equal 1, response.start
    encoded = each_backend { |backend| XML.encode(response, backend: backend) }

    # Customer declares no namespace: it is written in none, so the response's
    # namespace takes a prefix rather than being the default one.
    assert_match(%r{\A<(wb\w+):QueryResponse xmlns:\1="http://schema.intuit.com/finance/v3" startPosition="1"><Customer>}, encoded)
    each_backend { |backend| assert_equal response, XML.decode(encoded, QueryResponse, backend: backend) }
  end

  def test_a_list_of_several_model_classes_is_checked
    %w[item @item . list/item].each do |path|
      error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; attribute :items, [Customer, Invoice], xml: path } }
      assert_match(%r{mapped by element name: use "\*" or "wrapper/\*"}, error.message)
    end
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; attribute :items, [Customer, Invoice] } }
    assert_match(/:items \(xml: "items"\): a list of several model classes is mapped by element name/, error.message)
    twin = Class.new { include Wirebind::Model; xml_root "Customer" }
    error = assert_raises(Wirebind::SchemaError) do
      XML.decode("<r/>", Class.new { include Wirebind::Model; attribute :items, [Customer, twin], xml: "list/*" })
    end
    assert_match(/<Customer> .* is already mapped here; each class needs its own xml_root/, error.message)
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; attribute :items, [Customer, Customer] } }
    error = assert_raises(Wirebind::SchemaError) { QueryResponse.new(entities: []).to_json }
    assert_match(/maps to XML only/, error.message)
  end
end
