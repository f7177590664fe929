# frozen_string_literal: true

require "test_helper"
require "stringio"
require "wirebind/json" # until lib/wirebind.rb requires it

# JSONTestSuite's parsing cases (../shared/conformance/JSONTestSuite), decoded
# as :any: every y_ case accepted, every n_ case rejected with a
# Wirebind::ParseError, every i_ case either accepted or rejected with a
# Wirebind::Error, never another exception. Each case is read from a String
# and from an IO handing out 1 to 3 bytes per read. Prints the scores.
class JSONTestSuiteTest < Minitest::Test
  DIR = File.expand_path("../../../shared/conformance/JSONTestSuite/test_parsing", __dir__)

  # An IO of a few bytes per read, so that every token straddles reads.
  class DripIO
    def initialize(bytes)
      @bytes = bytes
      @pos = 0
    end

    def readpartial(_length)
      raise EOFError if @pos >= @bytes.bytesize

      n = (@pos % 3) + 1
      chunk = @bytes.byteslice(@pos, n)
      @pos += n
      chunk
    end
  end

  def cases(prefix)
    Dir.glob(File.join(DIR, "#{prefix}_*.json")).sort
  end

  # @return [Exception, nil] what decoding raised, for every input form alike
  def outcome(path)
    bytes = File.binread(path)
    results = [bytes, StringIO.new(bytes), DripIO.new(bytes)].map do |input|
      Wirebind::JSON.decode(input, :any)
      nil
    rescue StandardError => e
      e
    end
    classes = results.map { |r| r&.class }.uniq
    flunk "#{File.basename(path)}: the input forms disagree: #{results.inspect}" unless classes.size == 1
    results.first
  end

  def test_json_test_suite_scores_100_percent
    skip "JSONTestSuite is not in ../shared" unless Dir.exist?(DIR)

    y_failures = cases("y").filter_map do |path|
      e = outcome(path)
      "#{File.basename(path)}: #{e.class}: #{e.message}" if e
    end
    n_failures = cases("n").filter_map do |path|
      e = outcome(path)
      "#{File.basename(path)}: #{e ? "#{e.class}: #{e.message}" : 'accepted'}" unless e.is_a?(Wirebind::ParseError)
    end
    i_accepted = 0
    i_failures = cases("i").filter_map do |path|
      e = outcome(path)
      i_accepted += 1 unless e
      "#{File.basename(path)}: #{e.class}: #{e.message}" if e && !e.is_a?(Wirebind::Error)
    end
    y = cases("y").size
    n = cases("n").size
    i = cases("i").size
    backend = Wirebind.backend # the default of every front door
    puts format("\nJSONTestSuite (#{backend} backend): y_ accepted %d/%d, n_ rejected %d/%d, i_ handled %d/%d (%d accepted, %d rejected)",
                y - y_failures.size, y, n - n_failures.size, n, i - i_failures.size, i, i_accepted, i - i_accepted)

    assert_equal 95, y
    assert_equal 188, n
    assert_equal 35, i
    assert_empty y_failures, "y_ cases rejected:\n#{y_failures.join("\n")}"
    assert_empty n_failures, "n_ cases not rejected with a ParseError:\n#{n_failures.join("\n")}"
    assert_empty i_failures, "i_ cases that raised something else than a Wirebind::Error:\n#{i_failures.join("\n")}"
  end
end
