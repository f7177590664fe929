# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "wirebind/wsdl"

module Wirebind
  module WSDLTestSupport
    SAMPLES = {
      string: "text & <more>", integer: 42, float: 1.5, decimal: BigDecimal("12.25"), boolean: true,
      time: Time.utc(2026, 1, 2, 3, 4, 5), date: Date.new(2026, 1, 2), base64: "bytes".b
    }.freeze

    # A record of +klass+ with every attribute set (models nested to +depth+; an
    # abstract type's value is of a concrete subclass, or nil when it has none).
    def sample(klass, depth = 2)
      values = klass.attributes.to_h do |attribute|
        # A substitution group's field: one item of each element that may stand there.
        next [attribute.name, depth.positive? ? concrete_choices(attribute).map { |choice| sample(choice, depth - 1) } : []] if attribute.choices

        type = attribute.model? && concrete(attribute.type)
        value =
          if attribute.model?
            depth.positive? && type ? sample(type, depth - 1) : nil
          elsif attribute.enum
            attribute.enum.keys.first
          elsif attribute.string_format
            Types::StringFormat::FORMATS.fetch(attribute.string_format)[2] # the format's example
          elsif attribute.type == :any
            # A wildcard's item keeps its element's name.
            attribute.xml == "*" ? { "{urn:sample}Extra" => { "@id" => "1", "#text" => "x" } } : { "@id" => "1", "#text" => "x" }
          else
            SAMPLES.fetch(attribute.type)
          end
        [attribute.name, attribute.list? ? [value].compact : value]
      end
      klass.new(**values)
    end

    def concrete(klass)
      klass.xml_abstract? ? klass.subclasses.sort_by(&:name).find { |sub| !sub.xml_abstract? } : klass
    end

    # The classes of +attribute+'s choices that can be written.
    def concrete_choices(attribute)
      attribute.choices.reject(&:xml_abstract?)
    end

    def model_classes(mod)
      mod.constants.sort.map { |name| mod.const_get(name) }.select { |c| c.is_a?(Class) && c.include?(Wirebind::Model) }
    end

    def client_classes(mod)
      mod.constants.sort.map { |name| mod.const_get(name) }.select { |c| c.is_a?(Class) && c < Wirebind::SOAP::Client }.uniq
    end

    # Writes +files+ ({name => text}) into a fresh directory, yields it.
    def with_files(files)
      Dir.mktmpdir("wirebind-wsdl") do |dir|
        files.each do |name, text|
          FileUtils.mkdir_p(File.dirname(File.join(dir, name)))
          File.write(File.join(dir, name), text)
        end
        yield dir
      end
    end

    # A schema with one complex type X (a string element v) in urn:x.
    X_SCHEMA = <<~XML
      <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:x">
        <xsd:complexType name="X"><xsd:sequence><xsd:element name="v" type="xsd:string"/></xsd:sequence></xsd:complexType>
      </xsd:schema>
    XML

    # A new module holding what a WSDL of +types+ (and +rest+) defines, read from a file.
    def define_wsdl(types, **rest)
      with_files("s.wsdl" => wsdl(types: types, **rest)) do |dir|
        mod = Module.new
        WSDL.load(File.join(dir, "s.wsdl")).define(mod)
        return mod
      end
    end

    # Each xsd:schema of a WSDL (a REXML document) as a document of its own, named
    # by its namespace (its namespace declarations copied from wsdl:definitions;
    # imports located; the SOAP 1.1 encoding namespace's as encoding.xsd).
    def schema_files(doc)
      file = ->(namespace) { namespace == Namespaces::SOAP11_ENCODING ? "encoding.xsd" : "#{namespace.tr(':', '_')}.xsd" }
      REXML::XPath.match(doc, "//xsd:schema").to_h do |schema|
        copy = schema.deep_clone
        schema.parent.parent.attributes.each_attribute do |attribute|
          copy.add_namespace(attribute.name, attribute.value) if attribute.prefix == "xmlns"
        end
        REXML::XPath.match(copy, "xsd:import").each { |import| import.add_attribute("schemaLocation", file.call(import.attribute("namespace").value)) }
        [file.call(schema.attribute("targetNamespace").value), copy.to_s]
      end
    end

    # xmllint (libxml2-utils) present, or the test skips (fails in CI).
    def require_xmllint
      return if system("command -v xmllint > /dev/null 2>&1")

      flunk "xmllint is missing (.ci/run installs libxml2-utils)" if ENV["CI"]
      skip "xmllint is not installed (apt-get install libxml2-utils)"
    end

    def wsdl(types: "", messages: "", port_types: "", bindings: "", services: "", tns: "urn:test")
      <<~XML
        <?xml version="1.0"?>
        <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
            xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" xmlns:xsd="http://www.w3.org/2001/XMLSchema"
            xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:tns="#{tns}" targetNamespace="#{tns}">
          <wsdl:types>#{types}</wsdl:types>
          #{messages}#{port_types}#{bindings}#{services}
        </wsdl:definitions>
      XML
    end
  end
end
