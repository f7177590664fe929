# frozen_string_literal: true

require_relative "real_wsdl_support"
require_relative "../soap/loopback_server"

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

    # 7.0's vim25 types also validate govmomi's responses (below) as decoded by
    # the generated classes and written again.
    %w[5.5 6.0 7.0].each do |version|
      define_method(:"test_pbm_#{version.delete('.')}_generates_loads_counts_and_round_trips") do
        responses = ->(mod) { RESPONSES.flat_map { |name| returnvals(mod, name) }.map { |content| [mod::ObjectContent, content.to_xml] } }
        assert_real_wsdl(pbm_path(version), "WirebindPbm#{version.delete('.')}", responses: (responses if version == "7.0"))
      end
    end

    # 6.5 and 6.7 (vim-types as in 7.0, other versions of it): read without
    # warnings, with the operations and types REXML counts across the set (the
    # full checks above take seconds a version).
    %w[6.5 6.7].each do |version|
      define_method(:"test_pbm_#{version.delete('.')}_loads_and_counts") do
        path = pbm_path(version)
        description = WSDL.load(path)
        assert_empty description.warnings
        operations, types = independent_counts(independent_document(path))
        assert_operator types, :>, 3000 # vim25 is the bulk of it
        assert_equal(operations, description.ports.sum { |port| port.binding.operations.size })
        assert_equal types, description.types.size
      end
    end

    GOVMOMI = "golang-github-vmware-govmomi-dev-0.24.2-3"
    # Real vSphere RetrieveProperties responses govmomi's tests read (Apache-2.0).
    RESPONSES = %w[cluster_host_property hostsystem_list_name_property nested_property not_authenticated_fault pointer_property].freeze
    VIM25 = "urn:vim25"
    XSI = "http://www.w3.org/2001/XMLSchema-instance"

    class << self
      # pbm 7.0's classes (the vim25 types among them), defined once per process:
      # generating vim25 takes a second.
      def vim
        @vim ||= Module.new.tap { |mod| WSDL.load(yield).define(mod) }
      end
    end

    def vim
      self.class.vim { pbm_path("7.0") }
    end

    def response_path(name)
      real_wsdl_path(GOVMOMI, "usr/share/gocode/src/github.com/vmware/govmomi/vim25/mo/fixtures/#{name}.xml")
    end

    # Every response's returnval elements decode to the generated ObjectContent:
    # each field is what REXML reads in the same element (#assert_read), the
    # anyType DynamicProperty.val as the class its xsi:type names. Written back
    # and read again, they are equal.
    RESPONSES.each do |name|
      define_method(:"test_govmomi_#{name}_decodes_to_the_generated_classes") do
        contents = returnvals(vim, name)
        returnvals = REXML::Document.new(File.read(response_path(name))).root.elements.to_a("returnval")
        refute_empty returnvals
        assert_equal returnvals.size, contents.size
        returnvals.zip(contents).each { |element, content| assert_read(element, content, vim::ObjectContent) }
        contents.each { |content| assert_equal content, vim::ObjectContent.from_xml(content.to_xml) }
      end
    end

    # A server newer than the WSDL: govmomi's response with types vim25 7.0 does
    # not define. The values are kept as they came (attributes, xsi:type, text,
    # children), the response does not fail, and they are written back.
    def test_a_val_of_an_unknown_type_is_kept
      xml = File.read(response_path("cluster_host_property"))
                .sub('xsi:type="ManagedObjectReference" type="Folder"', 'xsi:type="FutureReference" type="Folder"')
                .sub('xsi:type="ArrayOfManagedObjectReference"', 'xsi:type="ArrayOfFutureReference"')
      content, = returnvals_of(vim, xml)
      parent, host = content.prop_set.map(&:val)
      assert_equal({ "@type" => "Folder", "@{#{XSI}}type" => "FutureReference", "#text" => "group-h6" }, parent)
      assert_equal "ArrayOfFutureReference", host["@{#{XSI}}type"]
      assert_equal(%w[host-14 host-17 host-19 host-52], host["ManagedObjectReference"].map { |mor| mor["#text"] })
      assert_equal(["HostSystem"], host["ManagedObjectReference"].map { |mor| mor["@type"] }.uniq)
      assert_equal content, vim::ObjectContent.from_xml(content.to_xml)
    end

    # pbm 6.0 holds vim25's DynamicProperty, ManagedObjectReference and
    # ArrayOfString too: defined after pbm 7.0's, each module's DynamicProperty
    # still decodes the anyType values to its own module's classes (it took the
    # later module's).
    def test_an_any_value_decodes_to_the_class_of_its_records_module
      earlier = vim
      later = Module.new
      WSDL.load(pbm_path("6.0")).define(later)
      [earlier, later].each do |mod|
        parent, = XML.decode(File.read(response_path("cluster_host_property")), [mod::DynamicProperty], at: "RetrievePropertiesResponse/returnval/propSet")
        assert_instance_of mod::ManagedObjectReference, parent.val
        _, locales = XML.decode(File.read(response_path("not_authenticated_fault")), [mod::DynamicProperty], at: "RetrievePropertiesResponse/returnval/propSet")
        assert_instance_of mod::ArrayOfString, locales.val
      end
    end

    # A NotAuthenticated fault as vSphere sends one (a detail element
    # <NotAuthenticatedFault xsi:type="NotAuthenticated"> in urn:vim25), its
    # content the fixture's first NotAuthenticated (govmomi's
    # not_authenticated_fault.xml is a response whose missingSet holds it, not a
    # SOAP fault), answered by a server on 127.0.0.1 to the generated client's
    # PbmRetrieveServiceContent, whose declared fault is RuntimeFault: the
    # client raises a SOAP::Fault whose detail decodes to the generated
    # NotAuthenticated (a subclass of RuntimeFault), as REXML reads it.
    def test_a_not_authenticated_fault_decodes_to_the_generated_fault_class
      fixture = REXML::Document.new(File.read(response_path("not_authenticated_fault")))
      content = fixture.root.elements["returnval/missingSet/fault/fault"]
      assert_equal "NotAuthenticated", content.attributes["xsi:type"]
      body = <<~XML
        <?xml version="1.0" encoding="UTF-8"?>
        <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="#{XSI}">
        <soapenv:Body><soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>The session is not authenticated.</faultstring>
        <detail><NotAuthenticatedFault xmlns="#{VIM25}" xsi:type="NotAuthenticated">#{content.elements.map(&:to_s).join}</NotAuthenticatedFault></detail>
        </soapenv:Fault></soapenv:Body></soapenv:Envelope>
      XML
      LoopbackServer.open(proc { [500, { "content-type" => "text/xml; charset=utf-8" }, body] }) do |server|
        client = vim::PbmPortClient.new(endpoint: server.url)
        this = vim::ManagedObjectReference.new(type: "PbmServiceInstance", value: "ServiceInstance")
        fault = assert_raises(SOAP::Fault) { client.pbm_retrieve_service_content(this: this) }
        assert_equal "The session is not authenticated.", fault.reason
        assert_read(content, fault.detail_object, vim::RuntimeFault)
        assert_equal "System.View", fault.detail_object.privilege_id
        assert_equal fault.detail_object, vim::NotAuthenticated.from_xml(fault.detail_object.to_xml)
        # pbm's schema is elementFormDefault="qualified": _this, a vim25 type,
        # is in urn:pbm, the wrapper's namespace (it was written in urn:vim25).
        request = REXML::Document.new(server.requests.pop.body)
        wrapper = request.root.elements["*/PbmRetrieveServiceContent"]
        assert_equal "urn:pbm", wrapper.namespace
        parts = wrapper.elements.map { |part| [part.name, part.namespace, part.attributes["type"], part.text] }
        assert_equal [["_this", "urn:pbm", "PbmServiceInstance", "ServiceInstance"]], parts
        client.close
      end
    end

    private

    # The ObjectContents of govmomi's response +name+, decoded with +mod+'s classes.
    def returnvals(mod, name)
      returnvals_of(mod, File.read(response_path(name)))
    end

    def returnvals_of(mod, xml)
      XML.decode(xml, [mod::ObjectContent], at: "RetrievePropertiesResponse/returnval")
    end

    # +value+, decoded from +element+ where +declared+ (a class or a scalar type)
    # was expected, holds what REXML reads there: an xsi:type naming a vim25 type
    # gives exactly that generated class; every attribute and child element of
    # the element is in the field whose XML name it has (no other field set), its
    # text in the "." field; scalars converted by their declared type.
    def assert_read(element, value, declared)
      xsi_type = element.attributes.get_attribute_ns(XSI, "type")&.value
      prefix, local = xsi_type&.include?(":") ? xsi_type.split(":", 2) : [nil, xsi_type]
      if declared == :any
        if local && element.namespace(prefix) == VIM25
          declared = vim.const_get(local)
        else
          # A type vim25 does not define (xsd:string): the element as it came.
          expected = { "#text" => element.text.to_s }
          expected["@{#{XSI}}type"] = xsi_type if xsi_type
          return assert_equal(expected, value, element.to_s)
        end
      elsif declared.is_a?(Class) && local
        declared = vim.const_get(local)
      end
      return assert_equal(scalar(element.text.to_s, declared), value, element.to_s) unless declared.is_a?(Class)

      assert_instance_of declared, value, element.to_s
      read = Hash.new { |hash, key| hash[key] = [] }
      element.attributes.each_attribute { |attribute| read["@#{attribute.name}"] << attribute.value unless attribute.prefix == "xmlns" || attribute.namespace == XSI }
      element.elements.each { |child| read[child.name] << child }
      read["."] << element.text.to_s if element.elements.empty? && !element.text.to_s.strip.empty?
      declared.attributes.each do |attribute|
        found = read.delete(attribute.xml) || []
        actual = value.public_send(attribute.name)
        if attribute.list?
          assert_equal found.size, actual.size, "#{attribute.name} of #{element}"
          found.zip(actual).each { |item, decoded| assert_item(item, decoded, attribute) }
        elsif found.empty?
          assert_nil actual, "#{attribute.name} of #{element}"
        else
          assert_equal 1, found.size
          assert_item(found.first, actual, attribute)
        end
      end
      assert_empty read, "read by no field of #{declared}"
    end

    def assert_item(item, decoded, attribute)
      return assert_equal(scalar(item, attribute.type), decoded) if item.is_a?(String)

      assert_read(item, decoded, attribute.type)
    end

    def scalar(text, type)
      case type
      when :integer then Integer(text)
      when :boolean then text == "true"
      when :string then text
      else flunk "no scalar reading for #{type.inspect}"
      end
    end
  end
end
