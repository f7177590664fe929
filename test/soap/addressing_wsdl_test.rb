# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require_relative "interop/interop_support"
require "wirebind/wsdl"

# WS-Addressing from the WSDL (issue 24, item 5): the actions of a port type's
# inputs and outputs (wsaw:Action, wsam:Action, else the default rule of
# WS-Addressing 1.0 Metadata 4.4.4) and whether a binding requires addressing
# (wsaw:UsingAddressing, a wsam:Addressing policy), in the shape a WCF
# service publishes them.
class SOAPAddressingWSDLTest < Minitest::Test
  W = Wirebind::SOAP
  WSA = W::Addressing::NS
  TNS = "http://tempuri.org/"

  # Two bindings of one port type: WSHttpBinding requires addressing through a
  # policy it references (as WCF writes it), BasicHttpBinding says nothing.
  WSDL_TEXT = <<~XML
    <?xml version="1.0" encoding="utf-8"?>
    <wsdl:definitions name="EchoService" targetNamespace="#{TNS}" xmlns:tns="#{TNS}"
        xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
        xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:wsp="http://schemas.xmlsoap.org/ws/2004/09/policy"
        xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
        xmlns:wsaw="http://www.w3.org/2006/05/addressing/wsdl" xmlns:wsam="http://www.w3.org/2007/05/addressing/metadata">
      <wsp:Policy wsu:Id="WSHttpBinding_IEcho_policy">
        <wsp:ExactlyOne><wsp:All><wsaw:UsingAddressing/></wsp:All></wsp:ExactlyOne>
      </wsp:Policy>
      <wsdl:types>
        <xsd:schema targetNamespace="#{TNS}" elementFormDefault="qualified">
          <xsd:element name="Echo"><xsd:complexType><xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="EchoResponse"><xsd:complexType><xsd:sequence><xsd:element name="EchoResult" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="Shout"><xsd:complexType><xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="ShoutResponse"><xsd:complexType><xsd:sequence><xsd:element name="ShoutResult" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="Whisper"><xsd:complexType><xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="WhisperResponse"><xsd:complexType><xsd:sequence><xsd:element name="WhisperResult" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="Murmur"><xsd:complexType><xsd:sequence><xsd:element name="text" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="MurmurResponse"><xsd:complexType><xsd:sequence><xsd:element name="MurmurResult" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
        </xsd:schema>
      </wsdl:types>
      <wsdl:message name="IEcho_Echo_InputMessage"><wsdl:part name="parameters" element="tns:Echo"/></wsdl:message>
      <wsdl:message name="IEcho_Echo_OutputMessage"><wsdl:part name="parameters" element="tns:EchoResponse"/></wsdl:message>
      <wsdl:message name="ShoutIn"><wsdl:part name="parameters" element="tns:Shout"/></wsdl:message>
      <wsdl:message name="ShoutOut"><wsdl:part name="parameters" element="tns:ShoutResponse"/></wsdl:message>
      <wsdl:message name="WhisperIn"><wsdl:part name="parameters" element="tns:Whisper"/></wsdl:message>
      <wsdl:message name="WhisperOut"><wsdl:part name="parameters" element="tns:WhisperResponse"/></wsdl:message>
      <wsdl:message name="MurmurIn"><wsdl:part name="parameters" element="tns:Murmur"/></wsdl:message>
      <wsdl:message name="MurmurOut"><wsdl:part name="parameters" element="tns:MurmurResponse"/></wsdl:message>
      <wsdl:portType name="IEcho">
        <wsdl:operation name="Echo">
          <wsdl:input wsaw:Action="http://tempuri.org/IEcho/Echo" message="tns:IEcho_Echo_InputMessage"/>
          <wsdl:output wsaw:Action="http://tempuri.org/IEcho/EchoResponse" message="tns:IEcho_Echo_OutputMessage"/>
        </wsdl:operation>
        <wsdl:operation name="Shout">
          <wsdl:input wsam:Action="urn:shout" message="tns:ShoutIn"/>
          <wsdl:output message="tns:ShoutOut"/>
        </wsdl:operation>
        <wsdl:operation name="Whisper">
          <wsdl:input message="tns:WhisperIn"/>
          <wsdl:output message="tns:WhisperOut"/>
        </wsdl:operation>
        <wsdl:operation name="Murmur">
          <wsdl:input name="Quietly" message="tns:MurmurIn"/>
          <wsdl:output message="tns:MurmurOut"/>
        </wsdl:operation>
      </wsdl:portType>
      <wsdl:binding name="WSHttpBinding_IEcho" type="tns:IEcho">
        <wsp:PolicyReference URI="#WSHttpBinding_IEcho_policy"/>
        <soap:binding transport="http://schemas.xmlsoap.org/soap/http"/>
        #{%w[Echo Shout Whisper Murmur].map { |name| %(<wsdl:operation name="#{name}"><soap:operation soapAction="http://tempuri.org/IEcho/#{name}" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>) }.join("\n    ")}
      </wsdl:binding>
      <wsdl:binding name="BasicHttpBinding_IEcho" type="tns:IEcho">
        <soap:binding transport="http://schemas.xmlsoap.org/soap/http"/>
        #{%w[Echo Shout Whisper Murmur].map { |name| %(<wsdl:operation name="#{name}"><soap:operation soapAction="http://tempuri.org/IEcho/#{name}" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>) }.join("\n    ")}
      </wsdl:binding>
      <wsdl:service name="EchoService">
        <wsdl:port name="WSHttpBinding_IEcho" binding="tns:WSHttpBinding_IEcho"><soap:address location="http://127.0.0.1/echo"/></wsdl:port>
        <wsdl:port name="BasicHttpBinding_IEcho" binding="tns:BasicHttpBinding_IEcho"><soap:address location="http://127.0.0.1/echo"/></wsdl:port>
      </wsdl:service>
    </wsdl:definitions>
  XML

  # wirebind's own service with addressing on, answering with the wsa:Action it was sent.
  class EchoService < Wirebind::SOAP::Service
    namespace TNS
    addressing true
    %w[Echo Shout Whisper Murmur].each do |name|
      operation name, args: { text: :string }, returns: :string, soap_action: "http://tempuri.org/IEcho/#{name}" do |text, context:|
        "#{text} as #{W::Addressing.value(context.header_blocks, 'Action')}"
      end
    end
  end

  def generated
    mod = Module.new
    Wirebind::WSDL.load(StringIO.new(WSDL_TEXT)).define(mod)
    mod
  end

  def test_the_description_reads_the_actions_and_the_required_addressing
    description = Wirebind::WSDL.load(StringIO.new(WSDL_TEXT))
    assert_empty description.warnings
    ws, basic = description.bindings
    assert_equal [true, false], [ws.addressing, basic.addressing]
    actions = ws.operations.to_h { |operation| [operation.name, [operation.action, operation.reply_action]] }
    assert_equal({ "Echo" => ["http://tempuri.org/IEcho/Echo", "http://tempuri.org/IEcho/EchoResponse"],
                   "Shout" => ["urn:shout", nil], "Whisper" => ["#{TNS}IEcho/WhisperRequest", nil],
                   "Murmur" => ["#{TNS}IEcho/Quietly", nil] }, actions)
  end

  def test_the_generated_operations_carry_the_actions_and_the_default_rule
    operations = generated::WSHttpBindingIEchoClient::OPERATIONS
    assert_equal({ echo: ["http://tempuri.org/IEcho/Echo", "http://tempuri.org/IEcho/EchoResponse"],
                   shout: ["urn:shout", nil],
                   whisper: ["http://tempuri.org/IEcho/WhisperRequest", nil], # 4.4.4: [tns]/[port type]/[operation]Request
                   murmur: ["http://tempuri.org/IEcho/Quietly", nil] },       # the input's own name
                 operations.transform_values { |operation| [operation.action, operation.reply_action] })
  end

  def test_the_default_rule_in_a_urn_namespace_uses_colons
    text = WSDL_TEXT.gsub(%(targetNamespace="#{TNS}"), 'targetNamespace="urn:echo"').sub(%(xmlns:tns="#{TNS}"), 'xmlns:tns="urn:echo"')
    mod = Module.new
    Wirebind::WSDL.load(StringIO.new(text)).define(mod)
    assert_equal "urn:echo:IEcho:WhisperRequest", mod::WSHttpBindingIEchoClient::OPERATIONS[:whisper].action
  end

  # An action is data: escaped in the envelope, a literal in the generated source.
  def test_an_action_with_markup_and_interpolation_stays_text
    require_operation_keywords # the service reads wsa:Action through context:
    hostile = %(urn:a"\#{exit}</wsa:Action><x/>)
    text = WSDL_TEXT.sub(%(wsam:Action="urn:shout"), %(wsam:Action="#{hostile.encode(xml: :attr)[1..-2]}"))
    mod = Module.new
    Wirebind::WSDL.load(StringIO.new(text)).define(mod)
    assert_equal hostile, mod::WSHttpBindingIEchoClient::OPERATIONS[:shout].action
    Interop::Server.open(EchoService.new) do |server|
      assert_equal "hi as #{hostile}", mod::WSHttpBindingIEchoClient.new(endpoint: server.url).shout(text: "hi")
    end
  end

  def test_an_action_with_a_line_break_is_refused_where_it_is
    text = WSDL_TEXT.sub(%(wsam:Action="urn:shout"), %(wsam:Action="urn:shout&#13;&#10;X-Injected: 1"))
    error = assert_raises(Wirebind::WSDL::InvalidError) { Wirebind::WSDL.load(StringIO.new(text)) }
    assert_match(/<input>: the action "urn:shout\\r\\nX-Injected: 1" holds white space/, error.message)
  end

  # A soapAction is sent as the SOAPAction header: a line break in it is the
  # WSDL's error, said where it is, not the transport's ArgumentError later.
  def test_a_soap_action_with_a_line_break_is_refused_where_it_is
    text = WSDL_TEXT.sub(%(soapAction="http://tempuri.org/IEcho/Shout"), %(soapAction="urn:shout&#13;&#10;X-Injected: 1"))
    error = assert_raises(Wirebind::WSDL::InvalidError) { Wirebind::WSDL.load(StringIO.new(text)) }
    assert_match(/<operation>: the soapAction "urn:shout\\r\\nX-Injected: 1" holds a control character/, error.message)
  end

  # Policies nest as deep as the document: walked without recursion.
  def test_a_deeply_nested_policy_is_walked_without_recursion
    depth = 5_000
    nested = ("<wsp:Policy>" * depth) + "<wsam:Addressing/>" + ("</wsp:Policy>" * depth)
    text = WSDL_TEXT.sub('<wsp:PolicyReference URI="#WSHttpBinding_IEcho_policy"/>', nested)
    assert_equal [true, false], Wirebind::WSDL.load(StringIO.new(text), max_depth: depth + 10).bindings.map(&:addressing)
  end

  def test_a_binding_says_it_requires_addressing_directly_or_by_a_policy
    cases = {
      '<wsaw:UsingAddressing wsdl:required="true"/>' => true,
      "<wsaw:UsingAddressing/>" => false, # wsdl:required defaults to false
      "<wsp:Policy><wsam:Addressing><wsp:Policy/></wsam:Addressing></wsp:Policy>" => true,
      '<wsp:Policy><wsam:Addressing wsp:Optional="true"><wsp:Policy/></wsam:Addressing></wsp:Policy>' => false
    }
    cases.each do |marker, required|
      text = WSDL_TEXT.sub('<wsp:PolicyReference URI="#WSHttpBinding_IEcho_policy"/>', marker)
      assert_equal required, Wirebind::WSDL.load(StringIO.new(text)).bindings.first.addressing, marker
    end
  end

  def test_a_client_of_a_binding_requiring_addressing_sends_the_wsdl_action
    require_operation_keywords # the service reads wsa:Action through context:
    mod = generated
    Interop::Server.open(EchoService.new) do |server|
      client = mod::WSHttpBindingIEchoClient.new(endpoint: server.url) # addressing on by default
      assert_equal "hi as http://tempuri.org/IEcho/Echo", client.echo(text: "hi")
      assert_equal "hi as urn:shout", client.shout(text: "hi")
      assert_equal "hi as http://tempuri.org/IEcho/WhisperRequest", client.whisper(text: "hi")
      basic = mod::BasicHttpBindingIEchoClient.new(endpoint: server.url) # off: no wsa:Action
      assert_equal "hi as ", basic.echo(text: "hi")
      assert_equal "hi as urn:shout", mod::BasicHttpBindingIEchoClient.new(endpoint: server.url, addressing: true).shout(text: "hi")
      assert_equal "hi as ", mod::WSHttpBindingIEchoClient.new(endpoint: server.url, addressing: false).shout(text: "hi")
    end
  end

  def test_written_back_the_description_keeps_its_actions_and_addressing
    description = Wirebind::WSDL.load(StringIO.new(WSDL_TEXT))
    again = Wirebind::WSDL.load(StringIO.new(description.to_wsdl))
    summary = lambda do |loaded|
      loaded.bindings.map { |binding| [binding.addressing, binding.operations.map { |op| [op.action, op.reply_action] }] }
    end
    assert_equal summary.call(description), summary.call(again)
  end

  # A service with addressing says so in its ?wsdl: its clients turn it on and check the reply's action.
  def test_a_client_generated_from_an_addressing_service_wsdl
    require_operation_keywords # the service reads wsa:Action through context:
    mod = Module.new
    Interop::Server.open(EchoService.new) do |server|
      wsdl = Wirebind::SOAP::WSDLWriter.new(EchoService, server.url).write
      Wirebind::WSDL.load(StringIO.new(wsdl)).define(mod)
      client_class = mod.constants.map { |name| mod.const_get(name) }.find { |c| c.is_a?(Class) && c < W::Client }
      echo = client_class::OPERATIONS[:echo]
      assert_equal ["http://tempuri.org/IEcho/Echo", "http://tempuri.org/IEcho/EchoResponse"], [echo.action, echo.reply_action]
      assert_equal "hi as http://tempuri.org/IEcho/Echo", client_class.new(endpoint: server.url).echo(text: "hi")
    end
  end

  def reply(request, action)
    relates_to = request.body[/<wsa:MessageID[^>]*>([^<]+)</, 1]
    W::Envelope.write(+"", operation: "EchoResponse", namespace: TNS, parts: { EchoResult: "answer" },
                           header_xml: %(<wsa:Action xmlns:wsa="#{WSA}">#{action}</wsa:Action>) +
                                       %(<wsa:RelatesTo xmlns:wsa="#{WSA}">#{relates_to}</wsa:RelatesTo>))
  end

  def test_a_reply_with_another_action_than_the_wsdl_output_is_refused
    mod = generated
    actions = Queue.new
    LoopbackServer.open(proc { |request| [200, {}, reply(request, actions.pop)] }) do |server|
      client = mod::WSHttpBindingIEchoClient.new(endpoint: server.url)
      actions << "http://tempuri.org/IEcho/EchoResponse"
      assert_equal "answer", client.echo(text: "x")
      sent = server.requests.pop
      assert_equal %("http://tempuri.org/IEcho/Echo"), sent.headers["soapaction"]
      assert_includes sent.body, %(>http://tempuri.org/IEcho/Echo</wsa:Action>)
      actions << "http://tempuri.org/IEcho/ShoutResponse"
      error = assert_raises(W::AddressingError) { client.echo(text: "x") }
      server.requests.pop
      assert_match(%r{the response's action http://tempuri.org/IEcho/ShoutResponse is not this operation's http://tempuri.org/IEcho/EchoResponse}, error.message)
      actions << "urn:anything" # the WSDL names no output action for Shout: any is taken
      assert_equal "answer", client.shout(text: "x")
      # WS-Addressing's SOAP binding: the SOAPAction, when not empty, is the wsa:Action.
      assert_equal %("urn:shout"), server.requests.pop.headers["soapaction"]
      actions << "urn:anything"
      client.whisper(text: "x")
      assert_equal %("http://tempuri.org/IEcho/WhisperRequest"), server.requests.pop.headers["soapaction"]
      actions << "urn:anything"
      mod::WSHttpBindingIEchoClient.new(endpoint: server.url, addressing: false).whisper(text: "x")
      sent = server.requests.pop
      assert_equal %("http://tempuri.org/IEcho/Whisper"), sent.headers["soapaction"] # the binding's, without addressing
      refute_includes sent.body, "wsa:"
    end
  end
end
