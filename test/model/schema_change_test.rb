# frozen_string_literal: true

require_relative "../test_helper"

# A schema that changes while other threads decode and encode records of it:
# every call sees one consistent snapshot of the class's schema (its plan and
# the generated methods it calls), so a change surfaces as the old or the new
# result, never as an error or a mix of the two.
class SchemaChangeTest < Minitest::Test
  BACKENDS = Wirebind.backend == :native ? %i[pure native].freeze : %i[pure].freeze
  CHANGES = 40
  NAMES = Array.new(CHANGES + 1) { |i| :"a#{i}" }.freeze
  XML_DOCUMENT = "<r>#{NAMES.map { |name| "<#{name}>v#{name}</#{name}>" }.join}</r>".freeze
  JSON_DOCUMENT = "{#{NAMES.map { |name| %("#{name}":"v#{name}") }.join(',')}}".freeze

  def new_model
    Class.new do
      include Wirebind::Model
      xml_root "r"
      attribute :a0, :string, xml: "a0"
    end
  end

  # Runs +work+ in a thread, again and again, while this thread adds
  # attributes one by one; returns what +work+ returned each time.
  def while_the_schema_grows(model, &work)
    done = false
    results = []
    worker = Thread.new do
      rounds = 0
      until done || rounds > 2_000
        results << work.call
        rounds += 1
      end
    end
    NAMES.drop(1).each do |name|
      model.attribute(name, :string, xml: name.to_s)
      5.times { Thread.pass }
    end
    done = true
    worker.value
    results
  ensure
    done = true
    worker&.join
  end

  # A decoded record holds the first k attributes, each with its value from
  # the document, and no others: the result of one schema, not of two.
  def assert_one_schema(record, context)
    ivars = record.instance_variables
    names = ivars.map { |ivar| ivar.to_s.delete_prefix("@").to_sym }
    assert_equal NAMES.first(names.size), names, "#{context}: attributes of two schemas in #{record.inspect}"
    ivars.each do |ivar|
      assert_equal "v#{ivar.to_s.delete_prefix('@')}", record.instance_variable_get(ivar), "#{context}: #{ivar} of #{record.inspect}"
    end
  end

  def test_decoding_while_attributes_are_added
    BACKENDS.each do |backend|
      { xml: [Wirebind::XML, XML_DOCUMENT], json: [Wirebind::JSON, JSON_DOCUMENT] }.each do |format, (codec, document)|
        model = new_model
        results = while_the_schema_grows(model) { codec.decode(document, model, backend: backend) }

        refute_empty results
        results.each { |record| assert_one_schema(record, "#{format} (#{backend})") }
        assert_one_schema(codec.decode(document, model, backend: backend), "#{format} (#{backend}), after")
        assert_equal CHANGES + 1, codec.decode(document, model, backend: backend).instance_variables.size
      end
    end
  end

  def test_streaming_while_attributes_are_added
    BACKENDS.each do |backend|
      model = new_model
      results = while_the_schema_grows(model) do
        Wirebind::XML.each("<l>#{XML_DOCUMENT * 3}</l>", model, at: "l/r", backend: backend).to_a +
          Wirebind::JSON.each("[#{JSON_DOCUMENT},#{JSON_DOCUMENT}]", model, backend: backend).to_a
      end

      results.flatten.each { |record| assert_one_schema(record, "each (#{backend})") }
    end
  end

  # Records made and read while the generated methods are rewritten (on first
  # use after each change): each call runs the methods of one schema.
  def test_new_and_to_h_while_attributes_are_added
    model = new_model
    results = while_the_schema_grows(model) { model.new(a0: "v").to_h }
    refute_empty results
    results.each do |hash|
      assert_equal NAMES.first(hash.size), hash.keys
      assert_equal ["v", *Array.new(hash.size - 1)], hash.values
    end
    assert_equal NAMES, model.new.to_h.keys
  end

  # Encoding a record made before the change: its keys are those of one schema.
  def test_encoding_while_attributes_are_added
    BACKENDS.each do |backend|
      model = new_model
      record = Wirebind::JSON.decode(JSON_DOCUMENT, model)
      results = while_the_schema_grows(model) do
        [Wirebind::JSON.encode(record, backend: backend), Wirebind::XML.encode(record, backend: backend)]
      end

      results.each do |json, xml|
        keys = Wirebind::JSON.decode(json, :any).keys
        assert_equal NAMES.first(keys.size).map(&:to_s), keys, "JSON (#{backend}): #{json}"
        elements = xml.scan(/<(a\d+)>/).flatten
        assert_equal NAMES.first(elements.size).map(&:to_s), elements, "XML (#{backend}): #{xml}"
      end
    end
  end

  def test_serializing_while_attributes_are_added
    BACKENDS.each do |backend|
      model = new_model
      serializer = Class.new(Wirebind::Serializer) do
        type "r"
        id :a0
        attributes :a0
      end
      record = Wirebind::JSON.decode(JSON_DOCUMENT, model)
      results = while_the_schema_grows(model) do
        %i[plain hal json_api siren].map { |format| serializer.new([record], format: format, backend: backend).to_json }
      end

      expected = %i[plain hal json_api siren].map { |format| serializer.new([record], format: format, backend: backend).to_json }
      results.each { |documents| assert_equal expected, documents, "serializers (#{backend})" }
    end
  end
end
