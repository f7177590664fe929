# frozen_string_literal: true

require_relative "xml_test_support"

# Real SOAP responses (Savon's fixtures, ../shared/fixtures/soap) decoded with
# small models, from Strings and from trickling IOs.
class XMLSoapFixturesTest < Minitest::Test
  include XMLTestHelpers

  SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"

  class Fault
    include Wirebind::Model
    attribute :faultcode, :string
    attribute :faultstring, :string
    attribute :faultfactor, :string
    attribute :errno, :string, xml: "detail/soapVal/ERRNO"
  end

  class NumericFault
    include Wirebind::Model
    attribute :faultcode, :integer
    attribute :faultstring, :string
  end

  class Text12
    include Wirebind::Model
    attribute :lang, :string, xml: "@xml:lang"
    attribute :text, :string, xml: "."
  end

  class Fault12
    include Wirebind::Model
    attribute :code, :string, xml: "Code/Value"
    attribute :subcode, :string, xml: "Code/Subcode/Value"
    attribute :reason, Text12, xml: "Reason/Text"
    attribute :max_time, :string, xml: "Detail/MaxTime"
  end

  class LogCase
    include Wirebind::Model
    attribute :log_time, :time
    attribute :log_type, :string
    attribute :log_text, :string
  end

  class History
    include Wirebind::Model
    attribute :cases, [LogCase], xml: "case"
  end

  class Status
    include Wirebind::Model
    attribute :status_code, :string, xml: "processStatus/statusCode"
  end

  class Ref
    include Wirebind::Model
    attribute :href, :string, xml: "@href"
  end

  class MultiRef
    include Wirebind::Model
    attribute :id, :string, xml: "@id"
    attribute :root, :boolean, xml: "@{http://schemas.xmlsoap.org/soap/encoding/}root"
    attribute :type, :string, xml: "@{http://www.w3.org/2001/XMLSchema-instance}type"
    attribute :value, :string, xml: "."
    attribute :date, :time
    attribute :location, :string
    attribute :mail_id, Ref
    attribute :reference_id, Ref
    attribute :state, :string
    attribute :subject, :string
  end

  class ResponseMessage
    include Wirebind::Model
    attribute :response_type, :string, xml: "ResponseType"
    attribute :message, :string, xml: "Message"
  end

  class LookupResult
    include Wirebind::Model
    attribute :response_type, :string, xml: "ResponseType"
    attribute :messages, [ResponseMessage], xml: "Messages/ResponseMessage"
    attribute :cart_items, [:string], xml: "CartItemsResponse/*"
  end

  class Authentication
    include Wirebind::Model
    attribute :token, :string, xml: "authenticationValue/token"
    attribute :token_hash, :string, xml: "authenticationValue/tokenHash"
    attribute :client, :string, xml: "authenticationValue/client"
    attribute :success, :boolean
  end

  class ListenAddress
    include Wirebind::Model
    attribute :transport, :string
    attribute :address, :string, xml: "ipport/address"
    attribute :port, :integer, xml: "ipport/port"
  end

  def fixture(name)
    File.binread(shared_path("fixtures", "soap", name))
  end

  def test_every_well_formed_fixture_checks
    Dir[File.join(shared_path("fixtures", "soap"), "*.xml")].sort.each do |path|
      next if File.basename(path) == "soap_fault_invalid_encoding.xml"

      assert_same true, XML.check(File.binread(path)), path
      assert_same true, XML.check(TrickleIO.new(File.binread(path))), path
      File.open(path, "rb") { |file| assert_same true, XML.check(file), path }
    end
  end

  def test_soap_fault
    xml = fixture("soap_fault.xml")
    fault = decode_everywhere(xml, Fault, at: "Envelope/Body/Fault")

    assert_equal "soap:Server", fault.faultcode
    assert_equal "Fault occurred while processing.", fault.faultstring
    assert_nil fault.errno
    assert_equal "soap:Server", XML.decode(xml, :string, at: "Envelope/Body/Fault/faultcode")
    assert_nil XML.decode(xml, Fault, at: "Envelope/Body/Fault/nothing")
    assert_nil XML.decode(xml, Fault, at: "Envelope/Header/Fault")
  end

  def test_another_soap_fault_with_detail
    fault = decode_everywhere(fixture("another_soap_fault.xml"), Fault, at: "Envelope/Body/Fault")

    assert_equal "ERR_NO_SESSION", fault.faultcode
    assert_equal "doGetItemsInfo - Wrong session", fault.faultfactor
    assert_equal "Wrong session message", fault.faultstring
    assert_equal "80:1289245853:55", fault.errno
  end

  def test_empty_soap_fault
    fault = decode_everywhere(fixture("empty_soap_fault.xml"), Fault, at: "Envelope/Body/Fault")

    assert_equal "", fault.faultcode, "<faultcode/> is an empty string"
    assert_equal "", fault.faultstring
    assert_nil fault.faultfactor, "absent is nil"
    assert_equal "80:1289245853:55", fault.errno
  end

  def test_funky_soap_fault_with_a_star
    fault = decode_everywhere(fixture("soap_fault_funky.xml"), NumericFault, at: "Envelope/Body/*")

    assert_equal 42, fault.faultcode
    assert_equal "The Answer to Life The Universe And Everything", fault.faultstring
    assert_nil XML.decode(fixture("soap_fault_funky.xml"), NumericFault, at: "Envelope/Body/Fault")
  end

  def test_soap12_fault
    fault = decode_everywhere(fixture("soap_fault12.xml"), Fault12, at: "Envelope/Body/Fault")

    assert_equal "soap:Sender", fault.code
    assert_equal "m:MessageTimeout", fault.subcode
    assert_equal "Sender Timeout", fault.reason.text
    assert_equal "en", fault.reason.lang, "@xml:lang reads xml:lang"
    assert_equal "P5M", fault.max_time
  end

  def test_soap_fault_invalid_encoding
    xml = fixture("soap_fault_invalid_encoding.xml")
    # The document has no declaration, so it is UTF-8; "ñ" is, but the byte after
    # it (0xF1, a Latin-1 "ñ") starts no valid UTF-8 sequence.
    refute xml.dup.force_encoding(Encoding::UTF_8).valid_encoding?
    bad_offset = xml.index("\xF1".b)
    line = xml.byteslice(0, bad_offset).count("\n") + 1
    column = xml.byteslice(0, bad_offset).force_encoding(Encoding::UTF_8).then { |s| s.length - (s.rindex("\n") || -1) }

    assert_equal 5, line
    [xml, TrickleIO.new(xml, seed: 1), TrickleIO.new(xml, seed: 2, max: 1), StringIO.new(xml)].each do |input|
      error = assert_raises(Wirebind::ParseError, input.class.name) { XML.decode(input, Fault, at: "Envelope/Body/Fault") }
      assert_instance_of Wirebind::ParseError, error
      assert_match(/UTF-8/, error.message)
      assert_equal [line, column, bad_offset], [error.line, error.column, error.offset], input.class.name
    end
    assert_raises(Wirebind::ParseError) { XML.check(xml) }
    assert_raises(Wirebind::ParseError) { XML.each(xml, :string, at: "Envelope/Body/Fault/faultcode") { nil } }
  end

  def test_soap_fault_invalid_encoding_read_as_latin1_if_declared
    # The same bytes, declared ISO-8859-1, are a fine document: every byte is a character.
    xml = %(<?xml version="1.0" encoding="ISO-8859-1"?>\n).b + fixture("soap_fault_invalid_encoding.xml")
    fault = decode_everywhere(xml, Fault, at: "Envelope/Body/Fault")

    assert_equal "Response with invalid encoding \u00C3\u00B1 \u00F1", fault.faultstring
  end

  def test_list_with_namespaced_items
    xml = fixture("list.xml")
    history = decode_everywhere(xml, History, at: "Envelope/Body/MultiNamespacedEntryResponse/history")

    assert_equal 2, history.cases.size
    first, second = history.cases
    assert_equal Time.utc(2010, 9, 21, 8, 22, 1.558r), first.log_time
    assert_equal 36_000, first.log_time.utc_offset
    assert_equal "Notes Log", first.log_type
    assert_equal "test", first.log_text
    assert_equal "another test", second.log_text
    assert_equal 38_000_000, second.log_time.nsec
  end

  def test_header_and_body
    xml = fixture("header.xml")

    assert_equal "ABCD1234", decode_everywhere(xml, :string, at: "Envelope/Header/SessionNumber")
    assert_equal "P", decode_everywhere(xml, Status, at: "Envelope/Body/AuthenticateReply").status_code
  end

  def test_multi_ref
    xml = fixture("multi_ref.xml")
    refs = decode_everywhere(xml, [Ref], at: "Envelope/Body/listResponse/listReturn/listReturn")
    entries = decode_everywhere(xml, [MultiRef], at: "Envelope/Body/multiRef")

    assert_equal %w[#id0 #id1 #id2], refs.map(&:href)
    assert_equal %w[id1 id0 id2 id11 id10 id8 id9], entries.map(&:id)
    assert(entries.all? { |e| e.root == false }, "soapenc:root=\"0\" is false")
    by_id = entries.to_h { |e| [e.id, e] }
    history = refs.map { |ref| by_id.fetch(ref.href.delete_prefix("#")) }

    assert_equal [Time.utc(2009, 4, 30, 6, 38, 34), Time.utc(2009, 9, 22, 13, 47, 23), Time.utc(2009, 12, 18, 15, 43, 21)], history.map(&:date)
    assert_equal ["Mail from 04-29-2009: Technical support", "Mail from 09-22-2009: Misc", "Mail from 12-17-2009: Misc"], history.map(&:subject)
    assert_equal %w[Archive Archive Archive], history.map(&:location)
    mail_ids = history.map { |h| Integer(by_id.fetch(h.mail_id.href.delete_prefix("#")).value) }
    assert_equal [708_021, 855_763, 972_219], mail_ids
    assert_equal ["0"], history.map { |h| by_id.fetch(h.reference_id.href.delete_prefix("#")).value }.uniq
    assert_equal "soapenc:int", by_id.fetch("id9").type
    assert_nil by_id.fetch("id9").subject
    assert_nil by_id.fetch("id1").value, "white space between child elements is layout, not a '.' value"
  end

  def test_multi_ref_values_as_integers
    xml = fixture("multi_ref.xml")
    # The first three multiRefs hold elements: not integers.
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, [:integer], at: "Envelope/Body/multiRef") }
    assert_equal "multiRef/date", error.path
  end

  def test_taxcloud
    xml = fixture("taxcloud.xml")
    result = decode_everywhere(xml, LookupResult, at: "Envelope/Body/LookupResponse/LookupResult")

    assert_equal "Error", result.response_type
    assert_equal [ResponseMessage.new(response_type: "Error", message: "Invalid apiLoginID and/or apiKey")], result.messages
    assert_equal [], result.cart_items
    assert_equal result, XML.decode(xml, LookupResult, at: "Envelope/Body/LookupResponse/LookupResult", strict: true),
                 "every element of the result is in the schema"
    type_only = Class.new do
      include Wirebind::Model
      attribute :response_type, :string, xml: "ResponseType"
    end
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, type_only, at: "Envelope/Body/LookupResponse/LookupResult", strict: true) }
    assert_equal "LookupResult/Messages", error.path
  end

  def test_authentication
    auth = decode_everywhere(fixture("authentication.xml"), Authentication, at: "Envelope/Body/authenticateResponse/return")

    assert_equal "a68d1d6379b62ff339a0e0c69ed4d9cf", auth.token
    assert_equal "AAAJxA;cIedoT;mY10ExZwG6JuKgp2OYKxow==", auth.token_hash
    assert_equal "radclient", auth.client
    assert_equal true, auth.success
  end

  def test_f5_array
    xml = fixture("f5.xml")
    items = decode_everywhere(xml, [ListenAddress], at: "Envelope/Body/*/return/item")

    assert_equal %w[TRANSPORT_TCP6 TRANSPORT_UDP6], items.map(&:transport)
    assert_equal ["", ""], items.map(&:address)
    assert_equal [161, 161], items.map(&:port)
    count = XML.each(TrickleIO.new(xml), ListenAddress, at: "Envelope/Body/*/return/*") { |item| assert_equal 161, item.port }
    assert_equal 2, count
  end

  # at: steps naming the namespaces the fixtures really use (URIs with slashes).
  def test_at_steps_with_the_fixtures_namespace_uris
    fault = fixture("soap_fault.xml")
    assert_equal "Fault occurred while processing.", XML.decode(fault, :string, at: "{#{SOAP11}}Envelope/*/*/faultstring")
    assert_nil XML.decode(fault, :string, at: "{http://www.w3.org/2003/05/soap-envelope}Envelope/*/*/faultstring")

    list = fixture("list.xml")
    cases = XML.decode(list, [LogCase], at: "Envelope/Body/*/history/{http://www.example.com/Common/xsd}case")
    assert_equal ["test", "another test"], cases.map(&:log_text)
    assert_equal [], XML.decode(list, [LogCase], at: "Envelope/Body/*/{http://www.example.com/Common/xsd}history/case")
    assert_equal 2, XML.decode(list, [LogCase], at: "Envelope/Body/*/{http://www.example.com/BusinessRulesEngine/xsd}history/case").size

    header = fixture("header.xml")
    assert_nil XML.decode(header, :string, at: "Envelope/{http://webservices.somewhere.com/definitions}Header/SessionNumber"),
               "soap:Header is in the SOAP namespace, whatever default namespace it declares"
    assert_equal ["ABCD1234"], XML.decode(header, [:string], at: "Envelope/*/{http://webservices.somewhere.com/definitions}SessionNumber")

    taxcloud = fixture("taxcloud.xml")
    result = XML.decode(taxcloud, LookupResult, at: "Envelope/Body/{http://taxcloud.net}LookupResponse/{http://taxcloud.net}LookupResult")
    assert_equal "Error", result.response_type
  end

  def test_no_body
    xml = fixture("no_body.xml")

    assert_nil XML.decode(xml, Fault, at: "Envelope/Body/Fault")
    assert_equal [], XML.decode(xml, [Fault], at: "Envelope/Body/*")
    assert_equal "Text", XML.decode(xml, :string)
    assert_equal "Text", XML.decode(xml, :string, at: "Envelope")
  end

  def test_the_jira_wsdl_is_well_formed
    wsdl = File.binread(shared_path("fixtures", "wsdl", "jirasoapservice-v2.wsdl"))

    assert XML.check(wsdl)
    assert XML.check(TrickleIO.new(wsdl, seed: 7))
  end
end
