# frozen_string_literal: true

require "test_helper"

# Issue 13, item 8: :any and :xml attributes through the serializers (each
# format, both backends): :any written as plain values at the record's depth,
# :xml as a string, :qname refused (it has no JSON form).
class SerializerOpenContentTest < Minitest::Test
  class Doc
    include Wirebind::Model
    attribute :id, :integer
    attribute :meta, :any
    attribute :raw, :xml
  end

  class DocSerializer < Wirebind::Serializer
    type "doc"
    attributes :meta, :raw
  end

  class Coded
    include Wirebind::Model
    attribute :code, :qname
  end

  class CodedSerializer < Wirebind::Serializer
    type "coded"
    attributes :code
  end

  def backends
    Wirebind.backend == :native ? %i[pure native] : %i[pure]
  end

  def test_any_and_xml_are_written_on_every_backend_and_format
    doc = Doc.new(id: 1, meta: { "a" => [1, 2.5, nil, { "b" => true }], "s" => "x" }, raw: %(<a x="1"/>))
    backends.each do |backend|
      plain = DocSerializer.new(doc, backend: backend).to_json
      assert_equal %({"meta":{"a":[1,2.5,null,{"b":true}],"s":"x"},"raw":"<a x=\\"1\\"/>"}), plain, backend
      %i[hal json_api siren].each do |format|
        assert_equal DocSerializer.new(doc, format: format, backend: :pure).to_json,
                     DocSerializer.new(doc, format: format, backend: backend).to_json, "#{format} on #{backend}"
      end
    end
  end

  def test_qname_is_refused
    backends.each do |backend|
      error = assert_raises(Wirebind::SchemaError) { CodedSerializer.new(Coded.new, backend: backend).to_json }
      assert_match(/:qname maps to XML only/, error.message)
    end
  end
end
