# frozen_string_literal: true

module Wirebind
  module WSDL
    # Writes a {Description} as one WSDL 1.1 document: what a SOAP::Service
    # answers to +GET ?wsdl+, and what a description read from files becomes as
    # one file.
    #
    # - One +xsd:schema+ per target namespace inside +wsdl:types+: the schema
    #   documents read for a namespace (its includes among them) are merged into
    #   one (when their form and block defaults agree; else each is written on
    #   its own), their imports first, each namespace once; QName values keep
    #   their prefixes (namespace bindings written where they change). As all are
    #   in the one document, +xsd:include+ and +xsd:redefine+ are left out and
    #   +xsd:import+ loses its +schemaLocation+: the schemas import each other.
    #   Text (documentation) is not kept by the reader, so it is not written.
    # - Messages, port types (one per binding's +port_type+, from its first
    #   binding's operations), SOAP 1.1/1.2 bindings (HTTP transport) and
    #   services, in the description's order, all in its target namespace (a
    #   WSDL 1.1 document has one): those read from another namespace (a
    #   +wsdl:import+ed file's) are moved into it, renamed only where a name is
    #   taken, and referred to there; what depended on their namespace is
    #   written out (an input's default +wsam:Action+, an rpc body's namespace).
    #
    # @api private
    class Writer
      HTTP_TRANSPORT = Namespaces::SOAP_HTTP_TRANSPORT
      # The prefixes every written document declares, when the description does not bind them otherwise.
      FIXED_PREFIXES = {
        "wsdl" => WSDL_NS, "soap" => Namespaces::WSDL_SOAP11_BINDING, "soap12" => Namespaces::WSDL_SOAP12_BINDING,
        "xsd" => Namespaces::XSD, "soapenc" => ENCODING_NS
      }.freeze

      # @param description [Description]
      def initialize(description)
        @description = description
        @tns = description.target_namespace
        @declared = {} # prefix => uri, as written on wsdl:definitions
        @prefixes = {} # uri => prefix
        description.namespaces.each { |prefix, uri| declare(prefix, uri) unless prefix.empty? || prefix == "xml" || uri.to_s.empty? }
        FIXED_PREFIXES.each { |prefix, uri| declare(free(prefix), uri) unless @prefixes.key?(uri) }
        declare(free("tns"), @tns) if @tns && !@prefixes.key?(@tns)
        @local_names = {} # [kind, namespace, name] => the name written in the target namespace
        @taken = Hash.new { |taken, kind| taken[kind] = {} }
        name_components
      end

      # @return [String] the WSDL document
      def write
        body = +""
        unless @description.schema_nodes.empty?
          body << "<#{wsdl}:types>\n"
          schema_groups.each { |tns, roots| schema(body, roots, tns) }
          body << "</#{wsdl}:types>\n"
        end
        @description.messages.each_value { |message| message(body, message) }
        port_types(body)
        @description.bindings.each { |binding| binding(body, binding) }
        @description.services.each { |service| service(body, service) }
        out = +%(<?xml version="1.0" encoding="UTF-8"?>\n<#{wsdl}:definitions)
        out << %( name="#{a(@description.name)}") if @description.name
        out << %( targetNamespace="#{a(@tns)}") if @tns
        @declared.each { |prefix, uri| out << %( xmlns:#{prefix}="#{a(uri)}") }
        out << ">\n" << body << "</#{wsdl}:definitions>\n"
      end

      private

      # +prefix+, or the first of prefix1, prefix2... not declared yet.
      def free(prefix)
        return prefix unless @declared.key?(prefix)

        n = 1
        n += 1 while @declared.key?("#{prefix}#{n}")
        "#{prefix}#{n}"
      end

      def declare(prefix, uri)
        @declared[prefix] = uri
        @prefixes[uri] ||= prefix
      end

      def wsdl = @prefixes.fetch(WSDL_NS)

      # A QName ([namespace, local]) as prefix:local, declaring a prefix for a namespace met first here.
      def qname(pair)
        uri, local = pair
        return local if uri.nil?

        declare(free("ns"), uri) unless @prefixes.key?(uri)
        "#{@prefixes.fetch(uri)}:#{local}"
      end

      # ---- names ---------------------------------------------------------------

      # The name each message, port type and binding is written under in the
      # target namespace: its own, unless one of the same kind took it (then +2+, +3+...).
      def name_components
        @description.messages.each_value { |message| local_name(:message, message.namespace, message.name) }
        @description.bindings.each { |binding| local_name(:port_type, *binding.port_type) if binding.port_type }
        @description.bindings.each { |binding| local_name(:binding, binding.namespace, binding.name) }
      end

      def local_name(kind, namespace, name)
        @local_names[[kind, namespace, name]] ||= begin
          taken = @taken[kind]
          written = name
          n = 1
          written = "#{name}#{n += 1}" while taken.key?(written)
          taken[written] = true
          written
        end
      end

      # A message, port type or binding ([namespace, name]) as written: in the target namespace.
      def component(kind, namespace, name)
        [@tns, @local_names.fetch([kind, namespace, name])]
      end

      # ---- schemas -----------------------------------------------------------

      # The attributes of xsd:schema that give its content's defaults: schema
      # documents are merged only where they agree.
      SCHEMA_DEFAULTS = %w[elementFormDefault attributeFormDefault blockDefault finalDefault].freeze

      # [target namespace, schema documents] for each xsd:schema to write, in
      # the order the namespaces were first read.
      def schema_groups
        groups = {}
        @description.schema_nodes.each do |node, tns|
          (groups[[tns, node.uri, *node.attrs.values_at(*SCHEMA_DEFAULTS)]] ||= [tns, []])[1] << node
        end
        groups.values
      end

      # The top-level children of schema documents merged into one: every
      # import first (each namespace once, none of the schema's own), then the
      # definitions in order; includes and redefines left out (all is here).
      def schema_children(roots, tns)
        imported = {}
        imports = []
        definitions = []
        roots.each do |root|
          root.children.each do |child|
            if !XSD_NAMESPACES.include?(child.uri)
              definitions << child
            elsif child.local == "import"
              namespace = child["namespace"]
              imports << child unless namespace == tns || imported.key?(namespace)
              imported[namespace] = true
            elsif !%w[include redefine].include?(child.local)
              definitions << child
            end
          end
        end
        imports + definitions
      end

      # One schema element (the first of +roots+, holding the top-level children
      # of them all) and its subtree, depth first on an explicit stack (no
      # recursion on the schema's depth).
      def schema(out, roots, tns)
        root = roots.first
        stack = [[root, @declared, true]]
        until stack.empty?
          node, scope, top = stack.pop
          if node.is_a?(String) # a closing tag
            out << node
            next
          end

          bindings = node.ns.reject { |prefix, uri| prefix == "xml" || scope[prefix] == uri || (uri.nil? && !scope.key?(prefix)) }
          name = element_name(node)
          out << "<" << name
          bindings.each { |prefix, uri| out << (prefix.empty? ? %( xmlns="#{a(uri.to_s)}") : %( xmlns:#{prefix}="#{a(uri.to_s)}")) }
          node.attrs.each do |key, value|
            next if key == "schemaLocation" && node.local == "import"

            out << " " << attribute_name(node, key) << '="' << a(value) << '"'
          end
          out << %( targetNamespace="#{a(tns)}") if top && tns && !node.attrs.key?("targetNamespace")
          children = top ? schema_children(roots, tns) : node.children
          if children.empty?
            out << "/>"
            out << "\n" if top
            next
          end
          out << ">"
          inner = bindings.empty? ? scope : scope.merge(bindings)
          stack << "</#{name}>#{"\n" if top}"
          children.reverse_each { |child| stack << [child, inner, false] }
        end
      end

      def element_name(node)
        return node.local if node.ns[""].to_s == node.uri.to_s

        prefix = node.ns.find { |p, uri| uri == node.uri && !p.empty? }&.first
        raise InvalidError, "#{node.where}: no prefix is bound to its namespace #{node.uri}" unless prefix

        "#{prefix}:#{node.local}"
      end

      def attribute_name(node, key)
        return key unless key.start_with?("{")

        uri, local = key[1..].split("}", 2)
        return "xml:#{local}" if uri == Namespaces::XML

        prefix = node.ns.find { |p, bound| bound == uri && !p.empty? }&.first
        raise InvalidError, "#{node.where}: no prefix is bound to the namespace #{uri} of an attribute" unless prefix

        "#{prefix}:#{local}"
      end

      # ---- messages, port types, bindings, services ----------------------------

      def message(out, message)
        out << %(<#{wsdl}:message name="#{a(component(:message, message.namespace, message.name)[1])}">)
        message.parts.each do |part|
          reference = part.element ? %(element="#{a(qname(part.element))}") : %(type="#{a(qname(part.type))}")
          out << %(<#{wsdl}:part name="#{a(part.name)}" #{reference}/>)
        end
        out << "</#{wsdl}:message>\n"
      end

      def message_ref(message)
        qname(component(:message, message.namespace, message.name))
      end

      def port_types(out)
        written = {}
        @description.bindings.each do |binding|
          next if binding.port_type.nil? || written[binding.port_type]

          written[binding.port_type] = true
          out << %(<#{wsdl}:portType name="#{a(component(:port_type, *binding.port_type)[1])}">\n)
          binding.operations.each do |operation|
            out << %(<#{wsdl}:operation name="#{a(operation_name(operation))}">)
            if operation.input
              out << %(<#{wsdl}:input message="#{a(message_ref(operation.input))}"#{input_action(binding, operation)}/>)
            end
            if operation.output
              action = operation.reply_action && %( #{wsam}:Action="#{a(operation.reply_action)}")
              out << %(<#{wsdl}:output message="#{a(message_ref(operation.output))}"#{action}/>)
            end
            operation.faults.each { |fault| out << %(<#{wsdl}:fault name="#{a(fault.name)}" message="#{a(message_ref(fault))}"/>) }
            out << "</#{wsdl}:operation>\n"
          end
          out << "</#{wsdl}:portType>\n"
        end
      end

      # The input's +wsam:Action+ attribute when its action is not the default
      # (the input is written without a name: WSDL 1.1's default name), or the
      # binding requires addressing (zeep, for one, reads no default action).
      def input_action(binding, operation)
        action = operation.action or return ""
        name = operation.output ? "#{operation_name(operation)}Request" : operation_name(operation)
        return "" if !binding.addressing && action == Addressing.default_input_action(component(:port_type, *binding.port_type), name)

        %( #{wsam}:Action="#{a(action)}")
      end

      # The WS-Addressing metadata prefix, declared when first needed.
      def wsam
        declare(free("wsam"), Addressing::WSAM_NS) unless @prefixes.key?(Addressing::WSAM_NS)
        @prefixes.fetch(Addressing::WSAM_NS)
      end

      def binding(out, binding)
        version = binding.version
        soap = @prefixes.fetch(version.binding_namespace)
        out << %(<#{wsdl}:binding name="#{a(component(:binding, binding.namespace, binding.name)[1])}")
        out << %( type="#{a(qname(component(:port_type, *binding.port_type)))}") if binding.port_type
        style = binding.operations.first&.style == :document ? "document" : "rpc"
        out << %(><#{soap}:binding style="#{style}" transport="#{HTTP_TRANSPORT}"/>\n)
        if binding.addressing
          declare(free("wsaw"), Addressing::WSAW_NS) unless @prefixes.key?(Addressing::WSAW_NS)
          out << %(<#{@prefixes.fetch(Addressing::WSAW_NS)}:UsingAddressing #{wsdl}:required="true"/>\n)
        end
        binding.operations.each { |operation| binding_operation(out, operation, soap, version, binding) }
        out << "</#{wsdl}:binding>\n"
      end

      # The wsdl:operation's name (a service's operation has only its element's).
      def operation_name(operation) = operation.wsdl_name || operation.name

      def binding_operation(out, operation, soap, version, binding)
        out << %(<#{wsdl}:operation name="#{a(operation_name(operation))}">)
        out << %(<#{soap}:operation)
        out << %( soapAction="#{a(operation.soap_action)}") if operation.soap_action
        out << %( style="#{operation.style == :document ? 'document' : 'rpc'}"/>)
        if operation.input
          out << "<#{wsdl}:input>" << body(soap, version, operation, operation.input, operation.input_parts, binding)
          operation.headers.each do |message, part|
            out << %(<#{soap}:header message="#{a(message_ref(message))}" part="#{a(part.to_s)}" use="literal"/>)
          end
          out << "</#{wsdl}:input>"
        end
        out << "<#{wsdl}:output>" << body(soap, version, operation, operation.output, operation.output_parts, binding) << "</#{wsdl}:output>" if operation.output
        operation.faults.each do |fault|
          out << %(<#{wsdl}:fault name="#{a(fault.name)}"><#{soap}:fault name="#{a(fault.name)}" use="literal"/></#{wsdl}:fault>)
        end
        out << "</#{wsdl}:operation>\n"
      end

      # soap:body: encoded or literal, the rpc namespace (an rpc operation without
      # one is in its binding's, written out when the binding moved to the target
      # namespace), and +parts+ when the body holds only some of the message's.
      def body(soap, version, operation, message, parts, binding)
        out = +%(<#{soap}:body)
        out << %( parts="#{a(parts.map(&:name).join(' '))}") if parts.size != message.parts.size
        out << (operation.style == :rpc_encoded ? %( use="encoded" encodingStyle="#{version.encoding_namespace}") : %( use="literal"))
        namespace = operation.namespace
        namespace ||= binding.namespace if operation.style != :document && binding.namespace != @tns
        out << %( namespace="#{a(namespace)}") if namespace
        out << "/>"
      end

      def service(out, service)
        out << %(<#{wsdl}:service name="#{a(service.name)}">\n)
        service.ports.each do |port|
          soap = @prefixes.fetch(port.binding.version.binding_namespace)
          out << %(<#{wsdl}:port name="#{a(port.name)}" binding="#{a(qname(component(:binding, port.binding.namespace, port.binding.name)))}">)
          out << %(<#{soap}:address location="#{a(port.endpoint.to_s)}"/>) if port.endpoint
          out << "</#{wsdl}:port>\n"
        end
        out << "</#{wsdl}:service>\n"
      end

      def a(text)
        XML::Escape.attribute(text.to_s)
      end
    end
  end
end
