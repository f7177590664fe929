# frozen_string_literal: true

require_relative "real_wsdl_support"

module Wirebind
  # The wasabi gem's published WSDLs (MIT): each generates, loads, has a method
  # per operation of its ports' bindings, and a sample of every type encodes and
  # decodes back equal. Those of real services (GeoTrust, Marketo, TradeTracker)
  # also get every check of RealWSDLSupport#assert_real_wsdl; e-conomic's (3 MB)
  # too would take longer than all the others together.
  class WSDLFixturesTest < Minitest::Test
    include RealWSDLSupport

    GOOD = %w[
      authentication economic encoded_endpoint geotrust inherited lower_camel marketo multiple_namespaces
      multiple_parts_in_message multiple_types namespaced_actions no_message_parts no_namespace savon295
      soap12 symbolic_endpoint tradetracker two_bindings
    ].freeze

    GOOD.each do |name|
      define_method(:"test_#{name}") do
        path = fixture_gem_path("wasabi-3.5.0", "spec/fixtures/#{name}.wsdl")
        description = WSDL.load(path)
        mod = Module.new
        description.define(mod)
        operations = description.ports.sum { |port| port.binding.operations.size }
        generated = client_classes(mod).sum { |client| client.instance_methods(false).count { |m| !m.start_with?("each_") } }
        assert_equal operations, generated
        assert_equal description.types.size, model_classes(mod).size
        model_classes(mod).each do |klass|
          record = sample(klass)
          if klass.xml_abstract?
            assert_raises(EncodeError, "#{klass} is abstract") { record.to_xml }
            next
          end

          assert_equal record, klass.from_xml(record.to_xml), "#{klass} does not round-trip"
        end
      end
    end

    {
      "marketo" => {},
      # wasabi's copy lacks the messages of one operation.
      "geotrust" => { warnings: %w[GetQuickApproverList GetQuickApproverListResponse] },
      # rpc/encoded: its arrays restrict soapenc:Array, a schema the WSDL does not import.
      "tradetracker" => { compiles: false }
    }.each do |name, options|
      define_method(:"test_#{name}_as_a_real_set") do
        path = fixture_gem_path("wasabi-3.5.0", "spec/fixtures/#{name}.wsdl")
        warnings = options.fetch(:warnings, []).map { |message| "#{path}: <#{message.end_with?('Response') ? 'output' : 'input'}>: the message \"s1:#{message}\" is not defined" }
        assert_real_wsdl(path, "WirebindWasabi#{name.capitalize}", warnings: warnings, compiles: options.fetch(:compiles, true))
      end
    end

    def test_an_import_by_url_is_refused_without_fetch
      path = fixture_gem_path("wasabi-3.5.0", "spec/fixtures/import_port_types.wsdl")
      error = assert_raises(WSDL::InvalidError) { WSDL.load(path) }
      assert_match(/is a URL; imports by URL are read only with fetch: true/, error.message)
    end

    def test_a_missing_import_names_the_file
      path = fixture_gem_path("wasabi-3.5.0", "spec/fixtures/juniper.wsdl")
      error = assert_raises(WSDL::InvalidError) { WSDL.load(path) }
      assert_match(/cannot read .*SystemService\?xsd=xsd0\.xsd/, error.message)
    end
  end
end
