# frozen_string_literal: true

require "test_helper"
require_relative "xml_test_support"
require_relative "../support/backend_differential"

# The native tokenizer's fast paths for tags (issue 21) against the reference:
# names scanned inline while they are ASCII (anything else goes the whole way),
# prefixes resolved from a memo kept while no namespace binding comes or goes,
# and a leaf's xsi:type recognised by its bytes under the same bindings.
class NativeTagPathsTest < Minitest::Test
  include XMLTestHelpers
  include Wirebind::BackendDifferential

  XSI = "http://www.w3.org/2001/XMLSchema-instance"
  XSD = "http://www.w3.org/2001/XMLSchema"

  # Leaves whose xsi:type prefix means another namespace from place to place.
  class Typed
    include Wirebind::Model
    xml_root "r"
    attribute :first, :string, xml: "a/s"
    attribute :second, :string, xml: "b/s"
    attribute :more, [:string], xml: "c/s"
  end

  # Attributes by name, one of them by namespace too.
  class Tagged
    include Wirebind::Model
    xml_root "t"
    attribute :id, :integer, xml: "@id"
    attribute :code, :string, xml: "@code"
    attribute :other_code, :string, xml: "@{urn:o}code"
    attribute :name, :string, xml: "@name"
  end

  def setup
    require_native_backend
  end

  # The decoder tries, for the i-th attribute of a tag, the entry the i-th of
  # the last tag matched: tags that order, prefix or leave out their
  # attributes otherwise from one to the next still read every value.
  def test_attributes_in_any_order_and_namespace_read_alike
    random = Random.new(random_seed)
    attributes = ["id='1'", "code='c'", "o:code='oc'", "name='n'", "extra='x'", "p:code='pc'"]
    tags = Array.new(60) do
      "<t xmlns:o='urn:o' xmlns:p='urn:p' #{attributes.sample(random.rand(0..6), random: random).join(' ')}/>"
    end
    xml = "<list>#{tags.join}</list>"
    agree_everywhere(xml, "shuffled attributes", seeds: [3]) { |input, backend| XML.decode(input, [Tagged], at: "list/t", backend: backend) }
    first, second = XML.decode("<l xmlns:o='urn:o'><t code='c' o:code='oc'/><t o:code='x' code='y'/></l>", [Tagged], at: "l/t",
                                                                                                                     backend: :native)
    assert_equal [%w[c oc], %w[y x]], [[first.code, first.other_code], [second.code, second.other_code]]
  end

  # "t:base64Binary" on a :string is base64 text where t is XML Schema's prefix,
  # the text as it is anywhere else: the same bytes, read under other bindings,
  # must not reuse what was found under the first ones.
  def test_a_rebound_prefix_changes_what_the_same_xsi_type_means
    other = "xmlns:t='urn:other'"
    schema = "xmlns:t='#{XSD}'"
    documents = {
      "sibling scopes" => ["<a #{other}><s xsi:type='t:base64Binary'>aGk=</s></a>",
                           "<b #{schema}><s xsi:type='t:base64Binary'>aGk=</s></b>"],
      "on the leaves" => ["<a><s #{other} xsi:type='t:base64Binary'>aGk=</s></a>",
                          "<b><s #{schema} xsi:type='t:base64Binary'>aGk=</s></b>"],
      "schema first" => ["<b><s #{schema} xsi:type='t:base64Binary'>aGk=</s></b>",
                         "<a><s #{other} xsi:type='t:base64Binary'>aGk=</s></a>"]
    }
    documents.each do |label, parts|
      xml = "<r xmlns:xsi='#{XSI}'>#{parts.join}<c>#{leaves_alternating(other, schema)}</c></r>"
      agree_everywhere(xml, label, seeds: [1, 2]) { |input, backend| XML.decode(input, Typed, backend: backend) }
      decoded = XML.decode(xml, Typed, backend: :native)
      assert_equal ["aGk=", "hi"], [decoded.first, decoded.second], label
      assert_equal ["aGk=", "hi"] * 3, decoded.more, label
    end
  end

  # Names of every mix of ASCII and other name characters, colons and bytes
  # that end a name, at every place in a tag: both tokenizers say the same of
  # each (well-formed or the same error at the same place), whole and trickled.
  # (Whole and trickled are not compared with each other: the reference itself
  # places some errors in a tag with a non-ASCII name elsewhere when the tag
  # arrives in pieces, e.g. an undeclared prefix of <Z:q中b>.)
  def test_names_of_every_kind_read_alike
    random = Random.new(random_seed)
    pieces = %w[a b Z _ x1 - . 9 é · 中 ̀ : p: :q ab:cd a:b:c] + ["\u{10000}", " ", "=", "/"]
    120.times do |i|
      names = Array.new(3) { Array.new(random.rand(1..4)) { pieces.sample(random: random) }.join }
      element, attribute, child = names
      xml = "<#{element} xmlns:p='urn:p' xmlns:ab='urn:ab' #{attribute}='1'><#{child}>t</#{child}><#{child}/></#{element}>"
      agree(xml, "names ##{i}: #{names.inspect}") { |input, backend| XML.check(input, backend: backend) }
      agree(-> { TrickleIO.new(xml, seed: i) }, "names ##{i}: #{names.inspect} (trickled)") do |input, backend|
        XML.check(input, backend: backend)
      end
    end
  end

  def test_non_ascii_names_read_the_whole_way
    ["<ré a='1'>t</ré>", "<a·b>t</a·b>", "<p:中 xmlns:p='urn:p' p:é='1'>t</p:中>", "<a><b\u0300>t</b\u0300></a>"].each do |xml|
      assert_equal [:ok], agree(xml, xml) { |input, backend| XML.check(input, backend: backend) && nil }.first(1), xml
    end
    ["<a·>t</a>", "<·a/>", "<a:b:c/>", "<r><a:b:c>t</a:b:c></r>"].each do |xml|
      assert_equal :error, agree(xml, xml) { |input, backend| XML.check(input, backend: backend) }.first, xml
    end
  end

  private

  def leaves_alternating(other, schema)
    Array.new(6) { |i| "<s #{i.even? ? other : schema} xsi:type='t:base64Binary'>aGk=</s>" }.join
  end
end
