# frozen_string_literal: true

require_relative "serializer_test_support"

# JSON:API 1.1 (https://jsonapi.org/format/1.1/). Oat's JsonAPI adapter
# (0.6.1) writes the format's pre-1.0 draft, so its output is compared after
# converting it, by #oat_to_json_api, which spells out each difference.
class SerializerJSONAPITest < Minitest::Test
  include SerializerTestSupport

  SerializerTestSupport.quietly do
    class OatVersion < Oat::Serializer
      adapter Oat::Adapters::JsonAPI
      schema do
        type "version"
        link :self, href: "/versions/#{item.id}"
        property :id, item.id
        property :name, item.name
        property :release_date, item.release_date&.xmlschema
        property :sequence, item.sequence
      end
    end

    class OatProject < Oat::Serializer
      adapter Oat::Adapters::JsonAPI
      schema do
        type "project"
        link :self, href: "/projects/#{item.id}"
        property :id, item.id
        property :name, item.name
      end
    end

    class OatIssue < Oat::Serializer
      adapter Oat::Adapters::JsonAPI
      schema do
        type "issue"
        link :self, href: "/issues/#{item.key}"
        property :id, item.key
        property :summary, item.summary
        property :votes, item.votes
        entities :affects_versions, item.affects_versions, OatVersion
        entity :project, item.project, OatProject
      end
    end
  end

  # The type of each of Oat's "linked" keys (Oat keys them by relation name,
  # pluralized, not by type).
  LINKED_TYPES = { "affects_versions" => "version", "projects" => "project" }.freeze
  RELATIONS = { "affects_versions" => "version", "project" => "project" }.freeze

  # Oat 0.6.1 against JSON:API 1.1, and what the conversion does about it:
  # 1. Oat writes the primary data under the pluralized type ("issues"),
  #    always as an array; 1.1 has "data", an object for one resource.
  # 2. Oat writes attributes, and "id", at the resource's top level; 1.1
  #    puts them under "attributes", beside "type" and "id" (a string).
  # 3. Oat writes relationships as bare ids inside "links"; 1.1 has
  #    "relationships", each {"data": {"type", "id"}} (or an array of those).
  # 4. Oat writes links as {"href": ...}; 1.1 allows that or a string: wirebind
  #    writes the string.
  # 5. Oat writes related records in "linked", grouped by relation name, each
  #    group without exact duplicates; 1.1 has "included", one array, without
  #    two resources of the same type and id, and none that is primary data.
  def oat_to_json_api(oat, type)
    data = oat.fetch("#{type}s").map { |resource| resource_of(resource, type) }
    included = []
    oat.fetch("linked", {}).each do |relation, resources|
      resources.each { |resource| included << resource_of(resource, LINKED_TYPES.fetch(relation)) }
    end
    primary = data.map { |resource| resource.values_at("type", "id") }
    included = included.uniq { |resource| resource.values_at("type", "id") }.reject { |resource| primary.include?(resource.values_at("type", "id")) }
    document = { "data" => data.size == 1 ? data.first : data }
    document["included"] = included unless included.empty?
    document
  end

  def resource_of(oat, type)
    resource = { "type" => type, "id" => oat.fetch("id").to_s }
    links = oat.fetch("links", {})
    attributes = oat.reject { |key, _| %w[id links].include?(key) }
    resource["attributes"] = attributes unless attributes.empty?
    relationships = links.reject { |key, _| key == "self" }.to_h do |name, ids|
      identifier = ->(id) { { "type" => RELATIONS.fetch(name), "id" => id.to_s } }
      [name, { "data" => ids.is_a?(Array) ? ids.map(&identifier) : ids && identifier.call(ids) }]
    end
    resource["relationships"] = relationships unless relationships.empty?
    resource["links"] = { "self" => links["self"]["href"] } if links["self"]
    resource
  end

  def test_the_same_content_as_oat_in_the_1_1_structure
    issue = issues.first
    expected = oat_to_json_api(oat_json(OatIssue.new(issue)), "issue")
    assert_equal expected, parse(IssueSerializer.new(issue, format: :json_api).to_json)
  end

  def test_the_document
    document = parse(IssueSerializer.new(issues, format: :json_api).to_json)
    assert_equal %w[data included], document.keys
    first = document["data"][0]
    assert_equal({ "type" => "issue", "id" => "WB-1", "attributes" => { "summary" => "Crash on \"save\"", "votes" => 3 },
                   "relationships" => {
                     "affects_versions" => { "data" => [{ "type" => "version", "id" => "v1" }, { "type" => "version", "id" => "v2" }] },
                     "project" => { "data" => { "type" => "project", "id" => "P1" } }
                   },
                   "links" => { "self" => "/issues/WB-1" } }, first)
    assert_equal({ "summary" => "café ✓", "votes" => nil }, document["data"][1]["attributes"])
    # Each related resource once, by type and id, though both issues relate to v1 and P1.
    assert_equal([%w[version v1], %w[version v2], %w[project P1]], document["included"].map { |r| r.values_at("type", "id") })
    assert_equal({ "type" => "version", "id" => "v1", "attributes" => { "name" => "1.0", "release_date" => "2014-03-01T10:00:00Z", "sequence" => 1 },
                   "links" => { "self" => "/versions/v1" } }, document["included"][0])
  end

  def test_a_nil_one_an_empty_many_and_no_related_records
    issue = Issue.new(key: "K", project: nil)
    document = parse(IssueSerializer.new(issue, format: :json_api).to_json)
    assert_equal({ "affects_versions" => { "data" => [] }, "project" => { "data" => nil } }, document["data"]["relationships"])
    refute document.key?("included")
    assert_equal({ "data" => nil }, parse(IssueSerializer.new(nil, format: :json_api).to_json))
    assert_equal({ "data" => [] }, parse(IssueSerializer.new([], format: :json_api).to_json))
  end

  class Node
    include Wirebind::Model
    attribute :id, :integer
    attribute :name, :string
    attribute :parent, Node
    attribute :children, [Node]
  end

  class NodeSerializer < Wirebind::Serializer
    type "node"
    attributes :name
    one :parent, NodeSerializer
    many :children, NodeSerializer
  end

  # Included follows relationships recursively (a serializer may name
  # itself), and never repeats primary data; ids are strings.
  def test_included_is_recursive_and_leaves_out_primary_data
    root = Node.new(id: 1, name: "root")
    child = Node.new(id: 2, name: "child", parent: root)
    grandchild = Node.new(id: 3, name: "grandchild", parent: child)
    child.children = [grandchild]
    root.children = [child]
    document = parse(NodeSerializer.new(child, format: :json_api).to_json)
    assert_equal "2", document["data"]["id"]
    assert_equal({ "parent" => { "data" => { "type" => "node", "id" => "1" } }, "children" => { "data" => [{ "type" => "node", "id" => "3" }] } },
                 document["data"]["relationships"])
    # root's child is child itself: primary data, not included again.
    assert_equal(%w[1 3], document["included"].map { |r| r["id"] })
    document = parse(NodeSerializer.new([root, grandchild], format: :json_api).to_json)
    assert_equal(%w[1 3], document["data"].map { |r| r["id"] })
    assert_equal(%w[2], document["included"].map { |r| r["id"] })
  end

  def test_sparse_fieldsets
    document = parse(IssueSerializer.new(issues, format: :json_api, fields: { "issue" => ["summary"], version: "name, sequence" }).to_json)
    first = document["data"][0]
    assert_equal({ "summary" => "Crash on \"save\"" }, first["attributes"])
    # A relationship left out of the fieldset is neither written nor followed.
    refute first.key?("relationships")
    assert_equal({ "self" => "/issues/WB-1" }, first["links"])
    refute document.key?("included")

    document = parse(IssueSerializer.new(issues.first, format: :json_api, fields: { "issue" => "affects_versions", "version" => "name,nope" }).to_json)
    refute document["data"].key?("attributes")
    assert_equal ["affects_versions"], document["data"]["relationships"].keys
    assert_equal([{ "name" => "1.0" }, { "name" => "2.0 «beta»" }], document["included"].map { |r| r["attributes"] })
    document = parse(IssueSerializer.new(issues.first, format: :json_api, fields: { "issue" => [], "version" => [] }).to_json)
    assert_equal %w[type id links], document["data"].keys
    refute document.key?("included")
    assert_raises(ArgumentError) { IssueSerializer.new(issues, format: :hal, fields: { "issue" => [] }) }
    assert_raises(ArgumentError) { IssueSerializer.new(issues, format: :json_api, fields: { "issue" => 3 }) }
  end

  class Plain < Wirebind::Serializer
    type "project"
    attributes :id, :name
  end

  # The id attribute defaults to :id; written as the id, not again as an attribute.
  def test_the_default_id_and_integer_ids
    assert_equal({ "type" => "project", "id" => "P1", "attributes" => { "name" => "Wirebind" } },
                 parse(Plain.new(project, format: :json_api).to_json)["data"])
    numbered = Class.new(Wirebind::Serializer) do
      type "thing"
      attributes :count
    end
    assert_equal '{"data":{"type":"thing","id":"7","attributes":{"count":5}}}',
                 numbered.new(AllTypes.new(id: 7, count: 5), format: :json_api).to_json
  end

  def test_format_errors_are_schema_errors_when_compiled
    untyped = Class.new(Wirebind::Serializer) { attributes :name }
    error = assert_raises(Wirebind::SchemaError) { untyped.new(project, format: :json_api).to_json }
    assert_match(/JSON:API resources have a type; declare one/, error.message)
    assert_equal '{"name":"Wirebind"}', untyped.new(project).to_json

    no_id = Class.new(Wirebind::Serializer) { type "x" }
    model = Class.new { include Wirebind::Model; attribute :key, :string }
    error = assert_raises(Wirebind::SchemaError) { no_id.new(model.new, format: :json_api).to_json }
    assert_match(/has no :id attribute; declare which attribute is the id, e.g. id :key/, error.message)

    reserved = Class.new(Wirebind::Serializer) do
      type "issue"
      id :key
      attributes :id
    end
    error = assert_raises(Wirebind::SchemaError) { reserved.new(issues.first, format: :json_api).to_json }
    assert_match(/reserves the member name "id"; write :id under another, e.g. attribute :id, key: "issue_id"/, error.message)
    renamed = Class.new(reserved) { attribute :summary, key: "type_name" }
    assert_match(/reserves/, assert_raises(Wirebind::SchemaError) { renamed.new(issues.first, format: :json_api).to_json }.message)
  end

  def test_a_nil_id_is_an_encode_error_with_its_path
    error = assert_raises(Wirebind::EncodeError) { IssueSerializer.new([issues.first, Issue.new], format: :json_api).to_json }
    assert_match(/a JSON:API resource needs an id: key is nil/, error.message)
    assert_equal "[1].key", error.path
    issue = issues.first
    issue.affects_versions[1].id = nil
    error = assert_raises(Wirebind::EncodeError) { IssueSerializer.new(issue, format: :json_api).to_json }
    assert_equal "affects_versions[1].id", error.path
  end
end
