# frozen_string_literal: true

require_relative "serializer_test_support"
require_relative "../support/backend_differential"

# Computed attributes: by a block (record, context) and by a method of the
# serializer (record) or (record, context), in every format, on both
# backends; compared with Alba's output on the same records where Alba is
# installed (the Gemfile's bench group).
class SerializerComputedTest < Minitest::Test
  include SerializerTestSupport
  include Wirebind::BackendDifferential

  FORMATS = %i[plain hal json_api siren].freeze

  class ComputedIssueSerializer < Wirebind::Serializer
    type "issue"
    id :key
    attributes :summary, :votes
    attribute(:headline) { |issue| "#{issue.key}: #{issue.summary}" }
    attribute(:where, key: "where_from") { |_issue, context| context[:base] }
    attribute :score
    attribute :labelled
    attribute(:extra) { |issue| issue.votes.nil? ? nil : { "double" => issue.votes * 2, "list" => [1, "a", true] } }

    def score(issue)
      (issue.votes || 0) * 10
    end

    def labelled(issue, context)
      "#{context[:base]}/#{issue.key}"
    end
  end

  def render(records, format, backend)
    ComputedIssueSerializer.new(records, format: format, context: { base: "https://x" }, backend: backend).to_json
  end

  def test_block_and_method_attributes_are_written_in_plain_json
    written = parse(render(issues, :plain, Wirebind.backend))
    assert_equal({ "summary" => "Crash on \"save\"", "votes" => 3, "headline" => "WB-1: Crash on \"save\"", "where_from" => "https://x",
                   "score" => 30, "labelled" => "https://x/WB-1", "extra" => { "double" => 6, "list" => [1, "a", true] } },
                 written[0])
    assert_nil written[1]["extra"]
    assert_equal 0, written[1]["score"]
  end

  def test_every_format_writes_them_and_the_backends_agree
    require_native_backend
    FORMATS.each do |format|
      [issues, issues.first].each do |records|
        outcome = agree(records, "#{format} #{records.class}") { |input, backend| render(input, format, backend) }
        assert_equal :ok, outcome[0]
        assert_includes outcome[1].first, "WB-1: Crash"
        assert_includes outcome[1].first, "https://x/WB-1"
      end
    end
  end

  def test_an_error_in_a_block_or_a_bad_value_has_the_attributes_path_on_both_backends
    failing = Class.new(Wirebind::Serializer) do
      attribute :summary
      attribute(:bad) { |_issue| Object.new }
    end
    raising = Class.new(Wirebind::Serializer) do
      attribute(:boom) { |_issue| raise Wirebind::EncodeError, "no boom" }
    end
    backends = Wirebind.backend == :native ? %i[pure native] : %i[pure]
    backends.each do |backend|
      error = assert_raises(Wirebind::EncodeError) { failing.new(issues, backend: backend).to_json }
      assert_match(/bad/, error.path.to_s, backend)
      error = assert_raises(Wirebind::EncodeError) { raising.new(issues, backend: backend).to_json }
      assert_match(/boom/, error.path.to_s, backend)
    end
  end

  def test_a_name_neither_the_model_nor_the_serializer_has_is_refused_when_compiled
    declared = Class.new(Wirebind::Serializer) do
      model Issue
      attribute :nope
    end
    error = assert_raises(Wirebind::SchemaError) { declared.new(issues).to_json }
    assert_match(/Issue declares no attribute :nope and .* defines no method nope\(record\)/, error.message)
  end

  def test_a_method_taking_other_arguments_is_refused
    odd = Class.new(Wirebind::Serializer) do
      attribute :odd
      def odd = 1
    end
    error = assert_raises(Wirebind::SchemaError) { odd.new(issues).to_json }
    assert_match(/takes \(record\) or \(record, context\)/, error.message)
  end

  def test_the_serializers_own_methods_are_not_computed_attributes
    declared = Class.new(Wirebind::Serializer) { attribute :to_h }
    assert_raises(Wirebind::SchemaError) { declared.new(issues).to_json }
  end

  def test_output_matches_albas_on_the_same_records
    require_alba
    alba = Class.new do
      include Alba::Resource

      attributes :summary, :votes
      attribute(:headline) { |issue| "#{issue.key}: #{issue.summary}" }
      attribute(:score) { |issue| (issue.votes || 0) * 10 }
    end
    ours = Class.new(Wirebind::Serializer) do
      attributes :summary, :votes
      attribute(:headline) { |issue| "#{issue.key}: #{issue.summary}" }
      attribute :score
      def score(issue) = (issue.votes || 0) * 10
    end
    assert_equal ::JSON.parse(alba.new(issues).serialize), parse(ours.new(issues).to_json)
  end
end
