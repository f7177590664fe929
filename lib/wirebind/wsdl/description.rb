# frozen_string_literal: true

module Wirebind
  module WSDL
    # A message part: an element or a type.
    Part = Struct.new(:name, :element, :type, :node)
    # A +wsdl:message+.
    Message = Struct.new(:name, :namespace, :parts)
    # A SOAP binding: its version (a SOAP::Version, SOAP::SOAP11 or SOAP::SOAP12)
    # and operations (SOAP::Operation values, with their WSDL members), in order;
    # +port_type+ the namespace and name of its port type (nil when it names none);
    # +addressing+ whether it requires WS-Addressing (+wsaw:UsingAddressing+
    # required, or a +wsam:Addressing+ policy).
    Binding = Struct.new(:name, :namespace, :version, :operations, :port_type, :addressing)
    # A +wsdl:port+: a binding at an address.
    Port = Struct.new(:name, :binding, :endpoint)
    # A +wsdl:service+.
    Service = Struct.new(:name, :ports)

    # A WSDL, with the schemas it imports: what {WSDL.load} returns, what
    # {WSDL::Writer} writes (a SOAP::Service builds one for its +?wsdl+).
    class Description
      # @return [Hash{Array(String, String) => Message}] by namespace and name
      attr_reader :messages
      # @return [Schema] the types
      attr_reader :schema
      # @return [Array<String>] what the description leaves undefined (a binding's
      #   port type, an operation's message): such operations take no arguments
      #   and return nil. +wirebind generate+ prints these.
      attr_reader :warnings
      # @return [String, nil] the (first) +wsdl:definitions+' name
      attr_reader :name
      # @return [String, nil] the (first) +wsdl:definitions+' targetNamespace
      attr_reader :target_namespace
      # @return [Hash{String => String}] the namespace prefixes the (first)
      #   +wsdl:definitions+ declares, prefix to URI (what a writer keeps)
      attr_reader :namespaces
      # @return [Array<Array(Node, String)>] the +xsd:schema+ elements read, each
      #   with its effective target namespace
      # @api private
      attr_reader :schema_nodes

      # A description of parts already made (what a SOAP::Service builds): the
      # same model {WSDL.load} reads.
      #
      # @param name [String] the definitions' name
      # @param target_namespace [String]
      # @param namespaces [Hash{String => String}] prefixes to declare, to their URIs
      # @param schema_nodes [Array<Array(Node, String)>] schemas and their target namespaces
      # @param messages [Array<Message>]
      # @param bindings [Array<Binding>]
      # @param services [Array<Service>]
      # @return [Description]
      # @api private
      def self.build(name:, target_namespace:, namespaces:, schema_nodes:, messages:, bindings:, services:)
        allocate.tap do |description|
          description.__send__(:assign, name, target_namespace, namespaces, schema_nodes)
          description.__send__(:assign_parts, messages, bindings, services)
        end
      end

      # @api private
      def initialize(loader)
        root, tns = loader.definitions.first
        assign(root && root["name"], tns, root ? root.ns.to_h : {}, loader.schemas)
        @warnings = loader.warnings.dup
        @messages = {}
        port_types = {}
        policies = {}
        bindings = {}
        services = []
        loader.definitions.each do |root, tns|
          root.children.each do |node|
            next unless node.uri == WSDL_NS

            case node.local
            when "message" then @messages[[tns, node["name"]]] ||= message(node, tns)
            when "portType" then port_types[[tns, node["name"]]] ||= node
            when "binding" then bindings[[tns, node["name"]]] ||= [node, tns]
            when "service" then services << [node, tns]
            end
          end
          root.children.each do |node|
            policies[Addressing.policy_id(node)] ||= node if Addressing.policy?(node, "Policy") && Addressing.policy_id(node)
          end
        end
        @calls_lock = Mutex.new
        @bindings = []
        by_key = {}
        bindings.each do |key, (node, tns)|
          binding = binding(node, tns, port_types, policies)
          next unless binding

          by_key[key] = binding
          @bindings << binding
        end
        @services = services.map { |node, _| service(node, by_key) }.freeze
        warn_without_binding(port_types)
        @bindings.freeze
        @messages.freeze
        @warnings.freeze
      end

      # @return [Array<Service>] in document order
      def services
        complete_calls
        @services
      end

      # @return [Array<Binding>] every SOAP binding, in document order
      def bindings
        complete_calls
        @bindings
      end

      # @return [Array<Port>] the SOAP ports of every service, in document order
      def ports
        services.flat_map(&:ports)
      end

      # @return [Array<TypeSpec>] every complex type (and anonymous one) of the schemas
      def types
        @types ||= @schema.specs.freeze
      end

      # The description as one WSDL 1.1 document (what a SOAP::Service answers to
      # +?wsdl+ is one of these): its schemas inline, then its messages, port
      # types, SOAP bindings and services. Reading it back gives the same
      # description (documentation text aside: the reader does not keep it).
      #
      # @return [String]
      def to_wsdl
        Writer.new(self).write
      end

      # The Ruby source of the models and clients, as files.
      #
      # @param module_name [String] a Ruby constant name, e.g. +"Jira"+
      # @return [Hash{String => String}] relative path to source, the entry file first
      def generate(module_name)
        Generator.new(self, module_name).files
      end

      # Defines the models and clients in +mod+, from the same source {#generate}
      # writes (evaluated once per class, from validated names and +inspect+ed
      # literals).
      #
      # @param mod [Module]
      # @return [Module] +mod+
      def define(mod)
        raise ArgumentError, "define takes a Module, not #{mod.inspect}" unless mod.is_a?(Module)

        Generator.new(self, mod.name || "Generated").define(mod)
        mod
      end

      private

      def assign(name, target_namespace, namespaces, schema_nodes)
        @name = name
        @target_namespace = target_namespace
        @namespaces = namespaces.freeze
        @schema_nodes = schema_nodes.freeze
        @schema = Schema.new(schema_nodes)
      end

      # How each operation read is called (its element, argument and result
      # types, from the schema) is completed when the operations are first asked
      # for, not when the WSDL is read: a schema error stays one of generating
      # (as the types' are), and every type is compiled first, in the schema's
      # order, so that the types an operation names do not decide the generated names.
      def complete_calls
        return if @calls_complete

        @calls_lock.synchronize do
          next if @calls_complete

          types
          @bindings.each { |binding| binding.operations.each { |operation| call(operation).freeze unless operation.frozen? } }
          @calls_complete = true
        end
      end

      # An abstract description (port types, no SOAP binding: the OGC's WMTS
      # WSDL) gives models and no client: said, not left silent.
      def warn_without_binding(port_types)
        return unless @bindings.empty? && !port_types.empty?

        names = port_types.keys.map { |_, name| name.inspect }.join(", ")
        @warnings << "#{port_types.values.first.where}: no SOAP binding refers to the port type#{'s' if port_types.size > 1} #{names}; " \
                     "their operations get no client (the types are generated)"
      end

      def assign_parts(messages, bindings, services)
        @messages = messages.to_h { |message| [[message.namespace, message.name], message] }.freeze
        @bindings = bindings.freeze
        @services = services.freeze
        @calls_complete = true
        @warnings = [].freeze
      end

      def message(node, tns)
        parts = node.children.select { |child| child.uri == WSDL_NS && child.local == "part" }.map do |part|
          element = part["element"] && part.qname(part["element"])
          type = part["type"] && part.qname(part["type"])
          raise InvalidError, "#{part.where}: a part names an element or a type" unless element || type

          Part.new(part["name"].to_s, element, type, part)
        end
        Message.new(node["name"], tns, parts.freeze)
      end

      def binding(node, tns, port_types, policies)
        soap = soap_child(node, "binding") or return nil
        version = SOAP::Version.by_binding(soap.uri)
        port_type = node["type"] && port_types[node.qname(node["type"])]
        @warnings << "#{node.where}: its port type #{node['type'].inspect} is not defined" unless port_type

        default_style = soap["style"] || "document"
        # The port type's operations by name (the first of overloaded ones): one lookup each.
        abstract = {}
        port_type&.children&.each { |child| abstract[child["name"]] ||= child if child.uri == WSDL_NS && child.local == "operation" }
        type_name = node["type"] && node.qname(node["type"])
        operations = node.children.select { |child| child.uri == WSDL_NS && child.local == "operation" }.map do |op|
          operation(op, port_type && type_name, abstract[op["name"].to_s], default_style)
        end
        Binding.new(node["name"], tns, version, operations.freeze, type_name, Addressing.required?(node, policies))
      end

      # +port_type+: the port type's namespace and name (nil when it is not defined).
      def operation(node, port_type, abstract, default_style)
        name = node["name"].to_s
        soap_op = soap_child(node, "operation")
        @warnings << "#{node.where}: the port type has no operation #{name.inspect}" if port_type && !abstract
        input = abstract && io_message(abstract, "input")
        output = abstract && io_message(abstract, "output")
        binding_input = node.child(WSDL_NS, "input")
        body = binding_input && soap_child(binding_input, "body")
        headers = (binding_input ? binding_input.children : []).select { |child| SOAP::Version.by_binding(child.uri) && child.local == "header" }
        header_pairs = headers.filter_map do |header|
          message = header["message"] && @messages[header.qname(header["message"])]
          message && [message, header["part"]]
        end
        style = (soap_op && soap_op["style"]) || default_style
        encoded = body && body["use"] == "encoded"
        style = style == "rpc" ? (encoded ? :rpc_encoded : :rpc) : :document
        faults = (abstract ? abstract.children : []).select { |child| child.uri == WSDL_NS && child.local == "fault" }.filter_map do |fault|
          fault["message"] && @messages[fault.qname(fault["message"])]
        end
        input_action, output_action = actions(port_type, abstract)
        # How it is called (name, args, returns, at) is completed later: complete_calls.
        SOAP::Operation.new(
          wsdl_name: name, soap_action: soap_action(soap_op), style: style, namespace: body && body["namespace"],
          input: input, output: output, input_parts: body_parts(input, body, header_pairs),
          output_parts: body_parts(output, output_body(node), []), headers: header_pairs.freeze, faults: faults.freeze,
          action: input_action, reply_action: output_action
        )
      end

      # The SOAP binding element (+soap:+ or +soap12:+) named +local+ among +node+'s children.
      def soap_child(node, local)
        node.children.find { |child| child.local == local && SOAP::Version.by_binding(child.uri) }
      end

      # How the operation is called, from its parts and the schema: the operation
      # element's name, the arguments (a document/literal wrapper element's
      # children, else the parts) and their types, the result's type and where it is.
      def call(operation)
        operation.name = operation.wsdl_name
        operation.args = {}
        if operation.style == :document
          if (part = operation.input_parts.first)
            document_args(operation, part)
          end
          document_returns(operation, operation.output_parts.first)
        else
          operation.input_parts.each { |part| operation.args[part.name] = part_type(part) }
          operation.returns = part_type(part) if (part = operation.output_parts.first)
        end
        operation.args.freeze
        operation
      end

      def document_args(operation, part)
        unless part.element
          operation.args[part.name] = typed(*@schema.type(part.node, part.node["type"]))
          return
        end

        operation.name = part.element[1]
        type, = @schema.element_type(part.element)
        return unless type.is_a?(TypeSpec)

        type.all_fields.each { |field| operation.args[field.local] = typed(field.type, field.list) if field.kind == :element }
      end

      # A part's type: a TypeSpec or scalar Symbol, in an Array when it is a list.
      def part_type(part)
        typed(*(part.element ? @schema.element_type(part.element) : @schema.type(part.node, part.node["type"])))
      end

      def typed(type, list, *)
        list ? [type].freeze : type
      end

      # A document/literal result: a part's type, a wrapper element's one child
      # (its items, for a list or an ArrayOfX wrapper), or the element itself.
      def document_returns(operation, part)
        return unless part

        unless part.element
          operation.returns = part_type(part)
          return
        end
        type, list, = @schema.element_type(part.element)
        unless type.is_a?(TypeSpec)
          operation.returns = typed(type, list)
          operation.at = "*"
          return
        end
        fields = type.all_fields
        if fields.size == 1 && (item = fields.first.wrapper_item)
          # A wrapper (ArrayOfX) as the result: its items, streamed by each_<op>.
          operation.returns = typed(item.type, true)
          operation.at = "*/#{fields.first.local}/#{item.local}"
        elsif fields.size == 1 && fields.first.kind == :element
          field = fields.first
          operation.returns = typed(field.type, field.list)
          operation.at = field.wrapped ? "*/#{field.local}/*" : "*/#{field.local}" if field.list
        elsif !fields.empty?
          operation.returns = type
          operation.at = "*"
        end
      end

      # The binding's soapAction, sent as the SOAPAction header: a control
      # character (a line break would start another header) is refused here.
      def soap_action(soap_op)
        action = soap_op && soap_op["soapAction"] or return nil
        raise InvalidError, "#{soap_op.where}: the soapAction #{action.inspect} holds a control character" if action.match?(/[\x00-\x1f\x7f]/)

        action
      end

      # The operation's WS-Addressing input and output actions.
      def actions(port_type, abstract)
        return [nil, nil] unless abstract&.child(WSDL_NS, "input")

        [Addressing.action(abstract.child(WSDL_NS, "input")) || Addressing.default_input_action(port_type, Addressing.input_name(abstract)),
         Addressing.action(abstract.child(WSDL_NS, "output"))]
      end

      def output_body(node)
        output = node.child(WSDL_NS, "output") or return nil
        soap_child(output, "body")
      end

      def body_parts(message, body, headers)
        return [].freeze unless message

        parts = message.parts
        if body && (names = body["parts"])
          wanted = names.split
          parts = parts.select { |part| wanted.include?(part.name) }
        end
        header_names = headers.select { |header_message, _| header_message.equal?(message) }.map(&:last)
        parts.reject { |part| header_names.include?(part.name) }.freeze
      end

      def io_message(abstract, direction)
        node = abstract.child(WSDL_NS, direction) or return nil
        key = node["message"] && node.qname(node["message"])
        message = @messages[key]
        @warnings << "#{node.where}: the message #{node['message'].inspect} is not defined" unless message
        message
      end

      def service(node, bindings)
        ports = node.children.select { |child| child.uri == WSDL_NS && child.local == "port" }.filter_map do |port|
          binding = port["binding"] && bindings[port.qname(port["binding"])]
          next unless binding

          address = soap_child(port, "address")
          Port.new(port["name"].to_s, binding, address && address["location"])
        end
        Service.new(node["name"].to_s, ports.freeze)
      end
    end
  end
end
