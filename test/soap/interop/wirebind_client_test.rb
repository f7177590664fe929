# frozen_string_literal: true

require_relative "interop_support"

# wirebind's own client against the service under Puma: the two halves agree in
# every style, in SOAP 1.1 and 1.2, streaming included.
class WirebindClientInteropTest < Minitest::Test
  class BothVersions < Wirebind::SOAP::Service
    style :document
    version :both
    Interop.define_operations(self)
  end

  def client(server, path, **options)
    Wirebind::SOAP::Client.new(endpoint: "#{server.url}#{path}", namespace: Interop::NS, read_timeout: 10, **options)
  end

  def check(client)
    assert_equal "token-ann", client.call(:login, { user: "ann", password: "secret" }, returns: :string)
    issues = client.call(:getIssues, { token: "t", jql: "x", max: 3 }, returns: [Interop::Issue])
    assert_equal (1..3).map { |n| Interop.issue(n) }, issues
    streamed = []
    assert_equal 300, client.each(:getIssues, { token: "t", jql: "x", max: 300 }, returns: Interop::Issue) { |issue| streamed << issue.key }
    assert_equal (1..300).map { |n| "OPS-#{n}" }, streamed
    created = client.call(:createIssue, { token: "t", issue: Interop.issue(9) }, returns: Interop::Issue)
    assert_equal Interop.issue(9).tap { |issue| issue.key = "NEW-1" }, created
    fault = assert_raises(Wirebind::SOAP::Fault) { client.call(:login, { user: "bob", password: "no" }, returns: :string) }
    assert_equal 500, fault.http_status unless fault.code.end_with?("Sender")
    assert_equal "bad password for bob", fault.reason
    received = Interop.received
    assert_equal [:login, "ann", "secret"], received.first
    assert_equal [:createIssue, "t", Interop.issue(9)], received[-2]
    fault
  end

  def test_document_and_rpc_encoded
    Interop.received
    Interop::Server.open(Interop::APP) do |server|
      assert_equal "soapenv:Client", check(client(server, "/document")).code
      assert_equal "soapenv:Client", check(client(server, "/encoded", style: :rpc_encoded)).code
    end
  end

  def test_soap12
    Interop.received
    Interop::Server.open(BothVersions.new) do |server|
      fault = check(client(server, "/", version: "1.2"))
      assert_equal "soapenv:Sender", fault.code
      assert_equal 400, fault.http_status
      assert_equal "soapenv:Client", check(client(server, "/")).code
    end
  end
end
