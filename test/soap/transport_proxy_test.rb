# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require_relative "interop/interop_support"
require "tmpdir"

# Debian's tinyproxy, started for real on 127.0.0.1 (once without and once with
# Basic proxy authentication), between the client and a loopback endpoint: a
# plain-HTTP endpoint in absolute form, an https one through a CONNECT tunnel,
# on every built-in adapter. tinyproxy logs each request it carries; the tests
# read that log, so a request that bypassed the proxy fails.
module ProxyTests
  include PeerServer

  NS = "urn:proxied"
  USER = "soap"
  PASSWORD = "pass_word-1.x" # what tinyproxy's configuration syntax takes (no @ or :)

  # One tinyproxy (a child process) and its log.
  class TinyProxy
    attr_reader :port

    def initialize(auth:)
      @dir = Dir.mktmpdir("wirebind-tinyproxy")
      @port = PeerServer.free_port
      @log = File.join(@dir, "tinyproxy.log")
      config = File.join(@dir, "tinyproxy.conf")
      File.write(config, <<~CONF)
        Port #{@port}
        Listen 127.0.0.1
        Timeout 20
        Allow 127.0.0.1
        MaxClients 20
        LogFile "#{@log}"
        LogLevel Connect
        PidFile "#{File.join(@dir, 'tinyproxy.pid')}"
        #{auth ? "BasicAuth #{USER} #{PASSWORD}" : ''}
      CONF
      @pid = PeerServer.start(["tinyproxy", "-d", "-c", config], @port)
    end

    # @return [String] what tinyproxy logged so far
    def log
      File.exist?(@log) ? File.read(@log) : ""
    end

    def stop
      PeerServer.stop(@pid)
      FileUtils.rm_rf(@dir)
    end
  end

  def self.proxies
    @proxies ||= begin
      proxies = { open: TinyProxy.new(auth: false), auth: TinyProxy.new(auth: true) }
      Minitest.after_run { proxies.each_value(&:stop) }
      proxies
    end
  end

  def setup
    super
    require_peer(system("command -v tinyproxy >/dev/null 2>&1"), "tinyproxy (Debian package tinyproxy)")
  end

  def proxy_url(kind, credentials: kind == :auth)
    userinfo = credentials ? "#{USER}:#{URI.encode_www_form_component(PASSWORD)}@" : ""
    "http://#{userinfo}127.0.0.1:#{ProxyTests.proxies.fetch(kind).port}"
  end

  def client(server, **options)
    Wirebind::SOAP::Client.new(endpoint: server.respond_to?(:url) ? server.url : server.to_s, namespace: NS, adapter: self.class::ADAPTER, open_timeout: 5,
                               read_timeout: 10, **options)
  end

  def answer(text)
    body = Wirebind::SOAP::Envelope.write(+"", operation: "echoResponse", namespace: NS, parts: { r: text }, style: :document)
    proc { [200, {}, body] }
  end

  def tls_context
    @tls_context ||= begin
      key, cert = TestCertificates.issue("/CN=127.0.0.1", san: "IP:127.0.0.1")
      context = OpenSSL::SSL::SSLContext.new
      context.key = key
      context.cert = cert
      context
    end
  end

  def trust(dir)
    path = File.join(dir, "ca.pem")
    File.write(path, tls_context.cert.to_pem)
    path
  end

  def test_http_endpoint_through_the_proxy_in_absolute_form
    LoopbackServer.open(answer("via proxy")) do |server|
      assert_equal "via proxy", client(server, proxy: proxy_url(:open)).call(:echo, {}, returns: :string)
      request = server.requests.pop
      assert_equal "/soap", request.path # the proxy turned the absolute form back into a path
      assert_match(/tinyproxy/, request.headers["via"].to_s) # and said it carried it
      assert_match(%r{Request \(file descriptor \d+\): POST http://127\.0\.0\.1:#{server.port}/soap}, ProxyTests.proxies[:open].log)
    end
  end

  # Whether the adapter tunnels to https endpoints (httpx refuses, saying so).
  def tunnels?
    self.class::ADAPTER != :httpx
  end

  def test_https_endpoint_through_a_connect_tunnel_verified_at_the_endpoint
    return assert_raises(ArgumentError) { client(URI("https://127.0.0.1:9/soap"), proxy: proxy_url(:open)) } unless tunnels?

    Dir.mktmpdir do |dir|
      LoopbackServer.open(answer("tunnelled"), ssl: tls_context) do |server|
        c = client(server, proxy: proxy_url(:open), ssl: { ca_file: trust(dir) })
        assert_equal "tunnelled", c.call(:echo, {}, returns: :string)
        assert_equal "tunnelled", c.call(:echo, {}, returns: :string) # the tunnel's connection is kept
        assert_match(/CONNECT 127\.0\.0\.1:#{server.port}/, ProxyTests.proxies[:open].log)
        assert_nil server.requests.pop.headers["via"] # the proxy saw only TLS bytes

        # Verification still happens at the endpoint: the proxy cannot vouch for it.
        error = assert_raises(Wirebind::SOAP::ConnectionError) do
          client(server, proxy: proxy_url(:open)).call(:echo, {}, returns: :string)
        end
        assert_match(/certificate verify failed/, error.message)
      end
    end
  end

  def test_proxy_authentication
    Dir.mktmpdir do |dir|
      LoopbackServer.open(answer("authenticated")) do |server|
        assert_equal "authenticated", client(server, proxy: proxy_url(:auth)).call(:echo, {}, returns: :string)
        refute server.requests.pop.headers.key?("proxy-authorization") # the proxy's credentials stop at the proxy

        error = assert_raises(Wirebind::SOAP::ProxyError) do
          client(server, proxy: proxy_url(:auth, credentials: false)).call(:echo, {}, returns: :string)
        end
        assert_equal 407, error.status
        assert_match(/407/, error.message)
        assert server.requests.empty?, "nothing reached the endpoint"
      end
      next unless tunnels?

      LoopbackServer.open(answer("tunnelled"), ssl: tls_context) do |server|
        c = client(server, proxy: proxy_url(:auth), ssl: { ca_file: trust(dir) })
        assert_equal "tunnelled", c.call(:echo, {}, returns: :string)
        error = assert_raises(Wirebind::SOAP::ProxyError) do
          client(server, proxy: proxy_url(:auth, credentials: false), ssl: { ca_file: trust(dir) }).call(:echo, {}, returns: :string)
        end
        assert_equal 407, error.status if error.status
        assert_equal 1, server.connections # the refused tunnel never reached the endpoint
      end
    end
  end

  def test_a_proxy_that_is_not_there_is_a_connection_error
    LoopbackServer.open(answer("x")) do |server|
      error = assert_raises(Wirebind::SOAP::ConnectionError) do
        client(server, proxy: "http://127.0.0.1:#{PeerServer.free_port}").call(:echo, {}, returns: :string)
      end
      assert_match(/refused/, error.message)
      assert server.requests.empty?
    end
  end
end

AdapterTestClasses.define("SOAPProxy", ProxyTests)

# proxy: :env, the default, as URI#find_proxy reads the environment (no network).
class SOAPProxyOptionTest < Minitest::Test
  Proxy = Wirebind::SOAP::Transport::Proxy

  def with_env(values)
    saved = values.keys.to_h { |k| [k, ENV.fetch(k, nil)] }
    values.each { |k, v| ENV[k] = v }
    yield
  ensure
    saved.each { |k, v| ENV[k] = v }
  end

  def test_env_is_read_with_no_proxy_and_loopback_rules
    endpoint = URI("http://soap.example.com:8080/svc")
    with_env("http_proxy" => "http://u:p%40ss@proxy.example.com:3128", "no_proxy" => nil, "NO_PROXY" => nil) do
      proxy = Proxy.for(:env, endpoint)
      assert_equal ["proxy.example.com", 3128, "u", "p@ss"], [proxy.host, proxy.port, proxy.user, proxy.password]
      assert_equal "Basic #{['u:p@ss'].pack('m0')}", proxy.authorization
      assert_equal "proxy.example.com:3128", proxy.to_s # no credentials in messages
    end
    with_env("http_proxy" => "http://proxy.example.com:3128", "no_proxy" => "example.com", "NO_PROXY" => nil) do
      assert_nil Proxy.for(:env, endpoint)
    end
    with_env("http_proxy" => "http://proxy.example.com:3128", "no_proxy" => nil, "NO_PROXY" => nil) do
      assert_nil Proxy.for(:env, URI("http://127.0.0.1:9/svc")) # never for a loopback endpoint
      assert_equal "proxy.example.com", Proxy.for("http://proxy.example.com:3128", URI("http://127.0.0.1:9/svc")).host
      assert_nil Proxy.for(nil, endpoint)
    end
    with_env("https_proxy" => "http://tunnel.example.com:8080", "no_proxy" => nil, "NO_PROXY" => nil) do
      assert_equal "tunnel.example.com", Proxy.for(:env, URI("https://soap.example.com/svc")).host
    end
  end

  def test_bad_proxy_options
    endpoint = URI("http://soap.example.com/svc")
    assert_raises(ArgumentError) { Proxy.for("https://proxy.example.com", endpoint) }
    assert_raises(ArgumentError) { Proxy.for("not a url", endpoint) }
    assert_raises(ArgumentError) { Proxy.for(:yes, endpoint) }
    assert_raises(ArgumentError) { Wirebind::SOAP::Client.new(endpoint: "http://x/y", proxy: 3128) }
  end
end
