# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "interop/interop_support"
require "tmpdir"
require "fileutils"

# NTLM against an HTTP server built on Debian's python3-ntlm-auth
# (interop/ntlm_server.py: per-connection NTLMv2 as IIS does it; checked with
# curl --ntlm, an implementation nobody here wrote, before wirebind's client):
# the handshake once per connection, the connection kept authenticated, a
# wrong password a 401.
class SOAPNTLMTest < Minitest::Test
  include PeerServer

  PYTHON = "/usr/bin/python3"
  SERVER = File.join(__dir__, "interop", "ntlm_server.py")
  # NTLM hashes with MD4, which OpenSSL 3 keeps in its legacy provider.
  OPENSSL_LEGACY = <<~CNF
    openssl_conf = openssl_init
    [openssl_init]
    providers = provider_sect
    [provider_sect]
    default = default_sect
    legacy = legacy_sect
    [default_sect]
    activate = 1
    [legacy_sect]
    activate = 1
  CNF

  def self.server
    @server ||= begin
      dir = Dir.mktmpdir("wirebind-ntlm")
      File.write(File.join(dir, "openssl.cnf"), OPENSSL_LEGACY)
      port = PeerServer.free_port
      pid = PeerServer.start(["env", "OPENSSL_CONF=#{File.join(dir, 'openssl.cnf')}", PYTHON, SERVER, port.to_s, "bob:hunter2"], port)
      Minitest.after_run do
        PeerServer.stop(pid)
        FileUtils.rm_rf(dir)
      end
      [port, dir]
    end
  end

  def setup
    super
    require_peer(File.executable?(PYTHON) && system(PYTHON, "-c", "import ntlm_auth", err: File::NULL),
                 "python3-ntlm-auth for #{PYTHON}")
    require_peer(system("command -v curl >/dev/null 2>&1"), "curl")
  end

  def url
    "http://127.0.0.1:#{self.class.server.first}/soap"
  end

  def client(*credentials, **options)
    Wirebind::SOAP::Client.new(endpoint: url, namespace: "urn:ntlm", ntlm_auth: credentials, read_timeout: 10, **options)
  end

  def test_the_server_is_a_real_ntlm_server
    out = IO.popen(["curl", "-sS", "--max-time", "10", "--ntlm", "-u", "TESTDOMAIN\\bob:hunter2", "-d", "<x/>", url], &:read)
    assert_includes out, "TESTDOMAIN\\bob"
    code = IO.popen(["curl", "-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", "--ntlm", "-u",
                     "TESTDOMAIN\\bob:wrong", "-d", "<x/>", url], &:read)
    assert_equal "401", code
  end

  ADAPTERS = %i[socket net_http httpx].freeze

  def test_handshake_once_per_connection
    ADAPTERS.each do |adapter|
      c = client("bob", "hunter2", "TESTDOMAIN", pool_size: 1, adapter: adapter)
      # Negotiate (request 1) and Authenticate (request 2), then plain requests on the same connection.
      assert_equal "TESTDOMAIN\\bob, request 2 on this connection", c.call(:who, {}, returns: :string), adapter
      assert_equal "TESTDOMAIN\\bob, request 3 on this connection", c.call(:who, {}, returns: :string), adapter
      assert_equal "TESTDOMAIN\\bob, request 4 on this connection", c.call(:who, {}, returns: :string), adapter
      assert_equal 1, c.transport.connections_opened, adapter
    ensure
      c&.close
    end
  end

  # Each connection of a pool authenticates once: two threads, two connections.
  def test_each_pooled_connection_authenticates
    ADAPTERS.each do |adapter|
      c = client("bob", "hunter2", "TESTDOMAIN", pool_size: 2, adapter: adapter)
      slow = Thread.new { c.call(:who, {}, returns: :string) }
      answers = [slow.value, c.call(:who, {}, returns: :string), c.call(:who, {}, returns: :string)]
      assert(answers.all? { |answer| answer.start_with?("TESTDOMAIN\\bob, request ") }, "#{adapter}: #{answers}")
      assert_operator c.transport.connections_opened, :<=, 2, adapter
    ensure
      c&.close
    end
  end

  def test_wrong_password_and_bad_options
    ADAPTERS.each do |adapter|
      error = assert_raises(Wirebind::SOAP::HTTPError) { client("bob", "wrong", "TESTDOMAIN", adapter: adapter).call(:who, {}, returns: :string) }
      assert_equal 401, error.status, adapter
    end
    error = assert_raises(ArgumentError) { client("bob", "hunter2", adapter: Object.new.tap { |o| def o.request(*); end }) }
    assert_match(/built-in adapters/, error.message)
    assert_raises(ArgumentError) { Wirebind::SOAP::Client.new(endpoint: url, ntlm_auth: "bob") }
    refute_includes Wirebind::SOAP::Transport::NTLM.new("bob", "hunter2").inspect, "hunter2"
  end
end
