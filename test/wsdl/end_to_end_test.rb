# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # The client generated from JIRA's WSDL calls the demo's JIRA-like service
  # (examples/jira: its models generated from the same WSDL, rpc/encoded with
  # Axis-style multiRefs, under Puma in a child process on 127.0.0.1).
  class WSDLEndToEndTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    def setup
      skip "forks a server process" unless Process.respond_to?(:fork)
      # JIRA's own WSDL, not the demo's small one (examples/jira/jira.wsdl).
      ENV["JIRA_WSDL"] ||= shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")
      require_relative "../../examples/jira/service"
    end

    # What `rake demo` does: the generated client and the service on the same generated models.
    def test_the_demo_client_calls_the_demo_service
      assert_same ::Jira::JirasoapserviceV2Client, ::Jira::Client
      assert_operator ::Jira::Client, :<, SOAP::Client
      server = ::Jira::ForkedServer.new(::Jira::Service.new, threads: 2)
      client = ::Jira::Client.new(endpoint: server.url)

      token = client.login(in0: "demo", in1: "secret")
      assert_equal "token-demo", token
      issues = client.get_issues_from_jql_search(in0: token, in1: "project = OPS ORDER BY created", in2: 40)
      assert_equal Array.new(40) { |n| ::Jira.issue(n) }, issues
      assert(issues.all?(::Jira::RemoteIssue))
      assert_same issues[0].fix_versions[1], issues[4].fix_versions[1], "one multiRef, one object"
      assert_nil issues[0].resolution

      votes = []
      client.each_get_issues_from_jql_search(in0: token, in1: "project = OPS", in2: 250) { |issue| votes << issue.votes }
      assert_equal Array.new(250) { |n| n % 11 }, votes
    ensure
      client&.close
      server&.stop
    end

    # A client generated on its own (no class shared with the service) reads the same records.
    def test_a_separately_generated_client_calls_the_demo_service
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
        assert_equal expected.to_h, issue.to_h
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
