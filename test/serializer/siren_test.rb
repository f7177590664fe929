# frozen_string_literal: true

require_relative "serializer_test_support"

# Siren (https://github.com/kevinswiber/siren): the same structure as Oat's
# Siren adapter for an equivalent serializer, with one documented difference
# (Oat drops a sub-entity equal to one already written).
class SerializerSirenTest < Minitest::Test
  include SerializerTestSupport

  SerializerTestSupport.quietly do
    class OatVersion < Oat::Serializer
      adapter Oat::Adapters::Siren
      schema do
        type "version"
        link :self, href: "/versions/#{item.id}"
        property :name, item.name
        property :release_date, item.release_date&.xmlschema
        property :sequence, item.sequence
      end
    end

    class OatProject < Oat::Serializer
      adapter Oat::Adapters::Siren
      schema do
        type "project"
        link :self, href: "/projects/#{item.id}"
        property :name, item.name
      end
    end

    class OatIssue < Oat::Serializer
      adapter Oat::Adapters::Siren
      schema do
        type "issue"
        link :self, href: "/issues/#{item.key}"
        property :summary, item.summary
        property :votes, item.votes
        entities :affects_versions, item.affects_versions, OatVersion
        entity :project, item.project, OatProject
      end
    end

    class OatIssues < Oat::Serializer
      adapter Oat::Adapters::Siren
      schema do
        entities :item, item, OatIssue
      end
    end
  end

  def test_a_record_is_what_oat_writes
    (issues + [Issue.new(key: "K", project: nil)]).each do |issue|
      assert_equal oat_json(OatIssue.new(issue)), parse(IssueSerializer.new(issue, format: :siren).to_json)
    end
  end

  def test_the_shape
    siren = parse(IssueSerializer.new(issues.first, format: :siren).to_json)
    assert_equal ["issue"], siren["class"]
    assert_equal({ "summary" => "Crash on \"save\"", "votes" => 3 }, siren["properties"])
    assert_equal([["affects_versions"], ["affects_versions"], ["project"]], siren["entities"].map { |e| e["rel"] })
    assert_equal({ "rel" => ["project"], "class" => ["project"], "properties" => { "name" => "Wirebind" }, "entities" => [],
                   "links" => [{ "rel" => ["self"], "href" => "/projects/P1" }], "actions" => [] }, siren["entities"][2])
    assert_equal [{ "rel" => ["self"], "href" => "/issues/WB-1" }], siren["links"]
    assert_equal [], siren["actions"]
  end

  # A list is an entity whose sub-entities are its records, rel "item".
  def test_a_list_is_what_an_oat_collection_writes
    assert_equal oat_json(OatIssues.new(issues)), parse(IssueSerializer.new(issues, format: :siren).to_json)
    assert_equal([["issues"]] * 2, parse(IssueSerializer.new(issues, format: :siren, rel: "issues").to_json)["entities"].map { |e| e["rel"] })
  end

  # Difference from Oat: Oat leaves out a sub-entity whose hash equals one
  # it already wrote (two equal versions in the list become one). Siren says
  # nothing of the kind, and a list keeps its length: wirebind writes both.
  def test_equal_sub_entities_are_all_written
    twin = version("v1", "1.0", 1)
    issue = Issue.new(key: "K", affects_versions: [twin, version("v1", "1.0", 1)])
    oat = oat_json(OatIssue.new(issue))
    siren = parse(IssueSerializer.new(issue, format: :siren).to_json)
    assert_equal 1, oat["entities"].size
    assert_equal 2, siren["entities"].size
    assert_equal oat["entities"] * 2, siren["entities"]
  end

  def test_without_a_type_or_attributes
    bare = Class.new(Wirebind::Serializer) { link(:self) { "/" } }
    assert_equal '{"entities":[],"links":[{"rel":["self"],"href":"/"}],"actions":[]}', bare.new(project, format: :siren).to_json
  end
end
