# frozen_string_literal: true

require_relative "interop_support"
require "tmpdir"
require "fileutils"

# A gSOAP server (Debian's gsoap and libgsoap-dev): soapcpp2 generates the stubs
# and WSDLs from gsoap/interop.h, gcc builds gsoap/server.c, once per run, in a
# temporary directory. Clients generated from gSOAP's own WSDLs call it:
# document/literal with a SOAP header whose type and element names differ
# (AuthHeaderType, AuthHeader), and rpc/encoded; lists, nils, non-ASCII text, a fault.
class GsoapServerInteropTest < Minitest::Test
  include PeerServer

  SOURCES = File.join(__dir__, "gsoap")

  def self.gsoap?
    return @gsoap if defined?(@gsoap)

    @gsoap = %w[soapcpp2 gcc].all? { |tool| system("command -v #{tool} > /dev/null 2>&1") } && File.exist?("/usr/include/stdsoap2.h")
  end

  # [url, directory of the WSDLs], built and started once.
  def self.server
    @server ||= begin
      directory = Dir.mktmpdir("wirebind-gsoap")
      Minitest.after_run { FileUtils.rm_rf(directory) }
      PeerServer.build(["soapcpp2", "-c", "-S", "-L", "-x", "-d", directory, File.join(SOURCES, "interop.h")], chdir: directory)
      PeerServer.build(["gcc", "-O0", "-w", "-I#{directory}", "-o", "server", File.join(SOURCES, "server.c"), "soapC.c", "soapServer.c", "-lgsoap"],
                       chdir: directory)
      port = PeerServer.free_port
      PeerServer.start([File.join(directory, "server"), port.to_s], port)
      ["http://127.0.0.1:#{port}/", directory]
    end
  end

  def generated(service)
    require_peer(self.class.gsoap?, "gSOAP (gsoap, libgsoap-dev) and gcc")
    url, directory = self.class.server
    generated = PeerServer.generated(File.join(directory, "#{service}.wsdl"))
    [generated, generated::Client.new(endpoint: url, read_timeout: 10)]
  end

  # gSOAP reads the header by its element's name: sent as AuthHeaderType, the
  # credentials were never seen ("hello, stranger").
  def test_document_literal_header_under_its_element_name
    generated, client = generated("LiteralService")
    auth = generated::AuthHeaderType.new(user: "ann", password: "secret")
    assert_equal "hello é, ann", client.who_am_i(greeting: "hello é", auth_header: auth)
    assert_equal "hello, stranger", client.who_am_i(greeting: "hello")
  ensure
    client&.close
  end

  # A list of records; gSOAP (SOAP_XML_NIL) writes each NULL nickname as xsi:nil.
  def test_document_literal_list_with_nils
    _, client = generated("LiteralService")
    people = client.people(name: "zoë", count: 3)
    assert_equal([["zoë 1", 1, nil], ["zoë 2", 2, "nick ✓"], ["zoë 3", 3, nil]], people.map { |p| [p.name, p.age, p.nickname] })
    fault = assert_raises(Wirebind::SOAP::Fault) { client.people(name: "x", count: 101) }
    assert_equal ["SOAP-ENV:Client", "count out of range"], [fault.code, fault.reason]
  ensure
    client&.close
  end

  def test_rpc_encoded
    _, client = generated("EncodedService")
    assert_equal 5, client.add(a: 2, b: 3)
    people = client.people(name: "zoë", count: 3).item
    assert_equal([["zoë 1", 1, nil], ["zoë 2", 2, "nick ✓"], ["zoë 3", 3, nil]], people.map { |p| [p.name, p.age, p.nickname] })
    assert_equal [], client.people(name: "x", count: 0).item
    fault = assert_raises(Wirebind::SOAP::Fault) { client.refuse(reason: "not today, é") }
    assert_equal ["SOAP-ENV:Client", "not today, é"], [fault.code, fault.reason]
  ensure
    client&.close
  end
end
