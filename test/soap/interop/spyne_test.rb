# frozen_string_literal: true

require_relative "interop_support"

# A spyne service (Debian's python3-spyne, python/spyne_server.py) called by the
# client wirebind generates from spyne's own WSDL: document/literal wrapped,
# SOAP 1.1, with a header, a list, nils both ways, non-ASCII text and a fault.
class SpyneServerInteropTest < Minitest::Test
  include PeerServer

  PYTHON = "/usr/bin/python3"

  def self.spyne?
    return @spyne if defined?(@spyne)

    @spyne = (File.executable?(PYTHON) && system(PYTHON, "-c", "import spyne", out: File::NULL, err: File::NULL)) || false
  end

  # The generated module, from the running service's ?wsdl (read once).
  def self.generated
    @generated ||= begin
      port = PeerServer.free_port
      PeerServer.start([PYTHON, File.join(__dir__, "python", "spyne_server.py"), port.to_s], port)
      PeerServer.generated("http://127.0.0.1:#{port}/?wsdl", fetch: true)
    end
  end

  def setup
    require_peer(self.class.spyne?, "spyne (python3-spyne)")
    @generated = self.class.generated
    @client = @generated::Client.new(read_timeout: 10)
  end

  def teardown
    @client&.close
  end

  # The header goes out under its element's name (AuthHeader); spyne reads it.
  def test_header
    auth = @generated::AuthHeader.new(user: "ann", password: "secret")
    assert_equal "hello, ann", @client.who_am_i(greeting: "hello", auth_header: auth)
    assert_equal "hello, stranger", @client.who_am_i(greeting: "hello")
  end

  # A list of records, each with a nickname spyne writes as xsi:nil.
  def test_list_with_nils
    people = @client.people(name: "ann", count: 3)
    assert_equal([["ann 1", 1, nil], ["ann 2", 2, nil], ["ann 3", 3, nil]], people.map { |p| [p.name, p.age, p.nickname] })
    assert_equal [], @client.people(name: "ann", count: 0)
  end

  # A nil sent (xsi:nil) comes back as a nil; non-ASCII text both ways.
  def test_record_with_nil_and_non_ascii_text
    older = @client.older(person: @generated::Person.new(name: "bob", age: 41))
    assert_equal ["bob", 42, nil], [older.name, older.age, older.nickname]
    older = @client.older(person: @generated::Person.new(name: "zoë", age: 1, nickname: "Grüße ✓"))
    assert_equal ["zoë", 2, "Grüße ✓"], [older.name, older.age, older.nickname]
    assert_equal "Grüße, 日本", @client.greet(name: "日本")
  end

  def test_fault
    fault = assert_raises(Wirebind::SOAP::Fault) { @client.refuse(reason: "not today, é") }
    assert_equal "soap11env:Client.Refused", fault.code
    assert_equal "not today, é", fault.reason
    assert_equal 500, fault.http_status
  end
end
