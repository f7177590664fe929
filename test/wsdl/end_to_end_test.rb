# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # The client generated from JIRA's WSDL calls the demo's JIRA-like service
  # (examples/jira: rpc/encoded with multiRefs, under Puma in a child process).
  class WSDLEndToEndTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    def test_the_generated_jira_client_calls_the_demo_service
      skip "forks a server process" unless Process.respond_to?(:fork)
      require_relative "../../examples/jira/service"
      generated = Module.new
      WSDL.load(shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")).define(generated)
      server = ::Jira::ForkedServer.new(::Jira::Service.new, threads: 2)
      client = generated::Client.new(endpoint: server.url)

      assert_equal "token-bot", client.login(in0: "bot", in1: "secret")
      fault = assert_raises(SOAP::Fault) { client.login(in0: "bot", in1: "wrong") }
      assert_match(/RemoteAuthenticationException/, fault.reason)
      assert_includes generated::Client::FAULT_TYPES, generated::RemoteAuthenticationException

      issues = client.get_issues_from_jql_search(in0: "token-bot", in1: "project = OPS", in2: 25)
      assert_equal 25, issues.size
      issues.each_with_index do |issue, n|
        expected = ::Jira.issue(n)
        assert_instance_of generated::RemoteIssue, issue
        assert_equal [expected.id, expected.key, expected.summary, expected.description, expected.created, expected.votes],
                     [issue.id, issue.key, issue.summary, issue.description, issue.created, issue.votes]
        assert_equal expected.fix_versions.map(&:name), issue.fix_versions.map(&:name)
        assert_equal expected.custom_field_values.map(&:values), issue.custom_field_values.map(&:values)
      end

      streamed = 0
      client.each_get_issues_from_jql_search(in0: "token-bot", in1: "project = OPS", in2: 300) do |issue|
        assert_equal "OPS-#{streamed + 1}", issue.key
        streamed += 1
      end
      assert_equal 300, streamed
    ensure
      client&.close
      server&.stop
    end
  end
end
