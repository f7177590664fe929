# frozen_string_literal: true

require_relative "serializer_test_support"
require_relative "../support/backend_differential"

# if:/unless: on attributes: a Proc (record) or (record, context), or a
# method's name; the member (key and value) is left out when the condition
# says so, commas kept right wherever it sits (first, last, all left out),
# in every format and under JSON:API sparse fieldsets, on both backends.
class SerializerConditionalTest < Minitest::Test
  include SerializerTestSupport
  include Wirebind::BackendDifferential

  FORMATS = %i[plain hal json_api siren].freeze

  class ConditionalIssueSerializer < Wirebind::Serializer
    type "issue"
    id :key
    attribute :summary, if: ->(issue) { !issue.votes.nil? }
    attribute :votes, unless: :hidden?
    attribute(:admin, if: proc { |_issue, context| context[:admin] }) { |issue| "admin of #{issue.key}" }
    attribute :key, key: "ref", if: ->(issue, _context) { issue.key.end_with?("1") }
    link(:self) { |issue| "/issues/#{issue.key}" }

    def hidden?(issue)
      issue.votes.nil?
    end
  end

  def render(records, format, backend, context: {}, fields: nil)
    ConditionalIssueSerializer.new(records, format: format, context: context, fields: fields, backend: backend).to_json
  end

  def test_members_are_left_out_with_commas_right
    [issues, issues.reverse].each do |records|
      written = parse(render(records, :plain, Wirebind.backend))
      first, second = records.first.key == "WB-1" ? written : written.reverse
      assert_equal({ "summary" => "Crash on \"save\"", "votes" => 3, "ref" => "WB-1" }, first)
      assert_equal({}, second)
    end
    written = parse(render(issues, :plain, Wirebind.backend, context: { admin: true }))
    assert_equal({ "admin" => "admin of WB-2" }, written[1])
    assert_equal %w[summary votes admin ref], written[0].keys
  end

  def test_every_format_and_sparse_fieldsets_agree_on_both_backends
    require_native_backend
    [{}, { admin: true }].each do |context|
      FORMATS.each do |format|
        outcome = agree(issues, "#{format} #{context}") { |input, backend| render(input, format, backend, context: context) }
        assert_equal :ok, outcome[0]
        parse(outcome[1].first)
      end
      [{ "issue" => "summary,ref" }, { "issue" => "admin" }, { "issue" => "" }].each do |fields|
        outcome = agree(issues, "sparse #{fields} #{context}") { |input, backend| render(input, :json_api, backend, context: context, fields: fields) }
        assert_equal :ok, outcome[0]
        parse(outcome[1].first)
      end
    end
  end

  def test_json_api_sparse_fieldsets_and_conditions_both_apply
    document = parse(render(issues, :json_api, Wirebind.backend, context: { admin: true }, fields: { "issue" => "summary,admin" }))
    assert_equal({ "summary" => "Crash on \"save\"", "admin" => "admin of WB-1" }, document["data"][0]["attributes"])
    assert_equal({ "admin" => "admin of WB-2" }, document["data"][1]["attributes"])
  end

  def test_bad_conditions_are_refused
    assert_raises(Wirebind::SchemaError) { Class.new(Wirebind::Serializer) { attribute :summary, if: :a, unless: :b } }
    error = assert_raises(Wirebind::SchemaError) { Class.new(Wirebind::Serializer) { attribute :summary, if: true } }
    assert_match(/if: is a Proc/, error.message)
    missing = Class.new(Wirebind::Serializer) { attribute :summary, if: :nope? }
    error = assert_raises(Wirebind::SchemaError) { missing.new(issues).to_json }
    assert_match(/names :nope\?, which the serializer does not define/, error.message)
  end

  def test_output_matches_albas_on_the_same_records
    require_alba
    alba = Class.new do
      include Alba::Resource

      attributes :summary, if: proc { |issue| !issue.votes.nil? }
      attributes :key, if: proc { |issue| issue.key.end_with?("2") }
    end
    ours = Class.new(Wirebind::Serializer) do
      attribute :summary, if: ->(issue) { !issue.votes.nil? }
      attribute :key, if: ->(issue) { issue.key.end_with?("2") }
    end
    assert_equal ::JSON.parse(alba.new(issues).serialize), parse(ours.new(issues).to_json)
  end
end
