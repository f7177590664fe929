# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require_relative "interop/interop_support"
require "tmpdir"
require "open3"

# WS-Security signatures against xmlsec1 (Debian's, libxmlsec1 on OpenSSL), a
# verifier and signer nobody here wrote: what the client signs, xmlsec1
# verifies (and refuses once changed); what xmlsec1 signs, the client verifies
# and decodes, and refuses when changed, expired, wrapped or signed by someone
# it does not trust.
class SOAPWSSETest < Minitest::Test
  include PeerServer

  W = Wirebind::SOAP
  NS = "urn:signed"
  WSSE_NS = W::WSSE::WSSE_NS
  WSU_NS = W::WSSE::WSU_NS
  EXC = "http://www.w3.org/2001/10/xml-exc-c14n#"

  def setup
    super
    require_peer(system("command -v xmlsec1 >/dev/null 2>&1"), "xmlsec1 (Debian package xmlsec1)")
    @dir = Dir.mktmpdir("wirebind-wsse")
    @client_key, @client_cert = certificate("/CN=wirebind client")
    @server_key, @server_cert = certificate("/CN=soap server")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def certificate(subject)
    key, cert = TestCertificates.issue(subject, ca: true)
    name = subject[/\w+\z/]
    File.write(path("#{name}.key"), key.to_pem)
    File.write(path("#{name}.pem"), cert.to_pem)
    [key, cert]
  end

  def path(name)
    File.join(@dir, name)
  end

  def echo_response(text)
    W::Envelope.write(+"", operation: "echoResponse", namespace: NS, parts: { r: text }, style: :document)
  end

  # xmlsec1 --verify on +xml+ with the client's certificate; [ok?, output].
  def xmlsec_verify(xml)
    File.write(path("message.xml"), xml)
    out, status = Open3.capture2e("xmlsec1", "--verify", "--pubkey-cert-pem", path("client.pem"), "--id-attr:Id", "Body",
                                  "--id-attr:Id", "Timestamp", path("message.xml"))
    [status.success?, out]
  end

  def signed_request(digest)
    signature = W::WSSE::Signature.new(key: path("client.key"), certificate: @client_cert, digest: digest)
    LoopbackServer.open(proc { [200, {}, echo_response("ok")] }) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, wsse: [signature, W::WSSE::Timestamp.new(ttl: 60)])
      assert_equal "ok", client.call(:echo, { text: "héllo <&> \u{1F600}" }, returns: :string)
      server.requests.pop.body.force_encoding(Encoding::UTF_8)
    end
  end

  def test_signed_requests_verify_with_xmlsec1_and_fail_once_changed
    %i[sha256 sha1].each do |digest|
      xml = signed_request(digest)
      ok, out = xmlsec_verify(xml)
      assert ok, "xmlsec1 refused the #{digest} signature:\n#{out}"
      assert_match(%r{SignedInfo References \(ok/all\): 2/2}, out) # the Body and the Timestamp
      assert_includes xml, %(soapenv:mustUnderstand="1")
      algorithm = digest == :sha256 ? "xmldsig-more#rsa-sha256" : "xmldsig#rsa-sha1"
      assert_includes xml, algorithm

      ok, = xmlsec_verify(xml.sub("héllo", "hallo"))
      refute ok, "xmlsec1 accepted a changed Body"
      ok, = xmlsec_verify(xml.sub(/<wsu:Expires>[^<]+/, "<wsu:Expires>2099-01-01T00:00:00Z"))
      refute ok, "xmlsec1 accepted a changed Timestamp"
    end
  end

  # A response signed by xmlsec1 with the server's key, over Body and Timestamp
  # (+references+), its certificate inline in KeyInfo.
  def xmlsec_signed_response(text, created: Time.now.utc, expires: Time.now.utc + 300, references: %w[Body-1 TS-1])
    reference = lambda do |id|
      %(<ds:Reference URI="##{id}"><ds:Transforms><ds:Transform Algorithm="#{EXC}"/></ds:Transforms>) +
        %(<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference>)
    end
    template = <<~XML
      <?xml version="1.0" encoding="UTF-8"?>
      <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header>
      <wsse:Security xmlns:wsse="#{WSSE_NS}" xmlns:wsu="#{WSU_NS}">
      <wsu:Timestamp wsu:Id="TS-1"><wsu:Created>#{created.iso8601}</wsu:Created><wsu:Expires>#{expires.iso8601}</wsu:Expires></wsu:Timestamp>
      <ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo>
      <ds:CanonicalizationMethod Algorithm="#{EXC}"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>
      #{references.map(&reference).join}
      </ds:SignedInfo><ds:SignatureValue/><ds:KeyInfo><ds:X509Data><ds:X509Certificate/></ds:X509Data></ds:KeyInfo></ds:Signature>
      </wsse:Security></soapenv:Header><soapenv:Body xmlns:wsu="#{WSU_NS}" wsu:Id="Body-1"><ns1:echoResponse xmlns:ns1="#{NS}"><r>#{text}</r></ns1:echoResponse></soapenv:Body></soapenv:Envelope>
    XML
    File.write(path("template.xml"), template)
    out, status = Open3.capture2e("xmlsec1", "--sign", "--privkey-pem", "#{path('server.key')},#{path('server.pem')}",
                                  "--id-attr:Id", "Body", "--id-attr:Id", "Timestamp", "--output", path("signed.xml"),
                                  path("template.xml"))
    assert status.success?, "xmlsec1 --sign failed:\n#{out}"
    File.read(path("signed.xml"))
  end

  def call_with(response, trust: path("server.pem"))
    LoopbackServer.open(proc { [200, {}, response] }) do |server|
      signature = W::WSSE::Signature.new(key: @client_key, certificate: @client_cert, verify: trust, max_skew: 60)
      client = W::Client.new(endpoint: server.url, namespace: NS, wsse: signature)
      client.call(:echo, {}, returns: :string)
    end
  end

  def test_responses_signed_by_xmlsec1_are_verified_then_decoded
    response = xmlsec_signed_response("signed by xmlsec1")
    assert_equal "signed by xmlsec1", call_with(response)
    store = OpenSSL::X509::Store.new
    store.add_cert(@server_cert)
    assert_equal "signed by xmlsec1", call_with(response, trust: store)
  end

  def test_responses_that_fail_a_check_are_never_delivered
    response = xmlsec_signed_response("genuine")
    error = assert_raises(W::SignatureError) { call_with(response.sub("genuine", "forged!")) }
    assert_match(/Reference #Body-1: the digest does not match/, error.message)

    error = assert_raises(W::UntrustedCertificateError) { call_with(response, trust: @client_cert) }
    assert_match(/soap server.*not trusted/, error.message)

    expired = xmlsec_signed_response("late", created: Time.now.utc - 7200, expires: Time.now.utc - 3600)
    assert_raises(W::TimestampError) { call_with(expired) }
    future = xmlsec_signed_response("early", created: Time.now.utc + 3600, expires: Time.now.utc + 7200)
    assert_raises(W::TimestampError) { call_with(future) }

    error = assert_raises(W::SignatureError) { call_with(echo_response("unsigned")) }
    assert_match(/no wsse:Security header/, error.message)

    body_unsigned = xmlsec_signed_response("timestamp only", references: %w[TS-1])
    error = assert_raises(W::SignatureError) { call_with(body_unsigned) }
    assert_match(/does not cover the envelope's Body/, error.message)

    # Signature wrapping: the signed Body moved, unchanged (so its digest still
    # matches), into a header, and another Body put where it is read.
    signed_body = response[%r{<soapenv:Body .*</soapenv:Body>}m]
    wrapped = response.sub(signed_body, %(<soapenv:Body><ns1:echoResponse xmlns:ns1="#{NS}"><r>evil</r></ns1:echoResponse></soapenv:Body>))
                      .sub("</soapenv:Header>", %(<x:Wrapper xmlns:x="urn:x">#{signed_body}</x:Wrapper></soapenv:Header>))
    error = assert_raises(W::SignatureError) { call_with(wrapped) }
    assert_match(/does not cover the envelope's Body/, error.message)

    duplicate = response.sub("</soapenv:Header>", %(<x:Copy xmlns:x="urn:x" xmlns:wsu="#{WSU_NS}" wsu:Id="Body-1"/></soapenv:Header>))
    error = assert_raises(W::SignatureError) { call_with(duplicate) }
    assert_match(/2 elements have the Id "Body-1"/, error.message)
  end

  def test_tokens_as_objects_and_bad_options
    token = W::WSSE::UsernameToken.new(username: "bot", password: "secret")
    refute_includes token.inspect, "secret"
    refute_includes W::WSSE::Signature.new(key: @client_key, certificate: @client_cert).inspect, "PRIVATE"
    assert_raises(ArgumentError) { W::WSSE::Signature.new(key: @client_key) }
    assert_raises(ArgumentError) { W::WSSE::Signature.new(key: @client_key, certificate: @client_cert, digest: :md5) }
    assert_raises(ArgumentError) { W::WSSE::Timestamp.new(ttl: 0) }
    assert_raises(ArgumentError) { W::Client.new(endpoint: "http://x/y", wsse: :yes) }
    LoopbackServer.open(proc { [200, {}, echo_response("ok")] }) do |server|
      W::Client.new(endpoint: server.url, namespace: NS, wsse: [token, W::WSSE::Timestamp.new]).call(:echo, {})
      body = server.requests.pop.body
      assert_operator body.index("<wsu:Timestamp"), :<, body.index("<wsse:UsernameToken") # WS-I BSP: the Timestamp first
      assert_includes body, "<wsse:Username>bot</wsse:Username>"
    end
  end
end
