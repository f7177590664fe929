# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "interop/interop_support"
require "tmpdir"
require "fileutils"

# HTTP Digest authentication against Debian's lighttpd (mod_auth with an
# htdigest file, a CGI answering the SOAP call), started for real on 127.0.0.1:
# SHA-256 and MD5, the challenge kept for later calls, wrong credentials an
# HTTPError 401. On every built-in adapter.
module DigestTests
  include PeerServer

  NS = "urn:digest"

  # One lighttpd: /sha256/ asks for SHA-256, /md5/ for MD5; the CGI counts the requests it answered.
  class Lighttpd
    attr_reader :port, :dir

    def initialize
      @dir = Dir.mktmpdir("wirebind-lighttpd")
      @port = PeerServer.free_port
      body = Wirebind::SOAP::Envelope.write(+"", operation: "whoResponse", namespace: NS, parts: { r: "digest ok" }, style: :document)
      %w[sha256 md5].each do |area|
        FileUtils.mkdir_p(path("www/#{area}"))
        File.write(path("www/#{area}/soap.cgi"), <<~SH)
          #!/bin/sh
          cat > /dev/null
          echo x >> "#{path('answered')}"
          printf 'Content-Type: text/xml; charset=utf-8\\r\\n\\r\\n'
          printf '%s' '#{body}'
        SH
        File.chmod(0o755, path("www/#{area}/soap.cgi"))
      end
      File.write(path("users"), "bob:soap:#{OpenSSL::Digest.hexdigest('SHA256', 'bob:soap:hunter2')}\n" \
                                "ann:soap:#{OpenSSL::Digest.hexdigest('MD5', 'ann:soap:s3cret')}\n")
      File.write(path("lighttpd.conf"), <<~CONF)
        server.modules = ("mod_auth", "mod_authn_file", "mod_cgi")
        server.port = #{@port}
        server.bind = "127.0.0.1"
        server.document-root = "#{path('www')}"
        server.errorlog = "#{path('error.log')}"
        auth.backend = "htdigest"
        auth.backend.htdigest.userfile = "#{path('users')}"
        auth.require = ( "/sha256/" => ( "method" => "digest", "realm" => "soap", "require" => "valid-user", "algorithm" => "SHA-256" ),
                         "/md5/" => ( "method" => "digest", "realm" => "soap", "require" => "valid-user", "algorithm" => "MD5" ) )
        cgi.assign = ( ".cgi" => "" )
      CONF
      @pid = PeerServer.start(["lighttpd", "-D", "-f", path("lighttpd.conf")], @port)
    end

    def path(name)
      File.join(@dir, name)
    end

    def answered
      File.exist?(path("answered")) ? File.readlines(path("answered")).size : 0
    end

    def stop
      PeerServer.stop(@pid)
      FileUtils.rm_rf(@dir)
    end
  end

  def self.lighttpd
    @lighttpd ||= Lighttpd.new.tap { |server| Minitest.after_run { server.stop } }
  end

  def setup
    super
    require_peer(system("command -v lighttpd >/dev/null 2>&1"), "lighttpd (Debian package lighttpd)")
  end

  def client(area, user, password)
    Wirebind::SOAP::Client.new(endpoint: "http://127.0.0.1:#{DigestTests.lighttpd.port}/#{area}/soap.cgi", namespace: NS,
                               adapter: self.class::ADAPTER, read_timeout: 10, digest_auth: [user, password])
  end

  def test_sha256_and_md5_challenges_answered_and_kept
    server = DigestTests.lighttpd
    { "sha256" => %w[bob hunter2], "md5" => %w[ann s3cret] }.each do |area, (user, password)|
      c = client(area, user, password)
      before = server.answered
      3.times { assert_equal "digest ok", c.call(:who, {}, returns: :string) }
      assert_equal before + 3, server.answered # each call answered once: the 401 was never a call
      c.close
    end
  end

  def test_wrong_credentials_are_refused_unauthorized
    before = DigestTests.lighttpd.answered
    error = assert_raises(Wirebind::SOAP::HTTPError) { client("sha256", "bob", "wrong").call(:who, {}, returns: :string) }
    assert_equal 401, error.status
    error = assert_raises(Wirebind::SOAP::HTTPError) { client("md5", "nobody", "s3cret").call(:who, {}, returns: :string) }
    assert_equal 401, error.status
    assert_equal before, DigestTests.lighttpd.answered
    assert_raises(ArgumentError) { Wirebind::SOAP::Client.new(endpoint: "http://x/y", digest_auth: "bob") }
  end
end

AdapterTestClasses.define("SOAPDigest", DigestTests)
