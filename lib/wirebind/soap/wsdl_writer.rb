# frozen_string_literal: true

module Wirebind
  module SOAP
    # Writes the WSDL 1.1 (with its XML Schema) of a {Service}: what +GET ?wsdl+ answers.
    #
    # - Each model class reached from the operations' arguments and results (and
    #   the subclasses of those, for +xsi:type+) is a +complexType+ named by its
    #   +xml_type+ (else its +xml_root+): elements in declaration order, XML
    #   attributes as +xsd:attribute+, a subclass as a +complexContent+ extension
    #   of its parent. Scalars map to XML Schema types (+:integer+ is +xsd:long+).
    # - +:document+ (document/literal wrapped): one schema in the service's
    #   namespace, elements qualified; an element per operation (+op+) and per
    #   response (+opResponse+, holding +opReturn+); a repeated element is
    #   +maxOccurs="unbounded"+, a list result or a wrapped list (+versions/*+) an
    #   +ArrayOfX+ type of +item+ elements; a wrapped list in a model (+versions/*+)
    #   holds the elements the encoder writes (a record's +xml_root+, a scalar +item+).
    # - +:rpc+ / +:rpc_encoded+: one part per argument, typed; children
    #   unqualified; types in their +xml_type+ namespace (+:rpc_encoded+) with the
    #   lists as +soapenc:Array+ restrictions (+ArrayOfX+, +wsdl:arrayType="X[]"+).
    # - A SOAP 1.1 binding, a SOAP 1.2 one, or both, as the service serves.
    #
    # @api private
    class WSDLWriter
      WSDL_NS = Namespaces::WSDL
      XSD_TYPES = Types::XSD::NAMES.merge(Types::XSD::OPEN_NAMES).freeze
      DEFAULT_NAMESPACE = "urn:wirebind:service"
      # Elements of any name, each kept as it is (a "*" list of :any items, :xml content).
      WILDCARD = '<xsd:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>'

      # @param service [Class] a {Service} subclass
      # @param location [String] the endpoint's URL, for +soap:address+
      def initialize(service, location)
        @service = service
        @location = location
        @style = service.style
        @encoded = @style == :rpc_encoded
        @document = @style == :document
        @tns = service.namespace || DEFAULT_NAMESPACE
        @name = service.name ? service.name[/[^:]+\z/] : "Service"
        @types = {}.compare_by_identity # model class => [local, namespace]
        @taken = {}                     # [local, namespace] => class
        @arrays = {}                    # "ArrayOfX" => item type reference
        @prefixes = { @tns => "tns" }
        @global_attributes = {}         # [namespace, local] => scalar type
      end

      # @return [String] the WSDL document: {#description}, written by WSDL::Writer
      def write
        WSDL::Writer.new(description).write
      end

      # The service as a WSDL::Description, the model WSDL.load reads: its
      # schemas (written from the models, then read as any WSDL's are), a
      # request and a response message per operation, one port type, a binding
      # and a port per SOAP version served.
      # @return [WSDL::Description]
      def description
        require_relative "../wsdl" unless defined?(WSDL::Writer)
        collect
        schemas = schemas_xml
        namespaces = WSDL::Writer::FIXED_PREFIXES.dup
        @prefixes.each { |uri, prefix| namespaces[prefix] = uri }
        declarations = namespaces.map { |prefix, uri| %( xmlns:#{prefix}="#{a(uri)}") }.join
        root = WSDL::DocumentReader.read(%(<wsdl:definitions#{declarations}><wsdl:types>#{schemas}</wsdl:types></wsdl:definitions>),
                                         "#{@name}?wsdl")
        schema_nodes = root.child(WSDL_NS, "types").children.map { |node| [node, node["targetNamespace"]] }
        messages = []
        operations = @service.operations.map { |operation| operation(operation, namespaces, messages) }.freeze
        bindings = versions.map do |version|
          WSDL::Binding.new("#{@name}#{version.binding_suffix}", @tns, version, operations, [@tns, "#{@name}PortType"],
                            @service.addressing).freeze
        end
        ports = bindings.map { |binding| WSDL::Port.new("#{@name}#{binding.version.port_suffix}", binding, @location).freeze }
        WSDL::Description.build(name: @name, target_namespace: @tns, namespaces: namespaces, schema_nodes: schema_nodes,
                                messages: messages, bindings: bindings, services: [WSDL::Service.new(@name, ports.freeze).freeze])
      end

      private

      def versions
        @service.version == :both ? [SOAP11, SOAP12] : [Version.fetch(@service.version)]
      end

      # One operation and its two messages (added to +messages+): document/literal
      # wrapped, the elements +op+ and +opResponse+; rpc, a part per argument and
      # +opReturn+, typed.
      def operation(operation, namespaces, messages)
        name = operation.name
        if @document
          input = [WSDL::Part.new("parameters", [@tns, name], nil, nil)]
          output = [WSDL::Part.new("parameters", [@tns, "#{name}Response"], nil, nil)]
        else
          input = operation.args.map { |arg, type| WSDL::Part.new(arg.to_s, nil, resolve(part_type(type), namespaces), nil) }
          output = operation.returns ? [WSDL::Part.new("#{name}Return", nil, resolve(part_type(operation.returns), namespaces), nil)] : []
        end
        request = WSDL::Message.new("#{name}Request", @tns, input.freeze).freeze
        response = WSDL::Message.new("#{name}Response", @tns, output.freeze).freeze
        messages << request << response
        action = @service.soap_action_for(operation)
        # With addressing, the actions the service reads and answers with (the request's, +Response+ added).
        actions = @service.addressing ? [action, "#{action}Response"] : []
        # The declared operation with what the binding says of it.
        Operation.new(**operation.to_h, soap_action: action, action: actions[0], reply_action: actions[1], style: @style,
                                        namespace: @document ? nil : @tns, input: request, output: response,
                                        input_parts: request.parts, output_parts: response.parts, headers: [].freeze, faults: [].freeze).freeze
      end

      # "prefix:local" as [namespace, local].
      def resolve(reference, namespaces)
        prefix, local = reference.split(":", 2)
        [namespaces.fetch(prefix), local]
      end

      # ---- types ------------------------------------------------------------

      # Walks arguments and results for model classes, iteratively (models may refer to each other).
      def collect
        queue = []
        add = lambda do |type|
          type = type.first if type.is_a?(Array)
          next unless type.is_a?(Class)
          next if @types.key?(type)

          @types[type] = type_name(type)
          queue << type
        end
        @service.operations.each do |operation|
          operation.args.each_value(&add)
          add.call(operation.returns) if operation.returns
        end
        until queue.empty?
          klass = queue.shift
          add.call(klass.superclass) if model?(klass.superclass)
          klass.attributes.each { |attribute| add.call(attribute.type) }
          # Named subclasses, for xsi:type (anonymous ones have no stable name to publish).
          klass.subclasses.select(&:name).sort_by(&:name).each(&add) if klass.respond_to?(:subclasses)
        end
        return if @document

        # The parts' array types, before the schemas are written.
        @service.operations.each do |operation|
          operation.args.each_value { |type| part_type(type) }
          part_type(operation.returns) if operation.returns
        end
      end

      def model?(klass)
        klass.is_a?(Class) && klass.include?(Wirebind::Model)
      end

      # [local, namespace], unique in the document.
      def type_name(klass)
        declared = klass.xml_type
        local = declared ? declared[0] : klass.xml_root
        namespace = @encoded && declared && declared[1] ? declared[1] : @tns
        key = [local, namespace]
        n = 1
        key = [local + (n += 1).to_s, namespace] while @taken.key?(key)
        @taken[key] = klass
        @prefixes[namespace] ||= "ns#{@prefixes.size}"
        key
      end

      # @return [String] a qualified reference to +type+ (a scalar Symbol or a model class)
      def ref(type)
        if type.is_a?(Symbol)
          "xsd:#{XSD_TYPES.fetch(type)}"
        else
          local, namespace = @types.fetch(type)
          "#{@prefixes.fetch(namespace)}:#{local}"
        end
      end

      # The type of a plan slot's values: its attribute's XSD type when it has a
      # +:string+ +format:+ (xsd:duration, xsd:time, gYear...), else {#ref}'s.
      def slot_ref(slot)
        format = slot.string_format
        format ? "xsd:#{Types::StringFormat.xsd_name(format)}" : ref(slot.type)
      end

      # The ArrayOfX type of a list of +type+ (+item+: its reference), defined in the service's namespace.
      def array_ref(type, item = ref(type))
        name = "ArrayOf#{item.sub(/\Axsd:/, '').sub(/\A\w+:/, '').sub(/\A[a-z]/, &:upcase)}"
        name += "_" while @arrays.key?(name) && @arrays[name] != item
        @arrays[name] = item
        "tns:#{name}"
      end

      def schemas_xml
        by_namespace = Hash.new { |h, k| h[k] = +"" }
        @types.each { |klass, (local, namespace)| complex_type(by_namespace[namespace], klass, local) }
        document_elements(by_namespace[@tns]) if @document
        @global_attributes.each do |(namespace, local), type|
          by_namespace[namespace] << %(<xsd:attribute name="#{a(local)}" type="#{ref(type)}"/>\n)
        end
        arrays = +""
        @arrays.each { |name, item| array_type(arrays, name, item) } # after every ref
        by_namespace[@tns] << arrays
        form = @document ? "qualified" : "unqualified"
        out = +""
        by_namespace.each do |namespace, body|
          out << %(<xsd:schema targetNamespace="#{a(namespace)}" elementFormDefault="#{form}">\n)
          out << %(<xsd:import namespace="#{ENCODING_NS}"/>\n) if @encoded
          (by_namespace.keys - [namespace]).each { |other| out << %(<xsd:import namespace="#{a(other)}"/>\n) }
          out << body << "</xsd:schema>\n"
        end
        out
      end

      def complex_type(out, klass, local)
        parent = klass.superclass
        extension = model?(parent) && @types.key?(parent) && extends?(klass, parent)
        known = extension ? parent.attributes.size : 0
        plan = XML::Plan.for(klass)
        writes = plan.writes.select { |entry| new_entry?(entry, known) }
        attributes = plan.attribute_writes.select { |slot| slot.attribute.index >= known }
        if plan.text&.kind == XML::Plan::OPEN && !extension
          # :xml (or :any) as ".": the element's whole content, text and elements
          out << %(<xsd:complexType name="#{a(local)}" mixed="true"><xsd:sequence>#{WILDCARD}</xsd:sequence>)
          attributes.each { |slot| attribute(out, slot) }
          out << "</xsd:complexType>\n"
          return
        end

        out << %(<xsd:complexType name="#{a(local)}">)
        if plan.text && writes.empty? && !extension
          out << %(<xsd:simpleContent><xsd:extension base="#{slot_ref(plan.text)}">)
          attributes.each { |slot| attribute(out, slot) }
          out << "</xsd:extension></xsd:simpleContent></xsd:complexType>\n"
          return
        end
        out << %(<xsd:complexContent><xsd:extension base="#{ref(parent)}">) if extension
        out << "<xsd:sequence>"
        writes.each { |entry| entry(out, entry) }
        out << "</xsd:sequence>"
        attributes.each { |slot| attribute(out, slot) }
        out << "</xsd:extension></xsd:complexContent>" if extension
        out << "</xsd:complexType>\n"
      end

      # Whether +klass+ only adds to +parent+'s attributes (redeclaring one breaks an extension).
      def extends?(klass, parent)
        parent.attributes.each_with_index.all? { |attribute, i| klass.attributes[i].owner.equal?(attribute.owner) }
      end

      def new_entry?(entry, known)
        if entry.kind == XML::Plan::GROUP
          entry.writes.any? { |inner| new_entry?(inner, known) }
        else
          entry.attribute.index >= known
        end
      end

      # An XML attribute in a namespace (+"@{urn:x}lang"+) is a reference to a
      # global attribute declared in that namespace's schema (+xml:lang+ to XML's own).
      def attribute(out, slot)
        if slot.uri.nil? || slot.uri.empty?
          out << %(<xsd:attribute name="#{a(slot.name)}" type="#{slot_ref(slot)}"/>)
        elsif slot.uri == Namespaces::XML
          out << %(<xsd:attribute ref="xml:#{a(slot.name)}"/>)
        else
          @global_attributes[[slot.uri, slot.name]] ||= slot.type
          @prefixes[slot.uri] ||= "ns#{@prefixes.size}"
          out << %(<xsd:attribute ref="#{@prefixes.fetch(slot.uri)}:#{a(slot.name)}"/>)
        end
      end

      # The XML attributes read by path from a wrapper or a scalar's element
      # ("address/@zip", "Amt/@Ccy").
      def path_attributes(out, holder)
        holder.attribute_writes&.each { |slot| attribute(out, slot) }
      end

      def entry(out, entry)
        if entry.kind == XML::Plan::GROUP
          if @encoded && Envelope::EncodedWriter.soap_array?(entry)
            # a wrapped list, "versions/*": a soapenc:Array
            item = entry.writes.first
            out << %(<xsd:element name="#{a(entry.name)}" type="#{array_ref(item.type, slot_ref(item))}" minOccurs="0" nillable="true"/>)
          else
            out << %(<xsd:element name="#{a(entry.name)}" minOccurs="0"><xsd:complexType><xsd:sequence>)
            entry.writes.each { |inner| entry(out, inner) }
            out << "</xsd:sequence>"
            path_attributes(out, entry)
            out << "</xsd:complexType></xsd:element>"
          end
        else
          return out << WILDCARD if entry.kind == XML::Plan::OPEN && entry.type == :any && entry.name.nil? && entry.list

          # "*": the literal encoder names a record by its xml_root, a scalar (and any rpc/encoded item) "item"
          name = entry.name || (entry.type.is_a?(Class) && !@encoded ? entry.type.xml_root : "item")
          occurs = entry.list ? %( minOccurs="0" maxOccurs="unbounded") : %( minOccurs="0")
          if entry.attribute_writes
            # "Amt" beside "Amt/@Ccy": the value as simple content, its XML attributes beside it
            out << %(<xsd:element name="#{a(name)}"#{occurs} nillable="true"><xsd:complexType><xsd:simpleContent>)
            out << %(<xsd:extension base="#{slot_ref(entry)}">)
            path_attributes(out, entry)
            out << "</xsd:extension></xsd:simpleContent></xsd:complexType></xsd:element>"
          else
            out << %(<xsd:element name="#{a(name)}" type="#{slot_ref(entry)}"#{occurs} nillable="true"/>)
          end
        end
      end

      def array_type(out, name, item)
        out << %(<xsd:complexType name="#{a(name)}">)
        if @encoded
          out << %(<xsd:complexContent><xsd:restriction base="soapenc:Array">)
          out << %(<xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="#{a(item)}[]"/>)
          out << "</xsd:restriction></xsd:complexContent>"
        else
          out << %(<xsd:sequence><xsd:element name="item" type="#{a(item)}" minOccurs="0" maxOccurs="unbounded" nillable="true"/></xsd:sequence>)
        end
        out << "</xsd:complexType>\n"
      end

      # document/literal wrapped: the operation and response elements.
      def document_elements(out)
        @service.operations.each do |operation|
          out << %(<xsd:element name="#{a(operation.name)}"><xsd:complexType><xsd:sequence>)
          operation.args.each do |name, type|
            list = type.is_a?(Array)
            item = list ? type.first : type
            occurs = list ? %( minOccurs="0" maxOccurs="unbounded") : ""
            out << %(<xsd:element name="#{a(name)}" type="#{ref(item)}"#{occurs} nillable="true"/>)
          end
          out << "</xsd:sequence></xsd:complexType></xsd:element>\n"
          out << %(<xsd:element name="#{a(operation.name)}Response"><xsd:complexType><xsd:sequence>)
          if operation.returns
            out << %(<xsd:element name="#{a(operation.name)}Return" type="#{part_type(operation.returns)}" nillable="true"/>)
          end
          out << "</xsd:sequence></xsd:complexType></xsd:element>\n"
        end
      end

      def part_type(type)
        type.is_a?(Array) ? array_ref(type.first) : ref(type)
      end

      def a(text)
        Envelope.attribute(text)
      end
    end
  end
end
