# frozen_string_literal: true

require_relative "interop_support"

module NodeSoap
  MODULE = File.join(ForeignClientTest::ROOT, "tmp/node/node_modules/soap")

  def self.require_node(test)
    test.require_peer(system("node", "--version", out: File::NULL, err: File::NULL), "node")
    test.require_peer(File.exist?(File.join(MODULE, "package.json")), "Node's soap package in tmp/node (npm install --prefix tmp/node soap@1)")
  end
end

# Node's `soap` package (npm, installed by .ci/run into tmp/node) reads the WSDL
# and calls the service: document/literal, rpc/encoded and rpc/literal (node_client.js).
class NodeSoapInteropTest < Minitest::Test
  include ForeignClientTest
  include PeerServer

  def test_node_soap_calls_document_and_rpc_encoded
    NodeSoap.require_node(self)
    check_foreign_client(["node", File.join(__dir__, "node_client.js"), NodeSoap::MODULE], paths: %w[/document /encoded /rpc])
  end

  # The same over SOAP 1.2 (node_client.js sets forceSoap12Headers for a path
  # ending in 12: node-soap does not take the version from the WSDL's binding).
  def test_node_soap_calls_over_soap12
    NodeSoap.require_node(self)
    check_foreign_client(["node", File.join(__dir__, "node_client.js"), NodeSoap::MODULE], paths: %w[/document12 /encoded12 /rpc12])
  end
end

# Node's soap package as a server (soap.listen, node/server.js) with a WSDL
# written here (node/people.wsdl), called by the client generated from it:
# document/literal with a header, a list, non-ASCII text and a fault, in SOAP 1.1
# and 1.2.
class NodeSoapServerInteropTest < Minitest::Test
  include PeerServer

  def self.url
    @url ||= begin
      port = PeerServer.free_port
      PeerServer.start(["node", File.join(__dir__, "node", "server.js"), NodeSoap::MODULE, port.to_s], port)
      "http://127.0.0.1:#{port}/people"
    end
  end

  def self.generated
    @generated ||= PeerServer.generated(File.join(__dir__, "node", "people.wsdl"))
  end

  def setup
    NodeSoap.require_node(self)
    @generated = self.class.generated
    @client = @generated::Client.new(endpoint: self.class.url, read_timeout: 10)
  end

  def teardown
    @client&.close
  end

  def test_header_list_and_non_ascii_text
    response = @client.people(name: "zoë", count: 2, auth: @generated::AuthHeaderType.new(user: "ann", password: "secret"))
    assert_equal "ann", response.caller
    assert_equal([["zoë 1", 1, "nick ✓1"], ["zoë 2", 2, "nick ✓2"]], response.person.map { |p| [p.name, p.age, p.nickname] })
    assert_equal "stranger", @client.people(name: "x", count: 0).caller
  end

  # node-soap (1.13) writes a null as xsi:nil="true" without declaring the xsi
  # prefix: the response is not namespace-well-formed XML, and wirebind says so
  # (a ParseError naming the prefix and where), never a record with a guess.
  def test_undeclared_xsi_prefix_of_a_nil_is_a_parse_error
    error = assert_raises(Wirebind::ParseError) { @client.people(name: "nil", count: 1) }
    assert_match(/namespace prefix 'xsi' of attribute 'xsi:nil' is not declared at line 1, column \d+/, error.message)
  end

  def test_fault
    fault = assert_raises(Wirebind::SOAP::Fault) { @client.people(name: "nobody", count: 1) }
    assert_equal "soap:Client", fault.code
    assert_equal "no such person: nobody", fault.reason
  end

  # /people12: the same WSDL with a soap12 binding, served with forceSoap12Headers;
  # the client generated from node-soap's ?wsdl speaks SOAP 1.2 (a 1.2 fault has
  # Code/Value, which is where soap:Sender comes from).
  def test_soap12
    generated = PeerServer.generated("#{self.class.url}12?wsdl", fetch: true)
    client = generated::Client.new(endpoint: "#{self.class.url}12", read_timeout: 10)
    response = client.people(name: "zoë", count: 2, auth: generated::AuthHeaderType.new(user: "ann", password: "secret"))
    assert_equal "ann", response.caller
    assert_equal([["zoë 1", 1, "nick ✓1"], ["zoë 2", 2, "nick ✓2"]], response.person.map { |p| [p.name, p.age, p.nickname] })
    fault = assert_raises(Wirebind::SOAP::Fault) { client.people(name: "nobody", count: 1) }
    assert_equal ["soap:Sender", "no such person: nobody"], [fault.code, fault.reason]
  ensure
    client&.close
  end
end
