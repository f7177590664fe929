# frozen_string_literal: true

require "test_helper"
require "nokogiri"

# Issue 20's two declarations for content that is not one value, on real
# documents (rake fixtures): an element's own text beside its children
# (`"."`), in nokogiri-happymapper's dictionary entry (MIT), and an element's
# whole content kept as XML (`:xml` as `"."`), the XML-DSig Signature inside
# saml2-js's SAML assertion (Apache-2.0). Each against Nokogiri, on both
# backends, and read back after encoding.
class RealMixedContentTest < Minitest::Test
  DICTIONARY = ["nokogiri-happymapper-0.5.9", "spec/fixtures/dictionary.xml"].freeze
  SAML_ASSERTION = ["saml2-js-4.0.4", "test/data/good_assertion.xml"].freeze
  DS = "http://www.w3.org/2000/09/xmldsig#"
  BACKENDS = Wirebind.backend == :native ? %i[pure native] : %i[pure]

  # <dtext>a large common parrot, <bn>Cacatua galerita</bn>, predominantly white, ...</dtext>
  class DefinitionText
    include Wirebind::Model
    attribute :text, :string, xml: "."
    attribute :binomial, :string, xml: "bn"
  end

  class Definition
    include Wirebind::Model
    attribute :id, :integer, xml: "@id"
    attribute :dtext, DefinitionText
  end

  # <var>white <tag>cockatoo</tag></var>
  class Variant
    include Wirebind::Model
    attribute :text, :string, xml: "."
    attribute :tag, :string
  end

  class Entry
    include Wirebind::Model
    xml_root "record"
    attribute :id, :string, xml: "@id"
    attribute :head, :string
    attribute :definition, Definition, xml: "body/chunk/def"
    attribute :variants, [Variant], xml: "body/variants/var"
  end

  class Signature
    include Wirebind::Model
    xml_namespace DS
    attribute :content, :xml, xml: "."
  end

  class SignedAssertion
    include Wirebind::Model
    xml_namespace "urn:oasis:names:tc:SAML:2.0:assertion"
    xml_root "Assertion"
    attribute :issuer, :string, xml: "Issuer"
    attribute :signature, Signature, xml: "{#{DS}}Signature"
  end

  def test_text_beside_children_against_nokogiri
    xml = File.read(fixture_gem_path(*DICTIONARY))
    doc = Nokogiri::XML(xml)
    BACKENDS.each do |backend|
      entry = Wirebind::XML.decode(xml, Entry, at: "dictionary/record", backend: backend)
      dtext = doc.at_xpath("//def/dtext")
      assert_equal dtext.xpath("text()").map(&:text).join, entry.definition.dtext.text, backend.to_s
      assert_match(/\Aa large common parrot, , predominantly white/, entry.definition.dtext.text)
      assert_equal dtext.at_xpath("bn").text, entry.definition.dtext.binomial
      assert_equal Integer(doc.at_xpath("//def/@id").value), entry.definition.id
      vars = doc.xpath("//variants/var")
      assert_equal vars.map { |var| var.xpath("text()").map(&:text).join }, entry.variants.map(&:text), backend.to_s
      assert_equal ["white ", " cockatoo"], entry.variants.map(&:text)
      assert_equal vars.map { |var| var.at_xpath("tag").text }, entry.variants.map(&:tag)
      again = Wirebind::XML.encode(entry, backend: backend)
      assert_equal entry, Wirebind::XML.decode(again, Entry, backend: backend), backend.to_s
    end
  end

  def test_signature_kept_whole_against_nokogiri
    xml = File.read(fixture_gem_path(*SAML_ASSERTION))
    original = Nokogiri::XML(xml).at_xpath("//ds:Signature", "ds" => DS)
    BACKENDS.each do |backend|
      assertion = Wirebind::XML.decode(xml, SignedAssertion, backend: backend)
      assert_equal "http://idp.example.com/metadata.xml", assertion.issuer
      kept = Nokogiri::XML("<wrap>#{assertion.signature.content}</wrap>") { |config| config.strict }
      # The children as exclusive C14N gives them, what a verifier digests.
      assert_equal canonical_children(original), canonical_children(kept.root), backend.to_s
      again = Wirebind::XML.encode(assertion, backend: backend)
      reread = Nokogiri::XML(again).at_xpath("//ds:Signature", "ds" => DS)
      assert_equal canonical_children(original), canonical_children(reread), backend.to_s
      assert_equal assertion, Wirebind::XML.decode(again, SignedAssertion, backend: backend)
    end
  end

  private

  def canonical_children(node)
    node.element_children.map { |child| child.canonicalize(Nokogiri::XML::XML_C14N_EXCLUSIVE_1_0) }
  end
end
