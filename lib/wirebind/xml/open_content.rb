# frozen_string_literal: true

module Wirebind
  module XML
    # The open-content types on the XML side: what a declaration may map them
    # to, and how both encoders write them (the native one calls
    # {.element_content} too, so there is one rule). Decoding is {Capture}'s
    # (+:xml+, +:any+) and {Types::QNameType}'s (+:qname+).
    #
    # - +:xml+ maps to an element; its value is the element's content as XML
    #   text. Written back verbatim after a well-formedness check (a +:xml+
    #   value that is not well-formed XML content is an {EncodeError}).
    #   Unprefixed names in it take the default namespace in scope where it
    #   is written, as for any XML pasted into a document.
    # - +:any+ maps to an element; its value is the shape {Capture} documents
    #   (a String, or a Hash of +"@attribute"+, +"#text"+ and child names, an
    #   Array for a repeated name). Written back from that shape: children named
    #   without braces in the element's own namespace, `"{uri}local"` with that
    #   default namespace, attributes in a namespace with an automatic prefix.
    # - +:qname+ maps to an element (or a list of them), or to an XML attribute
    #   ({.qname_attribute}); an element's is written as
    #   +prefix:local+ with the prefix declared on the element itself (the one
    #   the value was read with, when it has one and it does not clash with the
    #   element's own).
    #
    # @api private
    module OpenContent
      TYPES = %i[xml any].freeze
      NCNAME = XML::Syntax::NCNAME_ONLY
      CLARK = /\A\{([^{}]*)\}(.+)\z/
      KEY_TEXT = Capture::KEY_TEXT
      KEY_CONTENT = Capture::KEY_CONTENT
      TEXT_VALUE = [String, Symbol, Integer, Float, TrueClass, FalseClass].freeze

      class << self
        # @return [Integer] the Plan kind of an attribute of scalar or open +type+
        def kind(type)
          TYPES.include?(type) ? Plan::OPEN : Plan::SCALAR
        end

        # @raise [SchemaError] an open type mapped where it cannot go
        def check_mapping(xml, type, context)
          shape = Plan.parse(xml, context).first
          # A :qname is text: an element's, or an attribute's (xsi:type="ns2:RecordRef").
          # :xml as "." is the whole content of the record's element (Atom's xhtml content).
          return if shape == :element || (type == :qname && shape == :attribute) || (type == :xml && shape == :text)

          where = shape == :text ? "the element's own text (\".\")" : "an XML attribute"
          raise SchemaError, "#{context}: #{type.inspect} maps to an element, not to #{where}"
        end

        # What follows "<name" when an element of an open type is written: its
        # declarations and attributes, ">", and its content.
        #
        # @param type [Symbol] +:xml+, +:any+ or +:qname+
        # @param value [Object] not nil
        # @param qname [String] the element's name as written ("p:local" or "local")
        # @param default_in_scope [Boolean] a default namespace is in scope in the element
        #   (an unprefixed QName in its text would take it)
        # @return [String]
        # @raise [Types::InvalidValue]
        def element_content(type, value, qname, default_in_scope = false)
          case type
          when :xml then ">#{xml_content(value)}"
          when :any then value.is_a?(Model) ? typed_content(value, qname) : AnyWriter.new(qname).write(value)
          else qname_content(value, qname, default_in_scope)
          end
        end

        # A +"*"+ +:any+ item (an +xsd:any+ wildcard's element), written whole:
        # a one-pair Hash (the element's key to its value) as decoding gives it, the key named as
        # a child in +"#content"+ is (unbraced: in the record's namespace).
        #
        # @param value [Object] not nil
        # @param prefix [String] the record's prefix for its own namespace ("p:" or "")
        # @return [String]
        # @raise [Types::InvalidValue]
        def wildcard_element(value, prefix)
          unless value.is_a?(Hash) && value.size == 1
            raise Types::InvalidValue, "expected a one-pair Hash {element name => :any value} for a \"*\" :any item, got #{Types.describe(value)}"
          end

          AnyWriter.new(prefix).write_children(value)
        end

        # A model in an +:any+ element (an +xsd:anyType+ value): written as the
        # document element of its own encode would be, its xsi:type naming its
        # class (so that decoding gives the class back) and its namespaces
        # declared on the element.
        def typed_content(value, qname)
          klass = value.class
          unless klass.xml_type
            raise Types::InvalidValue, "a #{Model.display_name(klass)} in an :any value needs an xml_type (its xsi:type) to be read back"
          end

          out = MODEL_WRITER.typed_element(value, qname)
          # What follows "<qname", without the end tag the caller writes.
          close = "</#{qname}>"
          out.end_with?(close) ? out.byteslice(qname.bytesize + 1, out.bytesize - (2 * qname.bytesize) - 4) : "#{out.byteslice(qname.bytesize + 1, out.bytesize - qname.bytesize - 3)}>"
        end

        # What follows +name="+ for a +:qname+ XML attribute: +prefix:local+, the
        # closing quote, and the declaration of the prefix, made on the element
        # itself with a prefix of the attribute's own (its model index in it), so
        # that it never clashes with another declaration of the start tag.
        #
        # @param value [Object] not nil
        # @param default_in_scope [Boolean] a default namespace is in scope at the element
        # @param index [Integer] the attribute's index in its model
        # @return [String]
        # @raise [Types::InvalidValue]
        def qname_attribute(value, default_in_scope, index)
          qname = Types::QNameType.coerce(value) or
            raise Types::InvalidValue, "expected #{Types::QNameType::EXPECTED_VALUE} for :qname, got #{Types.describe(value)}"
          uri = qname.namespace
          local = XML::Escape.attribute(qname.local_name)
          return %(xml:#{local}") if uri == XML::Syntax::XML_NS
          return %(#{local}") if uri.nil? && !default_in_scope
          if uri.nil?
            raise Types::InvalidValue, "the QName #{qname.local_name.inspect} has no namespace, but a default namespace is in scope " \
                                       "at the element, where an unprefixed QName takes that namespace"
          end

          prefix = "#{XML::Escape.automatic_prefix(uri)}-#{index}"
          %(#{prefix}:#{local}"#{XML::Escape.declaration(prefix, uri)})
        end

        # An +:xml+ value checked to be well-formed XML content, as written.
        # @return [String]
        # @raise [Types::InvalidValue]
        def xml_content(value)
          unless value.is_a?(String)
            raise Types::InvalidValue, "expected XML text (a String) for :xml, got #{Types.describe(value)}"
          end

          XML::Escape.text(value) # valid UTF-8 (or convertible) and XML 1.0 characters, as any text
          utf8 = value.encoding == Encoding::UTF_8 ? value : utf8_copy(value)
          begin
            XML::Tokenizer.new("<x>#{utf8}</x>", **XML::DEFAULT_LIMITS, dtd: :reject).run
          rescue ParseError => e
            raise Types::InvalidValue, "the :xml value is not well-formed XML content (#{e.message}): #{Types.excerpt(value)}"
          end
          utf8
        end

        private

        def utf8_copy(value)
          value.encoding == Encoding::BINARY ? value.dup.force_encoding(Encoding::UTF_8) : value.encode(Encoding::UTF_8)
        end

        def qname_content(value, element_qname, default_in_scope)
          qname = Types::QNameType.coerce(value) or
            raise Types::InvalidValue, "expected #{Types::QNameType::EXPECTED_VALUE} for :qname, got #{Types.describe(value)}"
          uri = qname.namespace
          if uri.nil?
            # An unprefixed QName takes the default namespace in scope; a prefixed element
            # can undeclare it for its text, an unprefixed one in that namespace cannot.
            return ">#{XML::Escape.text(qname.local_name)}" unless default_in_scope
            return %( xmlns="">#{XML::Escape.text(qname.local_name)}) if element_qname.include?(":")

            raise Types::InvalidValue, "the QName #{qname.local_name.inspect} has no namespace, but the element is written " \
                                       "in a default namespace, where an unprefixed QName takes that namespace " \
                                       "(give the model a prefix: xml_namespace uri, prefix: \"p\")"
          end
          return ">xml:#{XML::Escape.text(qname.local_name)}" if uri == XML::Syntax::XML_NS

          colon = element_qname.index(":")
          element_prefix = colon ? element_qname[0, colon] : nil
          prefix = qname.prefix
          prefix = nil unless prefix && NCNAME.match?(prefix) && !prefix.start_with?("xml", "XML", "Xml") && prefix != element_prefix
          prefix ||= XML::Escape.automatic_prefix(uri)
          "#{XML::Escape.declaration(prefix, uri)}>#{prefix}:#{XML::Escape.text(qname.local_name)}"
        end
      end

      # Writes the +:any+ shape with an explicit stack (no recursion on the
      # value's depth).
      # @api private
      class AnyWriter
        def initialize(qname)
          colon = qname.index(":")
          @prefix = colon ? qname[0, colon + 1] : ""
          @out = String.new(encoding: Encoding::UTF_8)
          @path = []
        end

        # @param value [String, Hash] the element's value (not nil)
        # @return [String] the rest of its start tag and its content (no end tag)
        def write(value)
          run([[value, @prefix, nil, nil, nil]])
        end

        # @param hash [Hash] child elements by key, as in an +:any+ Hash
        # @return [String] those elements, whole
        def write_children(hash)
          items = []
          hash.each { |key, value| child_items(items, key, value, @prefix) }
          run(items.reverse!)
        end

        private

        # A work item is a node, [value, prefix of its unbraced children, name
        # to open (nil: already open), its declaration, key], or an end tag (a String).
        def run(stack)
          until stack.empty?
            item = stack.pop
            if item.is_a?(String)
              @out << "</" << item << ">"
              @path.pop
              next
            end
            node, prefix, name, declaration, key = item
            next @out << XML::Escape.text(text_of(node)) if prefix == :text

            if name
              @path << key
              @out << "<" << name << declaration
            end
            if node.is_a?(Hash)
              stack.concat(hash_content(node, prefix).reverse!)
            else
              @out << ">" << XML::Escape.text(text_of(node))
            end
          end
          @out
        end

        def at
          @path.empty? ? "" : " at #{@path.join('/').inspect}"
        end

        def text_of(value)
          return value if value.is_a?(String)
          return value.to_s if TEXT_VALUE.include?(value.class)

          raise Types::InvalidValue, "expected a String, Hash or Array in the :any value#{at}, got #{Types.describe(value)}"
        end

        # Writes a Hash's attributes, ">" and "#text"; returns the work items of
        # its children, in order.
        def hash_content(hash, prefix)
          declared = nil
          content = nil
          children = []
          ordered = hash[KEY_CONTENT]
          hash.each do |key, value|
            raise Types::InvalidValue, "expected String keys in the :any value#{at}, got #{Types.describe(key)}" unless key.is_a?(String)
            next if value.nil?

            if key.start_with?("@")
              name = attribute_name(key, declared ||= {})
              @out << " " << name << "=\"" << XML::Escape.attribute(text_of(value)) << '"'
            elsif key == KEY_TEXT
              content = text_of(value)
            elsif !ordered && key != KEY_CONTENT
              child_items(children, key, value, prefix)
            end
          end
          @out << ">"
          return ordered_items(ordered, prefix) if ordered

          @out << XML::Escape.text(content) if content
          children
        end

        # The work items of "#content": text and children in the order it lists them.
        def ordered_items(ordered, prefix)
          raise Types::InvalidValue, "expected an Array for \"#content\" in the :any value#{at}, got #{Types.describe(ordered)}" unless ordered.is_a?(Array)

          items = []
          ordered.each do |piece|
            if piece.is_a?(Hash) && piece.size == 1
              piece.each { |key, value| child_items(items, key, value, prefix) }
            else
              items << [piece, :text]
            end
          end
          items
        end

        def child_items(items, key, value, prefix)
          raise Types::InvalidValue, "expected String keys in the :any value#{at}, got #{Types.describe(key)}" unless key.is_a?(String)

          name, declaration, child_prefix = element_name(key, prefix)
          (value.is_a?(Array) ? value : [value]).each do |child|
            items << [child, child_prefix, name, declaration, key] << name unless child.nil?
          end
        end

        def attribute_name(key, declared)
          name = key[1..]
          clark = CLARK.match(name)
          return check_name(name, key) unless clark

          uri, local = clark.captures
          check_name(local, key)
          return local if uri.empty?
          return "xml:#{local}" if uri == XML::Syntax::XML_NS

          prefix = XML::Escape.automatic_prefix(uri)
          unless declared[prefix]
            declared[prefix] = true
            @out << XML::Escape.declaration(prefix, uri)
          end
          "#{prefix}:#{local}"
        end

        # [name as written, its declaration, the prefix of its own unbraced children]
        def element_name(key, prefix)
          clark = CLARK.match(key)
          return ["#{prefix}#{check_name(key, key)}", "", prefix] unless clark

          uri, local = clark.captures
          [check_name(local, key), %( xmlns="#{XML::Escape.attribute(uri)}"), ""]
        end

        def check_name(local, key)
          return local if NCNAME.match?(local)

          raise Types::InvalidValue, "#{key.inspect} in the :any value#{at} is not a name (@name, @{uri}name, #text, name or {uri}name)"
        end
      end
    end
  end
end
