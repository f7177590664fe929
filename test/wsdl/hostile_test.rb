# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Names from a WSDL are data: whatever they hold, the generated code is inert.
  class WSDLHostileTest < Minitest::Test
    include WSDLTestSupport

    def payloads(marker)
      [
        %(x";File.write(#{marker.dump},"1");"),
        "a\#{File.write(#{marker.dump}, '1')}",
        "`touch #{marker}`",
        "x'\n;system(\"touch #{marker}\");#",
        "end; File.write(#{marker.dump}, 1); class X",
        "=begin\nx"
      ]
    end

    def hostile_wsdl(name, element = name)
      escaped = name.encode(xml: :attr)
      element = element.encode(xml: :attr)
      wsdl(
        types: <<~XML,
          <xsd:schema targetNamespace="urn:h" xmlns:h="urn:h">
            <xsd:complexType name=#{escaped}><xsd:sequence>
              <xsd:element name=#{element} type="xsd:string"/>
              <xsd:element name="kind"><xsd:simpleType><xsd:restriction base="xsd:string">
                <xsd:enumeration value=#{escaped}/></xsd:restriction></xsd:simpleType></xsd:element>
            </xsd:sequence><xsd:attribute name=#{element} type="xsd:string" default=#{escaped}/></xsd:complexType>
            <xsd:element name="op"><xsd:complexType><xsd:sequence><xsd:element name=#{element} type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
          </xsd:schema>
        XML
        messages: %(<wsdl:message name="in"><wsdl:part name="p" element="h:op" xmlns:h="urn:h"/></wsdl:message>),
        port_types: %(<wsdl:portType name="pt"><wsdl:operation name=#{escaped}><wsdl:input message="tns:in"/></wsdl:operation></wsdl:portType>),
        bindings: %(<wsdl:binding name="b" type="tns:pt"><soap:binding style="document"/><wsdl:operation name=#{escaped}>) +
                  %(<soap:operation soapAction=#{escaped}/><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation></wsdl:binding>),
        services: %(<wsdl:service name=#{escaped}><wsdl:port name=#{escaped} binding="tns:b"><soap:address location=#{escaped}/></wsdl:port></wsdl:service>)
      )
    end

    def test_hostile_names_give_inert_code
      Dir.mktmpdir do |dir|
        marker = File.join(dir, "pwned")
        payloads(marker).each do |name|
          inert_or_refused(name, hostile_wsdl(name))
          # The payload everywhere but in element names: type, operation, service and
          # port names, enumeration values, defaults, SOAPAction, address.
          refute_raises_invalid(name, hostile_wsdl(name, "field"))
          # Names that are XML names but not Ruby ones, in every place a name goes.
          inert_or_refused(name, hostile_wsdl("end\u00e9-x.y"))
          refute File.exist?(marker), "a payload ran: #{name.inspect}"
        end
      end
    end

    def refute_raises_invalid(name, document)
      assert inert_or_refused(name, document), "refused #{name.inspect}"
    end

    # Compiles without running: RubyVM on MRI; JRuby (no RubyVM) parses with JRuby.parse.
    def compile_only(source)
      return RubyVM::InstructionSequence.compile(source) if defined?(RubyVM::InstructionSequence)

      require "jruby"
      JRuby.parse(source)
    end

    def inert_or_refused(name, document)
      description = WSDL.load(StringIO.new(document))
      begin
        files = description.generate("Hostile")
      rescue WSDL::InvalidError => e
        assert_match(/is not an XML name/, e.message)
        return false
      end
      files.each_value { |source| compile_only(source) } # a SyntaxError fails the test
      mod = Module.new
      description.define(mod)
      klass = model_classes(mod).find { |k| k.attributes.size == 3 }
      refute_nil klass, name
      record = sample(klass)
      assert_equal record, klass.from_xml(record.to_xml)
      assert_equal 1, client_classes(mod).first.instance_methods(false).size
      true
    end

    # Issue 19, item 6: keywords as type names, Kernel/Object methods as operation names.
    def test_keyword_type_names_and_machinery_operation_names
      %w[END BEGIN __END__ raise format send class public_send instance_variable_get].each do |name|
        assert inert_or_refused(name, hostile_wsdl(name, "field")), name
        mod = Module.new
        WSDL.load(StringIO.new(hostile_wsdl(name, "field"))).define(mod)
        client = client_classes(mod).first.new(endpoint: "http://127.0.0.1:9/")
        %i[raise format send class public_send instance_variable_get respond_to? call].each do |machinery|
          refute_equal client.class, client.method(machinery).owner, "#{name} replaced ##{machinery}"
        end
      end
    end

    def test_unicode_names_stay_unicode
      mod = Module.new
      WSDL.load(StringIO.new(hostile_wsdl("КонтактнаяИнформация", "field"))).define(mod)
      assert mod.const_defined?(:КонтактнаяИнформация), mod.constants.inspect
      mod = Module.new
      WSDL.load(StringIO.new(hostile_wsdl("контакт", "field"))).define(mod)
      assert mod.const_defined?(:Контакт), mod.constants.inspect
      mod = Module.new
      WSDL.load(StringIO.new(hostile_wsdl("中文", "field"))).define(mod)
      assert mod.const_defined?(:Type中文), mod.constants.inspect
      assert_equal "ΣύμβολοX", WSDL::Naming.constant("σύμβολο.x")
    end

    # A 1C service's element names: attributes, keywords, operations and
    # arguments keep their letters (only what Ruby cannot take is transliterated).
    # rubocop:disable Naming/AsciiIdentifiers, Naming/VariableNumber -- the names under test
    def test_unicode_attribute_and_method_names_stay_unicode
      mod = Module.new
      WSDL.load(StringIO.new(hostile_wsdl("ПолучитьДанные", "КонтактнаяИнформация"))).define(mod)
      klass = mod.const_get(:ПолучитьДанные)
      assert_equal %i[контактная_информация kind контактная_информация_2], klass.attributes.map(&:name)
      record = klass.new(контактная_информация: "тел. 123")
      assert_equal "тел. 123", record.контактная_информация
      xml = record.to_xml
      assert_includes xml, "<КонтактнаяИнформация>тел. 123</КонтактнаяИнформация>"
      assert_equal record, klass.from_xml(xml)
      client = client_classes(mod).first
      assert client.method_defined?(:получить_данные), client.instance_methods(false).inspect
      assert_includes client.instance_method(:получить_данные).parameters, %i[key контактная_информация]
      assert_equal "дата_документа", WSDL::Naming.snake("ДатаДокумента")
      assert_equal "中文_name", WSDL::Naming.snake("中文Name")
      assert_equal "au00b7b", WSDL::Naming.snake("a·b")
      assert_equal "_̈x", WSDL::Naming.snake("\u0308x")
      assert_equal "_١٢", WSDL::Naming.snake("١٢")
    end
    # rubocop:enable Naming/AsciiIdentifiers, Naming/VariableNumber

    def test_deep_nesting_is_a_limit_error
      deep = "#{'<xsd:sequence>' * 10_000}#{'</xsd:sequence>' * 10_000}"
      document = wsdl(types: %(<xsd:schema targetNamespace="urn:d"><xsd:complexType name="T">#{deep}</xsd:complexType></xsd:schema>))
      assert_raises(LimitError) { WSDL.load(StringIO.new(document)) }
    end

    def test_entities_are_refused
      bomb = %(<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>) +
             %(<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" name="&b;"/>)
      assert_raises(ParseError) { WSDL.load(StringIO.new(bomb)) }
    end

    def test_group_cycles_and_self_extension_are_errors
      cycle = wsdl(types: <<~XML)
        <xsd:schema targetNamespace="urn:c" xmlns:c="urn:c">
          <xsd:group name="G"><xsd:sequence><xsd:group ref="c:G"/></xsd:sequence></xsd:group>
          <xsd:complexType name="T"><xsd:group ref="c:G"/></xsd:complexType>
        </xsd:schema>
      XML
      assert_raises(WSDL::InvalidError) { WSDL.load(StringIO.new(cycle)).types }
      selfish = wsdl(types: <<~XML)
        <xsd:schema targetNamespace="urn:c" xmlns:c="urn:c">
          <xsd:complexType name="T"><xsd:complexContent><xsd:extension base="c:T"/></xsd:complexContent></xsd:complexType>
        </xsd:schema>
      XML
      assert_raises(WSDL::InvalidError) { WSDL.load(StringIO.new(selfish)).generate("M") }
    end

    def test_a_module_name_must_be_a_constant
      description = WSDL.load(StringIO.new(wsdl))
      assert_raises(ArgumentError) { description.generate("Jira; system('x')") }
    end
  end
end
