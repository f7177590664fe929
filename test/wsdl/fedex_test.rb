# frozen_string_literal: true

require_relative "real_wsdl_support"

module Wirebind
  # FedEx Web Services' WSDLs as FedEx publishes them (shipped in the npm package
  # fedex 0.0.1, ISC; unpacked by `rake fixtures`): each generates and loads; its
  # operations and types match a count made with REXML, independently of
  # wirebind's reader; a sample of every type round trips; the fixed Version
  # values are applied and what wirebind writes for them is valid against the
  # WSDL's own schema (xmllint); written back by Description#to_wsdl, each
  # generates the same code.
  class WSDLFedExTest < Minitest::Test
    include TestSupport
    include RealWSDLSupport

    # Each service's fixed Version: ServiceId, Major, Intermediate.
    SERVICES = {
      "ASYNCService_v2" => ["async", 2, 0], "LocationsService_v1" => ["locs", 1, 0], "PickupService_v9" => ["disp", 9, 0],
      "RateService_v16" => ["crs", 16, 0], "ShipService_v15" => ["ship", 15, 0], "TrackService_v9" => ["trck", 9, 1],
      "ValidationAvailabilityAndCommitmentService_v2" => ["vacs", 2, 0]
    }.freeze

    def wsdl_path(name)
      real_wsdl_path("fedex-0.0.1", "lib/wsdl/#{name}.wsdl")
    end

    SERVICES.each do |name, (service_id, major, intermediate)|
      define_method(:"test_#{name}") do
        path = wsdl_path(name)
        assert_real_wsdl(path, "WirebindFedEx#{name.delete('_')}")
        doc = independent_document(path)
        description = WSDL.load(path)
        mod = description.define(Module.new)

        # Written back as one WSDL by Description#to_wsdl, it generates the same code.
        with_files("again.wsdl" => description.to_wsdl) do |dir|
          assert_equal description.generate("FedEx"), WSDL.load(File.join(dir, "again.wsdl")).generate("FedEx")
        end

        version = mod::VersionId.new
        assert_equal({ service_id: service_id, major: major, intermediate: intermediate, minor: 0 }, version.to_h)
        assert_valid_against_schemas(doc, [[mod::VersionId, version.to_xml]])
      end
    end
  end
end
