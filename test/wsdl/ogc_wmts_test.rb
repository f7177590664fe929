# frozen_string_literal: true

require_relative "real_wsdl_support"

module Wirebind
  # The OGC's WMTS 1.0 schemas and WSDL with the OWS 1.1 and XLink schemas they
  # import from sibling folders, as python3-mapproxy 1.15.1 ships them for its
  # tests (Debian; Apache-2.0, the schemas the OGC's own publications; unpacked
  # by `rake fixtures`): a multi-file set whose imports leave the importing
  # file's folder ("../../ows/1.1.0/owsAll.xsd"), with substitution groups
  # (ows:AbstractMetaData, ows:DatasetDescriptionSummary and wmts:Layer,
  # ows:ExtendedCapabilities...).
  class WSDLOgcWmtsTest < Minitest::Test
    include TestSupport
    include RealWSDLSupport

    PACKAGE = "python3-mapproxy-1.15.1-2"
    SCHEMAS = "usr/share/python3-mapproxy/test/schemas"

    def schemas
      File.dirname(real_wsdl_path(PACKAGE, "#{SCHEMAS}/xml.xsd"))
    end

    def capabilities_schema
      File.join(schemas, "wmts/1.0/wmtsGetCapabilities_response.xsd")
    end

    # The Capabilities document's schema: every file it reaches generates,
    # loads, counts what REXML counts across the files, round trips a sample of
    # every type, and the samples are valid against the schemas (xmllint).
    def test_the_capabilities_schema_and_what_it_imports
      assert_real_wsdl(capabilities_schema, "WirebindOgcWmts", root: schemas)
    end

    # Its imports leave the importing file's folder: refused unless a root
    # holding them is named (WSDL.load's root:, `wirebind generate --root`).
    def test_imports_out_of_the_folder_need_a_root
      outside = File.join(schemas, "ows/1.1.0/owsAll.xsd")
      error = assert_raises(WSDL::InvalidError) { WSDL.load(capabilities_schema) }
      assert_includes error.message, "#{capabilities_schema}: <import>: #{outside} is outside #{File.dirname(capabilities_schema)}"
      with_files({}) do |dir|
        err = StringIO.new
        status = CLI.run(["generate", capabilities_schema, "--out", dir, "--module", "WirebindOgcRefused"], out: StringIO.new, err: err)
        refute_equal 0, status
        assert_includes err.string, "#{outside} is outside"
        assert_empty Dir.children(dir)
      end
      assert_equal 60, WSDL.load(capabilities_schema, root: schemas).types.size
    end

    # wmtsAbstract.wsdl imports its schemas from the OGC's site: refused
    # without fetch: (and out of reach offline: wmtsGetFeatureInfo_response.xsd
    # imports GML 3.1.1, which the package does not hold).
    def test_the_abstract_wsdl_imports_its_schemas_by_url
      path = File.join(schemas, "wmts/1.0/wmtsAbstract.wsdl")
      error = assert_raises(WSDL::InvalidError) { WSDL.load(path) }
      assert_includes error.message, "http://schemas.opengis.net/ows/1.1.0/owsCommon.xsd is a URL; imports by URL are read only with fetch: true"
    end

    # Its messages and port types (KVP and SOAP), with no binding and no
    # service, read with its types from the package's copy of the Capabilities
    # schema: the types are generated, no client, and a warning says so.
    def test_the_abstract_wsdl_gives_types_and_a_warning_for_its_port_types
      text = File.read(File.join(schemas, "wmts/1.0/wmtsAbstract.wsdl"))
      text = text.sub(%r{<xsd:import namespace="http://www.opengis.net/ows/1.1"\s*schemaLocation="[^"]*"/>}, "")
                 .sub("http://schemas.opengis.net/wmts/1.0/wmts.xsd", "wmtsGetCapabilities_response.xsd")
      description = WSDL.load(StringIO.new(text), base: File.join(schemas, "wmts/1.0"), root: schemas)
      assert_equal ['(io): <portType name="WMTS_HTTP_Port_GET">: no SOAP binding refers to the port types "WMTS_HTTP_Port_GET", ' \
                    '"WMTS_HTTP_Port_SOAP"; their operations get no client (the types are generated)'], description.warnings
      assert_empty description.ports
      assert_equal 60, description.types.size
      files = description.generate("WmtsAbstract")
      assert_equal ["wmts_abstract.rb", "wmts_abstract/models.rb"], files.keys
    end
  end
end
