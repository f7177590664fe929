# frozen_string_literal: true

require_relative "wsdl_test_support"
require_relative "../soap/interop/interop_support"
require "open3"
require "rexml/document"
require "rack/mock"

module Wirebind
  # XML attributes a model reads by path (+"Amt/@Ccy"+ beside +"Amt"+, a
  # wrapper's +"address/@zip"+) and its own (+"@id"+), through a
  # SOAP::Service: described by its ?wsdl, written by the rpc/encoded writer,
  # read back by wirebind's generator and by zeep, checked by xmllint.
  class WSDLPathAttributesTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    class Payment
      include Wirebind::Model
      xml_type "Payment", namespace: "urn:pay:beans"
      attribute :number, :string, xml: "@number"
      attribute :amount, :decimal, xml: "Amt"
      attribute :currency, :string, xml: "Amt/@Ccy"
      attribute :city, :string, xml: "address/city"
      attribute :zip, :string, xml: "address/@zip"
      attribute :lang, :string, xml: "@{urn:pay:meta}lang"
      attribute :script, :string, xml: "address/@{urn:pay:meta}script"
    end

    RECEIVED = Queue.new

    def self.pay_service(style)
      Class.new(SOAP::Service) do
        namespace "urn:pay"
        style style
        operation(:pay, args: { in0: Payment }, returns: Payment) do |payment|
          RECEIVED << payment
          Payment.new(**payment.to_h, number: "#{payment.number}-paid")
        end
      end
    end

    SERVICES = { document: pay_service(:document), rpc_encoded: pay_service(:rpc_encoded), rpc: pay_service(:rpc) }.freeze
    APP = ::Rack::URLMap.new(SERVICES.to_h { |style, service| ["/#{style}", service.new] })
    PAYMENT = Payment.new(number: "p-1", amount: BigDecimal("12.5"), currency: "EUR", city: "Oslo", zip: "0150",
                          lang: "nb", script: "Latn")
    PYTHON = "/usr/bin/python3"

    def setup
      RECEIVED.clear
    end

    def wsdl_of(style)
      ::Rack::MockRequest.new(APP).get("http://127.0.0.1/#{style}?wsdl").body
    end

    def test_the_wsdl_describes_attributes_read_by_path
      SERVICES.each_key do |style|
        doc = REXML::Document.new(wsdl_of(style))
        type = REXML::XPath.first(doc, "//xsd:complexType[@name='Payment']")
        assert_equal ["number"], REXML::XPath.match(type, "xsd:attribute/@name").map(&:value), style
        assert_equal ["lang"], REXML::XPath.match(type, "xsd:attribute/@ref").map { |ref| ref.value.split(":").last }, style
        meta = REXML::XPath.first(doc, "//xsd:schema[@targetNamespace='urn:pay:meta']")
        assert_equal %w[lang script], REXML::XPath.match(meta, "xsd:attribute/@name").map(&:value).sort, style
        amount = REXML::XPath.first(type, ".//xsd:element[@name='Amt']")
        extension = REXML::XPath.first(amount, "xsd:complexType/xsd:simpleContent/xsd:extension")
        assert extension, "#{style}: <Amt> has a simpleContent type"
        assert_equal "xsd:decimal", extension.attribute("base").value
        assert_equal({ "Ccy" => "xsd:string" }, REXML::XPath.match(extension, "xsd:attribute").to_h { |a| [a.attribute("name").value, a.attribute("type").value] })
        address = REXML::XPath.first(type, ".//xsd:element[@name='address']/xsd:complexType")
        assert_equal ["zip"], REXML::XPath.match(address, "xsd:attribute/@name").map(&:value), style
        assert_equal ["script"], REXML::XPath.match(address, "xsd:attribute/@ref").map { |ref| ref.value.split(":").last }, style
      end
    end

    def test_the_rpc_encoded_writer_writes_attributes_read_by_path
      xml = SOAP::Envelope.write(+"", operation: "pay", namespace: "urn:pay", parts: { in0: PAYMENT }, style: :rpc_encoded)
      assert_match(%r{<Amt Ccy="EUR">12.5</Amt>}, xml)
      assert_match(%r{<address zip="0150" xmlns:(\w+)="urn:pay:meta" \1:script="Latn"><city xsi:type="xsd:string">Oslo</city></address>}, xml)
      assert_match(/ xmlns:(\w+)="urn:pay:meta" \1:lang="nb"/, xml)
      assert_equal PAYMENT, SOAP::Envelope::Reader.new(xml).decode(Payment, at: "*/in0")
    end

    # The generated client calls the service: every value arrives and comes back.
    def test_a_generated_client_round_trips_the_attributes
      Interop::Server.open(APP) do |server|
        SERVICES.each_key do |style|
          mod = generated_module(style)
          client = mod::Client.new(endpoint: "#{server.url}/#{style}")
          payment = mod::Payment.new(number: "p-1", amt: mod::Amt.new(value: BigDecimal("12.5"), ccy: "EUR"),
                                     address: mod::Address.new(city: "Oslo", zip: "0150", script: "Latn"), lang: "nb")
          result = client.pay(in0: payment)
          assert_equal PAYMENT, RECEIVED.pop(timeout: 5), style
          assert_equal "p-1-paid", result.number, style
          assert_equal [BigDecimal("12.5"), "EUR"], [result.amt.value, result.amt.ccy], style
          assert_equal %w[Oslo 0150 Latn nb], [result.address.city, result.address.zip, result.address.script, result.lang], style
        ensure
          client&.close
        end
      end
    end

    def test_zeep_round_trips_the_attributes
      unless File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep", err: File::NULL)
        flunk "zeep is missing for #{PYTHON} (.ci/run installs python3-zeep)" if ENV["CI"]
        skip "zeep is not installed for #{PYTHON} (apt-get install python3-zeep; .ci/run does)"
      end
      Interop::Server.open(APP) do |server|
        %i[document rpc_encoded].each do |style|
          output, errors, status = Open3.capture3(PYTHON, File.join(__dir__, "zeep_path_attributes.py"), "#{server.url}/#{style}")
          assert status.success?, "#{style}: #{errors}"
          assert_equal PAYMENT, RECEIVED.pop(timeout: 5), style
          result = ::JSON.parse(output)
          assert_equal "p-1-paid", result["number"], style
          assert_equal({ "_value_1" => "12.5", "Ccy" => "EUR" }, result["Amt"], style)
          assert_equal({ "city" => "Oslo", "zip" => "0150", "script" => "Latn" }, result["address"], style)
          assert_equal "nb", result["lang"], style
        end
      end
    end

    # PHP's SoapServer, reading the WSDL, decodes what the generated client
    # writes rpc/encoded (<address> and <Amt> without xsi:type) to every value.
    def test_php_soap_server_reads_what_the_generated_client_writes_rpc_encoded
      unless system("php", "-r", 'exit(class_exists("SoapServer") ? 0 : 1);', out: File::NULL, err: File::NULL)
        flunk "php-cli with php-soap is missing (.ci/run installs them)" if ENV["CI"]
        skip "php-cli with php-soap is not installed (apt-get install php-cli php-soap; .ci/run does)"
      end
      mod = generated_module(:rpc_encoded)
      payment = mod::Payment.new(number: "p-1", amt: mod::Amt.new(value: BigDecimal("12.5"), ccy: "EUR"),
                                 address: mod::Address.new(city: "Oslo", zip: "0150", script: "Latn"), lang: "nb")
      request = SOAP::Envelope.write(+"", operation: "pay", namespace: "urn:pay", parts: { in0: payment }, style: :rpc_encoded)
      with_files("pay.wsdl" => wsdl_of(:rpc_encoded), "request.xml" => request) do |dir|
        output, errors, status = Open3.capture3("php", File.join(__dir__, "php_pay_server.php"), File.join(dir, "pay.wsdl"), File.join(dir, "request.xml"))
        assert status.success?, errors
        assert_equal({ "number" => "p-1", "Amt" => { "_" => "12.5", "Ccy" => "EUR" }, "address" => { "city" => "Oslo", "zip" => "0150", "script" => "Latn" },
                       "lang" => "nb" }, ::JSON.parse(output))
      end
    end

    class Tagged
      include Wirebind::Model
      xml_type "Tagged", namespace: "urn:pay:beans"
      attribute :name, :string
      attribute :id, :string, xml: "name/@id"
    end

    # SOAP encoding reads an id (or href) XML attribute on any element as a
    # multiRef's: a model mapping one would decode as nothing, so rpc/encoded refuses it.
    def test_rpc_encoded_refuses_an_xml_attribute_soap_encoding_reserves
      error = assert_raises(SchemaError) do
        Class.new(SOAP::Service) do
          style :rpc_encoded
          operation(:tag, args: { in0: :string }, returns: [Tagged]) { [] }
        end
      end
      assert_match(%r{Tagged#id \(xml: "name/@id"\) cannot be sent rpc/encoded}, error.message)
      late = Class.new(SOAP::Service) { operation(:tag, args: { in0: Tagged }) { nil } }
      assert_raises(SchemaError) { late.style :rpc_encoded }
      assert_equal :document, late.style
      error = assert_raises(EncodeError) do
        SOAP::Envelope.write(+"", operation: "tag", namespace: "urn:pay", parts: { in0: Tagged.new(name: "n", id: "7") }, style: :rpc_encoded)
      end
      assert_match(%r{Tagged#id .* cannot be written rpc/encoded}, error.message)
      assert_match(/ id="7"/, SOAP::Envelope.write(+"", operation: "tag", namespace: "urn:pay", parts: { in0: Tagged.new(name: "n", id: "7") }))
    end

    # An rpc/encoded Payment, as the service writes it, is valid against the
    # schema its WSDL publishes (the SOAP encoding schema's few names given locally).
    def test_xmllint_accepts_an_encoded_payment_against_the_written_schema
      assert_valid_encoded_payment(PAYMENT)
    end

    # The client generated from that WSDL writes <Amt> and <address>, whose
    # types are anonymous (no named type exists), without an xsi:type: SOAP 1.1
    # section 5.1 lets the schema determine a value's type, and an xsi:type
    # naming the element ("address", unqualified) resolves to no type at all.
    def test_xmllint_accepts_what_the_generated_client_writes_rpc_encoded
      mod = generated_module(:rpc_encoded)
      payment = mod::Payment.new(number: "p-1", amt: mod::Amt.new(value: BigDecimal("12.5"), ccy: "EUR"),
                                 address: mod::Address.new(city: "Oslo", zip: "0150", script: "Latn"), lang: "nb")
      body = assert_valid_encoded_payment(payment)
      assert_match(/<Amt Ccy="EUR">12.5</, body)
      assert_match(/<address zip="0150"/, body)
      assert_match(/<in0 xsi:type="ns2:Payment" xmlns:ns2="urn:pay:beans"/, body)
    end

    ENCODING_SCHEMA = <<~XML
      <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="http://schemas.xmlsoap.org/soap/encoding/">
        <xsd:attribute name="arrayType" type="xsd:string"/>
        <xsd:complexType name="Array"><xsd:sequence><xsd:any minOccurs="0" maxOccurs="unbounded" processContents="lax"/></xsd:sequence>
        <xsd:anyAttribute processContents="lax"/></xsd:complexType>
      </xsd:schema>
    XML

    SAMPLE_SCHEMA = <<~XML
      <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:b="urn:pay:beans" targetNamespace="urn:test:sample">
        <xsd:import namespace="urn:pay:beans" schemaLocation="urn_pay_beans.xsd"/>
        <xsd:element name="payment" type="b:Payment"/>
      </xsd:schema>
    XML

    private

    # Writes +payment+ rpc/encoded, checks it with xmllint against the schema the
    # rpc/encoded service's WSDL publishes; returns the body.
    def assert_valid_encoded_payment(payment)
      require_xmllint
      doc = REXML::Document.new(wsdl_of(:rpc_encoded))
      body = SOAP::Envelope.write(+"", operation: "pay", namespace: "urn:pay", parts: { in0: payment }, style: :rpc_encoded)
      element = body[%r{<in0 .*</in0>}m].sub(/\A<in0/, "<p:payment xmlns:p=\"urn:test:sample\"").sub(%r{</in0>\z}, "</p:payment>")
      sample = element.sub(">", %( xmlns:xsi="#{Namespaces::XSI}" xmlns:xsd="#{Namespaces::XSD}">))
      with_files(schema_files(doc).merge("encoding.xsd" => ENCODING_SCHEMA, "sample.xsd" => SAMPLE_SCHEMA, "sample.xml" => sample)) do |dir|
        _, errors, status = Open3.capture3("xmllint", "--noout", "--schema", File.join(dir, "sample.xsd"), File.join(dir, "sample.xml"))
        assert status.success?, errors
      end
      body
    end

    def generated_module(style)
      with_files("pay.wsdl" => wsdl_of(style)) do |dir|
        mod = Module.new
        WSDL.load(File.join(dir, "pay.wsdl")).define(mod)
        return mod
      end
    end
  end
end
