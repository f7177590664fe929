# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/codec_test_helpers"

# Wirebind::Options, the core the front doors share: XML, JSON and the
# serializers take the same type arguments, backends, limits and options,
# and refuse a bad one with the same ArgumentError, before reading anything.
class OptionsTest < Minitest::Test
  include Wirebind::CodecTestHelpers

  class Note
    include Wirebind::Model
    xml_root "note"
    attribute :text, :string
  end

  class NoteSerializer < Wirebind::Serializer
    attributes :text
  end

  XML = Wirebind::XML
  JSON = Wirebind::JSON

  # Every front door that takes backend:, each given the same value.
  def front_doors(backend)
    {
      "XML.decode" => -> { XML.decode("<note/>", Note, backend: backend) },
      "XML.each" => -> { XML.each("<note/>", Note, backend: backend) { nil } },
      "XML.encode" => -> { XML.encode(Note.new, backend: backend) },
      "XML.check" => -> { XML.check("<note/>", backend: backend) },
      "JSON.decode" => -> { JSON.decode("{}", Note, backend: backend) },
      "JSON.each" => -> { JSON.each("[]", Note, backend: backend) { nil } },
      "JSON.encode" => -> { JSON.encode(Note.new, backend: backend) },
      "Serializer.new" => -> { NoteSerializer.new(Note.new, backend: backend) }
    }
  end

  def test_every_front_door_takes_the_same_backends_with_the_same_words
    front_doors(:fast).each do |door, call|
      assert_error(ArgumentError, /\Abackend: must be one of :pure, :native, not :fast\z/) { call.call }
    rescue Minitest::Assertion => e
      raise e.class, "#{door}: #{e.message}"
    end
    front_doors("pure").each { |door, call| assert_raises(ArgumentError, door) { call.call } }
    front_doors(:pure).each_value(&:call)
    if Wirebind.backend == :native
      front_doors(:native).each_value(&:call)
    else
      front_doors(:native).each do |door, call|
        error = assert_raises(ArgumentError, door) { call.call }
        assert_equal "the native backend is not available (pure is in use)", error.message, door
      end
    end
  end

  # XML and JSON read the same type arguments; JSON also :any.
  def test_type_arguments_are_read_alike
    [Note, [Note], :string, [:integer]].each do |type|
      XML.decode("<note/>", type)
      JSON.decode(type.is_a?(Array) ? "[]" : "null", type)
    end
    assert_equal({ "a" => 1 }, JSON.decode('{"a":1}', :any))
    assert_error(ArgumentError, /\Atype must be a Wirebind::Model class, a scalar type \(string, integer, float, decimal, boolean, time, date, base64\), or a one-element Array of one, not :any\z/) do
      XML.decode("<note/>", :any)
    end
    [[Note, Note], [], "Note", String, :text].each do |type|
      xml = assert_raises(ArgumentError, type.inspect) { XML.decode("<note/>", type) }
      json = assert_raises(ArgumentError, type.inspect) { JSON.decode("null", type) }
      assert_equal xml.message.sub(" :any,", ""), json.message.sub(" :any,", ""), type.inspect
      assert_raises(ArgumentError, type.inspect) { XML.each("<note/>", type) { nil } }
      assert_raises(ArgumentError, type.inspect) { JSON.each("[]", type) { nil } }
    end
    assert_error(ArgumentError, /\Aa list type is a one-element Array, like \[Issue\], not \[\]\z/) { JSON.decode("[]", []) }
  end

  # One name for the limit on one token, in both formats: max_token_size (JSON
  # also takes max_size, its first name).
  def test_the_per_token_limit_has_one_name
    assert_equal XML::DEFAULT_LIMITS[:max_token_size], JSON::DEFAULT_LIMITS[:max_token_size]
    assert_equal XML::DEFAULT_LIMITS[:max_depth], JSON::DEFAULT_LIMITS[:max_depth]
    assert_error(Wirebind::LimitError, /max_token_size/) { XML.decode("<note><text>#{'x' * 64}</text></note>", Note, max_token_size: 16) }
    assert_error(Wirebind::LimitError, /max_token_size/) { JSON.decode(%({"text":"#{'x' * 64}"}), Note, max_token_size: 16) }
    assert_error(Wirebind::LimitError, /max_token_size/) { JSON.decode(%({"text":"#{'x' * 64}"}), Note, max_size: 16) }
    [XML.method(:decode), JSON.method(:decode)].each do |decode|
      input = decode.owner == XML.singleton_class ? "<note/>" : "{}"
      assert_error(ArgumentError, /\Amax_token_size: must be a positive Integer, not 0\z/) { decode.call(input, Note, max_token_size: 0) }
      assert_error(ArgumentError, /\Aunknown option: max_tokens\z/) { decode.call(input, Note, max_tokens: 1) }
      assert_error(ArgumentError, /\Astrict: must be true or false, not "no"\z/) { decode.call(input, Note, strict: "no") }
    end
  end
end
