# frozen_string_literal: true

require_relative "wsdl_test_support"
require_relative "../../bench/wsdl"

module Wirebind
  # Issue 19, item 11: what requiring generated code costs. Allocations are
  # counted, not seconds: they repeat exactly from run to run, on a loaded
  # machine too, and the garbage collector's share of the load follows them.
  class WSDLLoadCostTest < Minitest::Test
    include WSDLTestSupport

    # Objects allocated per declaration (a class, or an attribute it declares
    # itself) while requiring the generated code of a small vSphere-shaped WSDL
    # (bench/wsdl.rb's synthetic one, 505 classes, 1,838 attributes): 37.1
    # before the declarations' helpers were called on shared objects and
    # enumerations written once; 30.1 since (a named type declared in one
    # call, and one-word names without their default xml:, too), on Ruby 3.1.
    ALLOCATIONS_PER_DECLARATION = 33

    # Requires the generated entry file in a new Ruby (wirebind and its SOAP
    # layer loaded first) and prints the allocations, classes and attributes.
    COUNT = <<~RUBY
      require "wirebind"
      GC.start if Wirebind::SOAP::Client && Wirebind::WSDL::FaultDetails # both autoloaded
      before = GC.stat(:total_allocated_objects)
      require ARGV[0]
      allocated = GC.stat(:total_allocated_objects) - before
      classes = Small.constants.map { |name| Small.const_get(name) }.grep(Class).select { |klass| klass < Wirebind::Model }
      attributes = classes.sum { |klass| klass.attributes.count { |attribute| attribute.owner.equal?(klass) } }
      print [allocated, classes.size, attributes].join(" ")
    RUBY

    def test_requiring_generated_code_allocates_within_its_budget
      require_ruby_subprocess
      files = Bench::WSDL.synthetic_vim25(data: 300, faults: 40, enums: 60, operations: 40).then do |text|
        with_files("small.wsdl" => text) { |dir| WSDL.load(File.join(dir, "small.wsdl")).generate("Small") }
      end
      with_files(files) do |dir|
        output = IO.popen([RbConfig.ruby, "-w", "-I#{File.expand_path('../../lib', __dir__)}", "-e", COUNT, File.join(dir, files.keys.first)],
                          err: %i[child out], &:read)
        allocated, classes, attributes = output.split.map { |word| Integer(word) }
        assert_equal [505, 1838], [classes, attributes], output
        per_declaration = allocated.fdiv(classes + attributes)
        assert_operator per_declaration, :<=, ALLOCATIONS_PER_DECLARATION,
                        format("%d objects for %d classes and %d attributes", allocated, classes, attributes)
      end
    end

    ENUMS = <<~XML
      <xsd:schema targetNamespace="urn:test" xmlns:tns="urn:test" elementFormDefault="qualified">
        <xsd:simpleType name="PowerState"><xsd:restriction base="xsd:string">
          <xsd:enumeration value="poweredOff"/><xsd:enumeration value="poweredOn"/>
        </xsd:restriction></xsd:simpleType>
        <xsd:complexType name="Base"><xsd:sequence><xsd:element name="state" type="tns:PowerState"/></xsd:sequence></xsd:complexType>
        <xsd:complexType name="Derived"><xsd:complexContent><xsd:extension base="tns:Base"><xsd:sequence>
          <xsd:element name="wanted" type="tns:PowerState" minOccurs="0" maxOccurs="unbounded"/>
        </xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
        <xsd:complexType name="Other"><xsd:sequence><xsd:element name="power" type="tns:PowerState"/></xsd:sequence></xsd:complexType>
      </xsd:schema>
    XML

    # One frozen list for every attribute of one enumeration, written once;
    # still open on decode and closed on encode.
    def test_an_enumeration_is_one_constant_shared_by_its_attributes
      source = with_files("s.wsdl" => wsdl(types: ENUMS)) { |dir| WSDL.load(File.join(dir, "s.wsdl")).generate("Shared").values.join }
      assert_equal 1, source.scan('["poweredOff", "poweredOn"]').size, source
      assert_equal 3, source.scan("enum: STATE_VALUES, open_enum: true").size, source
      # The element's name is the one-word attribute's own: no xml: (its default).
      assert_includes source, "    attribute :state, :string, enum: STATE_VALUES, open_enum: true\n"

      mod = define_wsdl(ENUMS)
      lists = [mod::Base.attributes[0], mod::Derived.attributes[1], mod::Other.attributes[0]].map(&:enum)
      assert_equal [{ "poweredOff" => true, "poweredOn" => true }], lists.uniq
      assert_predicate mod::STATE_VALUES, :frozen?
      record = mod::Derived.from_xml('<Derived xmlns="urn:test"><state>standby</state><wanted>poweredOn</wanted></Derived>')
      assert_equal ["standby", ["poweredOn"]], [record.state, record.wanted]
      assert_raises(EncodeError) { mod::Other.new(power: "standby").to_xml }
    end

    # A named type of a qualified schema is declared in one call, xml_type
    # with root: true, as xml_namespace, xml_root and xml_type would.
    def test_a_named_type_is_declared_in_one_call
      source = with_files("s.wsdl" => wsdl(types: ENUMS)) { |dir| WSDL.load(File.join(dir, "s.wsdl")).generate("Shared").values.join }
      derived = source[/^  class Derived < Base\n.*?^  end\n/m]
      assert_includes derived, "inherit_schema"
      assert_includes derived, %(xml_type "Derived", namespace: "urn:test", root: true\n)
      refute_match(/xml_namespace|xml_root/, derived)

      mod = define_wsdl(ENUMS)
      assert_equal "urn:test", mod::Derived.xml_namespace_uri
      xml = mod::Derived.new(state: "poweredOn").to_xml
      assert_match(/\A<Derived xmlns="urn:test"[ >]/, xml)
      assert_includes xml, "><state>poweredOn</state></Derived>"
      assert_equal [%w[Derived urn:test], "Derived"], [mod::Derived.xml_type, mod::Derived.xml_root]
    end

    def test_xml_type_root_names_the_element_too
      klass = Class.new do
        include Model
        xml_namespace "urn:old", prefix: "o"
        xml_type "Thing", namespace: "urn:things", root: true
        attribute :id, :string
      end
      assert_equal ["Thing", "urn:things", nil], [klass.xml_root, klass.xml_namespace_uri, klass.xml_namespace_prefix]
      assert_equal '<Thing xmlns="urn:things"><id>1</id></Thing>', klass.new(id: "1").to_xml
      unrooted = Class.new { include Model }.tap { |other| other.xml_type "Thing", namespace: "urn:things" }
      assert_equal ["record", nil], [unrooted.xml_root, unrooted.xml_namespace_uri]
      error = assert_raises(SchemaError) { Class.new { include Model }.xml_type "Thing", root: "yes" }
      assert_match(/root: must be true or false, not "yes"/, error.message)
    end
  end
end
