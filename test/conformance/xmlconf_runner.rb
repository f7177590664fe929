# frozen_string_literal: true

require "rexml/document"

module Wirebind
  module Conformance
    # Selects and runs the W3C XML Conformance Test Suite cases that apply to a
    # non-validating parser that never reads external entities (see ../shared/README.md):
    # ENTITIES="none" written on the TEST element, no 1.1 in RECOMMENDATION or VERSION,
    # EDITION absent or including 5. "valid" and "invalid" must be accepted, "not-wf"
    # rejected, "error" skipped.
    #
    # The attribute must be written: the Edinburgh suites that leave it out (and so get
    # the manifest DTD's default) include Namespaces 1.0 tests that contradict XML 1.0
    # tests of this selection (<foo:/> is not-wf there, <LegalName:/> valid here).
    class XmlConf
      Case = Struct.new(:id, :type, :path, :description, keyword_init: true)

      ROOT = File.expand_path("../../../shared/conformance/xmlconf", __dir__)
      MANIFEST = File.join(ROOT, "cleaned", "xmlconf-flattened.xml")

      def self.cases
        @cases ||= load_cases
      end

      def self.load_cases
        doc = REXML::Document.new(File.read(MANIFEST))
        cases = []
        REXML::XPath.each(doc, "//TEST") do |test|
          a = test.attributes
          next unless a["ENTITIES"] == "none"
          next if a["RECOMMENDATION"].to_s.include?("1.1") || a["VERSION"].to_s.include?("1.1")
          next if a["EDITION"] && !a["EDITION"].split.include?("5")
          next if a["TYPE"] == "error"

          bases = []
          node = test.parent
          while node.is_a?(REXML::Element)
            base = node.attributes["xml:base"]
            bases.unshift(base) if base
            node = node.parent
          end
          path = File.join(ROOT, "xmlconf", *bases, a["URI"])
          cases << Case.new(id: a["ID"], type: a["TYPE"], path: path, description: test.text.to_s.strip.gsub(/\s+/, " "))
        end
        cases
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
