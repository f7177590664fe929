# frozen_string_literal: true

module Wirebind
  module WSDL
    # One element of a WSDL or XSD file, as the loader keeps it: its name, its
    # attributes, the namespace bindings in scope (for QName values such as
    # +type="tns:RemoteIssue"+) and its child elements. Text is not kept: nothing
    # in a description needs it but documentation.
    #
    # @api private
    Node = Struct.new(:local, :uri, :attrs, :ns, :children, :file) do
      # @return [String, nil] an unqualified attribute's value
      def [](name)
        attrs[name]
      end

      # @return [Array<Node>] the children in +uri+ named +local+ (any name when nil)
      def each_child(uri, local = nil)
        children.select { |child| child.uri == uri && (local.nil? || child.local == local) }
      end

      # @return [Node, nil] the first such child
      def child(uri, local)
        children.find { |child| child.uri == uri && child.local == local }
      end

      # @return [String] where this element is, for messages
      def where
        name = attrs["name"]
        "#{file}: <#{local}#{" name=#{name.inspect}" if name}>"
      end

      # Resolves a QName value (+"tns:RemoteIssue"+) against the bindings in
      # scope here. An unprefixed name is in the default namespace.
      #
      # @return [Array(String, String)] namespace (nil for none) and local name
      # @raise [InvalidError] an undeclared prefix
      def qname(value)
        value = value.strip
        prefix, local = value.include?(":") ? value.split(":", 2) : ["", value]
        uri = ns[prefix]
        raise InvalidError, "#{where}: the prefix of #{value.inspect} is not declared" if uri.nil? && !prefix.empty?

        [uri == "" ? nil : uri, local]
      end

      def inspect
        "#<Wirebind::WSDL::Node #{where}>"
      end
    end

    # Reads one file into {Node}s with wirebind's own streaming tokenizer: the XML
    # codec's limits, DTDs refused, nesting kept on an explicit stack.
    #
    # @api private
    class DocumentReader < XML::Tokenizer
      # @param input [String, IO]
      # @param file [String] the name messages give
      # @param limits [Hash] the tokenizer's limits
      # @return [Node] the document element
      def self.read(input, file, **limits)
        reader = new(input, file, **XML::DEFAULT_LIMITS, dtd: :reject, **limits)
        reader.run
        reader.root
      end

      attr_reader :root

      def initialize(input, file, **options)
        super(input, **options)
        @file = file
        @stack = []
        @root = nil
      end

      def on_start(local, uri, attrs)
        @stack << add(local, uri, attrs)
      end

      def on_leaf(local, uri, attrs, _text)
        add(local, uri, attrs)
      end

      def on_end
        @stack.pop
      end

      private

      def add(local, uri, attrs)
        hash = {}
        if attrs
          i = 0
          while i < attrs.size
            hash[attrs[i + 1] ? "{#{attrs[i + 1]}}#{attrs[i]}" : attrs[i]] = attrs[i + 2]
            i += 3
          end
        end
        node = Node.new(local, uri, hash, namespace_snapshot, [], @file)
        if (parent = @stack.last)
          parent.children << node
        else
          @root = node
        end
        node
      end
    end
  end
end
