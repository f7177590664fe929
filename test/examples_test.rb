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

  # `rake demo`, smaller: the service under Puma, the client, Savon; the server stopped.
  def test_demo_serves_calls_streams_and_compares_with_savon
    require_ruby_subprocess
    # The demo's service is generated from JIRA's WSDL (examples/jira/models.rb).
    wsdl = shared_path("fixtures", "wsdl", "jirasoapservice-v2.wsdl")
    env = { "DEMO_CALL" => "100", "DEMO_STREAM" => "1000", "JIRA_WSDL" => wsdl }
    output, status = Open3.capture2e(env, RbConfig.ruby, "-W0", File.join(EXAMPLES, "demo.rb"))

    assert status.success?, output
    assert_match(%r{getIssuesFromJqlSearch, 100 issues: \d+ records/s}, output)
    assert_includes output, "equal to what the service generated: yes"
    assert_includes output, "the same multiRef twice is the same object: yes"
    assert_match(%r{each, 1000 issues: \d+ records/s .* all 1000 received}, output)
    assert_match(/peak RSS/, output)
    assert_match(/The same 100-issue call with Savon .* \d+\.\dx Savon's speed/m, output)
    assert_includes output, "server stopped"
  end
end
