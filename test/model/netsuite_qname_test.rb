# frozen_string_literal: true

require "test_helper"
require "nokogiri"

# Issue 20: a :qname on an XML attribute, on a real document: NetSuite's
# custom fields (the netsuite gem's spec/support/fixtures, MIT, unpacked by
# `rake fixtures`) each carry their kind as an xsi:type value
# (xsi:type="platformCore:SelectCustomFieldRef"), its prefix declared on an
# ancestor. Every field is compared with Nokogiri's reading (the prefix
# resolved against the namespaces in scope there), in the document and in
# its re-encoding, and decode(encode(x)) == x, on both backends.
class NetsuiteQNameTest < Minitest::Test
  GEM = "netsuite-0.9.3"
  DOCUMENT = "spec/support/fixtures/custom_fields/multi_select.xml"
  XSI = "http://www.w3.org/2001/XMLSchema-instance"
  CORE = "urn:core_2017_2.platform.webservices.netsuite.com"
  CUSTOMERS = "urn:customers_2017_2.transactions.webservices.netsuite.com"
  AT = "Envelope/Body/getResponse/readResponse/record/customFieldList"
  BACKENDS = Wirebind.backend == :native ? %i[pure native] : %i[pure]

  class CustomField
    include Wirebind::Model
    xml_namespace CORE
    attribute :internal_id, :string, xml: "@internalId"
    attribute :script_id, :string, xml: "@scriptId"
    attribute :xsi_type, :qname, xml: "@{#{XSI}}type"
  end

  class CustomFieldList
    include Wirebind::Model
    xml_namespace CUSTOMERS
    xml_root "customFieldList"
    attribute :fields, [CustomField], xml: "{#{CORE}}customField"
  end

  def test_xsi_type_values_against_nokogiri_and_back
    text = File.read(fixture_gem_path(GEM, DOCUMENT))
    expected = custom_fields(Nokogiri::XML(text))
    assert_operator expected.size, :>=, 5
    BACKENDS.each do |backend|
      list = Wirebind::XML.decode(text, CustomFieldList, at: AT, backend: backend)
      assert_equal expected, list.fields.map { |field| [field.internal_id, field.script_id, field.xsi_type.namespace, field.xsi_type.local_name] },
                   backend
      written = Wirebind::XML.encode(list, backend: backend)
      assert_equal expected, custom_fields(Nokogiri::XML(written)), "#{backend}: namespace-aware, the re-encoded document"
      assert_equal list, Wirebind::XML.decode(written, CustomFieldList, backend: backend), backend
    end
  end

  private

  # [internalId, scriptId, xsi:type's namespace URI, its local name] of each
  # custom field, the prefix resolved by Nokogiri in the element's scope.
  def custom_fields(doc)
    doc.xpath("//c:customField", "c" => CORE).map do |field|
      prefix, local = field.attribute_with_ns("type", XSI).value.split(":", 2)
      if local.nil?
        local = prefix
        prefix = nil
      end
      uri = field.namespaces[prefix ? "xmlns:#{prefix}" : "xmlns"]
      [field["internalId"], field["scriptId"], uri, local]
    end
  end
end
