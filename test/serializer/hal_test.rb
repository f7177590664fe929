# frozen_string_literal: true

require_relative "serializer_test_support"

# HAL (draft-kelly-json-hal): the same structure as Oat's HAL adapter for an
# equivalent serializer, with one documented difference (a nil +one+).
class SerializerHALTest < Minitest::Test
  include SerializerTestSupport

  SerializerTestSupport.quietly do
    class OatVersion < Oat::Serializer
      adapter Oat::Adapters::HAL
      schema do
        link :self, href: "/versions/#{item.id}"
        property :name, item.name
        property :release_date, item.release_date&.xmlschema
        property :sequence, item.sequence
      end
    end

    class OatProject < Oat::Serializer
      adapter Oat::Adapters::HAL
      schema do
        link :self, href: "/projects/#{item.id}"
        property :name, item.name
      end
    end

    class OatIssue < Oat::Serializer
      adapter Oat::Adapters::HAL
      schema do
        link :self, href: "/issues/#{item.key}"
        property :summary, item.summary
        property :votes, item.votes
        entities :affects_versions, item.affects_versions, OatVersion
        entity :project, item.project, OatProject
      end
    end

    class OatIssues < Oat::Serializer
      adapter Oat::Adapters::HAL
      schema do
        entities :item, item, OatIssue
      end
    end
  end

  def test_a_record_is_what_oat_writes
    issues.each do |issue|
      hal = parse(IssueSerializer.new(issue, format: :hal).to_json)
      assert_equal oat_json(OatIssue.new(issue)), hal
    end
  end

  def test_the_shape
    hal = parse(IssueSerializer.new(issues.first, format: :hal).to_json)
    assert_equal({ "self" => { "href" => "/issues/WB-1" } }, hal["_links"])
    assert_equal "Crash on \"save\"", hal["summary"]
    assert_equal %w[affects_versions project], hal["_embedded"].keys
    assert_equal({ "_links" => { "self" => { "href" => "/versions/v1" } }, "name" => "1.0",
                   "release_date" => "2014-03-01T10:00:00Z", "sequence" => 1 }, hal["_embedded"]["affects_versions"][0])
    assert_equal({ "_links" => { "self" => { "href" => "/projects/P1" } }, "name" => "Wirebind" }, hal["_embedded"]["project"])
  end

  # A list is a resource too (HAL's root is always one): its records are
  # embedded under "item" (RFC 6573), as an Oat collection serializer
  # with entities :item writes them; rel: names the relation otherwise.
  def test_a_list_is_a_resource_embedding_its_records
    assert_equal oat_json(OatIssues.new(issues)), parse(IssueSerializer.new(issues, format: :hal).to_json)
    hal = parse(IssueSerializer.new(issues, format: :hal, rel: :issues).to_json)
    assert_equal ["issues"], hal["_embedded"].keys
    assert_equal({ "_embedded" => { "item" => [] } }, parse(IssueSerializer.new([], format: :hal).to_json))
    assert_equal "null", IssueSerializer.new(nil, format: :hal).to_json
  end

  # Difference from Oat: Oat writes a nil +entity+ as "project": null inside
  # _embedded. HAL says an embedded value is a resource object or an array
  # of them, so a nil one is left out (and _embedded with it when empty).
  def test_a_nil_one_is_left_out_where_oat_writes_null
    issue = Issue.new(key: "WB-3", summary: "s", votes: 1, project: nil, affects_versions: [])
    oat = oat_json(OatIssue.new(issue))
    assert_nil oat["_embedded"].fetch("project")
    oat["_embedded"].delete("project")
    hal = parse(IssueSerializer.new(issue, format: :hal).to_json)
    assert_equal oat, hal
    refute hal["_embedded"].key?("project")

    only_one = Class.new(Wirebind::Serializer) { one :project, ProjectSerializer }
    assert_equal "{}", only_one.new(issue, format: :hal).to_json
    assert_equal({ "_embedded" => { "project" => { "_links" => { "self" => { "href" => "/projects/P1" } }, "name" => "Wirebind" } } },
                 parse(only_one.new(Issue.new(project: project), format: :hal).to_json))
  end

  # A link whose block gives nil is left out, as Oat leaves out a link
  # without an href; with none left, so is _links.
  def test_a_nil_href_leaves_the_link_out
    links = Class.new(Wirebind::Serializer) do
      attributes :key
      link(:self) { |issue| "/issues/#{issue.key}" }
      link(:next) { |_issue, context| context[:next] }
      link(:prev) { |_issue, context| context[:prev] }
    end
    issue = Issue.new(key: "K")
    assert_equal({ "key" => "K", "_links" => { "self" => { "href" => "/issues/K" } } }, parse(links.new(issue, format: :hal).to_json))
    assert_equal({ "self" => { "href" => "/issues/K" }, "prev" => { "href" => "/p" } },
                 parse(links.new(issue, format: :hal, context: { prev: "/p" }).to_json)["_links"])
    lonely = Class.new(Wirebind::Serializer) do
      link(:next) { |_issue, context| context[:next] }
      link(:prev) { |_issue, context| context[:prev] }
    end
    assert_equal "{}", lonely.new(issue, format: :hal).to_json
    assert_equal '{"_links":{"prev":{"href":"/p"}}}', lonely.new(issue, format: :hal, context: { prev: "/p" }).to_json
    assert_equal '{"_links":{"next":{"href":"/n"},"prev":{"href":"/p"}}}',
                 lonely.new(issue, format: :hal, context: { prev: "/p", next: "/n" }).to_json
  end

  def test_hrefs_are_escaped_and_must_be_strings
    odd = Class.new(Wirebind::Serializer) { link(:self) { |issue| issue.key } }
    assert_equal '{"_links":{"self":{"href":"/a\"b\\\\c\u2028"}}}'.sub("\u2028", "\\u2028"),
                 odd.new(Issue.new(key: "/a\"b\\c\u2028"), format: :hal).to_json
    error = assert_raises(Wirebind::EncodeError) { odd.new([Issue.new, Issue.new(key: 7)], format: :hal).to_json }
    assert_match(/expected a String, got Integer 7/, error.message)
    assert_equal "[1].self", error.path
  end
end
