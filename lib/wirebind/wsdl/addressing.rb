# frozen_string_literal: true

module Wirebind
  module WSDL
    # What a WSDL says of WS-Addressing (W3C WS-Addressing 1.0 Metadata, and the
    # WSDL Binding draft WCF still writes): the action of each port type
    # operation's input and output, and whether a binding requires addressing.
    #
    # @api private
    module Addressing
      # The WSDL Binding draft's namespace (+wsaw:Action+, +wsaw:UsingAddressing+), as WCF writes it.
      WSAW_NS = "http://www.w3.org/2006/05/addressing/wsdl"
      # The Metadata recommendation's namespace (+wsam:Action+, +wsam:Addressing+).
      WSAM_NS = "http://www.w3.org/2007/05/addressing/metadata"
      # WS-Policy 1.2 (2004/09, WCF's) and 1.5.
      POLICY_NAMESPACES = ["http://schemas.xmlsoap.org/ws/2004/09/policy", "http://www.w3.org/ns/ws-policy"].freeze
      # The attributes an input or output names its action with, the recommendation's first.
      ACTION_ATTRIBUTES = Shareable.make(["{#{WSAM_NS}}Action", "{#{WSAW_NS}}Action"])

      class << self
        # @param io [Node, nil] a port type operation's +wsdl:input+ or +wsdl:output+
        # @return [String, nil] the action it names
        # @raise [InvalidError] an action holding white space or a control
        #   character (not an IRI; it is also sent as an HTTP header)
        def action(io)
          action = io && ACTION_ATTRIBUTES.filter_map { |name| io.attrs[name] }.first&.strip or return nil
          raise InvalidError, "#{io.where}: the action #{action.inspect} holds white space or a control character" if action.match?(/[\x00-\x20\x7f]/)

          action
        end

        # The action of an input that names none (Metadata 4.4.4):
        # +[target namespace]/[port type name]/[input name]+, +:+ between the
        # parts in a URN namespace.
        #
        # @param port_type [Array(String, String), nil] its namespace and name
        # @param name [String] the input's name ({.input_name})
        # @return [String, nil] nil without a target namespace
        def default_input_action(port_type, name)
          namespace, type_name = port_type
          return nil if namespace.nil? || namespace.empty?

          delimiter = namespace.downcase.start_with?("urn:") ? ":" : "/"
          base = delimiter == "/" && namespace.end_with?("/") ? namespace : "#{namespace}#{delimiter}"
          "#{base}#{type_name}#{delimiter}#{name}"
        end

        # @param binding [Node] a +wsdl:binding+
        # @param policies [Hash{String => Node}] the definitions' policies by +wsu:Id+
        # @return [Boolean] whether it says addressing is required: a
        #   +wsaw:UsingAddressing wsdl:required="true"+, or a policy (inline or
        #   referenced as +#id+) asserting +wsam:Addressing+ or
        #   +wsaw:UsingAddressing+ not marked +wsp:Optional+
        def required?(binding, policies)
          binding.children.any? do |child|
            if child.uri == WSAW_NS && child.local == "UsingAddressing"
              child.attrs["{#{WSDL_NS}}required"].to_s.strip == "true"
            elsif policy?(child, "Policy")
              asserts?(child)
            elsif policy?(child, "PolicyReference")
              (reference = child["URI"].to_s).start_with?("#") && (policy = policies[reference[1..]]) ? asserts?(policy) : false
            else
              false
            end
          end
        end

        # @return [Boolean] whether +node+ is a WS-Policy element named +local+
        def policy?(node, local)
          node.local == local && POLICY_NAMESPACES.include?(node.uri)
        end

        # @return [String, nil] a top-level policy's +wsu:Id+
        def policy_id(node)
          node.attrs["{#{SOAP::WSSE::WSU_NS}}Id"]
        end

        # @param abstract [Node] a port type's operation
        # @return [String] its input's name, else WSDL 1.1's default: the
        #   operation's name, +Request+ added when an output follows
        def input_name(abstract)
          given = abstract.child(WSDL_NS, "input")&.[]("name")
          return given if given

          kinds = abstract.children.filter_map { |child| child.local if child.uri == WSDL_NS && %w[input output].include?(child.local) }
          case kinds
          when %w[input output] then "#{abstract['name']}Request"
          when %w[output input] then "#{abstract['name']}Response" # solicit-response
          else abstract["name"].to_s
          end
        end

        private

        # Whether a policy asserts addressing anywhere below it (an explicit
        # stack: a policy's depth is the document's).
        def asserts?(policy)
          stack = policy.children.dup
          while (node = stack.pop)
            return true if assertion?(node) && !optional?(node)

            stack.concat(node.children)
          end
          false
        end

        def assertion?(node)
          (node.uri == WSAM_NS && node.local == "Addressing") || (node.uri == WSAW_NS && node.local == "UsingAddressing")
        end

        def optional?(node)
          POLICY_NAMESPACES.any? { |uri| node.attrs["{#{uri}}Optional"].to_s.strip == "true" }
        end
      end
    end
  end
end
