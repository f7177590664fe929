# frozen_string_literal: true

require_relative "soap_test_support"
require "rexml/document"

# The envelope layer: writing requests and responses in each style and version,
# reading them back, and every fault fixture.
class SOAPEnvelopeTest < Minitest::Test
  include SOAPTestModels
  Envelope = Wirebind::SOAP::Envelope
  Reader = Wirebind::SOAP::Envelope::Reader
  TrickleIO = Wirebind::CodecTestHelpers::TrickleIO

  def fixture(name)
    File.binread(shared_path("fixtures", "soap", name))
  end

  # Each input shape a reader takes: a String, a trickling IO, a File.
  def readers(xml, **options)
    [Reader.new(xml, **options), Reader.new(TrickleIO.new(xml, seed: 3), **options), Reader.new(StringIO.new(xml), **options)]
  end

  def fault_from(xml, **options)
    readers(xml, **options).map do |reader|
      error = assert_raises(Wirebind::SOAP::Fault) { reader.decode(:string) }
      assert_same reader.fault, error
      error
    end
  end

  def test_soap11_fault_fixture
    fault_from(fixture("soap_fault.xml"), http_status: 500).each do |fault|
      assert_equal "soap:Server", fault.code
      assert_equal "Fault occurred while processing.", fault.reason
      assert_equal [], fault.subcodes
      assert_nil fault.actor
      assert_nil fault.detail
      assert_equal 500, fault.http_status
      assert_kind_of Wirebind::Error, fault
      assert_equal "soap:Server: Fault occurred while processing.", fault.message
    end
  end

  def test_fault_with_detail_fixture
    fault_from(fixture("another_soap_fault.xml")).each do |fault|
      assert_equal "ERR_NO_SESSION", fault.code
      assert_equal "Wrong session message", fault.reason
      assert_match %r{\A<detail xmlns:SOAP-ENV=.*><soapVal><ERRNO xsi:type="xsd:string">80:1289245853:55</ERRNO></soapVal></detail>\z}, fault.detail
      Wirebind::XML.check(fault.detail) # well-formed on its own: the declarations came along
      assert_equal "80:1289245853:55", fault.detail_as(ErrorDetail).errno
    end
  end

  def test_empty_fault_fixture
    fault_from(fixture("empty_soap_fault.xml")).each do |fault|
      assert_nil fault.code
      assert_nil fault.reason
      assert_equal "80:1289245853:55", fault.detail_as(ErrorDetail).errno
    end
  end

  def test_soap12_shaped_fault_fixture
    fault_from(fixture("soap_fault12.xml")).each do |fault|
      assert_equal "soap:Sender", fault.code
      assert_equal ["m:MessageTimeout"], fault.subcodes
      assert_equal "Sender Timeout", fault.reason
      assert_equal "P5M", Wirebind::XML.decode(fault.detail, :string, at: "Detail/MaxTime")
    end
  end

  # gSOAP (soapcpp2 -2, SOAP_XML_NIL) writes SOAP 1.1's fault fields as xsi:nil
  # before 1.2's Code and Reason: an empty field does not hide the one that has
  # the value (the fault had no code and no reason).
  def test_soap12_fault_with_nil_soap11_fields_first
    xml = %(<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://www.w3.org/2003/05/soap-envelope" ) +
          %(xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><SOAP-ENV:Body><SOAP-ENV:Fault><faultcode xsi:nil="true"/>) +
          %(<faultstring xsi:nil="true"/><faultactor xsi:nil="true"/><SOAP-ENV:Code><SOAP-ENV:Value>SOAP-ENV:Sender</SOAP-ENV:Value>) +
          %(<SOAP-ENV:Subcode xsi:nil="true"/></SOAP-ENV:Code><SOAP-ENV:Reason><SOAP-ENV:Text xml:lang="en">not today</SOAP-ENV:Text>) +
          %(</SOAP-ENV:Reason><SOAP-ENV:Node xsi:nil="true"/><SOAP-ENV:Role xsi:nil="true"/></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>)
    fault_from(xml).each do |fault|
      assert_equal ["SOAP-ENV:Sender", "not today", [], nil, nil], [fault.code, fault.reason, fault.subcodes, fault.actor, fault.node]
    end
  end

  def test_funky_fault_fixture_is_a_fault
    fault_from(fixture("soap_fault_funky.xml")).each do |fault|
      assert_equal "42", fault.code
      assert_equal "The Answer to Life The Universe And Everything", fault.reason
    end
  end

  def test_fault_with_invalid_utf8_is_a_parse_error
    error = assert_raises(Wirebind::ParseError) { Reader.new(fixture("soap_fault_invalid_encoding.xml")) }
    assert_match(/invalid UTF-8/, error.message)
  end

  def test_envelope_without_body
    error = assert_raises(Wirebind::DecodeError) { Reader.new(fixture("no_body.xml")) }
    assert_match(/Body/, error.message)
  end

  def test_not_an_envelope
    assert_raises(Wirebind::DecodeError) { Reader.new("<html><body>oops</body></html>") }
    assert_raises(Wirebind::ParseError) { Reader.new("Internal error <") }
  end

  def test_non_fault_fixtures_have_an_operation
    { "authentication.xml" => "authenticateResponse", "f5.xml" => "get_agent_listen_addressResponse",
      "header.xml" => "AuthenticateReply", "list.xml" => "MultiNamespacedEntryResponse",
      "multi_ref.xml" => "listResponse", "taxcloud.xml" => "LookupResponse" }.each do |file, operation|
      readers(fixture(file)).each do |reader|
        assert_equal operation, reader.operation[0], file
        assert_nil reader.fault
        assert_equal "1.1", reader.version
      end
    end
  end

  # The start of most responses is matched at once; anything unusual goes
  # through the tokenizer. Both must agree.
  def test_quick_and_full_starts_agree
    docs = %w[authentication.xml f5.xml list.xml multi_ref.xml taxcloud.xml].map { |f| fixture(f) }
    docs << Envelope.write(+"", operation: "op", namespace: "urn:x", parts: { a: 1 }, style: :rpc)
    docs << Envelope.write(+"", operation: "op", namespace: "urn:x", parts: { a: 1 }, style: :document, version: "1.2")
    docs << %(<s:Envelope xmlns:s="#{Wirebind::SOAP::NS_11}" xmlns:p="urn:outer"><s:Body><p:op/></s:Body></s:Envelope>)
    docs << %(<Envelope xmlns="#{Wirebind::SOAP::NS_11}"><Body><op xmlns="urn:d"/></Body></Envelope>)
    docs.each do |xml|
      slow = xml.sub(/(<(?:\w+:)?Envelope[^>]*>)/) { "#{Regexp.last_match(1)}<!-- through the tokenizer -->" }
      refute_equal xml, slow
      [xml, StringIO.new(xml), TrickleIO.new(xml, seed: 1)].each do |input|
        quick = Reader.new(input)
        full = Reader.new(slow)
        assert_equal [full.version, full.operation], [quick.version, quick.operation], xml[0, 120]
      end
    end
    undeclared = %(<s:Envelope xmlns:s="#{Wirebind::SOAP::NS_11}"><s:Body><q:op/></s:Body></s:Envelope>)
    assert_raises(Wirebind::ParseError) { Reader.new(undeclared) }
  end

  class LogCase
    include Wirebind::Model
    attribute :log_time, :time
    attribute :log_text, :string
  end

  class Token
    include Wirebind::Model
    attribute :token, :string
    attribute :client, :string
  end

  class AuthReturn
    include Wirebind::Model
    attribute :authentication_value, Token
    attribute :success, :boolean
  end

  def test_returns_single_and_list
    readers(fixture("authentication.xml")).each do |reader|
      result = reader.decode(AuthReturn)
      assert_equal "a68d1d6379b62ff339a0e0c69ed4d9cf", result.authentication_value.token
      assert_equal true, result.success
    end
    readers(fixture("list.xml")).each do |reader|
      cases = reader.decode([LogCase])
      assert_equal(%w[test another], cases.map { |c| c.log_text.split.first })
    end
    readers(fixture("list.xml")).each do |reader|
      seen = []
      assert_equal 2, reader.each(LogCase) { |c| seen << c.log_time }
      assert_equal [Time.new(2010, 9, 21, 18, 22, 1.558r, "+10:00"), Time.new(2010, 9, 21, 18, 22, 7.038r, "+10:00")], seen
    end
    readers(fixture("taxcloud.xml")).each do |reader|
      assert_equal "Invalid apiLoginID and/or apiKey", reader.decode(:string, at: "*/LookupResult/Messages/ResponseMessage/Message")
    end
    assert_equal "P", Reader.new(fixture("header.xml")).decode(:string, at: "*/processStatus/statusCode")
  end

  def test_empty_body_and_void_results
    xml = %(<e:Envelope xmlns:e="#{Wirebind::SOAP::NS_12}"><e:Body/></e:Envelope>)
    assert_nil Reader.new(xml).decode(:string)
    assert_equal [], Reader.new(xml).decode([:string])
    assert_equal "1.2", Reader.new(xml).version
    assert_nil Reader.new(fixture("authentication.xml")).decode(nil)
  end

  def values(record)
    record.class.attributes.map { |attribute| record.public_send(attribute.name) }
  end

  def test_a_reader_decodes_once
    reader = Reader.new(fixture("authentication.xml"))
    reader.decode(AuthReturn)
    assert_raises(ArgumentError) { reader.decode(AuthReturn) }
  end

  PARTS = { in0: "tok & <ken>", in1: 42, in2: 2**40, in3: 1.5, in4: BigDecimal("12.50"), in5: true, in6: false,
            in7: Time.utc(2024, 5, 6, 7, 8, 9), in8: Date.new(2024, 5, 6), in9: "\x00\xFFbin".b, in10: nil }.freeze
  TYPES = { in0: :string, in1: :integer, in2: :integer, in3: :float, in4: :decimal, in5: :boolean, in6: :boolean,
            in7: :time, in8: :date, in9: :base64, in10: :string }.freeze

  def test_scalar_parts_round_trip_in_every_style_and_version
    %w[1.1 1.2].each do |version|
      Wirebind::SOAP::STYLES.each do |style|
        xml = Envelope.write(+"", operation: "doIt", namespace: "urn:ops", parts: PARTS, version: version, style: style)
        reader = Reader.new(xml)
        assert_equal version, reader.version
        assert_equal ["doIt", "urn:ops"], reader.operation
        args = reader.arguments(Envelope.arguments_model(TYPES, style))
        assert_equal PARTS.values, values(args), "#{version} #{style}"
      end
    end
  end

  def test_rpc_encoded_writes_xsi_types
    xml = Envelope.write(+"", operation: "doIt", namespace: "urn:ops", parts: PARTS, style: :rpc_encoded)
    %w[xsd:string xsd:int xsd:long xsd:double xsd:decimal xsd:boolean xsd:dateTime xsd:date xsd:base64Binary].each do |type|
      assert_includes xml, %(xsi:type="#{type}")
    end
    assert_includes xml, %(<in10 xsi:nil="true"/>)
    assert_includes xml, %(soapenv:encodingStyle="#{Wirebind::SOAP::ENCODING_NS}")
  end

  def test_model_and_list_parts_round_trip
    issues = [SOAPTestModels.issue(1), SOAPTestModels.issue(2)]
    types = { in0: :string, in1: [RemoteIssue], in2: RemoteIssue, in3: [:string] }
    parts = { in0: "t", in1: issues, in2: issues.first, in3: %w[x y] }
    Wirebind::SOAP::STYLES.each do |style|
      xml = Envelope.write(+"", operation: "put", namespace: "urn:ops", parts: parts, style: style)
      Wirebind::XML.check(xml)
      args = Reader.new(xml).arguments(Envelope.arguments_model(types, style))
      assert_equal parts.values, values(args), style
    end
  end

  # A model in another namespace than the operation's (vSphere pbm's _this, a
  # vim25 ManagedObjectReference; a WCF data contract).
  class ForeignReference
    include Wirebind::Model
    xml_namespace "urn:types"
    attribute :kind, :string, xml: "@type"
    attribute :code, :string, xml: "code"
  end

  # A document/literal part is in its operation's namespace (where the
  # schema declares it, qualified), its model's children in the model's: the
  # part was written in the model's namespace.
  def test_a_document_part_is_in_its_operations_namespace_whatever_its_models
    reference = ForeignReference.new(kind: "Folder", code: "g1")
    xml = Envelope.write(+"", operation: "get", namespace: "urn:ops", parts: { _this: reference }, style: :document)
    part = REXML::Document.new(xml).root.elements["*/get/_this"]
    code = part.elements.first
    assert_equal %w[urn:ops Folder code urn:types g1], [part.namespace, part.attributes["type"], code.name, code.namespace, code.text]
    args = Reader.new(xml).arguments(Envelope.arguments_model({ _this: ForeignReference }, :document))
    assert_equal [reference], values(args)
  end

  def test_rpc_encoded_arrays
    issues = [SOAPTestModels.issue(1), SOAPTestModels.issue(2)]
    xml = Envelope.write(+"", operation: "put", namespace: "urn:ops", parts: { in0: issues, in1: %w[a b c], in2: [] },
                              style: :rpc_encoded)
    assert_includes xml, %(<in0 xsi:type="soapenc:Array" soapenc:arrayType="ns2:RemoteIssue[2]" xmlns:ns2="#{BEANS}">)
    assert_includes xml, %(<in1 xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[3]">)
    assert_includes xml, %(<in2 xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[0]"></in2>)
    assert_includes xml, %(<affectsVersions xsi:type="soapenc:Array" soapenc:arrayType="ns2:RemoteVersion[2]")
    assert_includes xml, %(<item xsi:type="ns2:RemoteIssue" xmlns:ns2="#{BEANS}">)
    streamed = Envelope.write(+"", operation: "put", parts: { in0: issues.each }, types: { in0: [RemoteIssue] }, style: :rpc_encoded)
    assert_includes streamed, %(soapenc:arrayType="ns2:RemoteIssue[]")
  end

  # SOAP 1.2 encoding's arrays (Part 2 section 3.1): enc:Array with enc:itemType and
  # enc:arraySize ("*" when the length is not known up front), nothing of 1.1's soapenc.
  def test_rpc_encoded_arrays_over_soap12
    issues = [SOAPTestModels.issue(1), SOAPTestModels.issue(2)]
    parts = { in0: issues, in1: %w[a b c], in2: [] }
    xml = Envelope.write(+"", operation: "put", namespace: "urn:ops", parts: parts, style: :rpc_encoded, version: "1.2")
    Wirebind::XML.check(xml)
    assert_includes xml, %(<in0 xsi:type="enc:Array" enc:itemType="ns2:RemoteIssue" enc:arraySize="2" xmlns:ns2="#{BEANS}">)
    assert_includes xml, %(<in1 xsi:type="enc:Array" enc:itemType="xsd:string" enc:arraySize="3">)
    assert_includes xml, %(<in2 xsi:type="enc:Array" enc:itemType="xsd:anyType" enc:arraySize="0"></in2>)
    assert_includes xml, %(<affectsVersions xsi:type="enc:Array" enc:itemType="ns2:RemoteVersion" enc:arraySize="2")
    refute_includes xml, "soapenc"
    types = { in0: [RemoteIssue], in1: [:string], in2: [:string] }
    assert_equal parts.values, values(Reader.new(xml).arguments(Envelope.arguments_model(types, :rpc_encoded)))
    streamed = Envelope.write(+"", operation: "put", parts: { in0: issues.each }, types: { in0: [RemoteIssue] },
                                   style: :rpc_encoded, version: "1.2")
    assert_includes streamed, %(enc:itemType="ns2:RemoteIssue" enc:arraySize="*")
  end

  # What PHP's SoapClient writes over SOAP 1.2 (enc:itemType before xsi:type), and
  # SOAP 1.1's soapenc:Array in a 1.2 envelope: the reader takes both.
  def test_rpc_encoded_soap12_reader_takes_both_array_forms
    enc = Wirebind::SOAP::ENCODING_NS_12
    php = %(<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" ) +
          %(xmlns:ns1="urn:x" xmlns:xsd="#{Wirebind::SOAP::XSD_NS}" xmlns:enc="#{enc}" xmlns:xsi="#{Wirebind::SOAP::XSI_NS}" ) +
          %(xmlns:soapenc="#{Wirebind::SOAP::ENCODING_NS}"><env:Body><ns1:f env:encodingStyle="#{enc}">) +
          %(<param0 enc:itemType="xsd:int" enc:arraySize="3" xsi:type="enc:Array"><item xsi:type="xsd:int">1</item>) +
          %(<item xsi:type="xsd:int">2</item><item xsi:type="xsd:int">3</item></param0>) +
          %(<param1 xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[2]"><item xsi:type="xsd:string">a</item>) +
          %(<item xsi:type="xsd:string">b</item></param1></ns1:f></env:Body></env:Envelope>)
    model = Envelope.arguments_model({ param0: [:integer], param1: [:string] }, :rpc_encoded)
    readers(php).each { |reader| assert_equal [[1, 2, 3], %w[a b]], values(reader.arguments(model)) }
  end

  def test_multi_ref_output_writes_each_record_once
    issues = [SOAPTestModels.issue(1), SOAPTestModels.issue(2)]
    issues << issues.first
    xml = Envelope.write(+"", operation: "getIssuesResponse", namespace: "urn:ops", parts: { getIssuesReturn: issues },
                              style: :rpc_encoded, multi_ref: true)
    Wirebind::XML.check(xml)
    body = xml[%r{<soapenv:Body>(.*)</soapenv:Body>}, 1]
    expected = %r{\A<ns1:getIssuesResponse [^>]*><getIssuesReturn [^>]*><item href="#id0"/><item href="#id1"/><item href="#id0"/>}.source +
               %r{</getIssuesReturn></ns1:getIssuesResponse><multiRef id="id0" soapenc:root="0"}.source
    assert_match Regexp.new(expected), body
    # two issues, and the one version object each shares between its two references
    assert_equal 4, body.scan("<multiRef ").size
    # depth first: each issue's version right after it, so that a streaming reader completes it there
    assert_equal %w[id0 id2 id1 id3], body.scan(/<multiRef id="(id\d+)"/).flatten
    # Axis 1's order, level by level
    axis = Envelope.write(+"", operation: "getIssuesResponse", namespace: "urn:ops", parts: { getIssuesReturn: issues },
                               style: :rpc_encoded, multi_ref: :breadth_first)
    assert_equal %w[id0 id1 id2 id3], axis.scan(/<multiRef id="(id\d+)"/).flatten
    assert_equal axis.scan(%r{<multiRef .*?</multiRef>}).sort, body.scan(%r{<multiRef .*?</multiRef>}).sort
  end

  def test_multi_ref_output_survives_cycles
    node = Class.new do
      include Wirebind::Model
      xml_root "Node"
      attribute :name, :string
      attribute :next_node, self, xml: "next"
    end
    a = node.new(name: "a")
    b = node.new(name: "b", next_node: a)
    a.next_node = b
    xml = Envelope.write(+"", operation: "op", parts: { in0: a }, style: :rpc_encoded, multi_ref: true)
    assert_equal 2, xml.scan("<multiRef ").size
    error = assert_raises(Wirebind::EncodeError) { Envelope.write(+"", operation: "op", parts: { in0: a }, style: :rpc_encoded) }
    assert_match(/deeper/, error.message)
  end

  def test_headers
    xml = Envelope.write(+"", operation: "op", parts: {}, headers: [Session.new(token: "abc")], header_xml: "<x:Extra xmlns:x='urn:x'/>")
    assert_includes xml, %(<soapenv:Header><s:Session xmlns:s="urn:session"><s:token>abc</s:token></s:Session><x:Extra xmlns:x='urn:x'/></soapenv:Header>)
    assert_equal "abc", Wirebind::XML.decode(xml, Session, at: "Envelope/Header/Session").token
  end

  # A header element of a simple type (WCF's string headers): [name, scalar],
  # the name "{namespace}local" or "local"; the text escaped as any value's.
  def test_scalar_headers
    xml = Envelope.write(+"", operation: "op", parts: {}, headers: [["{urn:h}Token", "a<b & c"], ["Count", 3], ["{}Flag", true]])
    assert_includes xml, %(<soapenv:Header><Token xmlns="urn:h">a&lt;b &amp; c</Token><Count>3</Count><Flag>true</Flag></soapenv:Header>)
    error = assert_raises(ArgumentError) { Envelope.write(+"", operation: "op", parts: {}, headers: [["{urn:h", "x"]]) }
    assert_match(/closing brace/, error.message)
    error = assert_raises(ArgumentError) { Envelope.write(+"", operation: "op", parts: {}, headers: [["{urn:h}a b", "x"]]) }
    assert_match(/header name must be an XML name/, error.message)
    assert_raises(ArgumentError) { Envelope.write(+"", operation: "op", parts: {}, headers: ["alone"]) }
  end

  def test_subclass_parts_get_an_xsi_type
    sub = Class.new(RemoteIssue) { xml_type "SpecialIssue", namespace: "urn:special" }
    xml = Envelope.write(+"", operation: "op", parts: { in0: sub.new(key: "K") }, types: { in0: RemoteIssue }, style: :document)
    prefix = Wirebind::XML::Escape.automatic_prefix("urn:special")
    assert_includes xml, %(<in0 xsi:type="#{prefix}:SpecialIssue" xmlns:#{prefix}="urn:special")
    assert_equal sub, Reader.new(xml).arguments(Envelope.arguments_model({ in0: RemoteIssue }, :document)).a0.class
    plain = Envelope.write(+"", operation: "op", parts: { in0: RemoteIssue.new(key: "K") }, types: { in0: RemoteIssue })
    refute_includes plain, "xsi:type"
  end

  def test_bad_values_and_names
    assert_raises(Wirebind::EncodeError) { Envelope.write(+"", operation: "op", parts: { in0: Object.new }) }
    assert_raises(Wirebind::EncodeError) { Envelope.write(+"", operation: "op", parts: { in0: "x" }, types: { in0: :integer }) }
    assert_raises(ArgumentError) { Envelope.write(+"", operation: "a b", parts: {}) }
    assert_raises(ArgumentError) { Envelope.write(+"", operation: "op", parts: { "x:y" => 1 }) }
    assert_raises(ArgumentError) { Envelope.write(+"", operation: "op", version: "1.3") }
    assert_raises(ArgumentError) { Envelope.write(+"", operation: "op", style: :literal) }
  end

  def test_faults_round_trip_in_both_versions
    detail = ErrorDetail.new(errno: "E42")
    %w[1.1 1.2].each do |version|
      [["Client", "soapenv:#{version == '1.1' ? 'Client' : 'Sender'}"], ["Server", "soapenv:#{version == '1.1' ? 'Server' : 'Receiver'}"],
       ["app:Custom", "app:Custom"]].each do |code, written|
        fault = Wirebind::SOAP::Fault.new(code: code, reason: "went <wrong>", detail: detail, subcodes: version == "1.2" ? ["soapenv:Sub"] : [])
        xml = Envelope.write_fault(+"", fault, version: version)
        read = Reader.new(xml).fault
        assert_equal written, read.code
        assert_equal "went <wrong>", read.reason
        assert_equal fault.subcodes, read.subcodes
        assert_equal detail, read.detail_as(ErrorDetail)
        # The detail read back writes again as it was.
        again = Reader.new(Envelope.write_fault(+"", read, version: version)).fault
        assert_equal detail, again.detail_as(ErrorDetail)
      end
    end
    plain = Reader.new(Envelope.write_fault(+"", Wirebind::SOAP::Fault.new(code: "Server", reason: "x", detail: "<e:Info xmlns:e='urn:e'>1</e:Info>"))).fault
    assert_equal "1", Wirebind::XML.decode(plain.detail, :string, at: "detail/Info")
  end
end

# The reader hands its decode the names it read as path steps (XML::Path):
# a namespace holding '}' is kept, where printing it into a path String lost it.
class SOAPEnvelopePathStepsTest < Minitest::Test
  BRACED = "urn:a}b"

  def response(first_return, second_return)
    %(<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body>) +
      %(<m:addResponse xmlns:m="#{BRACED}" xmlns:q="urn:other" xmlns:rpc="#{Wirebind::SOAP::RPC_NS}">) +
      %(<rpc:result>m:sum</rpc:result><q:sum>#{first_return}</q:sum><m:sum>#{second_return}</m:sum>) +
      %(</m:addResponse></e:Body></e:Envelope>)
  end

  def test_rpc_result_in_a_namespace_holding_a_brace
    reader = Wirebind::SOAP::Envelope::Reader.new(response(1, 5))
    assert_equal ["addResponse", BRACED], reader.operation
    assert_equal 5, reader.decode(:integer)
  end

  def test_at_below_body_as_a_path_or_a_string
    path = Wirebind::XML::Path.new([["addResponse", BRACED], ["sum", BRACED]])
    assert_equal [5], Wirebind::SOAP::Envelope::Reader.new(StringIO.new(response(1, 5))).decode([:integer], at: path)
    assert_equal [5], Wirebind::SOAP::Envelope::Reader.new(response(1, 5)).decode([:integer], at: path.to_s)
    assert_equal [1, 5], Wirebind::SOAP::Envelope::Reader.new(response(1, 5)).decode([:integer], at: "addResponse/sum")
  end
end
