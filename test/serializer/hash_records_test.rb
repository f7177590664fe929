# frozen_string_literal: true

require_relative "serializer_test_support"
require_relative "../support/backend_differential"

# Hash records: read by key, the Symbol one or else the String one; nested
# Hashes through one/many; a missing key is an EncodeError with its path;
# every format on both backends.
class SerializerHashRecordsTest < Minitest::Test
  include SerializerTestSupport
  include Wirebind::BackendDifferential

  FORMATS = %i[plain hal json_api siren].freeze

  class HashProjectSerializer < Wirebind::Serializer
    type "project"
    attributes :name
  end

  class HashIssueSerializer < Wirebind::Serializer
    type "issue"
    id :key
    attributes :key, :summary, :votes
    attribute(:shout) { |issue| issue[:summary]&.upcase }
    link(:self) { |issue| "/issues/#{issue['key'] || issue[:key]}" }
    one :project, HashProjectSerializer
    many :children, HashIssueSerializer
  end

  def records
    [
      { key: "WB-1", summary: "café", votes: 3, project: { id: "P1", name: "Wirebind" },
        children: [{ "key" => "WB-3", "summary" => nil, "votes" => 1, "project" => nil, "children" => [] }] },
      { "key" => "WB-2", "summary" => "strings", "votes" => nil, "project" => { "id" => "P2", name: "P" }, "children" => nil, :votes => 7 }
    ]
  end

  def test_symbol_keys_then_string_keys
    written = parse(HashIssueSerializer.new(records, backend: Wirebind.backend).to_json)
    assert_equal({ "key" => "WB-1", "summary" => "café", "votes" => 3, "shout" => "CAFÉ", "project" => { "name" => "Wirebind" },
                   "children" => [{ "key" => "WB-3", "summary" => nil, "votes" => 1, "shout" => nil, "project" => nil, "children" => [] }] },
                 written[0])
    # The Symbol key wins over the String one.
    assert_equal 7, written[1]["votes"]
    assert_equal "strings", written[1]["summary"]
  end

  def test_a_missing_key_is_an_error_with_its_path
    error = assert_raises(Wirebind::EncodeError) { HashIssueSerializer.new([{ key: "A", summary: "s" }], backend: Wirebind.backend).to_json }
    assert_match(/the Hash record has no key :votes or "votes"/, error.message)
    assert_equal "[0].votes", error.path.to_s.delete_prefix("$")
  end

  def test_every_format_agrees_on_both_backends
    require_native_backend
    FORMATS.each do |format|
      [records, records.first, [{ key: "A", summary: "s" }]].each do |input|
        outcome = agree(input, "#{format} #{input.class}") { |resource, backend| HashIssueSerializer.new(resource, format: format, backend: backend).to_json }
        assert_includes %i[ok error], outcome[0]
      end
    end
    outcome = agree(records, "json_api compound") do |resource, backend|
      HashIssueSerializer.new(resource, format: :json_api, include: "project,children", backend: backend).to_json
    end
    assert_equal :ok, outcome[0]
    assert_includes outcome[1].first, "\"included\""
  end
end
