# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "interop/interop_support"
require "tmpdir"
require "open3"
require "json"
require "net/http"

# A service that requires WS-Security (WSSE::Policy), called by zeep with its
# own WS-Security (Debian's python3-zeep and python3-xmlsec: a UsernameToken
# with a PasswordDigest, and an X.509 signature over Body and Timestamp), and
# by wirebind's client; replays, expired and missing tokens answered with
# WS-Security's faults.
class SOAPWSSEServiceTest < Minitest::Test
  include PeerServer

  W = Wirebind::SOAP
  NS = "urn:secured"
  PYTHON = "/usr/bin/python3"
  ZEEP = File.join(__dir__, "interop", "zeep_wsse_client.py")
  USERS = { "ann" => "s3cret", "bob" => "hunter2" }.freeze

  def self.service(policy)
    Class.new(W::Service) do
      namespace NS
      wsse policy
      operation :whoAmI, args: { caller: :string }, returns: :string do |caller, context:|
        result = context.env.fetch("wirebind.wsse")
        "#{caller} as #{result.username || result.certificate.subject}"
      end
    end
  end

  def setup
    super
    @dir = Dir.mktmpdir("wirebind-wsse-service")
    @key, @cert = certificate("/CN=zeep client", "client")
    @other_key, @other_cert = certificate("/CN=someone else", "other")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def certificate(subject, name)
    key, cert = TestCertificates.issue(subject)
    File.write(File.join(@dir, "#{name}.key"), key.to_pem)
    File.write(File.join(@dir, "#{name}.pem"), cert.to_pem)
    [key, cert]
  end

  def zeep(url, *args)
    require_peer(File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep, xmlsec", err: File::NULL),
                 "zeep and xmlsec for #{PYTHON} (Debian packages python3-zeep, python3-xmlsec)")
    out, err, status = Open3.capture3(PYTHON, ZEEP, url, *args)
    assert status.success?, "zeep failed:\n#{err}"
    JSON.parse(out.lines.last)
  end

  def serve(policy, &block)
    require_operation_keywords
    Interop::Server.open(self.class.service(policy).new, &block)
  end

  def test_zeep_username_token_with_password_digest
    serve(W::WSSE::Policy.new(users: USERS, digest_only: true)) do |server|
      assert_equal({ "result" => "zeep as ann" }, zeep(server.url, "username", "ann", "s3cret"))
      assert_equal "wsse:FailedAuthentication", zeep(server.url, "username", "ann", "wrong").dig("fault", "code")
      assert_equal "wsse:FailedAuthentication", zeep(server.url, "username", "eve", "s3cret").dig("fault", "code")
    end
  end

  def test_zeep_x509_signature
    serve(W::WSSE::Policy.new(signature: File.join(@dir, "client.pem"), timestamp: true)) do |server|
      result = zeep(server.url, "signature", File.join(@dir, "client.key"), File.join(@dir, "client.pem"))
      assert_equal({ "result" => "zeep as /CN=zeep client" }, result)
      fault = zeep(server.url, "signature", File.join(@dir, "other.key"), File.join(@dir, "other.pem")).fetch("fault")
      assert_equal "wsse:InvalidSecurityToken", fault["code"]
      assert_match(/someone else.*not trusted/, fault["message"])
    end
  end

  NODE_SOAP = File.expand_path("../../tmp/node/node_modules/soap", __dir__)

  def node(url, key, cert)
    require_peer(File.exist?(File.join(NODE_SOAP, "package.json")) && system("command -v node >/dev/null 2>&1"),
                 "node and the soap npm package in tmp/node")
    out, err, status = Open3.capture3("node", File.join(__dir__, "interop", "node_wsse_client.js"), NODE_SOAP, url, key, cert)
    assert status.success?, "node-soap failed: #{out}\n#{err}"
    JSON.parse(out.lines.last)
  end

  def test_node_soap_ws_security_cert
    serve(W::WSSE::Policy.new(signature: File.join(@dir, "client.pem"), timestamp: true)) do |server|
      result = node(server.url, File.join(@dir, "client.key"), File.join(@dir, "client.pem"))
      assert_equal({ "result" => "node as /CN=zeep client" }, result)
      fault = node(server.url, File.join(@dir, "other.key"), File.join(@dir, "other.pem")).fetch("fault")
      assert_equal "wsse:InvalidSecurityToken", fault["code"]
    end
  end

  def post(server, xml, version: "1.1")
    type = version == "1.1" ? "text/xml; charset=utf-8" : "application/soap+xml; charset=utf-8"
    Net::HTTP.post(URI(server.url), xml, "Content-Type" => type, "SOAPAction" => %("#{NS}/whoAmI"))
  end

  # What wirebind's own client sends (captured by a throwaway Rack app), to replay by hand.
  def request_from_client(wsse, version: "1.1")
    captured = nil
    app = lambda do |env|
      captured = env["rack.input"].read
      [500, { "content-type" => "text/plain" }, ["captured"]]
    end
    Interop::Server.open(app) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, version: version, wsse: wsse)
      assert_raises(W::HTTPError) { client.call(:whoAmI, { caller: "wirebind" }, returns: :string) }
    end
    captured.force_encoding(Encoding::UTF_8)
  end

  def fault_code(response)
    W::Envelope::Reader.new(response.body).fault&.code
  end

  def test_wirebind_client_both_ways_and_replays_refused
    serve(W::WSSE::Policy.new(users: USERS)) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, wsse: W::WSSE::UsernameToken.new(username: "bob", password: "hunter2", digest: true))
      assert_equal "me as bob", client.call(:whoAmI, { caller: "me" }, returns: :string)

      request = request_from_client(W::WSSE::UsernameToken.new(username: "bob", password: "hunter2", digest: true))
      assert_equal "200", post(server, request).code
      replayed = post(server, request)
      assert_equal "500", replayed.code
      assert_equal "wsse:FailedAuthentication", fault_code(replayed)
      assert_includes replayed.body, %(xmlns:wsse="#{W::WSSE::WSSE_NS}")
    end

    serve(W::WSSE::Policy.new(signature: @cert, timestamp: true)) do |server|
      signature = W::WSSE::Signature.new(key: @key, certificate: @cert)
      client = W::Client.new(endpoint: server.url, namespace: NS, wsse: [W::WSSE::Timestamp.new, signature])
      assert_equal "me as /CN=zeep client", client.call(:whoAmI, { caller: "me" }, returns: :string)

      request = request_from_client([W::WSSE::Timestamp.new, signature])
      assert_equal "200", post(server, request).code
      assert_equal "wsse:FailedCheck", fault_code(post(server, request)) # the same signature again
      assert_equal "wsse:FailedCheck", fault_code(post(server, request.sub(">wirebind<", ">tampered<")))
    end
  end

  def test_missing_and_expired_tokens_and_soap_12_faults
    serve(W::WSSE::Policy.new(users: USERS, timestamp: true)) do |server|
      plain = W::Envelope.write(+"", operation: "whoAmI", namespace: NS, parts: { caller: "x" })
      assert_equal "wsse:InvalidSecurity", fault_code(post(server, plain))
      no_timestamp = request_from_client(W::WSSE::UsernameToken.new(username: "ann", password: "s3cret"))
      assert_equal "wsse:InvalidSecurity", fault_code(post(server, no_timestamp))

      fresh = request_from_client([W::WSSE::Timestamp.new(ttl: 60), W::WSSE::UsernameToken.new(username: "ann", password: "s3cret")])
      assert_equal "200", post(server, fresh).code
      stale = fresh.sub(%r{<wsu:Expires>[^<]+</wsu:Expires>}, "<wsu:Expires>2001-01-01T00:00:00Z</wsu:Expires>")
      assert_equal "wsse:MessageExpired", fault_code(post(server, stale))
    end

    policy = W::WSSE::Policy.new(users: USERS)
    require_operation_keywords
    Interop::Server.open(Class.new(self.class.service(policy)) { version "1.2" }.new) do |server|
      request = request_from_client(W::WSSE::UsernameToken.new(username: "ann", password: "nope"), version: "1.2")
      response = post(server, request, version: "1.2")
      assert_equal "400", response.code
      fault = W::Envelope::Reader.new(response.body).fault
      assert_equal ["wsse:FailedAuthentication"], fault.subcodes
    end
  end

  def test_bad_policies
    assert_raises(ArgumentError) { W::WSSE::Policy.new }
    assert_raises(ArgumentError) { W::WSSE::Policy.new(users: "ann") }
    assert_raises(ArgumentError) { Class.new(W::Service) { wsse({ users: USERS }) } }
  end
end
