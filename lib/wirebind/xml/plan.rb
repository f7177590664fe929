# frozen_string_literal: true

require_relative "pure/syntax"

module Wirebind
  module XML
    # The XML plan of a model class: its schema compiled, once, into frozen tables
    # the codecs walk. For decoding, a Hash from each element's local name to where
    # its value goes (a {Slot}) or to the wrapper it opens (a {Group}); for
    # encoding, the same entries in declaration order.
    #
    # Paths in +xml:+ share wrappers: +"meta/a"+ and +"meta/b"+ are two slots of one
    # Group. Entries for the same local name in different namespaces are chained
    # through +alt+. For elements a nil +uri+ matches any namespace (the lenient
    # rule) and +""+ (from +"{}local"+) only no namespace. For XML attributes the
    # +uri+ is matched exactly, nil being no namespace: an unprefixed attribute is in
    # no namespace whatever the default namespace (Namespaces in XML, 6.2), so
    # +"@type"+ never reads +xsi:type+.
    #
    # @api private
    class Plan
      # Frame kinds shared by plans, groups and slots, so a decoder can branch on
      # an Integer instead of a class test.
      SCALAR = 0
      MODEL = 1
      GROUP = 2
      # A +:xml+ or +:any+ element: its content is captured (XML::Capture).
      OPEN = 3

      # "*" in a path: any local name, any namespace.
      ANY_STEP = [nil, nil].freeze

      # Where one value goes. +index+ is the attribute's position in the model's
      # values (nil for the record itself), +type+ a scalar Symbol or a model Class.
      Slot = Struct.new(:kind, :index, :type, :list, :name, :uri, :alt, :nil_xsi, :attribute, :default_offset,
                        keyword_init: true) do
        # @return [Plan] the plan of this slot's model type (compiled on first use:
        #   models may refer to each other, or to themselves)
        def plan
          Plan.for(type)
        end
      end

      # A wrapper element on the way to one or more slots; +attributes+ and
      # +attribute_writes+ are the XML attributes read from it by path
      # (+"city-state/@zipcode"+), as a plan's.
      Group = Struct.new(:kind, :name, :uri, :alt, :table, :any, :writes, :attributes, :attribute_writes, keyword_init: true)

      NCNAME_ONLY = /\A#{Wirebind::XML::Pure::Syntax::NCNAME_SRC}\z/
      PATH_MARKS = %r{[/{}]}
      # "@xml:lang": the one prefix a path may use, bound by XML itself.
      XML_PREFIX = "xml:"

      # @return [Class] the model class
      attr_reader :klass
      # @return [Hash{String => Slot, Group}] child elements by local name
      attr_reader :table
      # @return [Slot, Group, nil] the entry for any other child element ("*")
      attr_reader :any
      # @return [Array<Slot>] XML attributes in declaration order, for encoding
      attr_reader :attribute_writes
      # @return [Hash{String => Slot}] XML attributes by local name
      attr_reader :attributes
      # @return [Slot, nil] the slot of the element's own text ("."), if declared
      attr_reader :text
      # @return [Integer] how many values a record of this class has
      attr_reader :size
      # @return [Symbol] the generated +__wb_fill_vN+ of the schema this plan
      #   was made from (see Model::ClassMethods#__wb_builders): the native
      #   decoder builds records with it
      attr_reader :filler
      # @return [Array<Slot, Group>] child entries in declaration order, for encoding
      attr_reader :writes
      # @return [String] the local name of the element a record is written as
      attr_reader :root_name
      # @return [String, nil] the model's namespace
      attr_reader :namespace
      # @return [String, nil] the model's namespace prefix
      attr_reader :prefix

      class << self
        # @return [Plan] the (cached, frozen) plan of +klass+
        def for(klass)
          # Deeply frozen, so Ractors other than the main one may read it too.
          klass.wirebind_plan(:xml) { Shareable.make(new(klass)) }
        end

        # Splits a path at the slashes that are not inside a `{uri}`.
        # @return [Array<String>]
        def split_path(path)
          segments = []
          start = 0
          in_uri = false
          # From one of "/{}" to the next, not char by char: models declare attributes by the
          # thousand when generated code loads.
          at = -1
          while (at = path.index(PATH_MARKS, at + 1))
            # String#index counts characters (a URI may hold any): compare the character, not a byte.
            case path[at]
            when "{" then in_uri = true
            when "}" then in_uri = false
            else
              next if in_uri

              segments << path[start...at]
              start = at + 1
            end
          end
          segments << path[start..]
        end

        # Checks an +xml:+ mapping when it is declared, so that a bad path is a
        # SchemaError there and not at the first decode.
        # @return [void]
        # @raise [SchemaError]
        def check_mapping(xml, model, list, context)
          parse(xml, context).then do |shape, *|
            next if shape == :element

            raise SchemaError, "#{context}: the element's text must be a scalar" if shape == :text && (model || list)
            raise SchemaError, "#{context}: an XML attribute must be a scalar" if shape == :attribute && (model || list)
          end
        end

        # Splits an +xml:+ mapping into what it names:
        # [:text], [:attribute, [local, uri], element_steps] (element_steps empty for
        # the record's own attribute) or [:element, steps].
        # @return [Array]
        def parse(xml, context)
          return [:text].freeze if xml == "."

          segments = split_path(xml)
          last = segments.last
          if last.start_with?("@")
            elements = segments[0...-1].map { |segment| path_step(segment, context) }
            raise SchemaError, "#{context}: '*' cannot lead to an XML attribute" if elements.any? { |local, _| local.nil? }

            return [:attribute, attribute_step(last[1..], context), elements]
          end
          steps = segments.map do |segment|
            raise SchemaError, "#{context}: an XML attribute ('@') can only end a path" if segment.start_with?("@")

            path_step(segment, context)
          end
          raise SchemaError, "#{context}: '*' may only end a path" if steps[0...-1].any? { |local, _| local.nil? }

          [:element, steps]
        end

        # An attribute's name: "name" (no namespace), "{}name" (the same),
        # `{uri}name` or "xml:name".
        # @return [Array(String, String)] local name and namespace (nil: none)
        def attribute_step(segment, context)
          if segment.start_with?(XML_PREFIX) && segment.size > XML_PREFIX.size && segment[XML_PREFIX.size..].match?(NCNAME_ONLY)
            return [segment[XML_PREFIX.size..].freeze, Pure::Syntax::XML_NS].freeze
          end

          local, uri = path_step(segment, context)
          raise SchemaError, "#{context}: an XML attribute needs a name" unless local

          [local, uri.nil? || uri.empty? ? nil : uri].freeze
        end

        # Parses one step of a path: "local", `{uri}local` or "*".
        # @return [Array(String, String)] local name (nil for "*") and namespace (nil for any)
        def path_step(segment, context)
          return ANY_STEP if segment == "*"

          uri = nil
          local = segment
          if segment.start_with?("{")
            close = segment.index("}")
            raise SchemaError, "#{context}: '#{segment}' has no closing '}'" unless close

            uri = segment[1...close]
            local = segment[(close + 1)..]
          end
          unless local.match?(NCNAME_ONLY)
            raise SchemaError, "#{context}: '#{segment}' is not an element name (use a local name, {uri}local or *)"
          end

          [local.freeze, uri&.freeze].freeze
        end
      end

      def initialize(klass)
        @klass = klass
        @table = {}
        @any = nil
        @attributes = {}
        @attribute_writes = []
        @text = nil
        @writes = []
        @root_name = klass.xml_root
        @namespace = klass.xml_namespace_uri
        @prefix = klass.xml_namespace_prefix
        attrs = klass.attributes
        @size = attrs.size
        @loader, @filler = klass.__wb_builders
        attrs.each { |attribute| add(attribute) }
        freeze_tables
        freeze
      end

      # A record from its values, by the builder of the schema this plan was
      # made from: a schema that changed since cannot mix into it.
      # @param values [Array] aligned with the plan's slots
      # @return [Wirebind::Model]
      def build(values)
        @klass.allocate.__send__(@loader, values)
      end

      private

      def add(attribute)
        context = "#{@klass}##{attribute.name} (xml: #{attribute.xml.inspect})"
        xml = attribute.xml
        kind = attribute.model? ? MODEL : OpenContent.kind(attribute.type)
        self.class.check_mapping(xml, kind == MODEL, attribute.list?, context)
        shape, name, elements = self.class.parse(xml, context)
        case shape
        when :text
          raise SchemaError, "#{context}: the element's text is already mapped" if @text

          @text = slot(attribute, kind, nil, nil)
        when :attribute
          holder = elements.empty? ? self : wrapper(elements, context)
          local, uri = name
          raise SchemaError, "#{context}: XML attribute '#{xml}' is already mapped" if find(holder.attributes, local, uri)

          entry = slot(attribute, kind, local, uri)
          chain(holder.attributes, local, entry)
          holder.attribute_writes << entry
        when :element
          attribute.choices ? add_choices(attribute, name, context) : add_path(attribute, kind, name, context)
        end
      end

      # [A, B, C] with xml: "*" or "wrapper/*": one decoding entry per class, by its
      # element name (+xml_root+, in its namespace when it has one), all filling one
      # list in document order; one "*" entry writes each item as its own class.
      def add_choices(attribute, steps, context)
        unless steps.last == ANY_STEP
          raise SchemaError, "#{context}: a list of several model classes is mapped by element name: use \"*\" or \"wrapper/*\""
        end

        holder = wrapper(steps[0...-1], context)
        raise SchemaError, "#{context}: '*' is already mapped here" if holder.any

        attribute.choices.each do |choice|
          local = choice.xml_root
          uri = choice.xml_namespace_uri
          if find(holder.table, local, uri)
            raise SchemaError, "#{context}: <#{local}> (#{Model.display_name(choice)}) is already mapped here; each class needs its own xml_root"
          end

          chain(holder.table, local, slot(attribute, MODEL, local, uri).tap { |entry| entry.type = choice })
        end
        holder.writes << slot(attribute, MODEL, nil, nil)
      end

      # The group of the last of +steps+, made on the way (the groups of a path).
      def wrapper(steps, context)
        holder = self # the plan or a group: anything with table, any and writes
        steps.each do |local, uri|
          existing = find(holder.table, local, uri)
          if existing.nil?
            group = Group.new(kind: GROUP, name: local, uri: uri, table: {}, any: nil, writes: [], attributes: {}, attribute_writes: [])
            insert(holder, local, group, context)
            holder = group
          elsif existing.kind == GROUP
            holder = existing
          else
            raise SchemaError, "#{context}: <#{local}> is already mapped to a value, it cannot also be a wrapper"
          end
        end
        holder
      end

      def add_path(attribute, kind, steps, context)
        holder = wrapper(steps[0...-1], context)
        local, uri = steps.last
        entry = slot(attribute, kind, local, uri)
        if local.nil?
          raise SchemaError, "#{context}: '*' is already mapped here" if holder.any

          holder.any = entry if holder.is_a?(Group)
          @any = entry unless holder.is_a?(Group)
          holder.writes << entry
        else
          raise SchemaError, "#{context}: <#{local}> is already mapped" if find(holder.table, local, uri)

          insert(holder, local, entry, context)
        end
      end

      def find(table, local, uri)
        entry = table[local]
        entry = entry.alt while entry && entry.uri != uri
        entry
      end

      # Adds an entry; entries of one local name keep namespaced ones first, so a
      # lookup tries the exact namespace before the any-namespace entry.
      def insert(holder, local, entry, _context)
        chain(holder.table, local, entry)
        holder.writes << entry
      end

      def chain(table, local, entry)
        head = table[local]
        if head.nil?
          table[local] = entry
        elsif entry.uri.nil?
          tail = head
          tail = tail.alt while tail.alt
          tail.alt = entry
        else
          entry.alt = head
          table[local] = entry
        end
      end

      def slot(attribute, kind, local, uri)
        Slot.new(kind: kind, index: attribute.index, type: attribute.type, list: attribute.list?,
                 name: local, uri: uri, alt: nil, nil_xsi: attribute.nil_style == :xsi, attribute: attribute,
                 default_offset: attribute.default_offset)
      end

      def freeze_tables
        freeze_group(self)
        @attributes.each_value do |slot|
          slot = slot.freeze.alt while slot
        end
        @attributes.freeze
        @attribute_writes.freeze
        @text&.freeze
      end

      # Freezes a plan's or group's entries iteratively (wrappers may nest deeply
      # in a contrived schema; a schema is still input to be careful with).
      def freeze_group(root)
        pending = [root]
        until pending.empty?
          holder = pending.pop
          holder.writes.each do |entry|
            pending << entry if entry.kind == GROUP
            entry.freeze unless entry.kind == GROUP
          end
          if holder.is_a?(Group)
            holder.attributes.each_value { |slot| slot = slot.freeze.alt while slot }
            holder.attributes.freeze
            holder.attribute_writes.freeze
          end
          holder.table.freeze
          holder.writes.freeze
          holder.freeze if holder.is_a?(Group)
        end
      end
    end
  end
end
