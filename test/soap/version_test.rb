# frozen_string_literal: true

require_relative "soap_test_support"

# SOAP 1.1 and 1.2 as two version objects: what the public "1.1"/"1.2" options
# look up, shared by the envelope writers, the client, the service and the WSDL writer.
class SOAPVersionTest < Minitest::Test
  SOAP = Wirebind::SOAP

  def test_lookup_by_number_envelope_and_media_type
    assert_same SOAP::SOAP11, SOAP::Version.fetch("1.1")
    assert_same SOAP::SOAP12, SOAP::Version.fetch(1.2)
    assert_same SOAP::SOAP12, SOAP::Version.fetch(SOAP::SOAP12)
    assert_same SOAP::SOAP11, SOAP::Version.by_envelope(SOAP::NS_11)
    assert_same SOAP::SOAP12, SOAP::Version.by_media_type("application/soap+xml")
    assert_nil SOAP::Version.by_envelope("urn:other")
    error = assert_raises(ArgumentError) { SOAP::Version.fetch("1.3") }
    assert_equal 'version: must be "1.1" or "1.2", not "1.3"', error.message
    assert_raises(ArgumentError) { SOAP::Client.new(endpoint: "http://127.0.0.1:1/", version: "2") }
  end

  def test_where_the_action_goes
    assert_equal({ "Content-Type" => "text/xml; charset=utf-8", "SOAPAction" => '"urn:a"' },
                 SOAP::SOAP11.request_headers({}, "urn:a"))
    assert_equal({ "Content-Type" => 'application/soap+xml; charset=utf-8; action="urn:a"' },
                 SOAP::SOAP12.request_headers({}, "urn:a"))
    assert_equal '"urn:a"', SOAP::SOAP11.request_action("HTTP_SOAPACTION" => '"urn:a"')
    assert_equal '"urn:b"', SOAP::SOAP12.request_action("CONTENT_TYPE" => 'application/soap+xml; action="urn:b"')
  end

  def test_faults_and_rpc_result
    assert_equal [500, 500], [SOAP::SOAP11.fault_status("Client"), SOAP::SOAP11.fault_status("Server")]
    assert_equal [400, 500], [SOAP::SOAP12.fault_status("soap:Client"), SOAP::SOAP12.fault_status("Receiver")]
    assert_equal %w[Client Sender], [SOAP::SOAP11.fault_code("e:Sender"), SOAP::SOAP12.fault_code("Client")]
    assert_nil SOAP::SOAP12.fault_code("app:Mine")
    assert_equal ["wsse:FailedCheck", []], [SOAP::SOAP11.wsse_fault("FailedCheck", "r").code, SOAP::SOAP11.wsse_fault("FailedCheck", "r").subcodes]
    assert_equal ["Sender", ["wsse:FailedCheck"]], [SOAP::SOAP12.wsse_fault("FailedCheck", "r").code, SOAP::SOAP12.wsse_fault("FailedCheck", "r").subcodes]
    refute SOAP::SOAP11.rpc_result?
    assert SOAP::SOAP12.rpc_result?
  end

  def test_one_object_per_version_for_the_wsdl_writer
    assert_equal [SOAP::NS_11, SOAP::ENCODING_NS, Wirebind::Namespaces::WSDL_SOAP11_BINDING, "SoapBinding"],
                 [SOAP::SOAP11.envelope_namespace, SOAP::SOAP11.encoding_namespace, SOAP::SOAP11.binding_namespace, SOAP::SOAP11.binding_suffix]
    assert_equal [SOAP::NS_12, SOAP::ENCODING_NS_12, Wirebind::Namespaces::WSDL_SOAP12_BINDING, "Soap12Port"],
                 [SOAP::SOAP12.envelope_namespace, SOAP::SOAP12.encoding_namespace, SOAP::SOAP12.binding_namespace, SOAP::SOAP12.port_suffix]
    refute Wirebind::WSDL.const_defined?(:SOAPVersion, false), "the WSDL writer uses SOAP::Version, not a copy"
  end
end
