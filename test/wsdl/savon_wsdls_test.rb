# frozen_string_literal: true

require_relative "real_wsdl_support"
require "wirebind/soap/test_helper"

module Wirebind
  # Real services' WSDLs that the savon gem 2.12.1 publishes with its specs (MIT;
  # spec/fixtures/wsdl, unpacked by `rake fixtures`): Betfair's exchange API,
  # eDialog, Interhome, 3PL Central (no_message_tag), TaxCloud and the EU's VIES. Each generates with `wirebind
  # generate`, loads, counts what REXML counts, round trips a sample of every type,
  # and its samples are valid against its own schemas; TaxCloud's real response
  # (spec/fixtures/response/taxcloud.xml) decodes. SoftLayer's brand, Team
  # Software's (WCF) and Wasmuth's WSDLs import their schemas from the services'
  # URLs: without fetch: they are refused, naming the import.
  class WSDLSavonTest < Minitest::Test
    include TestSupport
    include RealWSDLSupport

    PACKAGE = "savon-2.12.1"
    SETS = %w[betfair edialog interhome no_message_tag taxcloud vies].freeze

    def wsdl(name)
      real_wsdl_path(PACKAGE, "spec/fixtures/wsdl/#{name}.xml")
    end

    SETS.each do |name|
      define_method(:"test_#{name}") do
        path = wsdl(name)
        # 3PL Central's (no_message_tag) begins with a blank line, then its XML declaration.
        warnings = name == "no_message_tag" ? [misplaced_declaration(path, 2)] : []
        module_name = "WirebindSavon#{name.split('_').map(&:capitalize).join}"
        # (eDialog's PropertyType is an xsd:choice of value, property and row: its sample fills the first.)
        assert_real_wsdl(path, module_name, warnings: warnings)
      end
    end

    # TaxCloud's answer to a Lookup with a wrong key, as savon's specs keep it.
    def test_taxcloud_real_response_decodes
      response = real_wsdl_path(PACKAGE, "spec/fixtures/response/taxcloud.xml")
      generate_and_load(wsdl("taxcloud"), "WirebindSavonTaxcloudResponse") do |mod, _|
        client = mod::Client.new(endpoint: "http://127.0.0.1:1/")
        result = SOAP::Stub.with(client) do |stub|
          stub.on(:Lookup, xml: File.read(response))
          client.lookup(api_login_id: "id", api_key: "key", customer_id: "c", cart_id: "1", delivered_by_seller: false)
        end
        assert_instance_of mod::LookupRsp, result
        assert_equal "Error", result.response_type
        assert_equal([["Error", "Invalid apiLoginID and/or apiKey"]], result.messages.map { |message| [message.response_type, message.message] })
        assert_empty result.cart_items_response
      ensure
        client&.close
      end
    end

    # Their schemas are at the services' URLs (imported or included by URL).
    def test_schemas_imported_by_url_are_refused_without_fetch
      {
        "brand" => "https://api.softlayer.com/soap/v3/SoftLayer_Brand?xsd",
        "team_software" => "https://winteamservicestest.myteamsoftware.com/Services.svc?xsd=xsd0",
        "wasmuth" => "http://www3.mediaservice-wasmuth.de:80/online-ws-2.0/OnlineSync?xsd=1"
      }.each do |name, url|
        error = assert_raises(WSDL::InvalidError) { WSDL.load(wsdl(name)) }
        assert_includes error.message, "#{url} is a URL; imports by URL are read only with fetch: true"
      end
    end
  end
end
