# frozen_string_literal: true

require "test_helper"
require_relative "xmlconf_runner"
require_relative "../support/codec_test_helpers"

# The W3C XML Conformance Test Suite, on the selection a namespace-aware,
# non-validating parser that never reads external entities must pass, Namespaces
# in XML 1.0 tests included (see xmlconf_runner.rb). Prints the score.
class XmlConfTest < Minitest::Test
  def setup
    shared_path("conformance", "xmlconf") # skips, saying why, without ../shared
  end

  def test_w3c_xml_conformance_selection_scores_100_percent
    passed, total, failures = Wirebind::Conformance::XmlConf.run
    puts format("\nW3C XML conformance (%s backend): %d/%d (%.1f%%)", Wirebind.backend, passed, total, 100.0 * passed / total)
    Wirebind::Conformance::XmlConf.skipped.each { |reason| puts "  skipped #{reason}" }
    assert_operator total, :>, 1000, "the selection should hold over a thousand cases"
    assert_empty failures, "failing conformance cases:\n#{failures.first(40).join("\n")}"
  end

  # Every case again, read one to three bytes at a time: the same verdict and the
  # same error (its position aside: a tag read whole and a tag read in pieces are
  # checked at different points). Catches a scan that loses its place when a
  # token (a DOCTYPE above all) is cut across reads.
  def test_selection_gives_the_same_verdicts_read_in_pieces
    different = Wirebind::Conformance::XmlConf.cases.filter_map do |c|
      bytes = File.binread(c.path)
      whole = verdict { Wirebind::XML.check(bytes, dtd: :internal) }
      pieces = verdict { Wirebind::XML.check(Wirebind::CodecTestHelpers::TrickleIO.new(bytes, seed: bytes.size, max: 3), dtd: :internal) }
      "#{c.id}: #{whole} / in pieces: #{pieces}" unless whole == pieces
    end
    assert_empty different, different.first(20).join("\n")
  end

  def test_selection_keeps_every_kind_of_case
    types = Wirebind::Conformance::XmlConf.cases.map(&:type).tally
    assert_operator types.fetch("not-wf"), :>, 600
    assert_operator types.fetch("valid"), :>, 500
    assert_operator types.fetch("invalid"), :>, 40
    refute types.key?("error")
  end

  def test_selection_is_namespace_aware
    ids = Wirebind::Conformance::XmlConf.cases.map(&:id)
    assert_includes ids, "rmt-ns10-013", "Namespaces 1.0 tests (rmt-ns10.xml) are in"
    assert_includes ids, "rmt-ns-e1.0-13c", "Namespaces 1.0 errata tests (errata1e.xml) are in"
    refute_includes ids, "valid-sa-012", "NAMESPACE=\"no\" tests are out"
  end

  private

  def verdict
    yield
    :accepted
  rescue Wirebind::Error => e
    "#{e.class}: #{e.message.sub(/ at line \d+, column \d+\z/, '')}"
  end
end
