# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "interop/interop_support"
require "tmpdir"
require "fileutils"

# TLS against Debian's nginx, started for real on 127.0.0.1 with certificates
# made here (a CA, the server's, a client's): verification on by default and
# whom to trust (ca_file, ca_path, cert_store), and client certificates (an
# encrypted PEM key with its passphrase, a PKCS#12 bundle with its password)
# on a server that requires one. On every built-in adapter.
module TLSTests
  include PeerServer

  NS = "urn:tls"
  KEY_PASSWORD = "key passphrase"
  P12_PASSWORD = "bundle password"

  # The certificates and one nginx serving two ports: +open+ (any client) and
  # +mutual+ (a client certificate signed by the CA required).
  class Nginx
    attr_reader :dir, :ports, :ca

    def initialize
      @dir = Dir.mktmpdir("wirebind-nginx")
      make_certificates
      @ports = { open: PeerServer.free_port, mutual: PeerServer.free_port }
      body = Wirebind::SOAP::Envelope.write(+"", operation: "whoResponse", namespace: NS, parts: { r: "nginx" }, style: :document)
      File.write(path("nginx.conf"), <<~CONF)
        daemon off;
        master_process off;
        worker_processes 1;
        pid #{path('nginx.pid')};
        error_log #{path('error.log')} warn;
        events { worker_connections 64; }
        http {
          access_log off;
          client_body_temp_path #{path('body')};
          proxy_temp_path #{path('proxy')};
          fastcgi_temp_path #{path('fastcgi')};
          uwsgi_temp_path #{path('uwsgi')};
          scgi_temp_path #{path('scgi')};
          ssl_certificate #{path('server.pem')};
          ssl_certificate_key #{path('server.key')};
          default_type text/xml;
          server {
            listen 127.0.0.1:#{@ports[:open]} ssl;
            location / { return 200 '#{body}'; }
          }
          server {
            listen 127.0.0.1:#{@ports[:mutual]} ssl;
            ssl_verify_client on;
            ssl_client_certificate #{path('ca.pem')};
            location / { return 200 '#{body}'; }
          }
        }
      CONF
      # nginx binds every listening port before it accepts on any.
      @pid = PeerServer.start(["nginx", "-p", @dir, "-e", path("error.log"), "-c", path("nginx.conf")], @ports[:open])
    end

    def path(name)
      File.join(@dir, name)
    end

    def url(kind)
      "https://127.0.0.1:#{@ports.fetch(kind)}/soap"
    end

    def stop
      PeerServer.stop(@pid)
      FileUtils.rm_rf(@dir)
    end

    private

    def make_certificates
      ca_key, @ca = TestCertificates.issue("/CN=wirebind test CA", ca: true)
      server_key, server = TestCertificates.issue("/CN=127.0.0.1", san: "IP:127.0.0.1", issuer: @ca, issuer_key: ca_key)
      client_key, client = TestCertificates.issue("/CN=soap client", issuer: @ca, issuer_key: ca_key)
      File.write(path("ca.pem"), @ca.to_pem)
      File.write(path("server.pem"), server.to_pem)
      File.write(path("server.key"), server_key.to_pem)
      File.write(path("client.pem"), client.to_pem)
      File.write(path("client.key"), client_key.export(OpenSSL::Cipher.new("aes-256-cbc"), KEY_PASSWORD))
      File.binwrite(path("client.p12"), OpenSSL::PKCS12.create(P12_PASSWORD, "client", client_key, client, [@ca]).to_der)
      # A directory of trusted certificates as OpenSSL looks them up: <subject hash>.0.
      FileUtils.mkdir_p(path("trusted"))
      File.write(path(format("trusted/%08x.0", @ca.subject.hash)), @ca.to_pem)
    end
  end

  def self.nginx
    @nginx ||= Nginx.new.tap { |server| Minitest.after_run { server.stop } }
  end

  def setup
    super
    require_peer(File.executable?("/usr/sbin/nginx"), "nginx (Debian package nginx-light)")
  end

  def nginx
    TLSTests.nginx
  end

  def call(kind, ssl)
    client = Wirebind::SOAP::Client.new(endpoint: nginx.url(kind), namespace: NS, adapter: self.class::ADAPTER, open_timeout: 5,
                                        read_timeout: 10, ssl: ssl)
    client.call(:who, {}, returns: :string)
  ensure
    client&.close
  end

  def test_verification_is_on_by_default_and_trust_is_configurable
    error = assert_raises(Wirebind::SOAP::ConnectionError) { call(:open, {}) }
    assert_match(/certificate verify failed/, error.message)
    assert_equal "nginx", call(:open, { ca_file: nginx.path("ca.pem") })
    assert_equal "nginx", call(:open, { ca_path: nginx.path("trusted") })
    store = OpenSSL::X509::Store.new
    store.add_cert(nginx.ca)
    assert_equal "nginx", call(:open, { cert_store: store })
    assert_equal "nginx", call(:open, { verify: false })
  end

  def test_client_certificates
    trust = { ca_file: nginx.path("ca.pem") }
    error = assert_raises(Wirebind::SOAP::HTTPError) { call(:mutual, trust) }
    assert_equal 400, error.status # nginx: "No required SSL certificate was sent"

    pem = trust.merge(cert: nginx.path("client.pem"), key: nginx.path("client.key"), key_password: KEY_PASSWORD)
    assert_equal "nginx", call(:mutual, pem)
    assert_equal "nginx", call(:mutual, trust.merge(pkcs12: nginx.path("client.p12"), pkcs12_password: P12_PASSWORD))

    error = assert_raises(ArgumentError) { call(:mutual, pem.merge(key_password: "wrong")) }
    assert_match(/client\.key.*key_password/, error.message)
    error = assert_raises(ArgumentError) { call(:mutual, pem.except(:key_password)) }
    assert_match(/key_password/, error.message)
    error = assert_raises(ArgumentError) { call(:mutual, trust.merge(pkcs12: nginx.path("client.p12"), pkcs12_password: "wrong")) }
    assert_match(/pkcs12_password/, error.message)
    assert_raises(ArgumentError) { call(:mutual, trust.merge(passphrase: "x")) }
  end
end

AdapterTestClasses.define("SOAPTLS", TLSTests)
