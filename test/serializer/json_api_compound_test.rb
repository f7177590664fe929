# frozen_string_literal: true

require_relative "serializer_test_support"

# The JSON:API 1.1 specification's compound document example
# (https://jsonapi.org/format/1.1/#document-compound-documents: articles with
# their author and comments), written by a serializer from models: the same
# members in the same order, including only what its include paths
# ("author,comments") reach, with relationship links and top-level links.
class SerializerJSONAPICompoundTest < Minitest::Test
  include SerializerTestSupport

  class Person
    include Wirebind::Model
    attribute :id, :string
    attribute :first_name, :string
    attribute :last_name, :string
    attribute :twitter, :string
  end

  class Comment
    include Wirebind::Model
    attribute :id, :string
    attribute :body, :string
    attribute :author, Person
  end

  class Article
    include Wirebind::Model
    attribute :id, :string
    attribute :title, :string
    attribute :author, Person
    attribute :comments, [Comment]
  end

  BASE = "http://example.com"

  class PersonSerializer < Wirebind::Serializer
    type "people"
    attribute :first_name, key: "firstName"
    attribute :last_name, key: "lastName"
    attribute :twitter
    link(:self) { |person, ctx| "#{ctx[:base]}/people/#{person.id}" }
  end

  class CommentSerializer < Wirebind::Serializer
    type "comments"
    attribute :body
    one :author, PersonSerializer
    link(:self) { |comment, ctx| "#{ctx[:base]}/comments/#{comment.id}" }
  end

  class ArticleSerializer < Wirebind::Serializer
    type "articles"
    attribute :title
    one :author, PersonSerializer, links: {
      self: ->(article, ctx) { "#{ctx[:base]}/articles/#{article.id}/relationships/author" },
      related: ->(article, ctx) { "#{ctx[:base]}/articles/#{article.id}/author" }
    }
    many :comments, CommentSerializer, links: {
      self: ->(article, ctx) { "#{ctx[:base]}/articles/#{article.id}/relationships/comments" },
      related: ->(article, ctx) { "#{ctx[:base]}/articles/#{article.id}/comments" }
    }
    link(:self) { |article, ctx| "#{ctx[:base]}/articles/#{article.id}" }
  end

  # The specification's example, as it prints it.
  SPECIFICATION = <<~JSON
    {
      "links": {
        "self": "http://example.com/articles",
        "next": "http://example.com/articles?page[offset]=2",
        "last": "http://example.com/articles?page[offset]=10"
      },
      "data": [{
        "type": "articles",
        "id": "1",
        "attributes": {
          "title": "JSON:API paints my bikeshed!"
        },
        "relationships": {
          "author": {
            "links": {
              "self": "http://example.com/articles/1/relationships/author",
              "related": "http://example.com/articles/1/author"
            },
            "data": { "type": "people", "id": "9" }
          },
          "comments": {
            "links": {
              "self": "http://example.com/articles/1/relationships/comments",
              "related": "http://example.com/articles/1/comments"
            },
            "data": [
              { "type": "comments", "id": "5" },
              { "type": "comments", "id": "12" }
            ]
          }
        },
        "links": {
          "self": "http://example.com/articles/1"
        }
      }],
      "included": [{
        "type": "people",
        "id": "9",
        "attributes": {
          "firstName": "Dan",
          "lastName": "Gebhardt",
          "twitter": "dgeb"
        },
        "links": {
          "self": "http://example.com/people/9"
        }
      }, {
        "type": "comments",
        "id": "5",
        "attributes": {
          "body": "First!"
        },
        "relationships": {
          "author": {
            "data": { "type": "people", "id": "2" }
          }
        },
        "links": {
          "self": "http://example.com/comments/5"
        }
      }, {
        "type": "comments",
        "id": "12",
        "attributes": {
          "body": "I like XML better"
        },
        "relationships": {
          "author": {
            "data": { "type": "people", "id": "9" }
          }
        },
        "links": {
          "self": "http://example.com/comments/12"
        }
      }]
    }
  JSON

  def dan
    Person.new(id: "9", first_name: "Dan", last_name: "Gebhardt", twitter: "dgeb")
  end

  def articles
    [Article.new(id: "1", title: "JSON:API paints my bikeshed!", author: dan,
                 comments: [Comment.new(id: "5", body: "First!", author: Person.new(id: "2", first_name: "Other")),
                            Comment.new(id: "12", body: "I like XML better", author: dan)])]
  end

  def document(**options)
    ArticleSerializer.new(
      articles, format: :json_api, context: { base: BASE },
                links: { self: "#{BASE}/articles", next: "#{BASE}/articles?page[offset]=2", prev: nil,
                         last: "#{BASE}/articles?page[offset]=10" }, **options
    ).to_json
  end

  # Member order counts too: the parsed Hashes keep it, and are compared as key lists.
  def ordered(value)
    case value
    when Hash then value.map { |key, member| [key, ordered(member)] }
    when Array then value.map { |item| ordered(item) }
    else value
    end
  end

  def test_the_specifications_compound_document
    expected = ::JSON.parse(SPECIFICATION)
    actual = ::JSON.parse(document(include: "author,comments"))
    assert_equal expected, actual
    assert_equal ordered(expected), ordered(actual)
    # Its bytes are the example's without the whitespace.
    assert_equal ::JSON.generate(expected), document(include: "author,comments")
  end

  def test_include_paths_choose_what_goes_into_included
    ids = ->(json) { ::JSON.parse(json).fetch("included", []).map { |resource| resource.values_at("type", "id").join(":") } }
    assert_equal %w[people:9 comments:5 comments:12 people:2], ids.call(document)
    assert_equal %w[people:9 comments:5 comments:12 people:2], ids.call(document(include: "author,comments.author"))
    assert_equal %w[comments:5 comments:12 people:2 people:9], ids.call(document(include: %w[comments.author]))
    assert_equal %w[people:9], ids.call(document(include: [:author]))
    assert_equal [], ids.call(document(include: []))
    refute_includes document(include: ""), "included"
    # Relationship data is written whatever is included.
    assert_equal({ "type" => "people", "id" => "9" }, ::JSON.parse(document(include: []))["data"][0]["relationships"]["author"]["data"])
  end

  def test_top_level_meta_and_links
    json = ArticleSerializer.new(nil, format: :json_api, meta: { "total" => 0, "copyright" => "Ex" }, links: { self: "/a" }).to_json
    assert_equal '{"meta":{"total":0,"copyright":"Ex"},"links":{"self":"/a"},"data":null}', json
  end

  def test_relationship_links_left_out_when_nil_and_errors_have_paths
    serializer = Class.new(Wirebind::Serializer) do
      type "articles"
      one :author, PersonSerializer, links: { self: ->(_, _) {}, related: ->(article, _) { article.id == "1" ? nil : 5 } }
    end
    json = serializer.new(Article.new(id: "1"), format: :json_api).to_json
    assert_equal '{"data":{"type":"articles","id":"1","relationships":{"author":{"data":null}}}}', json
    error = assert_raises(Wirebind::EncodeError) { serializer.new(Article.new(id: "2"), format: :json_api).to_json }
    assert_equal "author", error.path
  end

  def test_options_are_checked
    assert_raises(ArgumentError) { ArticleSerializer.new(nil, format: :hal, include: "author") }
    assert_raises(ArgumentError) { ArticleSerializer.new(nil, format: :json_api, include: "a..b") }
    assert_raises(ArgumentError) { ArticleSerializer.new(nil, format: :json_api, include: 3) }
    assert_raises(ArgumentError) { ArticleSerializer.new(nil, format: :json_api, meta: [1]) }
    assert_raises(ArgumentError) { ArticleSerializer.new(nil, format: :json_api, links: { "" => "x" }) }
    assert_raises(Wirebind::SchemaError) { Class.new(Wirebind::Serializer) { one :author, PersonSerializer, links: { self: "x" } } }
  end
end
