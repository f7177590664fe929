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
    # +compiles: false+, a schema xmllint cannot compile: that is asserted instead;
    # +root+: the directory its imports may be read from, as WSDL.load's root: and
    # `wirebind generate --root`). +responses+, given the generated module,
    # returns more [class, XML] to validate with the samples (real responses
    # decoded and written again). Yields the module and REXML's document, before
    # the module is removed, for checks of the set's own.
    def assert_real_wsdl(path, module_name, warnings: [], unrepresentable: [], compiles: true, root: nil, responses: nil)
      doc = independent_document(path)
      description = WSDL.load(path, root: root)
      assert_equal warnings, description.warnings
      generate_and_load(path, module_name, root: root) do |mod, printed|
        assert_equal warnings.map { |warning| "wirebind generate: warning: #{warning}\n" }.join, printed
        assert_counts(doc, description, mod)
        samples = assert_samples_round_trip(mod, doc)
        samples += responses.call(mod) if responses
        assert_valid_against_schemas(doc, samples, unrepresentable: unrepresentable, compiles: compiles)
        yield mod, doc if block_given?
      end
    end

    # The warning of a file whose XML declaration is on +line+.
    def misplaced_declaration(path, line)
      "#{path}:#{line}: the XML declaration is not at the start of the file; read as if it were"
    end

    # +path+ read by REXML, without what comes before a misplaced XML declaration
    # (blanks, a comment: REXML refuses it as the XML spec does). The local files
    # it imports or includes, at any depth, are read too ({#imported_documents}).
    def independent_document(path)
      read = ->(file) { REXML::Document.new(File.read(file).sub(/\A(?:\s|<!--.*?-->)+(?=<\?xml)/m, "")) }
      doc = read.call(path)
      files = { File.expand_path(path) => doc }
      queue = [[File.expand_path(path), doc]]
      until queue.empty?
        file, current = queue.shift
        current.root.each_recursive do |element|
          location = element.attributes[element.name == "import" && element.namespace.end_with?("/wsdl/") ? "location" : "schemaLocation"]
          next unless %w[import include].include?(element.name) && location && !location.match?(%r{\A[a-z]+://}i)

          imported = File.expand_path(location, File.dirname(file))
          queue << [imported, files[imported] = read.call(imported)] unless files.key?(imported)
        end
      end
      document_files[doc] = files.to_a
      doc
    end

    # {document => [[path, document]]: its own file, then those it imports at any depth, in the order found}
    def document_files
      @document_files ||= {}.compare_by_identity
    end

    # [path, document element] of +doc+'s file and of every local file it
    # reaches by wsdl:import, xsd:import and xsd:include (#independent_document;
    # a document built otherwise is its own only file).
    def independent_files(doc)
      document_files.fetch(doc, [[nil, doc]]).map { |path, each| [path, each.root] }
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
      @all_elements ||= {}.compare_by_identity
      @all_elements[doc] ||= independent_files(doc).each_with_object([]) do |(_, root), found|
        found << root
        root.each_recursive { |element| found << element }
      end
    end

    # Runs `wirebind generate` on +path+ into a fresh directory, loads the entry
    # file it wrote and yields the module it defined (removed afterwards).
    def generate_and_load(path, module_name, root: nil)
      with_files({}) do |dir|
        out = StringIO.new
        err = StringIO.new
        status = CLI.run(["generate", path, "--out", dir, "--module", module_name, *(["--root", root] if root)], out: out, err: err)
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
      assert_equal types + substitute_classes(doc), model_classes(mod).size, "model classes"
    end

    # How many elements of substitution groups get a class of their own (one
    # whose root is the element's name, a subclass of its named type's): those
    # that may stand for a head some complex type refers to -- its members at
    # any depth, and the head itself unless abstract -- when each of them is of
    # a complex type (else the head's type is used for all).
    def substitute_classes(doc)
      xsd = "http://www.w3.org/2001/XMLSchema"
      key = ->(element, qname) { qname.include?(":") ? [element.namespace(qname.split(":").first), qname.split(":").last] : [element.namespace("xmlns"), qname] }
      complex = {}
      globals = {}
      members = Hash.new { |hash, head| hash[head] = [] }
      heads = {}
      all_elements(doc).each do |element|
        next unless element.namespace == xsd

        tns = element.parent.attributes["targetNamespace"].to_s if element.parent.name == "schema"
        complex[[tns, element.attributes["name"]]] = true if tns && element.name == "complexType"
        next unless element.name == "element"

        if tns
          globals[[tns, element.attributes["name"]]] = element
          head = element.attributes["substitutionGroup"]
          members[key.call(element, head)] << [tns, element.attributes["name"]] if head
        elsif element.attributes["ref"]
          heads[key.call(element, element.attributes["ref"])] = true
        end
      end
      # [is of a complex type, is of a named one] for a global element.
      kind = lambda do |element|
        type = element.attributes["type"]
        next [complex.key?(key.call(element, type)), true] if type

        [element.elements.any? { |child| child.name == "complexType" }, false]
      end
      heads.keys.select { |head| members.key?(head) && globals[head] }.flat_map do |head|
        found = []
        queue = [head]
        while (current = queue.shift)
          members.fetch(current, []).each { |member| queue << member unless found.include?(member) || member == head }
          found << current unless found.include?(current)
        end
        found.delete(head) if globals[head].attributes["abstract"] == "true"
        kinds = found.map { |element| kind.call(globals.fetch(element)) }
        kinds.all?(&:first) ? found.zip(kinds).select { |_, (_, named)| named }.map(&:first) : []
      end.uniq.size
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
      "NCName" => "name", "ID" => "id1", "IDREF" => "id1", "language" => "en",
      # xml:lang (a language or "").
      "@{http://www.w3.org/XML/1998/namespace}lang" => "en"
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
        fact = owners.filter_map { |owner| facts[[owner, attribute.xml]] }.first || facts[[:group, attribute.xml]] || {}
        if fact[:skip]
          values[attribute.name] = attribute.list? ? [] : nil
        elsif attribute.choices
          items = concrete_choices(attribute).filter_map { |choice| full_sample(choice, memo, facts, stack) }
          # A substitution group's head (known by its own element, when it may stand there) not repeated: one of them.
          single = attribute.choices.any? { |choice| owners.any? { |owner| facts.dig([owner, choice.xml_root], :single) } }
          values[attribute.name] = single ? items.first(1) : items
        elsif attribute.model?
          type = concrete(attribute.type)
          type = attribute.type.subclasses.sort_by(&:name).find { |sub| !sub.xml_abstract? && !stack.include?(sub) } || type if stack.include?(type)
          value = type && full_sample(type, memo, facts, stack)
          values[attribute.name] = attribute.list? ? [value].compact : value
        elsif attribute.type == :string && !attribute.enum && (text = fact[:sample] || STRING_SAMPLES[fact[:type]] || STRING_SAMPLES[attribute.xml])
          values[attribute.name] = attribute.list? ? [text] : text
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
    # {least: minOccurs when above 1, type: the local name of an XSD built-in type,
    # sample: a valid value of an xsd:list (of enumerated values, WCF's [Flags]
    # enums; of numbers, OWS's positions), which a model reads as a string;
    # skip: true for an element no sample can hold: a reference to an abstract
    # element (only its substitutes may stand there), a branch of an xsd:choice
    # other than the first}} for the elements of +doc+'s complex types.
    def element_facts(doc)
      lists = list_samples(doc)
      abstract = all_elements(doc).filter_map { |element| element.attributes["name"] if element.name == "element" && element.attributes["abstract"] == "true" }
      all_elements(doc).each_with_object({}) do |element, facts|
        next unless element.name == "element" && element.parent.name != "schema"

        # Those of a named group (xsd:group) are keyed by :group: any type may use it.
        owner = element.parent
        owner = owner.parent until owner.nil? || %w[complexType group].include?(owner.name)
        next unless owner

        ref = element.attributes["ref"]
        key = [owner.name == "group" ? :group : owner.attributes["name"] || owner.parent.attributes["name"], (ref || element.attributes["name"]).split(":").last]
        least = element.attributes["minOccurs"].to_i
        prefix, local = element.attributes["type"].to_s.split(":", 2).then { |parts| parts.size == 2 ? parts : [nil, parts[0]] }
        fact = {}
        fact[:skip] = true if other_branch?(element) || (ref && abstract.include?(key.last))
        fact[:least] = least if least > 1
        fact[:single] = true if ref && !repeats?(element)
        fact[:type] = local if !ref && element.namespaces[prefix || "xmlns"] == "http://www.w3.org/2001/XMLSchema"
        fact[:sample] = lists[local] if !ref && lists.key?(local)
        facts[key] = fact
      end
    end

    def repeats?(element)
      element.attributes["maxOccurs"] == "unbounded" || element.attributes["maxOccurs"].to_i > 1
    end

    # Whether +element+ is in a branch of a choice (that is not repeated) other than its first.
    def other_branch?(element)
      branch = element
      branch = branch.parent while branch.parent.name == "sequence" && branch.parent.parent.name != "complexType" && branch.parent.parent.name != "extension"
      choice = branch.parent
      return false unless choice.name == "choice" && !%w[unbounded].include?(choice.attributes["maxOccurs"]) && choice.attributes["maxOccurs"].to_i <= 1

      !choice.elements.find { |particle| %w[element sequence group choice any].include?(particle.name) }.equal?(branch)
    end

    # {name of a simple type that is an xsd:list => a valid value: the first two
    # of its enumerated values, or two numbers}
    def list_samples(doc)
      lists = {}
      all_elements(doc).each do |type|
        next unless type.name == "simpleType" && type.attributes["name"]

        list = type.elements.find { |child| child.name == "list" } or next
        values = []
        list.each_recursive { |facet| values << facet.attributes["value"] if facet.name == "enumeration" }
        values = %w[1.5 2.5] if values.empty? && list.attributes["itemType"].to_s.match?(/(\A|:)(double|float|decimal)\z/)
        lists[type.attributes["name"]] = values.first(2).join(" ") unless values.empty?
      end
      # A restriction of one of them (OWS's PositionType2D, of length 2).
      all_elements(doc).each do |type|
        restriction = type.name == "simpleType" && type.attributes["name"] && type.elements.find { |child| child.name == "restriction" }
        base = restriction && restriction.attributes["base"].to_s.split(":").last
        lists[type.attributes["name"]] ||= lists[base] if base && lists.key?(base)
      end
      lists
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
    # what neither the model nor #element_facts says: exactly those fail.
    def assert_valid_against_schemas(doc, samples, unrepresentable: [], compiles: true)
      require_xmllint
      files, locations = schema_files(doc)
      global = global_elements(doc)
      samples = samples.select { |klass, _| klass.xml_type || global.include?([klass.xml_root, klass.xml_namespace_uri.to_s]) }
      refute_empty samples
      files["samples.xsd"] = wrapper_schema(locations, samples)
      files["samples.xml"] = samples_document(samples)
      with_files(files) { |dir| assert_samples_validate(dir, samples, unrepresentable: unrepresentable, compiles: compiles) }
    end

    # xmllint checks +dir+/samples.xml (#samples_document of +samples+) against
    # +dir+/samples.xsd (#wrapper_schema); see #assert_valid_against_schemas.
    def assert_samples_validate(dir, samples, unrepresentable: [], compiles: true)
      _, errors, = Open3.capture3("xmllint", "--noout", "--schema", File.join(dir, "samples.xsd"), File.join(dir, "samples.xml"))
      return assert_match(/Schemas parser error/, errors) unless compiles

      refute_match(/failed to compile|Schemas parser error/, errors)
      # A facet (pattern, length, range) a sample's value breaks is the sample's
      # fault, not the encoding's: every other error counts. Each sample is on a
      # line of its own (the third line holds the first).
      invalid = errors.lines.grep(/validity error/).grep_v(/\[facet '/).map { |line| samples[line[/samples\.xml:(\d+):/, 1].to_i - 3].first }
      assert_equal unrepresentable.sort, invalid.uniq.map { |klass| klass.name.split("::").last }.sort,
                   errors.lines.grep(/validity error/).grep_v(/\[facet '/).first(10).join
    end

    # Each of +elements+ (XML texts) is of a global element of the schemas of
    # the WSDL +doc+ and valid against its declaration (xmllint), as a child of
    # an element of xsd:anyType.
    def assert_elements_valid(doc, elements)
      require_xmllint
      global = global_elements(doc)
      elements.each do |xml|
        root = REXML::Document.new(xml).root
        assert_includes global, [root.name, root.namespace.to_s], "#{root.expanded_name} is not a global element of the schemas"
      end
      files, locations = schema_files(doc)
      files["samples.xsd"] = wrapper_schema(locations, [])
      files["samples.xml"] = samples_document(elements.map { |xml| [nil, xml] })
      with_files(files) do |dir|
        _, errors, = Open3.capture3("xmllint", "--noout", "--schema", File.join(dir, "samples.xsd"), File.join(dir, "samples.xml"))
        assert_equal "#{File.join(dir, 'samples.xml')} validates\n", errors
      end
    end

    # The document +xml+ is valid against the schema file +schema+ (xmllint).
    def assert_valid_document(schema, xml)
      require_xmllint
      with_files("document.xml" => xml) do |dir|
        _, errors, = Open3.capture3("xmllint", "--noout", "--schema", schema, File.join(dir, "document.xml"))
        assert_equal "#{File.join(dir, 'document.xml')} validates\n", errors
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
    # a file per xsd:schema of +doc+ and of the files it imports, and, for a
    # namespace of several schemas, one that includes them all (xmllint reads one
    # location per namespace). Every import of a namespace of the set points to
    # its file, every include to the copy of the file it names.
    def schema_files(doc)
      paths = document_files.fetch(doc).to_h { |path, each| [each, path] }.compare_by_identity
      schemas = all_elements(doc).select { |element| element.name == "schema" && element.namespace == "http://www.w3.org/2001/XMLSchema" }
      names = schemas.each_with_index.map { |_, index| "schema#{index}.xsd" }
      # {path of a file whose document element is a schema => its copy's name}
      copies = schemas.zip(names).to_h { |schema, name| [schema.parent.is_a?(REXML::Document) ? paths[schema.document] : nil, name] }
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
        copy.elements.select { |child| %w[import include].include?(child.name) }.each do |reference|
          location =
            if reference.name == "import" then locations[reference.attributes["namespace"].to_s]
            elsif (included = reference.attributes["schemaLocation"]) && !included.match?(%r{\A[a-z]+://}i)
              copies[File.expand_path(included, File.dirname(paths.fetch(schema.document)))]
            end
          reference.add_attribute("schemaLocation", location) if location
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
        next xml unless klass&.xml_type

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
