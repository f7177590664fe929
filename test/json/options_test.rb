# frozen_string_literal: true

require_relative "json_test_support"

# The front door: options are checked once, before any input is read; the
# backend choice; the type forms it accepts.
class JSONOptionsTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  def test_both_backends_can_be_asked_for_by_name
    assert_equal [1], JSON.decode("[1]", [:integer], backend: :pure)
    assert_equal "[1]", JSON.encode([1], backend: :pure)
    assert_equal [1], JSON.each("[1]", :integer, backend: :pure).to_a
    assert_raises(ArgumentError) { JSON.decode("[1]", [:integer], backend: :fast) }
    if Wirebind.backend == :native
      assert_equal [1], JSON.decode("[1]", [:integer], backend: :native)
      assert_equal "[1]", JSON.encode([1], backend: :native)
      assert_equal [1], JSON.each("[1]", :integer, backend: :native).to_a
    else
      error = assert_raises(ArgumentError) { JSON.decode("[1]", [:integer], backend: :native) }
      assert_match(/not available/, error.message)
      assert_raises(ArgumentError) { JSON.encode([1], backend: :native) }
      assert_raises(ArgumentError) { JSON.each("[1]", :integer, backend: :native) { nil } }
    end
  end

  def test_the_default_backend_is_wirebinds
    assert_equal({ "a" => 1 }, JSON.decode('{"a":1}', :any))
    assert_equal "{}", JSON.encode({})
    assert_equal Wirebind.backend == :native, Wirebind::JSON.const_defined?(:Native, false)
  end

  def test_limits_are_checked
    assert_raises(ArgumentError) { JSON.decode("[]", :any, max_depth: 0) }
    assert_raises(ArgumentError) { JSON.decode("[]", :any, max_size: -1) }
    assert_raises(ArgumentError) { JSON.decode("[]", :any, max_number_length: 1.5) }
    error = assert_raises(ArgumentError) { JSON.decode("[]", :any, max_tokens: 3) }
    assert_match(/unknown option: max_tokens/, error.message)
    assert_raises(ArgumentError) { JSON.encode([], max_depth: nil) }
    assert_equal 1024, JSON::DEFAULT_LIMITS[:max_depth]
    assert_equal 64 * 1024 * 1024, JSON::DEFAULT_LIMITS[:max_token_size]
    assert_equal 4096, JSON::DEFAULT_LIMITS[:max_number_length]
    assert JSON::DEFAULT_LIMITS.frozen?
  end

  # One name for the per-token limit in both formats; JSON's first name stays.
  def test_max_token_size_and_its_old_name_max_size
    assert_error(Wirebind::LimitError, /larger than max_token_size \(6 bytes\)/) { JSON.decode('["abcdefgh"]', :any, max_token_size: 6) }
    assert_error(Wirebind::LimitError, /larger than max_token_size \(6 bytes\)/) { JSON.decode('["abcdefgh"]', :any, max_size: 6) }
    assert_equal ["abcd"], JSON.decode('["abcd"]', :any, max_size: 6)
    assert_error(ArgumentError, /\Amax_size: and max_token_size: name the same limit: give one\z/) { JSON.decode("[]", :any, max_size: 6, max_token_size: 6) }
    assert_error(ArgumentError, /\Amax_size: must be a positive Integer, not 0\z/) { JSON.decode("[]", :any, max_size: 0) }
  end

  # The same checks, and messages, as XML's front door (Wirebind::Options).
  def test_options_are_checked_and_named
    assert_error(ArgumentError, /\Astrict: must be true or false, not "no"\z/) { JSON.decode("{}", Issue, strict: "no") }
    assert_error(ArgumentError, /\Astrict: must be true or false, not "no"\z/) { JSON.each("[]", Issue, strict: "no") { nil } }
    assert_error(ArgumentError, /\Aio: must be nil or answer write, not Integer\z/) { JSON.encode([], io: 5) }
    assert_error(ArgumentError, /\Aio: must be nil or answer write, not Integer\z/) { Issue.new.to_json(io: 5) }
    assert_error(ArgumentError, /\Amax_depth: must be a positive Integer, not nil\z/) { JSON.encode([], max_depth: nil) }
    assert_error(ArgumentError, /\Amax_depth: must be a positive Integer, not 0\z/) { JSON.decode("[]", :any, max_depth: 0) }
    assert_error(ArgumentError, /\Abackend: must be one of :pure, :native, not :fast\z/) { JSON.decode("[]", :any, backend: :fast) }
  end

  def test_strict_must_be_a_boolean
    assert_raises(ArgumentError) { JSON.decode("{}", Issue, strict: 1) }
    assert_raises(ArgumentError) { JSON.decode("{}", Issue, strict: nil) }
  end

  def test_types
    assert_raises(ArgumentError) { JSON.decode("[]", String) }
    assert_raises(ArgumentError) { JSON.decode("[]", :text) }
    assert_raises(ArgumentError) { JSON.decode("[]", [Issue, Version]) }
    assert_raises(ArgumentError) { JSON.decode("[]", [[Issue]]) }
    assert_raises(ArgumentError) { JSON.decode("[]", nil) }
    assert_equal [], JSON.decode("[]", [Issue])
    assert_equal [], JSON.decode("[]", [:any])
  end

  def test_input_must_be_a_string_or_an_io
    error = assert_raises(ArgumentError) { JSON.decode(12, :any) }
    assert_match(/String or an IO/, error.message)
    assert_raises(ArgumentError) { JSON.decode(nil, :any) }
    assert_raises(ArgumentError) { JSON.encode([], io: 12) }
  end

  def test_the_model_methods
    assert_equal Issue.new(id: "1"), Issue.from_json('{"id":"1","x":2}')
    assert_raises(Wirebind::DecodeError) { Issue.from_json('{"id":"1","x":2}', strict: true) }
    assert_equal([Issue.new(id: "1")], [Issue.new(id: "1")].map { |i| Issue.from_json(i.to_json) })
    # An attribute named to_json keeps the model's #to_json: its reader is to_json_value.
    klass = Class.new do
      include Wirebind::Model
      attribute :to_json, :string
    end
    record = klass.new(to_json: "x")
    assert_equal '{"to_json":"x"}', record.to_json
    assert_equal "x", record.to_json_value
  end

  def test_from_json_and_to_json_mirror_the_xml_methods
    assert_equal Wirebind::Model.instance_method(:to_xml).owner, Wirebind::Model.instance_method(:to_json).owner
    assert_equal Wirebind::Model::ClassMethods.instance_method(:from_xml).owner,
                 Wirebind::Model::ClassMethods.instance_method(:from_json).owner
  end
end

# Plans and encoders are deeply frozen: once a class's plan cache is shareable,
# another Ractor decodes and encodes with them.
class JSONRactorTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  def test_decodes_and_encodes_in_a_ractor
    require_ractors
    json = JSON.encode([Issue.new(id: "1", votes: 2, updated: Time.utc(2014), affects_versions: [Version.new(sequence: 1)], labels: ["é\n"])])
    expected = JSON.decode(json, [Issue]).inspect
    assert Ractor.shareable?(Wirebind::JSON::Plan.for(Issue))
    assert Ractor.shareable?(Wirebind::JSON::Pure::Encoder.for(Issue))
    [Issue, Version].each { |klass| Ractor.make_shareable(klass.instance_variable_get(:@__wb_plans)) }
    experimental = Warning[:experimental]
    Warning[:experimental] = false
    begin
      ractor = Ractor.new(json) do |doc|
        issues = Wirebind::JSON.decode(doc, [JSONTestModels::Issue])
        [issues.inspect, Wirebind::JSON.encode(issues), Wirebind::JSON.decode(doc, :any).size]
      end
      inspected, encoded, size = ractor.take
    ensure
      Warning[:experimental] = experimental
    end
    assert_equal expected, inspected
    assert_equal json, encoded
    assert_equal 1, size
  end
end
