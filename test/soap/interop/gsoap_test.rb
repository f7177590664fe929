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

  # [url, directory of the WSDLs], built and started once per SOAP version
  # (soapcpp2 -2: SOAP 1.2 namespaces and soap12 bindings in the WSDLs).
  def self.server(version = "1.1")
    (@servers ||= {})[version] ||= begin
      directory = Dir.mktmpdir("wirebind-gsoap")
      Minitest.after_run { FileUtils.rm_rf(directory) }
      PeerServer.build(["soapcpp2", *("-2" if version == "1.2"), "-c", "-S", "-L", "-x", "-d", directory, File.join(SOURCES, "interop.h")],
                       chdir: directory)
      PeerServer.build(["gcc", "-O0", "-w", "-I#{directory}", "-o", "server", File.join(SOURCES, "server.c"), "soapC.c", "soapServer.c", "-lgsoap"],
                       chdir: directory)
      port = PeerServer.free_port
      PeerServer.start([File.join(directory, "server"), port.to_s], port)
      ["http://127.0.0.1:#{port}/", directory]
    end
  end

  def generated(service, version = "1.1")
    require_peer(self.class.gsoap?, "gSOAP (gsoap, libgsoap-dev) and gcc")
    url, directory = self.class.server(version)
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
    generated, client = generated("EncodedService")
    assert_equal 5, client.add(a: 2, b: 3)
    people = client.people(name: "zoë", count: 3).item
    assert_equal([["zoë 1", 1, nil], ["zoë 2", 2, "nick ✓"], ["zoë 3", 3, nil]], people.map { |p| [p.name, p.age, p.nickname] })
    assert_equal [], client.people(name: "x", count: 0).item
    fault = assert_raises(Wirebind::SOAP::Fault) { client.refuse(reason: "not today, é") }
    assert_equal ["SOAP-ENV:Client", "not today, é"], [fault.code, fault.reason]
    assert_equal 6, client.ages(people: [generated::Person.new(name: "a", age: 1), generated::Person.new(name: "b", age: 5)])
  ensure
    client&.close
  end

  # The server built with soapcpp2 -2, from its soap12 WSDLs: rpc/encoded over
  # SOAP 1.2 with lists both ways (gSOAP writes enc:itemType/enc:arraySize), a 1.2
  # fault (gSOAP writes 1.1's fields as xsi:nil before Code and Reason: the fault
  # had no code and no reason), and document/literal with the header.
  def test_soap12
    generated, client = generated("EncodedService", "1.2")
    assert_equal 5, client.add(a: 2, b: 3)
    people = client.people(name: "zoë", count: 3).item
    assert_equal([["zoë 1", 1, nil], ["zoë 2", 2, "nick ✓"], ["zoë 3", 3, nil]], people.map { |p| [p.name, p.age, p.nickname] })
    assert_equal 6, client.ages(people: [generated::Person.new(name: "a", age: 1), generated::Person.new(name: "b", age: 5)])
    fault = assert_raises(Wirebind::SOAP::Fault) { client.refuse(reason: "not today, é") }
    assert_equal ["SOAP-ENV:Sender", "not today, é"], [fault.code, fault.reason]
    client.close
    generated, client = generated("LiteralService", "1.2")
    assert_equal "hello é, ann", client.who_am_i(greeting: "hello é", auth_header: generated::AuthHeaderType.new(user: "ann", password: "secret"))
  ensure
    client&.close
  end
end
