# frozen_string_literal: true

require_relative "real_wsdl_support"
require_relative "../soap/loopback_server"

module Wirebind
  # Microsoft Advertising (Bing Ads) API v13's six WCF services as Microsoft
  # publishes them (?singleWsdl: every schema in the one file, the
  # schemas.microsoft.com Serialization namespaces, schemas.datacontract.org
  # types, msc:/wsp: policies, SOAP headers), shipped in the bing_ads_ruby_sdk
  # gem 1.7 (MIT; unpacked by `rake fixtures`). Each generates with `wirebind
  # generate`, loads, counts what REXML counts, round trips a sample of every
  # type, and its samples are valid against its own schemas (WCF's [Flags]
  # enums, an xsd:list of enumerated values, are strings of space-separated
  # values).
  class WSDLBingAdsTest < Minitest::Test
    include TestSupport
    include RealWSDLSupport

    PACKAGE = "bing_ads_ruby_sdk-1.7"
    SERVICES = %w[ad_insight bulk campaign_management customer_billing customer_management reporting].freeze

    def wsdl_path(name)
      real_wsdl_path(PACKAGE, "lib/bing_ads_ruby_sdk/wsdl/v13/production/#{name}.xml")
    end

    # The SOAP headers every request of a service carries, as the generated
    # methods take them.
    HEADERS = {
      application_token: "app-token", authentication_token: "oauth-access-token", customer_account_id: "1234",
      customer_id: "5678", developer_token: "dev-token", password: nil, user_name: nil
    }.freeze

    SERVICES.each do |name|
      define_method(:"test_#{name}") do
        assert_real_wsdl(wsdl_path(name), "WirebindBing#{name.split('_').map(&:capitalize).join}") do |mod, doc|
          assert_first_operation_round_trips(mod, doc)
          # No field is of xsd:anyType: the only such declaration is the Serialization schema's global element.
          any = all_elements(doc).select { |element| element.name == "element" && element.attributes["type"].to_s.end_with?(":anyType") }
          assert_equal([["anyType", "http://schemas.microsoft.com/2003/10/Serialization/"]],
                       any.map { |element| [element.attributes["name"], element.parent.attributes["targetNamespace"]] })
        end
      end
    end

    # The service's first operation, called by its generated method with a
    # sample of every argument and the headers, against a server on 127.0.0.1
    # that answers with a sample of its response and a TrackingId header: the
    # request's headers and body are the service's global elements and valid
    # against its schemas (xmllint); the result is the response's, unwrapped
    # as the operation says.
    def assert_first_operation_round_trips(mod, doc)
      client_class = client_classes(mod).fetch(0)
      method, operation = client_class::OPERATIONS.first
      memo = {}
      facts = element_facts(doc)
      request = full_sample(mod.const_get(operation.name), memo, facts)
      response_class = mod.const_get(operation.name.sub(/Request\z/, "Response"))
      response = full_sample(response_class, memo, facts)
      arguments = request.class.attributes.to_h { |attribute| [attribute.name, request.public_send(attribute.name)] }
      headers = HEADERS.select { |header, _| !arguments.key?(header) && client_class.instance_method(method).parameters.include?([:key, header]) }
      assert_operator headers.size, :>=, 5, "#{method} takes the service's headers"
      envelope = %(<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header>) +
                 %(<TrackingId xmlns="#{client_class::NAMESPACE}">t-1</TrackingId></s:Header><s:Body>#{response.to_xml}</s:Body></s:Envelope>)
      LoopbackServer.open(proc { [200, {}, envelope] }) do |server|
        client = client_class.new(endpoint: server.url)
        result = client.public_send(method, **arguments, **headers.compact)
        assert_equal expected_result(operation, response), result
        sent = REXML::Document.new(server.requests.pop(true).body)
        header_elements = REXML::XPath.match(sent, "/*/*[local-name()='Header']/*")
        assert_equal headers.compact.values, header_elements.map(&:text)
        assert_equal headers.compact.keys.map { |header| header.to_s.split("_").map(&:capitalize).join }, header_elements.map(&:name)
        body = REXML::XPath.first(sent, "/*/*[local-name()='Body']/*")
        assert_equal request, request.class.from_xml(body.to_s)
        assert_elements_valid(doc, [*header_elements, body].map(&:to_s))
      ensure
        client&.close
      end
    end

    # A report is asked for as a subclass of ReportRequest (the WSDL's
    # polymorphism): the request says its type with xsi:type, the server's
    # schema accepts it (xmllint), and what is sent decodes back to the subclass.
    def test_reporting_request_of_a_subclass_says_its_type
      path = wsdl_path("reporting")
      doc = independent_document(path)
      generate_and_load(path, "WirebindBingReportingSubclass") do |mod, _|
        report = full_sample(mod::AccountPerformanceReportRequest, {}, element_facts(doc))
        sent = nil
        LoopbackServer.open(proc { |request|
          sent = request.body
          [200, {}, %(<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><SubmitGenerateReportResponse ) +
                    %(xmlns="https://bingads.microsoft.com/Reporting/v13"><ReportRequestId>r-1</ReportRequestId></SubmitGenerateReportResponse></s:Body></s:Envelope>)]
        }) do |server|
          client = mod::Client.new(endpoint: server.url)
          assert_equal "r-1", client.submit_generate_report(report_request: report, authentication_token: "t", developer_token: "d")
        ensure
          client&.close
        end
        body = REXML::XPath.first(REXML::Document.new(sent), "/*/*[local-name()='Body']/*")
        assert_match(/xsi:type=['"][^'":]+:AccountPerformanceReportRequest['"]/, body.to_s)
        assert_equal report, mod::SubmitGenerateReportRequest.from_xml(body.to_s).report_request
        assert_elements_valid(doc, [body.to_s])
      end
    end

    # What the generated method returns for +response+: the whole response,
    # the element its +at+ names, or its only part.
    def expected_result(operation, response)
      return response if operation.at == "*"

      attribute = response.class.attributes.find { |each| "*/#{each.xml}" == operation.at } || response.class.attributes.fetch(0)
      response.public_send(attribute.name)
    end
  end
end
