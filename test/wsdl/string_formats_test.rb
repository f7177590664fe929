# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Issue 19, the reader's leftovers: elements and attributes of xsd:duration,
  # xsd:time, gYear, gYearMonth, gMonthDay, gDay and gMonth (directly, through a
  # named or anonymous restriction, or as simpleContent) generate as :string
  # attributes with the type's format:, so that a malformed value is a
  # DecodeError naming its place instead of a string passed on unchecked.
  class WSDLStringFormatsTest < Minitest::Test
    include WSDLTestSupport

    TYPES = <<~XML
      <xsd:schema targetNamespace="urn:test">
        <xsd:simpleType name="Timeout"><xsd:restriction base="xsd:duration"><xsd:pattern value="PT.*"/></xsd:restriction></xsd:simpleType>
        <xsd:complexType name="Window">
          <xsd:sequence>
            <xsd:element name="timeout" type="tns:Timeout"/>
            <xsd:element name="retry" type="xsd:duration" minOccurs="0" maxOccurs="unbounded"/>
            <xsd:element name="opens" type="xsd:time"/>
            <xsd:element name="year" type="xsd:gYear"/>
            <xsd:element name="period" type="xsd:gYearMonth"/>
            <xsd:element name="anniversary" type="xsd:gMonthDay"/>
            <xsd:element name="payday" type="xsd:gDay"/>
            <xsd:element name="season"><xsd:simpleType><xsd:restriction base="xsd:gMonth"/></xsd:simpleType></xsd:element>
            <xsd:element name="note" type="xsd:string"/>
            <xsd:element name="length"><xsd:complexType><xsd:simpleContent>
              <xsd:extension base="xsd:duration"><xsd:attribute name="unit" type="xsd:string"/></xsd:extension>
            </xsd:simpleContent></xsd:complexType></xsd:element>
          </xsd:sequence>
          <xsd:attribute name="closes" type="xsd:time"/>
        </xsd:complexType>
      </xsd:schema>
    XML

    def test_each_type_generates_its_format
      mod = define_wsdl(TYPES)
      formats = mod::Window.attributes.to_h { |attribute| [attribute.xml, [attribute.type, attribute.string_format]] }
      assert_equal({ "timeout" => %i[string duration], "retry" => %i[string duration], "opens" => %i[string time_of_day],
                     "year" => %i[string g_year], "period" => %i[string g_year_month], "anniversary" => %i[string g_month_day],
                     "payday" => %i[string g_day], "season" => %i[string g_month], "note" => [:string, nil],
                     "length" => [mod::Length, nil], "@closes" => %i[string time_of_day] }, formats)
      assert_equal [:duration, nil], mod::Length.attributes.map(&:string_format)
      assert mod::Window.attributes.find { |attribute| attribute.xml == "retry" }.list?
    end

    def test_values_decode_as_their_text_and_malformed_ones_are_refused
      mod = define_wsdl(TYPES)
      xml = '<Window closes="18:00:00Z"><timeout>PT30S</timeout><retry>PT1M</retry><retry>P1D</retry><opens>09:00:00</opens>' \
            "<year>2026</year><period>2026-11</period><anniversary>--02-29</anniversary><payday>---25</payday><season>--12</season>" \
            '<note>n</note><length unit="s">PT2.5S</length></Window>'
      window = mod::Window.from_xml(xml)
      assert_equal ["PT30S", %w[PT1M P1D], "09:00:00", "2026", "2026-11", "--02-29", "---25", "--12", "18:00:00Z", "PT2.5S"],
                   [window.timeout, window.retry, window.opens, window.year, window.period, window.anniversary, window.payday,
                    window.season, window.closes, window.length.value]
      assert_equal window, mod::Window.from_xml(window.to_xml)
      { "<opens>09:00:00</opens>" => ["<opens>9am</opens>", "Window/opens"], "<retry>P1D</retry>" => ["<retry>1 day</retry>", "Window/retry"],
        'closes="18:00:00Z"' => ['closes="18:00"', "Window/@closes"], "PT2.5S" => ["2.5 s", "Window/length"],
        "--02-29" => ["--02-30", "Window/anniversary"] }.each do |good, (bad, path)|
        error = assert_raises(DecodeError, bad) { mod::Window.from_xml(xml.sub(good, bad)) }
        assert_equal path, error.path, bad
      end
      assert_raises(EncodeError) { window.dup.tap { |copy| copy.year = "MMXXVI" }.to_xml }
    end

    class Shift
      include Model
      xml_type "Shift", namespace: "urn:shifts"
      attribute :length, :string, format: :duration
      attribute :starts, :string, format: :time_of_day, xml: "@starts"
      attribute :breaks, [:string], format: :duration, xml: "breaks/*"
      attribute :season, :string, format: :g_month, xml: "season"
      attribute :budget, :string, format: :g_year, xml: "budget"
      attribute :currency, :string, xml: "budget/@currency"
    end

    # A service's ?wsdl names each format's XSD type, so that a client generated
    # from it has the same formats (document/literal and rpc/encoded).
    def test_a_service_wsdl_writes_the_xsd_types_back
      %i[document rpc_encoded].each do |style|
        service = Class.new(SOAP::Service) do
          namespace "urn:shifts"
          style style
          operation(:plan, args: { shift: Shift }, returns: Shift) { |shift| shift }
        end
        text = SOAP::WSDLWriter.new(service, "http://127.0.0.1/shifts").write
        assert_includes text, 'type="xsd:duration"', style
        assert_includes text, '<xsd:attribute name="starts" type="xsd:time"/>', style
        mod = Module.new
        with_files("s.wsdl" => text) { |dir| WSDL.load(File.join(dir, "s.wsdl")).define(mod) }
        attributes = mod::Shift.attributes.to_h { |attribute| [attribute.xml, attribute] }
        expected = { "length" => :duration, "@starts" => :time_of_day, "season" => :g_month }
        assert_equal expected, attributes.slice(*expected.keys).transform_values(&:string_format), style
        assert_equal :g_year, attributes.fetch("budget").type.attributes.first.string_format, style
        # rpc/encoded: a soapenc:Array of xsd:duration; document/literal: a wrapper element of items
        breaks = attributes["breaks"] || attributes.fetch("breaks/*")
        breaks = breaks.type.attributes.first if style == :document
        assert_equal [:duration, true], [breaks.string_format, breaks.list?], style
      end
    end
  end
end
