# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "../wsdl/wsdl_test_support"
require "wirebind/soap/test_helper"

# The test helper: stubbed operations of hand-built and generated clients,
# canned XML, model responses and faults, and what was sent.
class SOAPStubTest < Minitest::Test
  include SOAPTestModels
  Stub = Wirebind::SOAP::Stub
  NS = "http://soap.rpc.jira.atlassian.com"

  def client(**options)
    Wirebind::SOAP::Client.new(endpoint: "http://127.0.0.1:1/never", namespace: NS, style: :rpc_encoded, **options)
  end

  def test_model_and_value_responses_and_what_was_sent
    jira = client(wsse: { username: "bot", password: "pw" })
    Stub.with(jira) do |stub|
      stub.on(:login, returns: { loginReturn: "tok" })
      stub.on(:getIssue, returns: ->(call) { { getIssueReturn: SOAPTestModels.issue(call.argument(:in1, :integer)) } })
      assert_equal "tok", jira.call(:login, { in0: "bot", in1: "pw" }, returns: :string)
      assert_equal SOAPTestModels.issue(7), jira.call(:getIssue, { in0: "tok", in1: 7 }, returns: RemoteIssue)
      assert_equal %w[login getIssue], stub.calls.map(&:operation)
      login = stub.calls.first
      assert_equal %w[bot pw], [login.argument(:in0), login.argument(:in1)]
      assert_equal "#{NS}/login", login.soap_action
      assert_equal "text/xml; charset=utf-8", login.headers["Content-Type"]
      assert_includes login.body, "<wsse:Username>bot</wsse:Username>"
    end
    # restored: the real transport again (nothing listens on port 1)
    assert_raises(Wirebind::SOAP::ConnectionError) { jira.call(:login, {}, returns: :string) }
  end

  def test_canned_xml_faults_and_unexpected_calls
    jira = client(version: "1.2")
    stub = Stub.new(jira)
    xml = Wirebind::SOAP::Envelope.write(+"", operation: "xResponse", namespace: NS, parts: { r: "canned" }, version: "1.2")
    stub.on(:x, xml: xml)
    stub.on(:y, fault: Wirebind::SOAP::Fault.new(code: "Client", reason: "no such issue"))
    assert_equal "canned", jira.call(:x, {}, returns: :string)
    fault = assert_raises(Wirebind::SOAP::Fault) { jira.call(:y, {}, returns: :string) }
    assert_equal ["no such issue", 500], [fault.reason, fault.http_status]
    error = assert_raises(Stub::UnexpectedCall) { jira.call(:z, {}, returns: :string) }
    assert_match(/"z"/, error.message)
    assert_equal %w[x y z], stub.calls.map(&:operation)
    assert_raises(ArgumentError) { stub.on(:x) }
    stub.restore
    other = client
    assert_instance_of Wirebind::SOAP::Transport::Socket, other.transport # other clients untouched
    assert_instance_of Wirebind::SOAP::Transport::Socket, jira.transport
  end

  def test_a_generated_client
    generated = Module.new
    Wirebind::WSDL.load(shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")).define(generated)
    jira = generated::Client.new(endpoint: "http://127.0.0.1:1/never")
    issue = generated::RemoteIssue.new(key: "OPS-1", summary: "s")
    Stub.with(jira) do |stub|
      stub.on(:getIssue, returns: { getIssueReturn: issue })
      assert_equal issue, jira.get_issue(in0: "tok", in1: "OPS-1")
      assert_equal "OPS-1", stub.calls.last.argument(:in1)
    end
  end
end
