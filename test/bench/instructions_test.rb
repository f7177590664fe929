# frozen_string_literal: true

require "test_helper"
require "tempfile"
require_relative "../../bench/instructions"

# The rules of the instruction-count guard (bench/instructions.rb); the
# counting itself runs in CI (.ci/run: rake bench:instructions:check).
class BenchInstructionsTest < Minitest::Test
  BUDGET = { "native/xml_encode" => { "instructions" => 1000, "reason" => "first budget" } }.freeze

  def problems(counts, budget = BUDGET, previous = BUDGET)
    Bench::Instructions.problems(counts, budget, previous)
  end

  def test_a_count_within_five_percent_of_its_budget_passes
    assert_empty problems("native/xml_encode" => 1050)
  end

  def test_a_count_more_than_five_percent_over_its_budget_fails
    wrong = problems("native/xml_encode" => 1051)
    assert_equal 1, wrong.size
    assert_match(%r{native/xml_encode: 1051 instructions per record, \+5\.1% over its budget 1000}, wrong.first)
  end

  def test_a_regression_of_a_quarter_fails
    refute_empty problems("native/xml_encode" => 1250)
  end

  def test_a_row_without_a_budget_fails
    assert_match(%r{pure/xml_encode: 900 .*no budget}, problems("pure/xml_encode" => 900).first)
  end

  def test_a_budget_raised_with_a_new_reason_passes
    raised = { "native/xml_encode" => { "instructions" => 1300, "reason" => "namespaces declared once on the root" } }
    assert_empty problems({ "native/xml_encode" => 1250 }, raised)
  end

  def test_a_budget_raised_without_a_new_reason_fails
    raised = { "native/xml_encode" => { "instructions" => 1300, "reason" => "first budget" } }
    assert_match(/budget raised from 1000 to 1300 without a new reason/, problems({ "native/xml_encode" => 1250 }, raised).first)
  end

  def test_a_budget_without_a_reason_fails
    bare = { "native/xml_encode" => { "instructions" => 1000, "reason" => " " } }
    assert_match(/has no reason/, problems({ "native/xml_encode" => 1000 }, bare, {}).first)
  end

  def test_the_committed_budget_has_a_figure_and_a_reason_per_row
    budget = Bench::Instructions.budget
    assert_operator budget.size, :>=, 14
    budget.each do |row, entry|
      assert_kind_of Integer, entry["instructions"], row
      refute_empty entry["reason"].to_s.strip, row
    end
  end

  def test_a_window_total_is_read_from_callgrind_output
    Tempfile.create("cg.out") do |file|
      file.write("events: Ir\nsummary: 123456\nfn=foo\n1 2\ntotals: 123456\n")
      file.close
      assert_equal 123_456, Bench::Instructions.window_total(file.path)
    end
  end
end
