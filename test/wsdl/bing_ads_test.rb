# frozen_string_literal: true

require_relative "real_wsdl_support"

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

    SERVICES.each do |name|
      define_method(:"test_#{name}") do
        assert_real_wsdl(wsdl_path(name), "WirebindBing#{name.split('_').map(&:capitalize).join}")
      end
    end
  end
end
