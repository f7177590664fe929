# frozen_string_literal: true

require_relative "xml_test_support"
require_relative "../support/gc_stress"

# References (multiRefs) and xsi:type subclasses in the native codecs under
# GC.stress and compaction, checked against the pure backend's answer.
# Slow: `rake test:gc_stress` runs it (WIREBIND_GC_STRESS=1).
class XMLReferencesGCStressTest < Minitest::Test
  include XMLTestHelpers

  class Version
    include Wirebind::Model
    xml_type "V", namespace: "urn:v"
    attribute :name, :string
  end

  class SpecialVersion < Version
    xml_type "W", namespace: "urn:v"
    attribute :extra, :integer
  end

  class Issue
    include Wirebind::Model
    attribute :key, :string
    attribute :votes, :integer
    attribute :versions, [Version], xml: "versions/*"
    attribute :fix, Version
  end

  include Wirebind::GCStress

  def setup
    require_gc_stress
  end

  def document
    long = "k" * 100
    %(<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ) +
      %(xmlns:v="urn:v"><e:Body><r><return>) + (0...4).map { |i| %(<item href="#i#{i}"/>) }.join + "</return></r>" +
      (0...4).map do |i|
        %(<multiRef id="i#{i}"><key>#{long}#{i}</key><votes href="#n#{i}"/><versions><item href="#v"/>) +
          %(<item xsi:type="v:W"><extra>3</extra></item></versions><fix href="#v"/></multiRef>) +
          %(<multiRef id="n#{i}" xsi:type="xsd:long">#{i}</multiRef>)
      end.join + %(<multiRef id="v" xsi:type="v:W"><name>#{long}</name><extra>1</extra></multiRef></e:Body></e:Envelope>)
  end

  def test_references_and_subtypes_under_gc_stress_and_compaction
    xml = document
    expected = XML.decode(xml, [Issue], at: "Envelope/Body/r/return/*", references: true, backend: :pure)
    encoded_expected = XML.encode(expected.first, backend: :pure)
    streamed = []
    decoded, encoded = stressed do
      decoded = XML.decode(xml, [Issue], at: "Envelope/Body/r/return/*", references: true)
      XML.each(xml, Issue, at: "Envelope/Body/r/return/*", references: true) { |issue| streamed << issue }
      [decoded, XML.encode(expected.first)]
    end
    assert_equal expected, decoded
    assert_equal expected, streamed
    assert_equal encoded_expected, encoded
    GC.verify_compaction_references(double_heap: true, toward: :empty) if GC.respond_to?(:verify_compaction_references)
    assert_equal expected, XML.decode(xml, [Issue], at: "Envelope/Body/r/return/*", references: true)
  end

  class Lists
    include Wirebind::Model
    attribute :fix, Version
    attribute :again, Version
    attribute :votes, [:integer], xml: "votes/*"
    attribute :more, [:integer], xml: "more/*"
  end

  # PHP's ids inside the body (the id String kept in the values stack) and
  # SOAP::Lite's shared arrays (a list referent's class made on first use).
  def test_ids_inside_the_body_and_shared_arrays_under_gc_stress_and_compaction
    long = "k" * 100
    xml = %(<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><r>) +
          (0...4).map do |i|
            %(<return><again href="#f#{i}"/><fix id="f#{i}"><name>#{long}#{i}</name></fix><votes href="#a"/><more href="#a"/></return>)
          end.join + %(</r><Array id="a"><item>1</item><item>2</item></Array></e:Body></e:Envelope>)
    expected = XML.decode(xml, [Lists], at: "Envelope/Body/r/return", references: true, backend: :pure)
    assert_equal [[1, 2], "#{long}3"], [expected.last.more, expected.last.again.name]
    decoded = stressed { XML.decode(xml, [Lists], at: "Envelope/Body/r/return", references: true) }
    assert_equal expected, decoded
    GC.verify_compaction_references(double_heap: true, toward: :empty) if GC.respond_to?(:verify_compaction_references)
    assert_equal expected, XML.decode(xml, [Lists], at: "Envelope/Body/r/return", references: true)
  end

  class Texts
    include Wirebind::Model
    attribute :texts, [:string], xml: "t"
  end

  # Split text under an instance xsi:type (its [local, uri] Strings kept in the
  # values stack until the text's end).
  def test_split_text_under_an_instance_xsi_type_under_gc_stress
    xml = %(<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">) +
          (%(<t xsi:type="xsd:base64Binary">R3LD<![CDATA[vMOf]]>ZSwgYW5u</t>) * 6) + "</r>"
    expected = XML.decode(xml, Texts, backend: :pure)
    assert_equal ["Grüße, ann"] * 6, expected.texts
    assert_equal(expected, stressed { XML.decode(xml, Texts) })
    GC.verify_compaction_references(double_heap: true, toward: :empty) if GC.respond_to?(:verify_compaction_references)
    assert_equal expected, XML.decode(xml, Texts)
  end
end
