# frozen_string_literal: true

require_relative "interop_support"

# A spyne service (Debian's python3-spyne, python/spyne_server.py) called by the
# client wirebind generates from spyne's own WSDL: document/literal wrapped,
# SOAP 1.1 and 1.2, with a header, a list, nils both ways, non-ASCII text and a fault.
class SpyneServerInteropTest < Minitest::Test
  include PeerServer

  PYTHON = "/usr/bin/python3"
  VERSIONS = %w[soap11 soap12].freeze

  def self.spyne?
    return @spyne if defined?(@spyne)

    @spyne = (File.executable?(PYTHON) && system(PYTHON, "-c", "import spyne", out: File::NULL, err: File::NULL)) || false
  end

  # Each version's generated module, from the running service's ?wsdl (started and read once).
  def self.generated
    @generated ||= begin
      port = PeerServer.free_port
      PeerServer.start([PYTHON, File.join(__dir__, "python", "spyne_server.py"), port.to_s], port)
      VERSIONS.to_h { |version| [version, PeerServer.generated("http://127.0.0.1:#{port}/#{version}?wsdl", fetch: true)] }
    end
  end

  def setup
    require_peer(self.class.spyne?, "spyne (python3-spyne)")
  end

  # Yields each version's generated module and a client of it.
  def each_version
    self.class.generated.each do |version, generated|
      client = generated::Client.new(read_timeout: 10)
      begin
        yield generated, client, version
      ensure
        client.close
      end
    end
  end

  # The header goes out under its element's name (AuthHeader); spyne reads it.
  def test_header
    each_version do |generated, client, version|
      auth = generated::AuthHeader.new(user: "ann", password: "secret")
      assert_equal "hello, ann", client.who_am_i(greeting: "hello", auth_header: auth), version
      assert_equal "hello, stranger", client.who_am_i(greeting: "hello"), version
    end
  end

  # A list of records, each with a nickname spyne writes as xsi:nil.
  def test_list_with_nils
    each_version do |_, client, version|
      people = client.people(name: "ann", count: 3)
      assert_equal([["ann 1", 1, nil], ["ann 2", 2, nil], ["ann 3", 3, nil]], people.map { |p| [p.name, p.age, p.nickname] }, version)
      assert_equal [], client.people(name: "ann", count: 0), version
    end
  end

  # A nil sent (xsi:nil) comes back as a nil; non-ASCII text both ways.
  def test_record_with_nil_and_non_ascii_text
    each_version do |generated, client, version|
      older = client.older(person: generated::Person.new(name: "bob", age: 41))
      assert_equal ["bob", 42, nil], [older.name, older.age, older.nickname], version
      older = client.older(person: generated::Person.new(name: "zoë", age: 1, nickname: "Grüße ✓"))
      assert_equal ["zoë", 2, "Grüße ✓"], [older.name, older.age, older.nickname], version
      assert_equal "Grüße, 日本", client.greet(name: "日本"), version
    end
  end

  # SOAP 1.1 keeps spyne's code (Client.Refused); SOAP 1.2's is Sender (spyne
  # answers both with HTTP 500).
  def test_fault
    each_version do |_, client, version|
      fault = assert_raises(Wirebind::SOAP::Fault) { client.refuse(reason: "not today, é") }
      assert_equal({ "soap11" => "soap11env:Client.Refused", "soap12" => "soap12env:Sender" }.fetch(version), fault.code)
      assert_equal "not today, é", fault.reason, version
      assert_equal 500, fault.http_status, version
    end
  end
end
