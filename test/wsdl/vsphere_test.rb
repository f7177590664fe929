# frozen_string_literal: true

require_relative "real_wsdl_support"

module Wirebind
  # VMware vSphere's Storage Policy (pbm) service as oslo.vmware 4.0.1 ships it
  # (Debian's python3-oslo.vmware; VMware's own WSDLs and schemas), unpacked by
  # `rake fixtures`: pbmService.wsdl imports pbm.wsdl, whose schema imports and
  # includes the pbm types and the real vSphere vim25 schemas (core, query,
  # reflect and, from 6.5, vim-types: the whole vim25 type set, xsd:anyType
  # included). Each version generates and loads without `root:` (the files are
  # siblings); operations and types match a REXML count across every file of
  # the set; a sample of every type round trips and is valid against the set's
  # own schemas.
  class WSDLVSphereTest < Minitest::Test
    include TestSupport
    include RealWSDLSupport

    PBM = "python3-oslo.vmware-4.0.1-3"

    def pbm_path(version)
      real_wsdl_path(PBM, "usr/lib/python3/dist-packages/oslo_vmware/wsdl/#{version}/pbmService.wsdl")
    end

    %w[5.5 6.0 7.0].each do |version|
      define_method(:"test_pbm_#{version.delete('.')}_generates_loads_counts_and_round_trips") do
        assert_real_wsdl(pbm_path(version), "WirebindPbm#{version.delete('.')}")
      end
    end
  end
end
