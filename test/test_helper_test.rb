# frozen_string_literal: true

require "test_helper"

# The suite's own footing (test/test_helper.rb): a warning fails the run, a test
# that asserts nothing fails, and a test that needs ../shared skips, saying what
# is missing, where it is absent.
class TestHelperTest < Minitest::Test
  def test_a_warning_raises_past_any_rescue_of_standard_errors
    Wirebind::TestWarnings.expected do
      error = assert_raises(Wirebind::TestWarnings::Raised) do
        warn "a warning"
      rescue StandardError
        flunk "a StandardError rescue caught the warning"
      end
      assert_match(/warning raised as an error: a warning/, error.message)
    end
  end

  def test_a_test_that_asserts_nothing_fails
    silent = Class.new(Minitest::Test) do
      def test_nothing; end

      def test_something
        assert true
      end
    end
    Minitest::Runnable.runnables.delete(silent) # run here only, not by the suite
    assert_equal(["asserted nothing"], silent.new(:test_nothing).run.failures.map { |f| f.message[/asserted nothing/] })
    assert_empty silent.new(:test_something).run.failures
  end

  def test_shared_data_that_is_absent_skips_naming_it
    skip_reason = assert_raises(Minitest::Skip) { shared_path("no-such-suite", "cases.xml") }.message
    shown = Wirebind::TestSupport::SHARED_SHOWN # "../shared", unless WIREBIND_SHARED moves it
    if Dir.exist?(Wirebind::TestSupport::SHARED)
      assert_equal "#{shown}/no-such-suite/cases.xml is absent from the shared test data", skip_reason
    else
      assert_equal "#{shown} is absent (the project's shared test data, beside the checkout)", skip_reason
    end
  end
end
