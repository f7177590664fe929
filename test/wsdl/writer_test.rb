# frozen_string_literal: true

require_relative "wsdl_test_support"
require "wirebind/soap/test_helper"
require "rexml/document"
require "open3"

module Wirebind
  # WSDL::Writer renders a Description (read from a file, or built by a
  # SOAP::Service) as WSDL 1.1; reading the text back gives the same
  # description: the same generated code, operations, messages and ports.
  class WSDLWriterTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    def round_trip(description)
      with_files("written.wsdl" => description.to_wsdl) do |dir|
        return WSDL.load(File.join(dir, "written.wsdl"))
      end
    end

    def summary(description)
      description.ports.map do |port|
        [port.name, port.endpoint, port.binding.name, port.binding.version, port.binding.port_type,
         port.binding.operations.map do |op|
           [op.name, op.soap_action, op.style, op.namespace, op.input&.name, op.output&.name, op.input_parts.map(&:name),
            op.output_parts.map { |part| [part.name, part.element, part.type] }, op.faults.map(&:name)]
         end]
      end
    end

    def test_a_read_description_is_written_and_read_back_the_same
      paths = [shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")] +
              %w[soap12 two_bindings multiple_namespaces inherited].map { |name| fixture_gem_path("wasabi-3.5.0", "spec/fixtures/#{name}.wsdl") }
      paths.each do |path|
        description = WSDL.load(path)
        again = round_trip(description)
        assert_equal summary(description), summary(again), path
        assert_equal description.generate("Round"), again.generate("Round"), path
        assert_equal description.warnings.map { |warning| warning.sub(/\A[^<]*/, "") }, again.warnings.map { |warning| warning.sub(/\A[^<]*/, "") }, path
      end
    end

    # One SOAP::Operation: what a service declares is what the client generated
    # from its WSDL holds for each method and invokes.
    def test_the_service_and_the_generated_client_share_one_operation_value
      service = Class.new(SOAP::Service) do
        namespace "urn:built"
        style :rpc_encoded
        operation(:echo, args: { in0: :string }, returns: [:string], soap_action: "urn:built/echo") { |text| [text] }
      end
      declared = service.operations.first
      assert_instance_of SOAP::Operation, declared
      assert_same SOAP::Operation, SOAP::Service::Operation
      mod = Module.new
      with_files("s.wsdl" => SOAP::WSDLWriter.new(service, "http://127.0.0.1/svc").write) { |dir| WSDL.load(File.join(dir, "s.wsdl")).define(mod) }
      generated = mod::Client::OPERATIONS.fetch(:echo)
      assert_instance_of SOAP::Operation, generated
      assert_equal [declared.name, declared.args.transform_keys(&:to_s), declared.returns, declared.soap_action],
                   [generated.name, generated.args, generated.returns, generated.soap_action]
      Wirebind::SOAP::Stub.with(client = mod::Client.new(endpoint: "http://127.0.0.1:9/svc")) do |stub|
        stub.on(:echo, returns: { echoReturn: %w[a b] })
        assert_equal %w[a b], client.echo(in0: "a")
        assert_equal %w[a b], client.each_echo(in0: "a").to_a
        assert_equal "a", stub.calls.last.argument(:in0)
        assert_equal "urn:built/echo", stub.calls.last.soap_action
      end
    end

    # The reader's operations are SOAP::Operation values too (their types the
    # schema's TypeSpecs, a list as a one-item Array), its versions SOAP::Version objects.
    def test_the_reader_gives_soap_operations_and_versions
      description = WSDL.load(shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl"))
      binding = description.bindings.first
      assert_same SOAP::SOAP11, binding.version
      issues = binding.operations.find { |operation| operation.name == "getIssuesFromJqlSearch" }
      assert_instance_of SOAP::Operation, issues
      assert_equal [%w[in0 in1 in2], :string, :integer], [issues.args.keys, issues.args["in1"], issues.args["in2"]]
      assert_equal "{http://beans.soap.rpc.jira.atlassian.com}RemoteIssue", issues.returns.first.qualified_name
      assert_equal [:rpc_encoded, "getIssuesFromJqlSearch"], [issues.style, issues.wsdl_name]
      refute WSDL.const_defined?(:Operation, false)
      refute WSDL.const_defined?(:SOAP_BINDING_NAMESPACES, false)
    end

    # A set of files in four namespaces: service.wsdl (urn:service) imports
    # messages.wsdl (urn:messages: messages and the port type; a message of the
    # same name in both), whose types import orders.xsd (urn:orders, including
    # order-types.xsd), which imports common.xsd (urn:common).
    MULTI_NAMESPACE_SET = {
      "common.xsd" => <<~XML,
        <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:common" elementFormDefault="qualified">
          <xsd:complexType name="Address"><xsd:sequence><xsd:element name="city" type="xsd:string"/></xsd:sequence></xsd:complexType>
        </xsd:schema>
      XML
      "order-types.xsd" => <<~XML,
        <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:c="urn:common" targetNamespace="urn:orders" elementFormDefault="qualified">
          <xsd:import namespace="urn:common" schemaLocation="common.xsd"/>
          <xsd:complexType name="Order"><xsd:sequence>
            <xsd:element name="id" type="xsd:string"/><xsd:element name="address" type="c:Address"/>
          </xsd:sequence></xsd:complexType>
        </xsd:schema>
      XML
      "orders.xsd" => <<~XML,
        <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:c="urn:common" xmlns:o="urn:orders"
            targetNamespace="urn:orders" elementFormDefault="qualified">
          <xsd:include schemaLocation="order-types.xsd"/>
          <xsd:import namespace="urn:common" schemaLocation="common.xsd"/>
          <xsd:element name="PlaceOrder"><xsd:complexType><xsd:sequence><xsd:element name="order" type="o:Order"/></xsd:sequence></xsd:complexType></xsd:element>
          <xsd:element name="PlaceOrderResponse"><xsd:complexType><xsd:sequence><xsd:element name="address" type="c:Address"/></xsd:sequence></xsd:complexType></xsd:element>
        </xsd:schema>
      XML
      "messages.wsdl" => <<~XML,
        <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:o="urn:orders" xmlns:m="urn:messages" targetNamespace="urn:messages">
          <wsdl:types><xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:messages">
            <xsd:import namespace="urn:orders" schemaLocation="orders.xsd"/></xsd:schema></wsdl:types>
          <wsdl:message name="PlaceOrderIn"><wsdl:part name="parameters" element="o:PlaceOrder"/></wsdl:message>
          <wsdl:message name="PlaceOrderOut"><wsdl:part name="parameters" element="o:PlaceOrderResponse"/></wsdl:message>
          <wsdl:portType name="Orders"><wsdl:operation name="PlaceOrder">
            <wsdl:input message="m:PlaceOrderIn"/><wsdl:output message="m:PlaceOrderOut"/></wsdl:operation></wsdl:portType>
        </wsdl:definitions>
      XML
      "service.wsdl" => <<~XML
        <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
            xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:m="urn:messages" xmlns:s="urn:service"
            targetNamespace="urn:service" name="OrderService">
          <wsdl:import namespace="urn:messages" location="messages.wsdl"/>
          <wsdl:message name="PlaceOrderIn"><wsdl:part name="note" type="xsd:string"/></wsdl:message>
          <wsdl:binding name="OrdersSoap" type="m:Orders">
            <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
            <wsdl:operation name="PlaceOrder"><soap:operation soapAction="urn:PlaceOrder"/>
              <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
          </wsdl:binding>
          <wsdl:service name="OrderService">
            <wsdl:port name="OrdersSoap" binding="s:OrdersSoap"><soap:address location="http://example.com/orders"/></wsdl:port>
          </wsdl:service>
        </wsdl:definitions>
      XML
    }.freeze

    # Written as one WSDL, the set keeps each type's namespace (one xsd:schema
    # per namespace, importing the others) and every operation: read back, the
    # same types under the same qualified names, the same operations and code.
    def test_a_multi_namespace_set_is_written_as_one_wsdl
      description = with_files(MULTI_NAMESPACE_SET) { |dir| WSDL.load(File.join(dir, "service.wsdl")) }
      assert_empty description.warnings
      written = description.to_wsdl
      again = WSDL.load(StringIO.new(written))
      assert_empty again.warnings
      assert_equal %w[{urn:common}Address {urn:orders}Order {urn:orders}PlaceOrder {urn:orders}PlaceOrderResponse],
                   again.types.map(&:qualified_name).sort
      operation = ->(op) { [op.name, op.wsdl_name, op.soap_action, op.style, op.args.transform_values(&:inspect), op.returns.inspect, op.at, op.action] }
      assert_equal description.bindings.flat_map(&:operations).map(&operation), again.bindings.flat_map(&:operations).map(&operation)
      assert_equal 1, again.bindings.first.operations.size
      assert_equal description.generate("Orders"), again.generate("Orders")

      doc = REXML::Document.new(written)
      namespaces = REXML::XPath.match(doc, "//xsd:schema").map { |schema| schema.attribute("targetNamespace").value }
      assert_equal %w[urn:common urn:messages urn:orders], namespaces.sort
      # urn:messages' PlaceOrderIn, moved beside urn:service's, takes another name.
      assert_equal %w[PlaceOrderIn PlaceOrderIn2 PlaceOrderOut], REXML::XPath.match(doc, "//wsdl:message/@name").map(&:value).sort
      assert_equal "s:PlaceOrderIn2", REXML::XPath.first(doc, "//wsdl:portType/wsdl:operation/wsdl:input/@message").value
      assert_valid_order(doc, again)
    end

    # The written schemas compile (xmllint) and accept what the generated models write.
    def assert_valid_order(doc, description)
      require_xmllint
      mod = description.define(Module.new)
      order = mod::PlaceOrder.new(order: mod::Order.new(id: "o-1", address: mod::Address.new(city: "Oslo")))
      with_files(schema_files(doc).merge("order.xml" => order.to_xml)) do |dir|
        _, errors, status = Open3.capture3("xmllint", "--noout", "--schema", File.join(dir, "urn_orders.xsd"), File.join(dir, "order.xml"))
        assert status.success?, errors
      end
    end

    # The service's ?wsdl is a Description rendered by the same writer.
    def test_a_service_builds_a_description
      service = Class.new(SOAP::Service) do
        namespace "urn:built"
        style :rpc_encoded
        version :both
        operation(:echo, args: { in0: :string, in1: [:integer] }, returns: [:string]) { |text, _| [text] }
      end
      description = SOAP::WSDLWriter.new(service, "http://127.0.0.1/svc").description
      assert_instance_of WSDL::Description, description
      assert_equal [SOAP::SOAP11, SOAP::SOAP12], description.bindings.map(&:version)
      echo = description.bindings.first.operations.first
      assert_equal ["echo", :rpc_encoded, "urn:built", %w[in0 in1]], [echo.name, echo.style, echo.namespace, echo.input_parts.map(&:name)]
      assert_equal description.to_wsdl, SOAP::WSDLWriter.new(service, "http://127.0.0.1/svc").write
      assert_equal summary(description), summary(round_trip(description))
    end
  end
end
