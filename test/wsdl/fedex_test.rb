# frozen_string_literal: true

require_relative "wsdl_test_support"
require "open3"
require "rexml/document"

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
    include WSDLTestSupport

    DIR = File.join(FixtureGems::DIR, "fedex-0.0.1", "lib", "wsdl")
    # Each service's fixed Version: ServiceId, Major, Intermediate.
    SERVICES = {
      "ASYNCService_v2" => ["async", 2, 0], "LocationsService_v1" => ["locs", 1, 0], "PickupService_v9" => ["disp", 9, 0],
      "RateService_v16" => ["crs", 16, 0], "ShipService_v15" => ["ship", 15, 0], "TrackService_v9" => ["trck", 9, 1],
      "ValidationAvailabilityAndCommitmentService_v2" => ["vacs", 2, 0]
    }.freeze

    def wsdl_path(name)
      path = File.join(DIR, "#{name}.wsdl")
      return path if File.exist?(path)

      flunk "#{path} is missing (.ci/run runs `rake fixtures`)" if ENV["CI"]
      skip "the fedex npm package is not unpacked in tmp/fixtures (run `bundle exec rake fixtures`)"
    end

    # [operations of the SOAP bindings, complex types (named, and anonymous ones in elements)], by REXML.
    def independent_counts(doc)
      operations = REXML::XPath.match(doc, "/*/*[local-name()='binding']/*[local-name()='operation']").size
      named = REXML::XPath.match(doc, "//*[local-name()='schema']/*[local-name()='complexType']").size
      anonymous = REXML::XPath.match(doc, "//*[local-name()='element']/*[local-name()='complexType']").size
      [operations, named + anonymous]
    end

    SERVICES.each do |name, (service_id, major, intermediate)|
      define_method(:"test_#{name}") do
        path = wsdl_path(name)
        doc = REXML::Document.new(File.read(path))
        description = WSDL.load(path)
        assert_empty description.warnings
        mod = Module.new
        description.define(mod)

        operations, types = independent_counts(doc)
        assert_equal(operations, description.ports.sum { |port| port.binding.operations.size })
        assert_equal(operations, client_classes(mod).sum { |client| client.instance_methods(false).count { |m| !m.start_with?("each_") } })
        assert_equal types, description.types.size
        assert_equal types, model_classes(mod).size
        model_classes(mod).each do |klass|
          record = sample(klass)
          assert_equal record, klass.from_xml(record.to_xml), "#{klass} does not round-trip"
        end

        # Written back as one WSDL by Description#to_wsdl, it generates the same code.
        with_files("again.wsdl" => description.to_wsdl) do |dir|
          assert_equal description.generate("FedEx"), WSDL.load(File.join(dir, "again.wsdl")).generate("FedEx")
        end

        version = mod::VersionId.new
        assert_equal({ service_id: service_id, major: major, intermediate: intermediate, minor: 0 }, version.to_h)
        assert_valid_against_schema(doc, version.to_xml)
      end
    end

    private

    # +xml+ (a VersionId record) as the document element of a schema that imports the WSDL's.
    def assert_valid_against_schema(doc, xml)
      unless system("command -v xmllint > /dev/null 2>&1")
        flunk "xmllint is missing (.ci/run installs libxml2-utils)" if ENV["CI"]
        skip "xmllint is not installed (apt-get install libxml2-utils)"
      end
      schema = REXML::XPath.first(doc, "//*[local-name()='schema']").deep_clone
      doc.root.attributes.each_attribute { |attribute| schema.add_namespace(attribute.name, attribute.value) if attribute.prefix == "xmlns" }
      tns = schema.attribute("targetNamespace").value
      wrapper = <<~XML
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:f="#{tns}" targetNamespace="urn:wirebind:sample" elementFormDefault="qualified">
          <xs:import namespace="#{tns}" schemaLocation="service.xsd"/>
          <xs:element name="Version" type="f:VersionId"/>
        </xs:schema>
      XML
      children = xml.sub(/\A<[^>]*>/, "").sub(%r{</[^>]*>\z}, "")
      sample = %(<s:Version xmlns:s="urn:wirebind:sample" xmlns="#{tns}">#{children}</s:Version>)
      with_files("service.xsd" => schema.to_s, "sample.xsd" => wrapper, "sample.xml" => sample) do |dir|
        _, errors, status = Open3.capture3("xmllint", "--noout", "--schema", File.join(dir, "sample.xsd"), File.join(dir, "sample.xml"))
        assert status.success?, "#{sample}\n#{errors}"
      end
    end
  end
end
