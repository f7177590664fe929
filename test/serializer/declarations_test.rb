# frozen_string_literal: true

require_relative "serializer_test_support"

# The DSL: what it checks and when, inheritance, and what it compiles to.
class SerializerDeclarationsTest < Minitest::Test
  include SerializerTestSupport

  def serializer(&block)
    Class.new(Wirebind::Serializer, &block)
  end

  def assert_schema_error(pattern, &block)
    error = assert_raises(Wirebind::SchemaError, &block)
    assert_match pattern, error.message
    error
  end

  def test_names_are_checked_as_identifiers_when_declared
    ["summary; system('x')", "Summary", "1a", "", :"a-b", 3, nil].each do |name|
      assert_schema_error(/not an attribute name/) { serializer { attributes name } }
    end
    assert_schema_error(/not an attribute name/) { serializer { one "x y", ProjectSerializer } }
    assert_schema_error(/not an attribute name/) { serializer { id "key!" } }
    assert_schema_error(/already declared/) { serializer { attributes :summary, :summary } }
    assert_schema_error(/key: must be a non-empty String/) { serializer { attribute :summary, key: :title } }
    assert_schema_error(/is not a Wirebind::Serializer class/) { serializer { one :project, Project } }
    assert_schema_error(/give the href as a block/) { serializer { link :self } }
    assert_schema_error(/declared twice/) { serializer { link(:self) { "a" }; link("self") { "b" } } }
    assert_schema_error(/not a type name/) { serializer { type "is sue" } }
    assert_schema_error(/not a Wirebind::Model class/) { serializer { model String } }
  end

  # Options a declaration does not take (Alba's and jsonapi-serializer's
  # others; if: on relations; a block on attributes, one, many): refused
  # when declared, never dropped (a block used to be ignored without a word).
  def test_an_unsupported_option_or_block_is_an_error_at_declaration
    assert_schema_error(/:summary: a block/) { serializer { attributes(:summary) { nil } } }
    assert_schema_error(/:project: a block/) { serializer { one(:project, ProjectSerializer) { nil } } }
    assert_schema_error(/unsupported option :as/) { serializer { attribute :summary, as: proc { true } } }
    assert_schema_error(/unsupported options :unless, :transform/) { serializer { attributes :summary, unless: 1, transform: :camel } }
    assert_schema_error(/unsupported option :if/) { serializer { many :affects_versions, VersionSerializer, if: 1 } }
  end

  def test_names_are_checked_against_the_model
    # With model, at once (an attribute the model lacks may be a method of
    # the serializer, defined after it: checked when compiled)...
    assert_schema_error(/declares no attribute :nope and .* defines no method nope/) { serializer { model Issue; attributes :nope }.new(Issue.new).to_json }
    assert_schema_error(/declares no attribute :nope/) { serializer { attributes :nope; model Issue }.new(Issue.new).to_json }
    assert_schema_error(/declares no attribute :nope/) { serializer { model Issue; one :nope, ProjectSerializer } }
    assert_schema_error(/Issue#project is not a list of records; use one/) { serializer { model Issue; many :project, ProjectSerializer } }
    assert_schema_error(/Issue#affects_versions is not a record .*; use many/) { serializer { model Issue; one :affects_versions, VersionSerializer } }
    assert_schema_error(/Issue#summary is not a record .*; use attribute/) { serializer { model Issue; one :summary, ProjectSerializer } }
    assert_schema_error(/an id is a :string or :integer attribute/) { serializer { model Issue; id :votes; id :labels } }
    # ...without, when first compiled for a record's class.
    loose = serializer { attributes :nope }
    assert_schema_error(/Issue declares no attribute :nope/) { loose.new(Issue.new).to_json }
    clash = serializer { attributes :summary; attribute :key, key: "summary" }
    assert_schema_error(/:summary and :key are both written as "summary"/) { clash.new(Issue.new).to_json }
  end

  def test_records_must_be_of_the_model
    typed = serializer { model Project; attributes :name }
    error = assert_raises(Wirebind::EncodeError) { typed.new([project, Issue.new]).to_json }
    assert_match(/writes .*Project records, got .*Issue/, error.message)
    assert_equal "[1]", error.path
    error = assert_raises(Wirebind::EncodeError) { serializer { attributes :name }.new(Struct.new(:key).new("x")).to_json }
    assert_match(/reads #name, which .* does not have/, error.message)
  end

  def test_subclasses_extend_their_parent
    parent = serializer do
      type "issue"
      attributes :summary
      link(:self) { |issue| "/issues/#{issue.key}" }
    end
    child = Class.new(parent) do
      attributes :votes
      link(:up) { "/" }
    end
    issue = Issue.new(key: "K", summary: "s", votes: 2)
    assert_equal '{"summary":"s","_links":{"self":{"href":"/issues/K"}}}', parent.new(issue, format: :hal).to_json
    assert_equal '{"summary":"s","votes":2,"_links":{"self":{"href":"/issues/K"},"up":{"href":"/"}}}',
                 child.new(issue, format: :hal).to_json
    assert_equal "issue", child.type
    assert_schema_error(/already declared/) { Class.new(parent) { attributes :summary } }
    # A declaration after use is seen: compiled methods are forgotten.
    parent.attributes :votes
    assert_equal '{"summary":"s","votes":2}', parent.new(issue).to_json
  end

  def test_a_model_changed_after_use_is_recompiled
    model = Class.new { include Wirebind::Model; attribute :name, :string }
    plain = serializer { attributes :name }
    assert_equal '{"name":"a"}', plain.new(model.new(name: "a")).to_json
    model.json_keys :camel
    model.attribute :full_name, :string
    plain.attributes :full_name
    assert_equal '{"name":"a","fullName":"b"}', plain.new(model.new(name: "a", full_name: "b")).to_json
  end

  # The generated source: plain methods, literals, names the schema declared.
  def test_compiled_to_plain_methods
    compiled = IssueSerializer.__wb_compiled(:hal, Issue)
    assert_same compiled, IssueSerializer.__wb_compiled(:hal, Issue)
    source = compiled.source
    assert_match(/^def write\(r, out, ctx, d\)$/, source)
    # A model's values are its instance variables, whatever its readers do.
    assert_includes source, "v = r.instance_variable_get(:@summary)"
    assert_includes source, "@links[0].call(r, ctx)"
    refute_match(/define_method|instance_eval|instance_exec|send\(|method_missing/, source)
    assert compiled.singleton_class.method_defined?(:write)
    assert IssueSerializer.__wb_link_blocks.frozen?
    assert IssueSerializer.__wb_fields.frozen?
  end

  def test_threads_compile_once_and_agree
    fresh = Class.new(IssueSerializer)
    results = Array.new(4) { Thread.new { fresh.new(issues, format: :json_api).to_json } }.map(&:value)
    assert_equal [IssueSerializer.new(issues, format: :json_api).to_json], results.uniq
  end
end
