# frozen_string_literal: true

require "rexml/document"
require "test_helper"

module Wirebind
  module Conformance
    # Selects and runs the W3C XML Conformance Test Suite cases that apply to a
    # namespace-aware, non-validating parser that never reads external entities
    # (see ../shared/README.md): ENTITIES="none" written on the TEST element, no 1.1
    # in RECOMMENDATION or VERSION, EDITION absent or including 5, NAMESPACE not
    # "no"; and Richard Tobin's Namespaces in XML 1.0 tests (rmt-ns10.xml and
    # errata1e.xml, which carry no ENTITIES attribute), less any that needs an
    # external entity or DTD ({skipped} says which and why). "valid" and "invalid"
    # must be accepted, "not-wf" rejected, "error" skipped.
    #
    # ENTITIES must be written elsewhere: the other Edinburgh suites that leave it out
    # (and so get the manifest DTD's default) are XML 1.1 or Namespaces 1.1 ones.
    class XmlConf
      Case = Struct.new(:id, :type, :path, :description, keyword_init: true)

      # In ../shared: a test asks shared_path("conformance", "xmlconf") first, which
      # skips, saying so, where it is absent.
      ROOT = File.join(Wirebind::TestSupport::SHARED, "conformance", "xmlconf")
      MANIFEST = File.join(ROOT, "cleaned", "xmlconf-flattened.xml")
      # xml:base of the Namespaces in XML 1.0 suites, taken whatever their ENTITIES.
      NAMESPACE_SUITES = %w[eduni/namespaces/1.0/ eduni/namespaces/errata-1e/].freeze
      # A DOCTYPE naming an external subset: the test cannot be run without reading it.
      EXTERNAL_SUBSET = /<!DOCTYPE[ \t\r\n]+[^ \t\r\n\[>]+[ \t\r\n]+(?:SYSTEM|PUBLIC)\b/

      def self.cases
        load_selection unless @cases
        @cases
      end

      # @return [Array<String>] the Namespaces tests left out, each with the reason
      def self.skipped
        load_selection unless @skipped
        @skipped
      end

      def self.load_selection
        doc = REXML::Document.new(File.read(MANIFEST))
        @cases = []
        @skipped = []
        REXML::XPath.each(doc, "//TEST") do |test|
          a = test.attributes
          bases = []
          node = test.parent
          while node.is_a?(REXML::Element)
            base = node.attributes["xml:base"]
            bases.unshift(base) if base
            node = node.parent
          end
          namespace_suite = NAMESPACE_SUITES.include?(bases.join)
          next unless namespace_suite || a["ENTITIES"] == "none"
          next if a["NAMESPACE"] == "no"
          next if a["RECOMMENDATION"].to_s.include?("1.1") || a["VERSION"].to_s.include?("1.1")
          next if a["EDITION"] && !a["EDITION"].split.include?("5")
          next if a["TYPE"] == "error"

          path = File.join(ROOT, "xmlconf", *bases, a["URI"])
          if namespace_suite && File.binread(path).match?(EXTERNAL_SUBSET)
            @skipped << "#{a['ID']}: needs its external DTD subset, which is never read"
            next
          end
          @cases << Case.new(id: a["ID"], type: a["TYPE"], path: path, description: test.text.to_s.strip.gsub(/\s+/, " "))
        end
      end

      # @return [Array(Integer, Integer, Array<String>)] passed, total and the failures' descriptions
      def self.run(cases = self.cases)
        failures = []
        cases.each do |c|
          outcome = begin
            File.open(c.path, "rb") { |io| Wirebind::XML.check(io, dtd: :internal) }
            :accepted
          rescue Wirebind::Error => e
            [:rejected, e]
          end
          accepted = outcome == :accepted
          expected = c.type != "not-wf"
          next if accepted == expected

          detail = accepted ? "accepted" : "rejected: #{outcome[1].class}: #{outcome[1].message}"
          failures << "#{c.id} (#{c.type}) #{detail} -- #{c.description} [#{c.path}]"
        end
        [cases.size - failures.size, cases.size, failures]
      end
    end
  end
end
