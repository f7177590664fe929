# frozen_string_literal: true

require "test_helper"
require_relative "xmlconf_runner"

# The W3C XML Conformance Test Suite, on the selection a non-validating parser that
# never reads external entities must pass (see xmlconf_runner.rb). Prints the score.
class XmlConfTest < Minitest::Test
  def setup
    shared_path("conformance", "xmlconf") # skips, saying why, without ../shared
  end

  def test_w3c_xml_conformance_selection_scores_100_percent
    passed, total, failures = Wirebind::Conformance::XmlConf.run
    puts format("\nW3C XML conformance (%s backend): %d/%d (%.1f%%)", Wirebind.backend, passed, total, 100.0 * passed / total)
    assert_operator total, :>, 1000, "the selection should hold over a thousand cases"
    assert_empty failures, "failing conformance cases:\n#{failures.first(40).join("\n")}"
  end

  def test_selection_keeps_every_kind_of_case
    types = Wirebind::Conformance::XmlConf.cases.map(&:type).tally
    assert_operator types.fetch("not-wf"), :>, 600
    assert_operator types.fetch("valid"), :>, 500
    assert_operator types.fetch("invalid"), :>, 40
    refute types.key?("error")
  end
end
