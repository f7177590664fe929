# frozen_string_literal: true

module Wirebind
  module WSDL
    # Writes a {Description} as one WSDL 1.1 document: what a SOAP::Service
    # answers to +GET ?wsdl+, and what a description read from files becomes as
    # one file.
    #
    # - Every schema read is written inside +wsdl:types+, with its namespace
    #   bindings (QName values keep their prefixes) and its effective target
    #   namespace; as all are in the one document, +xsd:include+ and
    #   +xsd:redefine+ are left out and +xsd:import+ loses its +schemaLocation+.
    #   Text (documentation) is not kept by the reader, so it is not written.
    # - Messages, port types (one per binding's +port_type+, from its first
    #   binding's operations), SOAP 1.1/1.2 bindings (HTTP transport) and
    #   services, in the description's order, all in its target namespace.
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
      end

      # @return [String] the WSDL document
      def write
        body = +""
        @description.schema_nodes.each_with_index do |(node, tns), n|
          body << "<#{wsdl}:types>\n" if n.zero?
          schema(body, node, tns)
          body << "</#{wsdl}:types>\n" if n == @description.schema_nodes.size - 1
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

      # ---- schemas -----------------------------------------------------------

      # One schema element and its subtree, depth first on an explicit stack
      # (no recursion on the schema's depth).
      def schema(out, root, tns)
        stack = [[root, @declared, true]]
        until stack.empty?
          node, scope, top = stack.pop
          if node.is_a?(String) # a closing tag
            out << node
            next
          end
          next if !top && XSD_NAMESPACES.include?(node.uri) && %w[include redefine].include?(node.local) && node.uri == root.uri

          bindings = node.ns.reject { |prefix, uri| prefix == "xml" || scope[prefix] == uri || (uri.nil? && !scope.key?(prefix)) }
          name = element_name(node)
          out << "<" << name
          bindings.each { |prefix, uri| out << (prefix.empty? ? %( xmlns="#{a(uri.to_s)}") : %( xmlns:#{prefix}="#{a(uri.to_s)}")) }
          node.attrs.each do |key, value|
            next if key == "schemaLocation" && node.local == "import"

            out << " " << attribute_name(node, key) << '="' << a(value) << '"'
          end
          out << %( targetNamespace="#{a(tns)}") if top && tns && !node.attrs.key?("targetNamespace")
          if node.children.empty?
            out << "/>"
            out << "\n" if top
            next
          end
          out << ">"
          inner = bindings.empty? ? scope : scope.merge(bindings)
          stack << "</#{name}>#{"\n" if top}"
          node.children.reverse_each { |child| stack << [child, inner, false] }
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
        out << %(<#{wsdl}:message name="#{a(message.name)}">)
        message.parts.each do |part|
          reference = part.element ? %(element="#{a(qname(part.element))}") : %(type="#{a(qname(part.type))}")
          out << %(<#{wsdl}:part name="#{a(part.name)}" #{reference}/>)
        end
        out << "</#{wsdl}:message>\n"
      end

      def message_ref(message)
        qname([message.namespace, message.name])
      end

      def port_types(out)
        written = {}
        @description.bindings.each do |binding|
          next if binding.port_type.nil? || written[binding.port_type]

          written[binding.port_type] = true
          out << %(<#{wsdl}:portType name="#{a(binding.port_type[1])}">\n)
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
        return "" if !binding.addressing && action == Addressing.default_input_action(binding.port_type, name)

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
        out << %(<#{wsdl}:binding name="#{a(binding.name)}")
        out << %( type="#{a(qname(binding.port_type))}") if binding.port_type
        style = binding.operations.first&.style == :document ? "document" : "rpc"
        out << %(><#{soap}:binding style="#{style}" transport="#{HTTP_TRANSPORT}"/>\n)
        if binding.addressing
          declare(free("wsaw"), Addressing::WSAW_NS) unless @prefixes.key?(Addressing::WSAW_NS)
          out << %(<#{@prefixes.fetch(Addressing::WSAW_NS)}:UsingAddressing #{wsdl}:required="true"/>\n)
        end
        binding.operations.each { |operation| binding_operation(out, operation, soap, version) }
        out << "</#{wsdl}:binding>\n"
      end

      # The wsdl:operation's name (a service's operation has only its element's).
      def operation_name(operation) = operation.wsdl_name || operation.name

      def binding_operation(out, operation, soap, version)
        out << %(<#{wsdl}:operation name="#{a(operation_name(operation))}">)
        out << %(<#{soap}:operation)
        out << %( soapAction="#{a(operation.soap_action)}") if operation.soap_action
        out << %( style="#{operation.style == :document ? 'document' : 'rpc'}"/>)
        if operation.input
          out << "<#{wsdl}:input>" << body(soap, version, operation, operation.input, operation.input_parts)
          operation.headers.each do |message, part|
            out << %(<#{soap}:header message="#{a(message_ref(message))}" part="#{a(part.to_s)}" use="literal"/>)
          end
          out << "</#{wsdl}:input>"
        end
        out << "<#{wsdl}:output>" << body(soap, version, operation, operation.output, operation.output_parts) << "</#{wsdl}:output>" if operation.output
        operation.faults.each do |fault|
          out << %(<#{wsdl}:fault name="#{a(fault.name)}"><#{soap}:fault name="#{a(fault.name)}" use="literal"/></#{wsdl}:fault>)
        end
        out << "</#{wsdl}:operation>\n"
      end

      # soap:body: encoded or literal, the rpc namespace, and +parts+ when the body holds only some of the message's.
      def body(soap, version, operation, message, parts)
        out = +%(<#{soap}:body)
        out << %( parts="#{a(parts.map(&:name).join(' '))}") if parts.size != message.parts.size
        out << (operation.style == :rpc_encoded ? %( use="encoded" encodingStyle="#{version.encoding_namespace}") : %( use="literal"))
        out << %( namespace="#{a(operation.namespace)}") if operation.namespace
        out << "/>"
      end

      def service(out, service)
        out << %(<#{wsdl}:service name="#{a(service.name)}">\n)
        service.ports.each do |port|
          soap = @prefixes.fetch(port.binding.version.binding_namespace)
          out << %(<#{wsdl}:port name="#{a(port.name)}" binding="#{a(qname([port.binding.namespace, port.binding.name]))}">)
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
