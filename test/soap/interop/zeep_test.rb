# frozen_string_literal: true

require_relative "interop_support"

# Python's zeep (Debian's python3-zeep, for /usr/bin/python3) reads the WSDL and
# calls the service: document/literal, rpc/encoded and rpc/literal (zeep_client.py).
class ZeepInteropTest < Minitest::Test
  include ForeignClientTest

  PYTHON = "/usr/bin/python3"

  def test_zeep_calls_document_and_rpc_encoded
    unless File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep", err: File::NULL)
      skip "zeep is not installed for #{PYTHON} (apt-get install python3-zeep; .ci/run does)"
    end

    check_foreign_client([PYTHON, File.join(__dir__, "zeep_client.py")], paths: %w[/document /encoded /rpc])
  end

  # zeep reads the soap12 binding of a SOAP 1.2 service's WSDL: document/literal.
  def test_zeep_calls_document_literal_over_soap12
    require_zeep
    check_foreign_client([PYTHON, File.join(__dir__, "zeep_client.py")], paths: %w[/document12])
  end

  # zeep (4.2) does not read SOAP 1.2 RPC's rpc:result (Part 2 section 4.2.2), which
  # the service writes first in a 1.2 rpc response: it stops at the first call,
  # which the service answered with the right value. zeep's fault, not wirebind's.
  ZEEP_RPC_RESULT = %r{Unexpected element '\{http://www\.w3\.org/2003/05/soap-rpc\}result', expected 'loginReturn'}

  def test_zeep_does_not_read_rpc_result_over_soap12
    require_zeep
    Interop.received
    Interop::Server.open(Interop::APP) do |server|
      %w[/rpc12 /encoded12].each do |path|
        status, _out, err = PeerServer.run([PYTHON, File.join(__dir__, "zeep_client.py"), "#{server.url}#{path}"], timeout: TIMEOUT)
        refute status.success?, path
        assert_match ZEEP_RPC_RESULT, err, path
        assert_equal [[:login, "ann", "secret"]], Interop.received, path
      end
    end
  end

  def require_zeep
    return if File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep", err: File::NULL)

    flunk "zeep is missing for #{PYTHON} (.ci/run installs python3-zeep)" if ENV["CI"]
    skip "zeep is not installed for #{PYTHON} (apt-get install python3-zeep; .ci/run does)"
  end

  # The same calls over HTTP/1.1 to Wirebind::HTTP2::Server (wirebind serve's server).
  def test_zeep_calls_the_service_on_wirebind_server
    unless File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep", err: File::NULL)
      skip "zeep is not installed for #{PYTHON} (apt-get install python3-zeep; .ci/run does)"
    end

    check_foreign_client([PYTHON, File.join(__dir__, "zeep_client.py")], server_class: Interop::WirebindServer)
  end

  # curl over HTTP/2 (prior knowledge) to the same service: the WSDL, one call and one fault.
  def test_curl_calls_the_service_over_http2
    skip "curl is not installed (apt-get install curl)" unless ENV["CI"] || system("command -v curl > /dev/null 2>&1")
    require "open3"
    Interop::WirebindServer.open(Interop::APP) do |server|
      wsdl, = Open3.capture2("curl", "-sS", "--http2-prior-knowledge", "--max-time", "20", "#{server.url}/document?wsdl")
      assert_match(/<(\w+:)?definitions\b.*name="login"/m, wsdl)
      envelope = <<~XML
        <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>
        <t:login xmlns:t="#{Interop::NS}"><user>ann</user><password>secret</password></t:login></s:Body></s:Envelope>
      XML
      out, = Open3.capture2("curl", "-sS", "--http2-prior-knowledge", "--max-time", "20", "-w", "\n%{http_version} %{http_code}",
                            "-H", "content-type: text/xml; charset=utf-8", "-H", "soapaction: \"login\"",
                            "--data-binary", envelope, "#{server.url}/document")
      body, status = out.rpartition("\n").values_at(0, 2)
      assert_equal "2 200", status, body
      assert_match(/>token-ann</, body)
      assert_equal [:login, "ann", "secret"], Interop.received.first
    end
  end
end
