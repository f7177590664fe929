# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  class WSDLFaultDetailsTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    def setup
      @jira = Module.new
      WSDL.load(shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")).define(@jira)
    end

    def test_the_detail_decodes_into_the_declared_fault_model
      detail = '<detail><fault xmlns:ns1="http://exception.rpc.jira.atlassian.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' \
               'xsi:type="ns1:RemotePermissionException"><faultString>no</faultString></fault></detail>'
      fault = SOAP::Fault.new(code: "Server", reason: "denied", detail: detail)
      decoded = WSDL::FaultDetails.decode(fault, @jira::Client::FAULT_TYPES)
      assert_same fault, decoded
      assert_instance_of @jira::RemotePermissionException, fault.detail_object
      assert_empty @jira::RemotePermissionException.attributes # JIRA's exceptions declare no fields
    end

    # vSphere declares RuntimeFault and sends <NotAuthenticatedFault
    # xsi:type="NotAuthenticated">: a subclass of a declared fault model.
    def test_a_detail_of_a_subclass_of_a_declared_fault_decodes_to_the_subclass
      detail = '<detail><fault xmlns:ns1="http://exception.rpc.jira.atlassian.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' \
               'xsi:type="ns1:RemotePermissionException"><faultString>no</faultString></fault></detail>'
      fault = SOAP::Fault.new(code: "Server", reason: "denied", detail: detail)
      WSDL::FaultDetails.decode(fault, [@jira::RemoteException, @jira::RemoteValidationException])
      assert_instance_of @jira::RemotePermissionException, fault.detail_object
    end

    def test_an_xsi_type_whose_prefix_is_not_declared_still_matches_by_local_name
      detail = '<detail><fault xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="zz:RemotePermissionException"/></detail>'
      fault = WSDL::FaultDetails.decode(SOAP::Fault.new(code: "Server", reason: "denied", detail: detail), @jira::Client::FAULT_TYPES)
      assert_instance_of @jira::RemotePermissionException, fault.detail_object
    end

    def test_a_detail_that_fits_no_model_leaves_the_fault_alone
      fault = SOAP::Fault.new(code: "Server", reason: "x", detail: "<detail><other>1</other></detail>")
      assert_nil WSDL::FaultDetails.decode(fault, @jira::Client::FAULT_TYPES).detail_object
      assert_nil WSDL::FaultDetails.decode(SOAP::Fault.new(reason: "x"), @jira::Client::FAULT_TYPES).detail_object
    end
  end
end
