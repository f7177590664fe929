# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"

# The examples are documentation: they must keep running and saying what they say.
class ExamplesTest < Minitest::Test
  EXAMPLES = File.expand_path("../examples", __dir__)

  def test_soap_to_hypermedia_reads_serves_and_round_trips
    require_ruby_subprocess
    output, status = Open3.capture2e(RbConfig.ruby, "-W0", File.join(EXAMPLES, "soap_to_hypermedia.rb"))

    assert status.success?, output
    assert_includes output, '"_links":{"self":{"href":"/issues/WB-1"}}'
    assert_includes output, '"included":[{"type":"version","id":"10"'
    assert_includes output, "round trip equal: true"
  end
end
