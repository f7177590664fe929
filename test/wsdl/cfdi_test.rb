# frozen_string_literal: true

require_relative "real_wsdl_support"

module Wirebind
  # Issue 19, Tests: a real schema set with a non-ASCII name. Mexico's SAT
  # publishes CFDI 4.0, the electronic invoice every Mexican taxpayer issues, as
  # XSDs; the cfdi40 gem (MIT) ships them with local imports (lib/xsd). Its
  # global invoice's year is the attribute "Año". The set is XSD only: the test
  # wraps it in a minimal WSDL of its own that imports cfdv40.xsd (no service,
  # no operation), beside a copy of the files. No real invoice ships with the
  # gem: the document decoded here is written after the SAT's schema.
  class WSDLCfdiTest < Minitest::Test
    include RealWSDLSupport

    CFD = "http://www.sat.gob.mx/cfd/4"
    TD_CFDI = "http://www.sat.gob.mx/sitio_internet/cfd/tipoDatos/tdCFDI"
    # The catalogues (95,000 postal codes among 162,000 enumeration values):
    # simple types only, counted by xmllint rather than read by REXML.
    CATALOGUE = "catCFDI.xsd"

    WRAPPER = <<~XML
      <?xml version="1.0"?>
      <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:wirebind:cfdi">
        <wsdl:types>
          <xsd:schema targetNamespace="urn:wirebind:cfdi"><xsd:import namespace="#{CFD}" schemaLocation="cfdv40.xsd"/></xsd:schema>
        </wsdl:types>
      </wsdl:definitions>
    XML

    def test_the_unicode_name_generates_loads_round_trips_and_validates
      with_cfdi_set do |dir, schemas|
        path = File.join(dir, "cfdi.wsdl")
        # TimbreFiscalDigitalv11.xsd still imports tdCFDI by its published URL.
        warning = "#{dir}/TimbreFiscalDigitalv11.xsd: <import>: #{TD_CFDI}/tdCFDI.xsd not fetched (fetch: false); #{TD_CFDI} is read from #{dir}/tdCFDI.xsd"
        description = WSDL.load(path)
        assert_equal [warning], description.warnings
        types = independent_type_count(dir, schemas)
        assert_equal types, description.types.size
        generate_and_load(path, "Cfdi40Sample") do |mod, printed|
          assert_equal "wirebind generate: warning: #{warning}\n", printed
          assert_equal types, model_classes(mod).size
          year = mod::InformacionGlobal.attributes.find { |attribute| attribute.xml == "@Año" }
          assert_equal :año, year.name
          assert_unicode_name_decodes_and_encodes(mod)
          samples = assert_samples_round_trip(mod, facts_document(dir, schemas))
          assert_samples_valid(dir, schemas, samples)
        end
      end
    end

    private

    # Copies the package's schemas and the wrapper WSDL into a fresh directory;
    # yields it and the schemas' file names.
    def with_cfdi_set
      xsd = real_wsdl_path("cfdi40-0.4.9", "lib/xsd")
      files = Dir[File.join(xsd, "*.xsd")].to_h { |file| [File.basename(file), File.binread(file)] }
      assert_includes files.keys, "cfdv40.xsd"
      with_files(files.merge("cfdi.wsdl" => WRAPPER)) { |dir| yield dir, files.keys.sort }
    end

    # Complex types (named, and anonymous ones in elements) of every schema, by xmllint.
    def independent_type_count(dir, schemas)
      xpath = 'count(//*[local-name()="complexType"][parent::*[local-name()="schema" or local-name()="element"]])'
      counts = schemas.to_h do |name|
        out, err, status = Open3.capture3("xmllint", "--xpath", xpath, File.join(dir, name))
        assert status.success?, err
        [name, Integer(out.strip)]
      end
      assert_equal 0, counts.fetch(CATALOGUE), "the catalogues declare simple types only"
      counts.values.sum
    end

    # The schemas but the catalogues, under one root, for #element_facts.
    def facts_document(dir, schemas)
      inner = (schemas - [CATALOGUE]).map { |name| File.read(File.join(dir, name), encoding: "BOM|UTF-8").sub(/\A\s*<\?xml[^>]*\?>/, "") }
      REXML::Document.new("<schemas>#{inner.join}</schemas>")
    end

    # A global invoice's year read from "Año" into #año, and written back there.
    def assert_unicode_name_decodes_and_encodes(mod)
      xml = %(<cfdi:InformacionGlobal xmlns:cfdi="#{CFD}" Periodicidad="04" Meses="01" Año="2023"/>)
      global = mod::InformacionGlobal.from_xml(xml)
      assert_equal 2023, global.año # rubocop:disable Naming/AsciiIdentifiers -- the generated reader is the point
      assert_equal "04", global.periodicidad
      assert_match(/ Año="2023"/, global.to_xml)
      assert_raises(DecodeError) { mod::InformacionGlobal.from_xml(xml.sub("2023", "dos mil")) }
    end

    # The samples of named types and global elements are valid against the
    # package's own schemas (in place, imports and all), by xmllint, but the
    # invoice's: its complements and addenda are :any fields (a wildcard the
    # only content of their elements), whose sample (an attribute and text) the
    # schema's element-only wildcard does not allow.
    def assert_samples_valid(dir, schemas, samples)
      refute_empty samples
      locations = (schemas - [CATALOGUE]).to_h do |name|
        [REXML::Document.new(File.read(File.join(dir, name), encoding: "BOM|UTF-8")).root.attributes["targetNamespace"].to_s, name]
      end
      File.write(File.join(dir, "samples.xsd"), wrapper_schema(locations, samples))
      File.write(File.join(dir, "samples.xml"), samples_document(samples))
      assert_samples_validate(dir, samples, unrepresentable: ["Comprobante"])
    end
  end
end
