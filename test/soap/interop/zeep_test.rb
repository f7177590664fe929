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
