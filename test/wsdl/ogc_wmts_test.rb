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

    WMTS = "http://www.opengis.net/wmts/1.0"
    OWS = "http://www.opengis.net/ows/1.1"
    XLINK = "http://www.w3.org/1999/xlink"

    # A Capabilities document (test/wsdl/wmts_capabilities.xml: no real one is
    # in a package the tests may read) decodes with the generated classes: each
    # substitute element to its own class (wmts:Layer for
    # ows:DatasetDescriptionSummary, ows:BoundingBox),
    # its values equal to what REXML reads; written back, it decodes equal and
    # is valid against the OGC's schemas.
    def test_a_capabilities_document_decodes_each_substitute_to_its_own_class
      schema = capabilities_schema
      mod = Module.new
      WSDL.load(schema, root: schemas).define(mod)
      text = File.read(File.expand_path("wmts_capabilities.xml", __dir__))
      assert_valid_document(schema, text)
      capabilities = mod::Capabilities.from_xml(text)
      doc = REXML::Document.new(text)
      read = ->(node, path) { REXML::XPath.match(node, path, "w" => WMTS, "o" => OWS, "x" => XLINK).map { |found| found.is_a?(REXML::Element) ? found.text : found.value } }

      identification = capabilities.service_identification
      assert_instance_of mod::ServiceIdentification, identification
      assert_equal read.call(doc, "//o:ServiceIdentification/o:Title"), identification.title.map(&:value)
      assert_equal read.call(doc, "//o:Keyword"), identification.keywords.flat_map(&:keyword).map(&:value)
      assert_equal [nil, "fr"], identification.keywords.first.keyword.map(&:lang)
      assert_equal read.call(doc, "//o:ServiceType").first, identification.service_type.value
      assert_equal read.call(doc, "//o:Operation/@name"), capabilities.operations_metadata.operation.map(&:name)
      assert_equal(read.call(doc, "//o:Get/@x:href"), capabilities.operations_metadata.operation.flat_map { |operation| operation.dcp.flat_map { |dcp| dcp.http.get.map(&:href) } })

      layers = capabilities.contents.dataset_description_summary
      assert_equal [mod::Layer, mod::Layer], layers.map(&:class)
      REXML::XPath.match(doc, "//w:Layer", "w" => WMTS).zip(layers) do |element, layer|
        assert_equal read.call(element, "o:Identifier").first, layer.identifier.value
        assert_equal read.call(element, "o:Title"), layer.title.map(&:value)
        assert_equal read.call(element, "w:Format"), layer.format
        # Every ows:WGS84BoundingBox, before the Identifier or standing for
        # ows:BoundingBox after it, is the attribute that names it (of its type's class).
        assert_equal read.call(element, "o:WGS84BoundingBox/o:LowerCorner"), layer.wgs84_bounding_box.map(&:lower_corner)
        assert_equal [mod::WGS84BoundingBoxType], layer.wgs84_bounding_box.map(&:class).uniq
        assert_equal read.call(element, "o:BoundingBox/@crs"), layer.bounding_box.map(&:crs)
        assert_equal [mod::BoundingBox], layer.bounding_box.map(&:class).uniq
        assert_equal(read.call(element, "w:Style/o:Identifier"), layer.style.map { |style| style.identifier.value })
        assert_equal read.call(element, "w:TileMatrixSetLink/w:TileMatrixSet"), layer.tile_matrix_set_link.map(&:tile_matrix_set)
      end
      first = layers.first
      assert_equal([["http://maps.example.org/legend/coast.png", 120, 40]], first.style.first.legend_url.map { |url| [url.href, url.width, url.height] })
      assert_equal [1, 2, 1, 2], first.tile_matrix_set_link.first.tile_matrix_set_limits.tile_matrix_limits.first.to_h.values_at(:min_tile_row, :max_tile_row, :min_tile_col, :max_tile_col)
      assert_equal %w[2025 2026], layers.last.dimension.first.value

      set = capabilities.contents.tile_matrix_set.first
      assert_instance_of mod::TileMatrixSet, set
      assert_equal read.call(doc, "//w:TileMatrixSet/o:Identifier"), [set.identifier.value]
      assert_equal read.call(doc, "//w:TileMatrixSet/o:SupportedCRS"), [set.supported_crs]
      assert_equal read.call(doc, "//w:TileMatrix/w:ScaleDenominator").map(&:to_f), set.tile_matrix.map(&:scale_denominator)
      assert_equal read.call(doc, "//w:TileMatrix/w:MatrixWidth").map(&:to_i), set.tile_matrix.map(&:matrix_width)
      assert_equal read.call(doc, "//w:LayerRef"), capabilities.themes.flat_map(&:theme).flat_map(&:layer_ref)

      written = capabilities.to_xml
      assert_equal capabilities, mod::Capabilities.from_xml(written)
      assert_valid_document(schema, written)
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
