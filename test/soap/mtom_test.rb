# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require_relative "interop/interop_support"
require "open3"
require "json"
require "digest"
require "net/http"

# MTOM/XOP on the way in: node-soap (npm) sending an MTOM request with a binary
# attachment to the service, and the client reading a multipart/related
# response (written here by hand, as a fixture: none of the peers installed
# here answers with MTOM). Malformed packages are AttachmentErrors or
# Client faults, never wrong bytes.
class SOAPMTOMTest < Minitest::Test
  include PeerServer

  W = Wirebind::SOAP
  NS = "urn:mtom"
  XOP = W::MTOM::XOP_NS
  NODE_SOAP = File.expand_path("../../tmp/node/node_modules/soap", __dir__)

  class UploadService < Wirebind::SOAP::Service
    namespace NS
    operation :upload, args: { name: :string, data: :base64 }, returns: :string do |name, data|
      "#{name}: #{data.bytesize} bytes #{Digest::SHA256.hexdigest(data)}"
    end
  end

  def test_node_soap_sends_an_mtom_request
    require_peer(File.exist?(File.join(NODE_SOAP, "package.json")) && system("command -v node >/dev/null 2>&1"),
                 "node and the soap npm package in tmp/node")
    Interop::Server.open(UploadService.new) do |server|
      [1, 300_000].each do |size|
        out, err, status = Open3.capture3("node", File.join(__dir__, "interop", "node_mtom_client.js"), NODE_SOAP, server.url, size.to_s)
        assert status.success?, "node-soap failed: #{out}\n#{err}"
        reply = JSON.parse(out.lines.last)
        assert_equal "photo.bin: #{size} bytes #{reply['sha256']}", reply["result"]
      end
    end
  end

  BOUNDARY = "MIMEBoundary_wirebind_test"

  def package(root, parts, boundary: BOUNDARY, close: true)
    body = +"".b
    body << "--#{boundary}\r\nContent-Type: application/xop+xml; charset=UTF-8; type=\"text/xml\"\r\nContent-ID: <root@x>\r\n\r\n" << root.b
    parts.each do |id, bytes, encoding|
      body << "\r\n--#{boundary}\r\nContent-Type: application/octet-stream\r\nContent-ID: <#{id}>\r\n"
      body << "Content-Transfer-Encoding: #{encoding}\r\n" if encoding
      body << "\r\n" << (encoding == "base64" ? [bytes].pack("m") : bytes.b)
    end
    body << "\r\n--#{boundary}#{'--' if close}\r\n"
  end

  def mtom_response(cid)
    W::Envelope.write(+"", operation: "downloadResponse", namespace: NS, parts: { r: "PLACEHOLDER" })
               .sub("PLACEHOLDER", %(<xop:Include xmlns:xop="#{XOP}" href="cid:#{cid}"/>))
  end

  def call_with(body, content_type: %(multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="text/xml"; boundary="#{BOUNDARY}"))
    LoopbackServer.open(proc { [200, { "Content-Type" => content_type }, body] }) do |server|
      W::Client.new(endpoint: server.url, namespace: NS).call(:download, {}, returns: :base64)
    end
  end

  def test_the_client_reads_an_mtom_response
    bytes = (0..255).map(&:chr).join.b * 1000
    assert_equal bytes, call_with(package(mtom_response("file%40x"), [["file@x", bytes]]))
    assert_equal bytes, call_with(package(mtom_response("b64"), [["b64", bytes, "base64"]]))
  end

  def test_bad_packages_are_errors
    root = mtom_response("file")
    error = assert_raises(W::AttachmentError) { call_with(package(root, [%w[other x]])) }
    assert_match(/names cid:file, which the message does not hold/, error.message)
    error = assert_raises(W::AttachmentError) { call_with(package(root, [%w[file x]]).byteslice(0, 300)) }
    assert_match(/not closed by its boundary|no end of its headers/, error.message)
    error = assert_raises(W::AttachmentError) { call_with(package(root, [%w[file x]]), content_type: "multipart/related; type=\"application/xop+xml\"") }
    assert_match(/without a boundary/, error.message)
    error = assert_raises(W::AttachmentError) do
      call_with(package(root.sub("<?xml", %(<!DOCTYPE x [<!ENTITY a "b">]><?xml)), [%w[file x]]))
    end
    assert_match(/well-formed|DOCTYPE/, error.message)
    LoopbackServer.open(proc { [200, { "Content-Type" => %(multipart/related; boundary="#{BOUNDARY}") }, package(root, [["file", "x" * 5000]])] }) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, max_size: 4096)
      error = assert_raises(W::AttachmentError) { client.call(:download, {}, returns: :base64) }
      assert_match(/larger than 4096 bytes/, error.message)
    end
  end

  def test_the_service_answers_a_bad_package_with_a_client_fault
    Interop::Server.open(UploadService.new) do |server|
      root = W::Envelope.write(+"", operation: "upload", namespace: NS, parts: { name: "x", data: "PLACEHOLDER" })
                        .sub("PLACEHOLDER", %(<xop:Include xmlns:xop="#{XOP}" href="cid:missing"/>))
      type = %(multipart/related; type="application/xop+xml"; start-info="text/xml"; boundary="#{BOUNDARY}")
      response = Net::HTTP.post(URI(server.url), package(root, [%w[other x]]), "Content-Type" => type)
      assert_equal "500", response.code
      fault = W::Envelope::Reader.new(response.body).fault
      assert_match(/cid:missing, which the message does not hold/, fault.reason)
    end
  end
end
