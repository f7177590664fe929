# frozen_string_literal: true

# A small user program, type-checked against sig/ by `rake steep` (CI): the
# calls a README reader writes, with the options issue 22 found rejected.
require "wirebind"

class Author
  include Wirebind::Model
  attribute :name, :string
end

class Article
  include Wirebind::Model
  attribute :title, :string
  attribute :author, Author
end

class AuthorSerializer < Wirebind::Serializer
  type "author"
  attributes :name
end

class ArticleSerializer < Wirebind::Serializer
  type "article"
  attributes :title
  one :author, AuthorSerializer, links: { related: ->(article, _context) { "/articles/#{article}/author" } }
  link(:self) { |_article, _context| "/articles/1" }
end

articles = [Article.new]
json = ArticleSerializer.new(articles, format: :json_api, include: "author", meta: { "count" => 1 },
                                       links: { self: "/articles" }).to_json
body = Wirebind::Rack::Body.new(ArticleSerializer.new(articles, format: :hal))
_status, _headers, _rack_body = Wirebind::Rack.response(articles, format: :json)
buffer = Wirebind::Buffer.new(16)
buffer.append("ab")
size = buffer.length + json.to_s.size + body.content_type.size
puts size
puts Wirebind.backend
