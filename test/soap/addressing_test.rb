# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require_relative "interop/interop_support"
require "open3"
require "json"

# WS-Addressing 1.0: zeep (Debian's python3-zeep) calling a service with
# addressing on, turned on by zeep itself from the ?wsdl's wsam:Action, wirebind's client against the same service,
# and a client refusing a reply that relates to another message.
class SOAPAddressingTest < Minitest::Test
  include PeerServer

  W = Wirebind::SOAP
  NS = "urn:addressed"
  WSA = W::Addressing::NS
  PYTHON = "/usr/bin/python3"

  class EchoService < Wirebind::SOAP::Service
    namespace NS
    addressing true
    operation :echo, args: { text: :string }, returns: :string do |text, context:|
      "#{text} via #{context.header_blocks.count { |_, uri| uri == WSA }} addressing headers"
    end
  end

  def test_zeep_reads_the_wsdl_action_and_gets_a_reply_that_relates_to_its_message
    require_operation_keywords
    require_peer(File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep", err: File::NULL), "zeep for #{PYTHON} (python3-zeep)")
    Interop::Server.open(EchoService.new) do |server|
      out, err, status = Open3.capture3(PYTHON, File.join(__dir__, "interop", "zeep_addressing_client.py"), server.url)
      assert status.success?, "zeep failed:\n#{err}"
      reply = JSON.parse(out.lines.last)
      assert_equal "zeep via 3 addressing headers", reply["result"] # Action, MessageID, To: no plugin given, once each
      assert_match(/\Aurn:uuid:/, reply["message_id"])
      assert_equal reply["message_id"], reply["relates_to"]
      assert_equal "#{NS}/echoResponse", reply["action"]
    end
  end

  def test_wirebind_client_and_service
    require_operation_keywords
    Interop::Server.open(EchoService.new) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, addressing: true)
      assert_equal "me via 4 addressing headers", client.call(:echo, { text: "me" }, returns: :string) # and ReplyTo
    end
  end

  # Without addressing or WS-Security a request carries the headers it was given and nothing else.
  def test_a_plain_call_writes_only_its_own_headers
    LoopbackServer.open(proc { [200, {}, reply("x")] }) do |server|
      W::Client.new(endpoint: server.url, namespace: NS).call(:echo, { text: "x" })
      refute_includes server.requests.pop.body, "Header"
      session = SOAPTestModels::Session.new(token: "t")
      W::Client.new(endpoint: server.url, namespace: NS, soap_headers: [session]).call(:echo, { text: "x" })
      header = server.requests.pop.body[%r{<soapenv:Header>(.*)</soapenv:Header>}, 1]
      assert_equal Wirebind::XML.encode(session), header
    end
  end

  def reply(relates_to, must_understand: false)
    must = must_understand ? %( soapenv:mustUnderstand="1") : ""
    W::Envelope.write(+"", operation: "echoResponse", namespace: NS, parts: { r: "answer" },
                           header_xml: %(<wsa:Action xmlns:wsa="#{WSA}"#{must}>#{NS}/echoResponse</wsa:Action>) +
                                       %(<wsa:RelatesTo xmlns:wsa="#{WSA}">#{relates_to}</wsa:RelatesTo>))
  end

  def message_id(request)
    request.body[/<wsa:MessageID[^>]*>([^<]+)</, 1]
  end

  def test_a_reply_to_another_message_is_refused
    sent = nil
    answer = proc do |request|
      sent = message_id(request)
      [200, {}, reply(sent, must_understand: true)]
    end
    LoopbackServer.open(answer) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, addressing: true)
      assert_equal "answer", client.call(:echo, { text: "x" }, returns: :string) # a mustUnderstand wsa:Action is understood
      assert_match(/\Aurn:uuid:\h{8}-/, sent)
    end
    LoopbackServer.open(proc { [200, {}, reply("urn:uuid:00000000-0000-4000-8000-000000000000")] }) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, addressing: true)
      error = assert_raises(W::AddressingError) { client.call(:echo, { text: "x" }, returns: :string) }
      assert_match(/relates to message urn:uuid:00000000/, error.message)
    end
  end
end
