# frozen_string_literal: true

require_relative "wsdl_test_support"
require "open3"
require "rexml/document"
require "stringio"
require "wirebind/cli"

module Wirebind
  # Checks run on every real WSDL set the tests read from a package other projects
  # publish (rakelib/fixtures.rake): `wirebind generate`, loading what it wrote,
  # operation and type counts against a count made with REXML (written apart from
  # wirebind's reader), round trips of a sample of every type, and validation of
  # those samples by xmllint against the WSDL's own schemas.
  module RealWSDLSupport
    include WSDLTestSupport

    SAMPLE_NAMESPACE = "urn:wirebind:sample"

    # The path of +file+ in the unpacked package +package+ (its directory in
    # tmp/fixtures): CI fails without it, a local run skips saying how to get it.
    def real_wsdl_path(package, file)
      path = File.join(FixtureGems::DIR, package, file)
      return path if File.exist?(path)

      flunk "#{path} is missing (.ci/run runs `rake fixtures`)" if ENV["CI"]
      skip "#{package} is not unpacked in tmp/fixtures (run `bundle exec rake fixtures`)"
    end

    # Every check on the WSDL at +path+: it loads with exactly +warnings+, which
    # `wirebind generate` prints; what that writes loads; counts, round trips and
    # schema validation (+unrepresentable+: see #assert_valid_against_schemas;
    # +compiles: false+, a schema xmllint cannot compile: that is asserted instead).
    # +responses+, given the generated module, returns more [class, XML] to
    # validate with the samples (real responses decoded and written again).
    def assert_real_wsdl(path, module_name, warnings: [], unrepresentable: [], compiles: true, responses: nil)
      doc = independent_document(path)
      description = WSDL.load(path)
      assert_equal warnings, description.warnings
      generate_and_load(path, module_name) do |mod, printed|
        assert_equal warnings.map { |warning| "wirebind generate: warning: #{warning}\n" }.join, printed
        assert_counts(doc, description, mod)
        samples = assert_samples_round_trip(mod, doc)
        samples += responses.call(mod) if responses
        assert_valid_against_schemas(doc, samples, unrepresentable: unrepresentable, compiles: compiles)
      end
    end

    # The warning of a file whose XML declaration is on +line+.
    def misplaced_declaration(path, line)
      "#{path}:#{line}: the XML declaration is not at the start of the file; read as if it were"
    end

    # +path+ read by REXML, without what comes before a misplaced XML declaration
    # (blanks, a comment: REXML refuses it as the XML spec does).
    def independent_document(path)
      doc = REXML::Document.new(File.read(path).sub(/\A(?:\s|<!--.*?-->)+(?=<\?xml)/m, ""))
      (@document_paths ||= {})[doc] = path
      doc
    end

    # The document elements of +doc+ and of every local file it reaches by
    # wsdl:import, xsd:import and xsd:include (each once, in the order met), as
    # [relative path (nil for +doc+), root].
    def independent_files(doc)
      @independent_files ||= {}
      @independent_files[doc] ||= begin
        base = File.dirname(@document_paths.fetch(doc))
        files = [[nil, doc.root]]
        seen = {}
        files.each do |_, root|
          # Imports and includes are children of wsdl:definitions or xsd:schema.
          [root, *root.get_elements("*[local-name()='types']/*")].flat_map { |parent| parent.elements.to_a }.each do |element|
            location = independent_location(element)
            next if location.nil? || location.include?("://") || seen[location]

            seen[location] = true
            files << [location, independent_document(File.join(base, location)).root]
          end
        end
        files
      end
    end

    # The location a wsdl:import, xsd:import or xsd:include names, else nil.
    def independent_location(element)
      case element.name
      when "import" then element.attributes["location"] || element.attributes["schemaLocation"]
      when "include" then element.attributes["schemaLocation"]
      end
    end

    # [operations of the SOAP 1.1 and 1.2 bindings, complex types (named, and
    # anonymous ones in elements; not SOAP-encoded arrays, which are lists)],
    # counted by REXML.
    def independent_counts(doc)
      definitions = independent_files(doc).map(&:last).select { |root| root.name == "definitions" }
      soap_bindings = definitions.flat_map(&:to_a).grep(REXML::Element).select do |binding|
        binding.name == "binding" && binding.elements.any? { |child| child.name == "binding" && child.namespace.match?(%r{/wsdl/soap(12)?/\z}) }
      end
      operations = soap_bindings.sum { |binding| binding.elements.count { |child| child.name == "operation" } }
      types = all_elements(doc).count do |type|
        type.name == "complexType" && %w[schema element].include?(type.parent.name) && !encoded_array?(type)
      end
      [operations, types]
    end

    # Whether +type+ restricts soapenc:Array.
    def encoded_array?(type)
      type.elements.any? do |content|
        content.name == "complexContent" && content.elements.any? { |derivation| derivation.name == "restriction" && derivation.attributes["base"].to_s.end_with?(":Array") }
      end
    end

    # Every element of +doc+ and of the files it imports and includes
    # (#independent_files), in document order (REXML's XPath "//" is slow on a
    # large WSDL).
    def all_elements(doc)
      @all_elements ||= {}
      @all_elements[doc] ||= independent_files(doc).each_with_object([]) do |(_, root), found|
        found << root
        root.each_recursive { |element| found << element }
      end
    end

    # Runs `wirebind generate` on +path+ into a fresh directory, loads the entry
    # file it wrote and yields the module it defined (removed afterwards).
    def generate_and_load(path, module_name)
      with_files({}) do |dir|
        out = StringIO.new
        err = StringIO.new
        status = CLI.run(["generate", path, "--out", dir, "--module", module_name], out: out, err: err)
        assert_equal 0, status, err.string
        assert_match(/wirebind generate: \d+ files in/, out.string)
        entry = out.string[/\(entry: (.*)\)/, 1]
        begin
          load entry
          yield Object.const_get(module_name), err.string
        ensure
          Object.send(:remove_const, module_name) if Object.const_defined?(module_name, false)
        end
      end
    end

    # The counts of +description+ and of the classes in +mod+ equal REXML's of +doc+.
    def assert_counts(doc, description, mod)
      operations, types = independent_counts(doc)
      assert_equal operations, description.ports.sum { |port| port.binding.operations.size }, "operations of the description"
      generated = client_classes(mod).sum { |client| client.instance_methods(false).count { |m| !m.start_with?("each_") } }
      assert_equal operations, generated, "client methods"
      assert_equal types, description.types.size, "types of the description"
      assert_equal types, model_classes(mod).size, "model classes"
    end

    # A sample of each class in +mod+ with every model field filled ({#full_sample})
    # decodes back equal; an abstract class's is refused. Returns the concrete
    # ones' [class, XML].
    def assert_samples_round_trip(mod, doc)
      memo = {}
      facts = element_facts(doc)
      model_classes(mod).filter_map do |klass|
        record = full_sample(klass, memo, facts)
        if klass.xml_abstract?
          assert_raises(EncodeError, "#{klass} is abstract") { record.to_xml }
          next
        end
        xml = record.to_xml
        assert_equal record, klass.from_xml(xml), "#{klass} does not round-trip"
        [klass, xml]
      end
    end

    # Values of XSD types that wirebind reads as strings, valid for their type.
    STRING_SAMPLES = {
      "duration" => "P1DT2H", "time" => "03:04:05", "gYear" => "2026", "gYearMonth" => "2026-01", "gMonthDay" => "--01-02",
      "gDay" => "---02", "gMonth" => "--01", "anyURI" => "urn:sample", "NMTOKEN" => "token", "Name" => "name",
      "NCName" => "name", "ID" => "id1", "IDREF" => "id1", "language" => "en"
    }.freeze

    # As {WSDLTestSupport#sample}, but nested models are filled at any depth (a
    # schema's required elements are: the model does not say which are), each
    # class's sample made once; a field that would contain a class it is inside
    # again holds a subclass of its type that it is not inside (vim25's
    # LocalizedMethodFault, inside a MethodFault's faultCause, requires a fault),
    # else nil. What the schema says (+facts+, #element_facts) and the model does
    # not is followed: a list holds as many items as its element's minOccurs
    # (else one); a string of another XSD type has a value of that type. A value
    # the class gives new instances (fixed, default) is kept.
    def full_sample(klass, memo, facts, stack = [])
      return memo[klass] if memo.key?(klass)
      return nil if stack.include?(klass)

      stack.push(klass)
      values = sample(klass, 0).to_h.merge(klass.new.to_h.reject { |_, value| value.nil? || value == [] })
      owners = klass.ancestors.select { |owner| owner.is_a?(Class) && owner.include?(Model) }.map { |owner| type_key(owner) }
      klass.attributes.each do |attribute|
        fact = owners.filter_map { |owner| facts[[owner, attribute.xml]] }.first || {}
        if attribute.model?
          type = concrete(attribute.type)
          type = attribute.type.subclasses.sort_by(&:name).find { |sub| !sub.xml_abstract? && !stack.include?(sub) } || type if stack.include?(type)
          value = type && full_sample(type, memo, facts, stack)
          values[attribute.name] = attribute.list? ? [value].compact : value
        elsif attribute.type == :string && !attribute.enum && STRING_SAMPLES[fact[:type]]
          values[attribute.name] = attribute.list? ? [STRING_SAMPLES[fact[:type]]] : STRING_SAMPLES[fact[:type]]
        end
        values[attribute.name] *= fact[:least] if attribute.list? && fact[:least] && values[attribute.name].size == 1
      end
      stack.pop
      memo[klass] = klass.new(**values)
    end

    def type_key(klass)
      klass.xml_type ? klass.xml_type.first : klass.xml_root
    end

    # {[type's name (an anonymous one's: its element's), element's name] =>
    # {least: minOccurs when above 1, type: the local name of an XSD built-in type}}
    # for the elements of +doc+'s complex types.
    def element_facts(doc)
      all_elements(doc).each_with_object({}) do |element, facts|
        next unless element.name == "element" && element.attributes["name"]

        owner = element.parent
        owner = owner.parent until owner.nil? || owner.name == "complexType"
        next unless owner

        least = element.attributes["minOccurs"].to_i
        prefix, local = element.attributes["type"].to_s.split(":", 2).then { |parts| parts.size == 2 ? parts : [nil, parts[0]] }
        fact = {}
        fact[:least] = least if least > 1
        fact[:type] = local if element.namespaces[prefix || "xmlns"] == "http://www.w3.org/2001/XMLSchema"
        facts[[owner.attributes["name"] || owner.parent.attributes["name"], element.attributes["name"]]] = fact
      end
    end

    # Each of +samples+ ([class, its XML]) of a named type or of a global element's
    # anonymous type is valid against the schemas of the WSDL +doc+, by xmllint:
    # every schema goes into a file of its own (with the WSDL's namespace
    # declarations, and the location of each namespace it imports), a wrapper
    # schema declares one element per sampled named type, and one document holds
    # them all, under an element of xsd:anyType (whose children xmllint checks
    # against the global declarations of their names). Anonymous types of local
    # elements are checked inside their parents' samples.
    # +unrepresentable+ names the classes whose samples the schema rejects for
    # what a model does not say (an xsd:choice, whose branches the sample fills
    # all; minOccurs above 1, where it holds one item): exactly those fail.
    def assert_valid_against_schemas(doc, samples, unrepresentable: [], compiles: true)
      unless system("command -v xmllint > /dev/null 2>&1")
        flunk "xmllint is missing (.ci/run installs libxml2-utils)" if ENV["CI"]
        skip "xmllint is not installed (apt-get install libxml2-utils)"
      end
      files, locations = schema_files(doc)
      global = global_elements(doc)
      samples = samples.select { |klass, _| klass.xml_type || global.include?([klass.xml_root, klass.xml_namespace_uri.to_s]) }
      refute_empty samples
      files["samples.xsd"] = wrapper_schema(locations, samples)
      files["samples.xml"] = samples_document(samples)
      with_files(files) do |dir|
        _, errors, = Open3.capture3("xmllint", "--noout", "--schema", File.join(dir, "samples.xsd"), File.join(dir, "samples.xml"))
        unless compiles
          assert_match(/Schemas parser error/, errors)
          next
        end
        refute_match(/failed to compile|Schemas parser error/, errors)
        # A facet (pattern, length, range) a sample's value breaks is the sample's
        # fault, not the encoding's: every other error counts. Each sample is on a
        # line of its own (the third line holds the first).
        invalid = errors.lines.grep(/validity error/).grep_v(/\[facet '/).map { |line| samples[line[/samples\.xml:(\d+):/, 1].to_i - 3].first }
        assert_equal unrepresentable.sort, invalid.uniq.map { |klass| klass.name.split("::").last }.sort,
                     errors.lines.grep(/validity error/).grep_v(/\[facet '/).first(10).join
      end
    end

    private

    # [[local name, namespace]] of the global elements of +doc+'s schemas.
    def global_elements(doc)
      all_elements(doc).select { |element| element.name == "element" && element.parent.name == "schema" }.map do |element|
        [element.attributes["name"], element.parent.attributes["targetNamespace"].to_s]
      end
    end

    # [{file name => schema text}, {namespace => the file to import it from}]:
    # a file per xsd:schema of +doc+ and of the files it imports (a schema file
    # under its own relative path, for the includes that name it), and, for a
    # namespace of several schemas, one that includes them all (xmllint reads one
    # location per namespace). Every import of a namespace of the set points to
    # its file.
    def schema_files(doc)
      roots = independent_files(doc).to_h { |location, root| [root, location] }
      schemas = all_elements(doc).select { |element| element.name == "schema" && element.namespace == "http://www.w3.org/2001/XMLSchema" }
      names = schemas.each_with_index.map { |schema, index| roots[schema] || "schema#{index}.xsd" }
      by_namespace = schemas.zip(names).group_by { |schema, _| schema.attributes["targetNamespace"].to_s }
      files = {}
      locations = by_namespace.each_with_index.to_h do |(uri, members), index|
        next [uri, members.first.last] if members.size == 1

        includes = members.map { |_, name| %(<xs:include schemaLocation="#{name}"/>) }.join
        files["namespace#{index}.xsd"] = %(<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="#{uri}">#{includes}</xs:schema>)
        [uri, "namespace#{index}.xsd"]
      end
      schemas.zip(names).each do |schema, name|
        copy = schema.deep_clone
        # The WSDL's declarations in scope, which the schema's QNames may use.
        schema.namespaces.each do |prefix, uri|
          next if copy.namespaces.key?(prefix)

          prefix == "xmlns" ? copy.add_namespace(uri) : copy.add_namespace(prefix, uri)
        end
        copy.elements.select { |child| child.name == "import" }.each do |import|
          location = locations[import.attributes["namespace"].to_s]
          import.add_attribute("schemaLocation", location) if location
        end
        files[name] = copy.to_s
      end
      [files, locations]
    end

    def wrapper_schema(locations, samples)
      imports = locations.map { |uri, name| %(<xs:import namespace="#{uri}" schemaLocation="#{name}"/>) }
      prefixes = locations.keys.each_with_index.map { |uri, index| %( xmlns:n#{index}="#{uri}") }.join
      # One declaration a class (several samples may have one).
      elements = samples.map(&:first).uniq.filter_map do |klass|
        next unless klass.xml_type

        name, uri = klass.xml_type
        %(<xs:element name="#{sample_element(klass)}" type="n#{locations.keys.index(uri)}:#{name}"/>)
      end
      <<~XML
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"#{prefixes} targetNamespace="#{SAMPLE_NAMESPACE}" elementFormDefault="qualified">
          #{imports.join("\n  ")}
          <xs:element name="Samples" type="xs:anyType"/>
          #{elements.join("\n  ")}
        </xs:schema>
      XML
    end

    def sample_element(klass)
      "T_#{klass.xml_type.first}"
    end

    # The samples under one Samples element, each renamed to its wrapper element
    # (by its tags: REXML takes seconds on vim25's thousands of samples).
    def samples_document(samples)
      body = samples.map do |klass, xml|
        next xml unless klass.xml_type

        name = Regexp.escape(xml[%r{\A<([^\s/>]+)}, 1])
        renamed = "s:#{sample_element(klass)}"
        xml.sub(/\A<#{name}/, "<#{renamed}").sub(%r{</#{name}>\z}, "</#{renamed}>")
      end
      # xsd and xsi are declared as a SOAP envelope declares them: an :any value
      # read with xsi:type="xsd:string" keeps that text, not its prefix's binding.
      %(<?xml version="1.0"?>\n<s:Samples xmlns:s="#{SAMPLE_NAMESPACE}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ) +
        %(xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n#{body.join("\n")}</s:Samples>)
    end
  end
end
