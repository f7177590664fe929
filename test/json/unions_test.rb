# frozen_string_literal: true

require_relative "json_test_support"

# JSON unions (issue 13, item 10): the shapes real APIs write where a schema
# has one. A HAL rel is a link object or an array of them (one_or_many), a
# JSON:API link a string or an object (string_as), and money often comes as
# "-58.17" (lenient_numbers). Each reads both shapes, on whichever backend
# runs the suite, and anything else is a DecodeError saying what was expected.
class JSONUnionsTest < Minitest::Test
  include JSONTestHelpers

  class Link
    include Wirebind::Model
    attribute :href, :string
    attribute :title, :string
    attribute :templated, :boolean
  end

  # A string_as target with a closed enum: the string is taken whole, unchecked.
  class Status
    include Wirebind::Model
    attribute :code, :string, enum: %w[open closed]
    attribute :note, :string, enum: %w[a b], open_enum: true
  end

  class HalLinks
    include Wirebind::Model
    attribute :self_link, Link, json: "self"
    attribute :items, [Link], json: "item", one_or_many: true
    attribute :curies, [Link], one_or_many: true
  end

  class HalOrder
    include Wirebind::Model
    attribute :links, HalLinks, json: "_links"
    attribute :total, :float
    attribute :currency, :string
  end

  class ApiLinks
    include Wirebind::Model
    attribute :self_link, Link, json: "self", string_as: :href
    attribute :related, Link, string_as: :href
    attribute :alternates, [Link], string_as: :href, one_or_many: true
  end

  class Money
    include Wirebind::Model
    attribute :amount, :decimal, lenient_numbers: true
    attribute :rate, :float, lenient_numbers: true
    attribute :quantity, :integer, lenient_numbers: true
    attribute :history, [:decimal], lenient_numbers: true
    attribute :counts, [:integer], lenient_numbers: true, one_or_many: true
    attribute :strict_count, :integer
  end

  class LenientModel
    include Wirebind::Model
    json_numbers :lenient
    attribute :amount, :decimal
    attribute :count, :integer
    attribute :name, :string
  end

  def test_a_hal_rel_is_one_link_or_an_array_of_them
    one = decode_everywhere(<<~JSON, HalOrder)
      {"_links": {"self": {"href": "/orders/523"}, "item": {"href": "/items/1", "title": "One"},
                  "curies": {"href": "/docs/{rel}", "templated": true}}, "total": 30.0, "currency": "USD"}
    JSON
    assert_equal [Link.new(href: "/items/1", title: "One")], one.links.items
    assert_equal [Link.new(href: "/docs/{rel}", templated: true)], one.links.curies

    many = decode_everywhere('{"_links": {"item": [{"href": "/items/1"}, {"href": "/items/2"}], "curies": []}}', HalOrder)
    assert_equal %w[/items/1 /items/2], many.links.items.map(&:href)
    assert_equal [], many.links.curies
    assert_equal [], decode_everywhere('{"_links": {"item": null}}', HalOrder).links.items
  end

  def test_one_or_many_reads_single_scalars_too
    klass = Class.new do
      include Wirebind::Model
      attribute :tags, [:string], one_or_many: true
      attribute :counts, [:integer], one_or_many: true
    end
    value = decode_everywhere('{"tags": "solo", "counts": 3}', klass)
    assert_equal ["solo"], value.tags
    assert_equal [3], value.counts
    assert_equal %w[a b], decode_everywhere('{"tags": ["a", "b"]}', klass).tags
    assert_equal ["esc\naped"], decode_everywhere('{"tags": "esc\\naped"}', klass).tags
  end

  def test_a_json_api_link_is_a_string_or_an_object
    links = decode_everywhere(<<~JSON, ApiLinks)
      {"self": "http://example.com/articles/1/relationships/author",
       "related": {"href": "http://example.com/articles/1/author", "title": "Author"},
       "alternates": "/a\\u00e9"}
    JSON
    assert_equal Link.new(href: "http://example.com/articles/1/relationships/author"), links.self_link
    assert_equal Link.new(href: "http://example.com/articles/1/author", title: "Author"), links.related
    assert_equal [Link.new(href: "/aé")], links.alternates

    list = decode_everywhere('{"alternates": ["/a", {"href": "/b"}, null]}', ApiLinks)
    assert_equal [Link.new(href: "/a"), Link.new(href: "/b"), nil], list.alternates
  end

  def test_numbers_written_as_strings
    money = decode_everywhere(<<~JSON, Money)
      {"amount": "-58.17", "rate": "1.5e2", "quantity": "12", "history": ["1.10", 2, "-0.5"], "strict_count": 4}
    JSON
    assert_equal BigDecimal("-58.17"), money.amount
    assert_equal 150.0, money.rate
    assert_equal 12, money.quantity
    assert_equal [BigDecimal("1.10"), BigDecimal("2"), BigDecimal("-0.5")], money.history
    native_numbers = decode_everywhere('{"amount": -58.17, "quantity": 12}', Money)
    assert_equal [BigDecimal("-58.17"), 12], [native_numbers.amount, native_numbers.quantity]
    assert_equal([BigDecimal("1"), 2, "x"], decode_everywhere('{"amount": "1", "count": "2", "name": "x"}', LenientModel).then do
      [_1.amount, _1.count, _1.name]
    end)
  end

  # Whatever two pieces the input arrives in, a list's strings are read as
  # numbers (the pure backend refused them when a piece ended just before a '[').
  def test_numbers_written_as_strings_in_a_list_cut_anywhere
    json = '{"counts":["1", 2],"history": ["1.10"]}'
    (1...json.bytesize).each do |cut|
      pieces = [json.byteslice(0, cut), json.byteslice(cut..)]
      reader = Object.new
      reader.define_singleton_method(:readpartial) { |_length, _buffer = nil| pieces.shift or raise EOFError }
      money = JSON.decode(reader, Money)

      assert_equal [[1, 2], [BigDecimal("1.10")]], [money.counts, money.history], "cut at byte #{cut}"
    end
  end

  def test_what_does_not_fit_is_a_decode_error_saying_what_was_expected
    cases = {
      ['{"amount": "12 "}', Money] => ['expected a number or a string holding one, got the string "12 "', "amount"],
      ['{"amount": "ten"}', Money] => ['expected a number or a string holding one, got the string "ten"', "amount"],
      ['{"quantity": "1.5"}', Money] => ["expected an integer, got 1.5", "quantity"],
      ['{"quantity": true}', Money] => ["expected an integer or a string holding one, got true", "quantity"],
      ['{"history": [1, "x"]}', Money] => ['expected a number or a string holding one, got the string "x"', "history[1]"],
      ['{"strict_count": "4"}', Money] => ['expected an integer, got the string "4"', "strict_count"],
      ['{"rate": "1e400"}', Money] => ["the number 1e400 is beyond the range of a double", "rate"],
      ['{"_links": {"item": "/x"}}', HalOrder] => ['expected an array (of Link object items) or a Link object, got the string "/x"', "_links.item"],
      ['{"_links": {"item": 1}}', HalOrder] => ["expected an array (of Link object items) or a Link object, got the number 1", "_links.item"],
      ['{"_links": {"self": "/x"}}', HalOrder] => ['expected a Link object, got the string "/x"', "_links.self"],
      ['{"_links": {"item": {"href": 1}}}', HalOrder] => ["expected a string, got the number 1", "_links.item.href"],
      ['{"_links": {"item": [{}, {"href": 1}]}}', HalOrder] => ["expected a string, got the number 1", "_links.item[1].href"],
      ['{"self": 1}', ApiLinks] => ["expected a Link object or a string, got the number 1", "self"],
      ['{"alternates": true}', ApiLinks] => ["expected an array (of Link object or a string items) or a Link object or a string, got true", "alternates"]
    }
    cases.each do |(json, type), (message, path)|
      error = assert_raises_everywhere(Wirebind::DecodeError, json) { |input| JSON.decode(input, type) }
      assert_equal path, error.path, json
      assert error.message.gsub("JSONUnionsTest::", "").start_with?(message), "#{json}: #{error.message}"
    end
  end

  def test_top_level_values_take_no_unions
    error = assert_raises(Wirebind::DecodeError) { JSON.decode('[{"href": "/a"}, "/b"]', [Link]) }
    assert_match(%r{expected a JSONUnionsTest::Link object, got the string "/b"}, error.message)
    assert_raises(Wirebind::DecodeError) { JSON.decode('"/b"', Link) }
    assert_raises(Wirebind::DecodeError) { JSON.decode('{"href": "/b"}', [Link]) }
  end

  def test_a_number_string_longer_than_max_number_length_is_a_limit_error
    error = assert_raises(Wirebind::LimitError) { JSON.decode(%({"amount": "#{'1' * 50}"}), Money, max_number_length: 40) }
    assert_match(/longer than max_number_length \(40 characters\)/, error.message)
    assert_equal 12, error.column
  end

  def test_encoding_writes_the_types_own_shape_and_reads_back
    order = HalOrder.new(links: HalLinks.new(items: [Link.new(href: "/i")]), total: 1.5)
    assert_equal '{"_links":{"self":null,"item":[{"href":"/i","title":null,"templated":null}],"curies":[]},' \
                 '"total":1.5,"currency":null}', JSON.encode(order)
    assert_equal order, JSON.decode(JSON.encode(order), HalOrder)
    money = Money.new(amount: BigDecimal("-58.17"), history: [BigDecimal("1")])
    assert_equal money, JSON.decode(JSON.encode(money), Money)
    assert_match(/"amount":-58.17/, JSON.encode(money))
  end

  def test_declarations_that_do_not_fit_the_type_are_schema_errors
    [
      [[:string], { one_or_many: :yes }, /one_or_many: must be true or false/],
      [:string, { one_or_many: true }, /one_or_many: applies to a list type/],
      [:string, { string_as: :href }, /string_as: applies to a model type/],
      [Link, { string_as: :templated }, /string_as: must name a :string attribute of .*Link, not :templated/],
      [Link, { string_as: :nope }, /string_as: must name a :string attribute/],
      [Status, { string_as: :code }, /string_as: :code of .*Status has a closed enum:.*open_enum: true/],
      [:string, { lenient_numbers: true }, /lenient_numbers: applies to :integer, :float and :decimal/],
      [:integer, { lenient_numbers: 1 }, /lenient_numbers: must be true, :string or false/]
    ].each do |type, options, message|
      error = assert_raises(Wirebind::SchemaError, options.inspect) do
        Class.new do
          include Wirebind::Model
          attribute :value, type, **options
        end
      end
      assert_match message, error.message
    end
    assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model; json_numbers :loose } }
    open = Class.new do
      include Wirebind::Model
      attribute :status, Status, string_as: :note
    end
    assert_equal "z", JSON.decode('{"status":"z"}', open).status.note
  end
end
