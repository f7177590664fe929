# frozen_string_literal: true

module Wirebind
  module WSDL
    # What a model class is made of, read from an XSD complex type (or an
    # element's anonymous one).
    class TypeSpec
      # @return [String] the XSD name (a type's, or its element's for an anonymous type)
      attr_reader :name
      # @return [String, nil] the target namespace it was declared in
      attr_reader :namespace
      # @return [Boolean] whether it is a named type (written as +xml_type+)
      attr_reader :named
      # @return [TypeSpec, nil] the type it extends
      attr_accessor :base
      # @return [Array<Field>] its own fields, in schema order (the base's come first in the class)
      attr_accessor :fields
      # @return [Boolean] whether its local elements are namespace-qualified (elementFormDefault)
      attr_reader :qualified
      # @return [Array(Object, Boolean, Array)] for a SOAP-encoded array type: the item type
      attr_accessor :array_of
      # @api private
      attr_reader :node, :context
      # @return [String, nil] the Ruby constant, set when the description is named
      attr_accessor :const

      def initialize(name, namespace, named, node, context)
        @name = name
        @namespace = namespace
        @named = named
        @node = node
        @context = context
        @qualified = context.elements_qualified
        @fields = nil
        @base = nil
        @array_of = nil
      end

      # @return [Boolean] whether it is a named type declared abstract="true"
      def abstract?
        named && node["abstract"] == "true"
      end

      # @return [String] +{namespace}name+
      def qualified_name
        namespace ? "{#{namespace}}#{name}" : name
      end

      # @return [Array<Field>] the base's fields, then its own, each XML name once
      def all_fields
        chain = []
        spec = self
        while spec
          raise InvalidError, "#{node.where}: the type extends itself" if chain.size > 256 || chain.include?(spec)

          chain.unshift(spec)
          spec = spec.base
        end
        seen = {}
        chain.flat_map(&:fields).select { |field| seen[field.key] ? false : (seen[field.key] = true) }
      end

      # @return [String] the type's qualified name, for messages and the console
      def inspect
        "#<Wirebind::WSDL::TypeSpec #{qualified_name}>"
      end
    end

    # One element, XML attribute or text of a {TypeSpec}.
    #
    # +type+ is a scalar Symbol or a {TypeSpec}; +list+ says whether it repeats;
    # +enum+ lists the allowed values of a string restricted by enumerations;
    # +wrapped+ marks a SOAP-encoded array (items inside a wrapper element).
    #
    # +substitutes+, for a reference to the head of a substitution group: the
    # elements that may stand in its place (the head first unless abstract), as
    # {Substitute}s whose types are all {TypeSpec}s.
    #
    # +fixed+: the value an XML Schema +fixed+ constraint allows (the text), or nil.
    #
    # +format+: for a +:string+ of a built-in type with a lexical space of its own
    # (xsd:duration, xsd:time, gYear...), the attribute's +format:+, or nil.
    Field = Struct.new(:kind, :local, :namespace, :type, :list, :enum, :wrapped, :default, :nillable, :optional,
                       :substitutes, :fixed, :format) do
      # @return [Array] what makes two fields the same XML name
      def key
        kind == :element ? [:element, local] : [kind, local, namespace]
      end

      # The repeated element of a document/literal wrapper type (ArrayOfX: a named
      # type whose only content is one repeated element of a model type), when
      # this field holds one such wrapper; nil otherwise.
      # @return [Field, nil]
      def wrapper_item
        return nil unless kind == :element && !list && type.is_a?(TypeSpec) && type.named && !type.base

        fields = type.fields
        item = fields.first
        return nil unless fields.size == 1 && item.kind == :element && item.list && !item.wrapped && !item.substitutes

        item.type.is_a?(TypeSpec) ? item : nil
      end
    end

    # The field of a type's +xsd:any+ wildcards: the elements no declared one
    # takes, each as a one-pair Hash (its name to its value) (+xml: "*"+).
    WILDCARD = Field.new(:wildcard, "any", nil, :any, true, nil, false, nil, false, true).freeze

    # A global element that may stand for a substitution group's head.
    Substitute = Struct.new(:namespace, :local, :type)

    # The XML Schema part of a description: every global definition of every
    # schema read, by namespace and name, and the {TypeSpec}s made from them.
    #
    # @api private
    class Schema
      Context = Struct.new(:tns, :elements_qualified, :attributes_qualified)
      Definition = Struct.new(:node, :context)

      SCALARS = Types::XSD::SCALARS
      STRING_FORMATS = Types::XSD::STRING_FORMATS
      NAME = XML::Syntax::NCNAME_ONLY
      # Longest chain of simple type restrictions, group or attribute group references followed.
      MAX_CHAIN = 256

      def initialize(schemas)
        @complex = {}
        @simple = {}
        @elements = {}
        @groups = {}
        @attribute_groups = {}
        @attributes = {}
        @specs = {}
        @anonymous = {}.compare_by_identity
        @substitutes = {}
        @pending = []
        schemas.each { |node, tns| index(node, tns) }
      end

      # @return [Array<TypeSpec>] a spec for every complex type and every element's
      #   anonymous complex type, fields compiled (SOAP-encoded arrays left out: they
      #   are lists of their item type)
      def specs
        @complex.each_key { |key| spec_for_type(key) }
        @elements.each do |(_, name), definition|
          complex = xsd_child(definition.node, "complexType")
          anonymous(complex, name, definition.context) if complex
        end
        compile_pending
        (@specs.values + @anonymous.values).reject(&:array_of)
      end

      # @return [Array(String, String), nil] the global element's namespace and name, and its node
      def element(key)
        @elements[key]
      end

      # The type of a global element, or nil when it is not declared.
      # @return [Array(Object, Boolean, Array), nil] [type, list, enum]
      def element_type(key)
        definition = @elements[key] or return nil
        ref = declared_type(definition.node, definition.context, key[1])
        compile_pending
        ref
      end

      # The type a QName names, as a field would hold it.
      # @return [Array(Object, Boolean, Array)] [type, list, enum]
      def type(node, qname)
        ref = resolve(node, node.qname(qname))
        compile_pending
        ref
      end

      private

      def xsd?(node)
        XSD_NAMESPACES.include?(node.uri)
      end

      def xsd_child(node, local)
        node.children.find { |child| child.local == local && xsd?(child) }
      end

      def index(node, tns)
        context = Context.new(tns, node["elementFormDefault"] == "qualified", node["attributeFormDefault"] == "qualified")
        node.children.each do |child|
          next unless xsd?(child)

          if child.local == "redefine"
            child.children.each { |inner| define(inner, tns, context) if xsd?(inner) }
          else
            define(child, tns, context)
          end
        end
      end

      def define(child, tns, context)
        name = child["name"] or return
        table =
          case child.local
          when "complexType" then @complex
          when "simpleType" then @simple
          when "element" then @elements
          when "group" then @groups
          when "attributeGroup" then @attribute_groups
          when "attribute" then @attributes
          else return
          end
        return if table.key?([tns, name])

        table[[tns, name]] = Definition.new(child, context)
        return unless table.equal?(@elements) && (head = child["substitutionGroup"])

        (@substitutes[child.qname(head)] ||= []) << [tns, name]
      end

      # The elements that may stand for the head +key+, transitively, in the
      # order the schemas declare them (no recursion; a cycle ends).
      def substitution_members(key)
        members = []
        seen = { key => true }
        queue = [key]
        while (current = queue.shift)
          (@substitutes[current] || []).each do |member|
            next if seen[member]

            seen[member] = true
            members << member
            queue << member
          end
        end
        members
      end

      # {Substitute}s for a head with substitutes, nil when any of them is not a
      # complex type (then the head's own type is used, as before).
      def substitutes(head_key, head)
        members = substitution_members(head_key)
        return nil if members.empty?

        keys = head.node["abstract"] == "true" ? members : [head_key] + members
        keys.map do |key|
          definition = @elements[key]
          type, list, = declared_type(definition.node, definition.context, key[1])
          return nil unless type.is_a?(TypeSpec) && !list

          Substitute.new(key[0], key[1], type)
        end
      end

      def compile_pending
        until @pending.empty?
          spec = @pending.shift
          compile(spec)
        end
      end

      def spec_for_type(key)
        @specs.fetch(key) do
          definition = @complex.fetch(key)
          spec = TypeSpec.new(key[1], key[0], true, definition.node, definition.context)
          @specs[key] = spec
          spec.array_of = soap_array(definition.node, definition.context)
          @pending << spec unless spec.array_of
          spec
        end
      end

      def anonymous(node, element_name, context)
        @anonymous.fetch(node) do
          spec = TypeSpec.new(element_name, context.tns, false, node, context)
          @anonymous[node] = spec
          spec.array_of = soap_array(node, context)
          @pending << spec unless spec.array_of
          spec
        end
      end

      # A restriction of soapenc:Array: the item type, from wsdl:arrayType
      # ("tns:Item[]") or from the restriction's repeated element. An arrayType
      # naming no type but a global element (published rpc/encoded WSDLs do) is
      # that element's type, named or anonymous.
      def soap_array(node, context)
        restriction = (content = xsd_child(node, "complexContent")) && xsd_child(content, "restriction")
        return nil unless restriction && restriction["base"] && restriction.qname(restriction["base"]) == [ENCODING_NS, "Array"]

        @array_depth = (@array_depth || 0) + 1
        raise InvalidError, "#{node.where}: arrays nest deeper than #{MAX_CHAIN}" if @array_depth > MAX_CHAIN

        begin
          stack = restriction.children.dup
          while (child = stack.shift)
            if child.local == "attribute" && (array_type = child.attrs["{#{WSDL_NS}}arrayType"])
              item = array_type.sub(/\[[\d,\s]*\]\z/, "")
              return [:string, true, nil] if item.include?("[")

              return item_of(array_item(child, child.qname(item)))
            elsif child.local == "element" && xsd?(child)
              return item_of(declared_type(child, context, child["name"] || "item"))
            elsif xsd?(child) && %w[sequence all choice].include?(child.local)
              stack.concat(child.children)
            end
          end
          [:string, true, nil]
        ensure
          @array_depth -= 1
        end
      end

      def array_item(node, key)
        definition = !type_defined?(key) && @elements[key]
        definition ? declared_type(definition.node, definition.context, key[1]) : resolve(node, key)
      end

      def type_defined?(key)
        XSD_NAMESPACES.include?(key[0]) || key[0] == ENCODING_NS || @complex.key?(key) || @simple.key?(key)
      end

      def item_of(ref)
        [ref[0], true, ref[2], ref[3]]
      end

      # [type, list, enum, string format] of a QName.
      def resolve(node, key)
        uri, local = key
        if (XSD_NAMESPACES.include?(uri) || uri == ENCODING_NS) && (scalar = SCALARS[local])
          return [scalar, false, nil, STRING_FORMATS[local]]
        end
        return [:string, false, nil] if uri == ENCODING_NS && local == "Array"

        if @complex.key?(key)
          spec = spec_for_type(key)
          return spec.array_of || (open_content?(spec.node) ? [:any, false, nil] : [spec, false, nil])
        end
        return simple(@simple[key].node) if @simple.key?(key)

        raise InvalidError, "#{node.where}: the type {#{uri}}#{local} is not defined in any schema read"
      end

      # The scalar a simple type restricts, its enumeration if it is a string one.
      def simple(node)
        enum = nil
        MAX_CHAIN.times do
          restriction = xsd_child(node, "restriction")
          return [:string, false, nil] unless restriction # a list or a union: a string

          values = restriction.children.select { |facet| facet.local == "enumeration" && xsd?(facet) }.map { |facet| facet["value"].to_s }
          enum ||= values.freeze unless values.empty?
          if (base = restriction["base"])
            key = restriction.qname(base)
            if (XSD_NAMESPACES.include?(key[0]) || key[0] == ENCODING_NS) && (scalar = SCALARS[key[0] && key[1]])
              return [scalar, false, scalar == :string ? enum : nil, STRING_FORMATS[key[1]]]
            end
            raise InvalidError, "#{restriction.where}: the type {#{key[0]}}#{key[1]} is not a simple type defined in any schema read" unless @simple.key?(key)

            node = @simple[key].node
          else
            node = xsd_child(restriction, "simpleType") or return [:string, false, enum]
          end
        end
        raise InvalidError, "#{node.where}: simple type restrictions chain deeper than #{MAX_CHAIN}"
      end

      # [type, list, enum] of an element or attribute declaration.
      def declared_type(decl, context, name)
        decl, context = typed_declaration(decl, context)
        if (type = decl["type"])
          resolve(decl, decl.qname(type))
        elsif (complex = xsd_child(decl, "complexType"))
          spec = anonymous(complex, name, context)
          spec.array_of || (open_content?(complex) ? [:any, false, nil] : [spec, false, nil])
        elsif (simple = xsd_child(decl, "simpleType"))
          simple(simple)
        else
          # No type at all: xsd:anyType, whose content is kept whatever it is.
          [:any, false, nil]
        end
      end

      # A substitution group's member declared without a type has its head's
      # (at any depth); any other declaration is its own.
      def typed_declaration(decl, context)
        MAX_CHAIN.times do
          return [decl, context] if decl["type"] || xsd_child(decl, "complexType") || xsd_child(decl, "simpleType")

          head = decl["substitutionGroup"] && @elements[decl.qname(decl["substitutionGroup"])]
          return [decl, context] unless head

          decl = head.node
          context = head.context
        end
        raise InvalidError, "#{decl.where}: substitution groups nest deeper than #{MAX_CHAIN}"
      end

      # A complex type whose content is only wildcards (+xsd:any+) or mixed text,
      # no declared child element: its elements are read as +:any+ (text,
      # attributes and children kept); its class stays generated.
      def open_content?(node)
        return false if xsd_child(node, "complexContent") || xsd_child(node, "simpleContent")

        open = node["mixed"] == "true"
        stack = node.children.dup
        while (child = stack.pop)
          next unless xsd?(child)

          case child.local
          when "element", "group" then return false
          when "any" then open = true
          when "sequence", "choice", "all" then stack.concat(child.children)
          end
        end
        open
      end

      def compile(spec)
        node = spec.node
        context = spec.context
        fields = []
        content = node
        if (complex = xsd_child(node, "complexContent"))
          derivation = xsd_child(complex, "extension") || xsd_child(complex, "restriction")
          content = derivation if derivation
          spec.base = base_spec(derivation) if derivation&.local == "extension"
        elsif (simple = xsd_child(node, "simpleContent"))
          derivation = xsd_child(simple, "extension") || xsd_child(simple, "restriction")
          if derivation
            content = derivation
            base = derivation["base"] && derivation.qname(derivation["base"])
            if base && @complex.key?(base)
              spec.base = base_spec(derivation)
            else
              type, _, enum, format = base ? resolve(derivation, base) : [:string, false, nil]
              type = :string unless type.is_a?(Symbol) && type != :any
              fields << Field.new(:text, ".", nil, type, false, enum, false, nil, false, false, nil, nil, type == :string ? format : nil)
            end
          end
        end
        walk(content, context, fields)
        spec.fields = fields.freeze
      end

      def base_spec(derivation)
        base = derivation["base"] or return nil
        key = derivation.qname(base)
        unless @complex.key?(key)
          # A built-in or simple base adds no fields; an unknown one would lose them.
          return nil if XSD_NAMESPACES.include?(key[0]) || key[0] == ENCODING_NS || @simple.key?(key)

          raise InvalidError, "#{derivation.where}: the base type {#{key[0]}}#{key[1]} is not defined in any schema read"
        end

        spec = spec_for_type(key)
        spec.array_of ? nil : spec
      end

      # The particles and attributes of a content model, in order, through group
      # and attribute group references: an explicit stack, no recursion. What a
      # group declares takes the namespace and forms of the schema that
      # declares the group (XLink's qualified xlink:type in an OWS type).
      def walk(content, context, fields)
        stack = content.children.reverse.map { |child| [child, false, 0, context] }
        until stack.empty?
          node, many, depth, context = stack.pop
          next unless xsd?(node)

          case node.local
          when "sequence", "choice", "all"
            repeated = many || repeats?(node)
            node.children.reverse_each { |child| stack << [child, repeated, depth, context] }
          when "group", "attributeGroup"
            next unless (ref = node["ref"])

            table = node.local == "group" ? @groups : @attribute_groups
            definition = table[node.qname(ref)] or raise InvalidError, "#{node.where}: #{ref} is not defined in any schema read"
            raise InvalidError, "#{node.where}: group references nest deeper than #{MAX_CHAIN}" if depth >= MAX_CHAIN

            repeated = many || repeats?(node)
            definition.node.children.reverse_each { |child| stack << [child, repeated, depth + 1, definition.context] }
          when "element"
            fields << element_field(node, context, many || repeats?(node))
          when "any"
            # Wildcards beside declared elements (ONVIF's wsnt:Message, EWS): the
            # other elements, in order, each keeping its name (one field for all).
            fields << WILDCARD unless fields.include?(WILDCARD)
          when "attribute"
            field = attribute_field(node, context)
            fields << field if field
          end
        end
      end

      def check_name(node, local)
        raise InvalidError, "#{node.where}: #{local.inspect} is not an XML name" unless local.match?(NAME)
      end

      def repeats?(node)
        max = node["maxOccurs"] or return false
        max = max.strip
        max == "unbounded" || (max.match?(/\A\d+\z/) && max.to_i > 1)
      end

      def element_field(node, context, many)
        if (ref = node["ref"])
          key = node.qname(ref)
          definition = @elements[key] or raise InvalidError, "#{node.where}: the element #{ref} is not defined in any schema read"
          local = key[1]
          namespace = key[0]
          type, list, enum, format = declared_type(definition.node, definition.context, local)
          nillable = definition.node["nillable"] == "true"
          substitutes = substitutes(key, definition)
          fixed = node["fixed"] || definition.node["fixed"]
        else
          local = node["name"] or raise InvalidError, "#{node.where}: an element without a name or ref"
          qualified = node["form"] ? node["form"] == "qualified" : context.elements_qualified
          namespace = qualified ? context.tns : nil
          type, list, enum, format = declared_type(node, context, local)
          nillable = node["nillable"] == "true"
          fixed = node["fixed"]
        end
        check_name(node, local)
        Field.new(:element, local, namespace, type, many || list, enum, list && !many, nil, nillable, node["minOccurs"].to_s.strip == "0",
                  substitutes, fixed, format)
      end

      def attribute_field(node, context)
        return nil if node["use"] == "prohibited"

        if (ref = node["ref"])
          key = node.qname(ref)
          # soapenc:arrayType and the like belong to the encoding, not to the data.
          return nil if key[0] == ENCODING_NS || key[0] == WSDL_NS

          definition = @attributes[key]
          decl = definition ? definition.node : node
          local = key[1]
          namespace = key[0]
        else
          decl = node
          local = node["name"] or raise InvalidError, "#{node.where}: an attribute without a name or ref"
          qualified = node["form"] ? node["form"] == "qualified" : context.attributes_qualified
          namespace = qualified ? context.tns : nil
        end
        type, _, enum, format =
          if decl.equal?(node) || definition then declared_type(decl, context, local)
          else [:string, false, nil]
          end
        format = nil unless type == :string
        type = :string unless type.is_a?(Symbol) && type != :any
        check_name(node, local)
        Field.new(:attribute, local, namespace, type, false, enum, false, node["default"] || decl["default"], false, false, nil,
                  node["fixed"] || decl["fixed"], format)
      end
    end
  end
end
