# frozen_string_literal: true

require_relative "syntax"

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
      # +home+ is the namespace of the model the slot belongs to (a plain name prefers
      # an element in it, or in none, over one in another namespace).
      # +attributes+ and +attribute_writes+ (nil when none) are the XML attributes
      # read by path from a single scalar's own element: +"Amt"+ beside
      # +"Amt/@Ccy"+, as a Group's.
      Slot = Struct.new(:kind, :index, :type, :list, :name, :uri, :alt, :nil_xsi, :attribute, :default_offset, :prefix, :home,
                        :attributes, :attribute_writes, keyword_init: true) do
        # @return [Plan] the plan of this slot's model type (compiled on first use:
        #   models may refer to each other, or to themselves)
        def plan
          Plan.for(type)
        end

        # @return [Symbol, nil] the +format:+ of a +:string+ slot's attribute
        #   ({Model::Attribute#string_format}: its XSD type, e.g. xsd:duration)
        def string_format
          attribute.is_a?(Model::Attribute) ? attribute.string_format : nil
        end
      end

      # A wrapper element on the way to one or more slots; +attributes+ and
      # +attribute_writes+ are the XML attributes read from it by path
      # (+"city-state/@zipcode"+), as a plan's.
      Group = Struct.new(:kind, :name, :uri, :alt, :table, :any, :writes, :attributes, :attribute_writes, :prefix, :home,
                         keyword_init: true)

      # A namespace a record's element must have in scope for its own names to
      # mean what the schema says: +prefix+ bound to +uri+, by +declaration+
      # (' xmlns:p="uri"').
      Need = Struct.new(:prefix, :uri, :declaration)

      # What the document element of a record of a class declares: every
      # namespace the class's tree of models can write (its own, its attributes'
      # `{uri}` names, and those of the model classes its attributes hold, to any
      # depth), worked out once per class. +needs+ are the bindings declared, in
      # the order +declarations+ writes them; +default_at_top+ whether a class
      # whose namespace has no prefix may make it the default namespace (only when
      # nothing in the tree is written in no namespace, which would need
      # +xmlns=""+ on every such element).
      Namespaces = Struct.new(:needs, :declarations, :default_at_top)

      NCNAME_ONLY = XML::Syntax::NCNAME_ONLY
      PATH_MARKS = %r{[/{}]}
      ASCII_CONTROL = /[\x00-\x1F\x7F]/
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
      # @return [Boolean] whether building a record may refuse a value
      #   (Model::Attribute#checked_on_build?): the native decoder rescues
      #   around such plans' builders only
      attr_reader :checked
      # @return [Array<Slot, Group>] child entries in declaration order, for encoding
      attr_reader :writes
      # @return [String] the local name of the element a record is written as
      attr_reader :root_name
      # @return [String, nil] the model's namespace
      attr_reader :namespace
      # @return [String, nil] the model's namespace prefix
      attr_reader :prefix
      # @return [String, nil] the prefix of the model's namespace where it is not
      #   the default one, when {#prefix} is nil: the class's {Model::ClassMethods#xml_prefix}
      #   for it, or the automatic one
      attr_reader :default_prefix
      # @return [Array<Need>] the bindings the record's own names use (its
      #   namespace's when it has a prefix, its XML attributes', its `{uri}`
      #   children's and wrappers'), each once, in the order they are declared
      #   when missing from the scope
      attr_reader :needs
      # @return [Boolean] whether a child is declared +"{}local"+ (in no namespace)
      attr_reader :unqualified_children

      class << self
        # @return [Plan] the (cached, frozen) plan of +klass+
        def for(klass)
          # Deeply frozen, so Ractors other than the main one may read it too.
          klass.wirebind_plan(:xml) { Shareable.make(new(klass)) }
        end

        # Whether +attribute+ (a Model::Attribute) may carry XML attributes by
        # path on its own element: a single scalar (not a list, model, :qname, :xml or :any).
        # @return [Boolean]
        def text_with_attributes?(attribute)
          !attribute.model? && !attribute.list? && !attribute.nested_list? && attribute.wire_type != :qname &&
            OpenContent.kind(attribute.wire_type) == SCALAR
        end

        # Where +attribute+ (a Model::Attribute) sits below its record's
        # element, by local names, as the decoders' errors name places
        # (+"s"+, +"@currency"+, +"price/@currency"+); nil for +"."+, the
        # element's own text.
        # @return [String, nil]
        def error_path(attribute)
          return nil if attribute.xml == "."

          split_path(attribute.xml).map do |segment|
            mark = segment.start_with?("@") ? "@" : ""
            name = segment.delete_prefix("@")
            name = name[(name.rindex("}") + 1)..] if name.start_with?("{") && name.include?("}")
            "#{mark}#{name.delete_prefix('xml:')}"
          end.join("/")
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
        # @param choices [Boolean] a list of several model classes, which is
        #   mapped by each class's element name: its path must end with "*"
        def check_mapping(xml, model, list, context, choices: false)
          parse(xml, context).then do |shape, steps|
            if choices && !(shape == :element && steps.last == ANY_STEP)
              raise SchemaError, "#{context}: a list of several model classes is mapped by element name: use \"*\" or \"wrapper/*\""
            end
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
            return [segment[XML_PREFIX.size..].freeze, XML::Syntax::XML_NS].freeze
          end

          local, uri = path_step(segment, context)
          raise SchemaError, "#{context}: an XML attribute needs a name" unless local
          if local == "xmlns" && (uri.nil? || uri.empty?)
            raise SchemaError, "#{context}: xmlns is a namespace declaration, not an XML attribute a schema can map"
          end

          [local, uri.nil? || uri.empty? ? nil : uri].freeze
        end

        # Parses one step of a path: "local", `{uri}local` or "*".
        # @return [Array(String, String)] local name (nil for "*") and namespace (nil for any)
        def path_step(segment, context)
          return ANY_STEP if segment == "*"

          uri = nil
          local = segment
          if segment.start_with?("{")
            # A local name holds no '}': the namespace runs to the last one.
            close = segment.rindex("}")
            raise SchemaError, "#{context}: '#{segment}' has no closing '}'" unless close

            uri = segment[1...close]
            local = segment[(close + 1)..]
          end
          step(local.freeze, uri&.freeze, context, segment)
        end

        # Checks one step of a path given as data: +local+ an element's local
        # name, +uri+ its namespace (nil: any; "": none).
        # @return [Array(String, String)] frozen
        def step(local, uri, context, shown = local)
          unless local.is_a?(String) && local.match?(NCNAME_ONLY)
            raise SchemaError, "#{context}: '#{shown}' is not an element name (use a local name, {uri}local or *)"
          end
          raise SchemaError, "#{context}: a namespace is a String or nil, not #{uri.inspect}" unless uri.nil? || uri.is_a?(String)

          if uri && !uri.empty? && (problem = namespace_problem(uri, xml: true))
            raise SchemaError, "#{context}: #{problem}"
          end

          [local.frozen? ? local : local.dup.freeze, uri && (uri.frozen? ? uri : uri.dup.freeze)].freeze
        end

        # What is wrong with a namespace a schema names (in an +xml:+ path,
        # +xml_namespace+, +xml_prefix+, +xml_type+), or nil: it must be text
        # XML 1.0 can hold, and not one of the two XML reserves (+xmlns+'s may
        # never be bound; XML's own only to its prefix +xml+, which is how a
        # path's +{uri}+ names are written).
        # @param xml [Boolean] whether XML's own namespace is allowed
        # @return [String, nil] the problem, for a SchemaError
        def namespace_problem(uri, xml: false)
          # Printable ASCII (every namespace in practice) is written as it is; anything else by the encoders' check.
          unless uri.ascii_only? && !uri.match?(ASCII_CONTROL)
            begin
              XML::Escape.attribute(uri)
            rescue Types::InvalidValue => e
              return "the namespace #{uri.inspect} cannot be written: #{e.message}"
            end
          end
          return "the namespace #{uri} is reserved for namespace declarations" if uri == XML::Syntax::XMLNS_NS
          return if xml || uri != XML::Syntax::XML_NS

          "the namespace #{uri} is XML's own, bound only to the prefix xml (name it in a path, as @xml:lang)"
        end

        # The first segment of an +xml:+ mapping (+"a"+ of +"a/b/@c"+, +"@id"+,
        # +"."+): only mappings with the same head can clash.
        # @return [String]
        def mapping_head(xml)
          if xml.include?("{")
            head = split_path(xml).first
            # "@{}a" is "@a" (an XML attribute in no namespace); "{}a" stays apart from "a", as in the plan.
            return head.start_with?("@{}") ? "@#{head[3..]}" : head
          end

          slash = xml.index("/")
          slash ? xml[0, slash] : xml
        end

        # Checks the +xml:+ mapping of +attribute+ against those of +others+
        # (the class's other attributes) when it is declared: two attributes on
        # one element, XML attribute or text, or an element that is both a
        # value and a wrapper, are a SchemaError there, not at the first use.
        # (Lists of several classes, mapped by each class's +xml_root+, which
        # may still change, are checked when the plan is built.)
        # @return [void]
        # @raise [SchemaError]
        # @param others [Array<Model::Attribute>] the class's attributes whose
        #   mapping has the same {mapping_head}: no other can clash
        def check_siblings(attribute, others)
          xml = attribute.xml
          mine = context = nil
          others.each do |other|
            next if other.equal?(attribute) || other.name == attribute.name

            context ||= "#{Model.display_name(attribute.owner)}.attribute #{attribute.name.inspect} (xml: #{xml.inspect})"
            mine ||= parse(xml, context)
            clash = clash(mine, attribute, parse(other.xml, context), other)
            raise SchemaError, "#{context}: #{clash} (by :#{other.name})" if clash
          end
        end

        private

        # What Plan#add would refuse when +mine+ came after +theirs+ (both from {parse}), or nil.
        def clash(mine, attribute, theirs, other)
          case [mine[0], theirs[0]]
          when %i[text text]
            "the element's text is already mapped"
          when %i[attribute attribute]
            "XML attribute '#{attribute.xml}' is already mapped" if mine[1] == theirs[1] && mine[2] == theirs[2]
          when %i[attribute element]
            value_as_wrapper(theirs[1], mine[2], false) unless attributes_beside_text?(theirs[1], other, mine[2])
          when %i[element attribute]
            value_as_wrapper(mine[1], theirs[2], true) unless attributes_beside_text?(mine[1], attribute, theirs[2])
          when %i[element element]
            mine_steps = mine[1]
            their_steps = theirs[1]
            if mine_steps == their_steps
              # Several classes' lists share "*" by their roots: the plan sees those.
              return if attribute.choices || other.choices

              local = mine_steps.last[0]
              local ? "<#{local}> is already mapped" : "'*' is already mapped here"
            else
              value_as_wrapper(mine_steps, their_steps[0...-1], true) || value_as_wrapper(their_steps, mine_steps[0...-1], false)
            end
          end
        end

        # Whether an XML attribute on the elements +wrappers+ may sit beside the
        # value at +value+ (a path) of +holder+ (the Model::Attribute mapped
        # there): only on the value's own element, and only when it is a single
        # scalar (ISO 20022's +<Amt Ccy="EUR">12</Amt>+, UBL's +@currencyID+).
        def attributes_beside_text?(value, holder, wrappers)
          value == wrappers && Plan.text_with_attributes?(holder)
        end

        # The message when the element +value+ (a value's path) is one of
        # +wrappers+ (the elements another path goes through), or nil;
        # +new_value+: the value is the mapping being declared.
        def value_as_wrapper(value, wrappers, new_value)
          return unless value.size <= wrappers.size && wrappers[0, value.size] == value && value.last[0]

          local = value.last[0]
          new_value ? "<#{local}> is already a wrapper, it cannot also be a value" : "<#{local}> is already mapped to a value, it cannot also be a wrapper"
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
        @prefixes = prefixes_of(klass)
        @default_prefix = @namespace && !@prefix ? prefix_for(@namespace) : nil
        @needs = []
        @unqualified_children = false
        attrs = klass.attributes
        @size = attrs.size
        @loader, @filler = klass.__wb_builders
        @checked = attrs.any?(&:checked_on_build?)
        attrs.each { |attribute| add(attribute) }
        check_whole_content
        remove_instance_variable(:@prefixes)
        collect_needs
        freeze_tables
        freeze
      end

      # @return [Namespaces] what the document element of a +klass+ record declares
      #   (cached, frozen). Records whose class the tree cannot name in advance
      #   (subclasses written with +xsi:type+) declare what else they need on
      #   their own element, as does a record whose prefix is already taken.
      #   Kept until +klass+'s schema changes: a nested class changed since only
      #   declares on its own elements what the set lacks (the output stays right).
      def self.namespaces(klass)
        klass.wirebind_plan(:xml_namespaces) { Shareable.make(collect_namespaces(klass)) }
      end

      # A breadth-first walk of the model classes reachable from +klass+, each
      # once (schemas may be recursive): their needs in order, the first binding
      # of each prefix kept (another namespace wanting the same prefix is declared
      # where it is used).
      def self.collect_namespaces(klass)
        classes = [klass]
        seen = { klass => true }.compare_by_identity
        needs = []
        unqualified = false
        late = [] # namespaces without a prefix, written with their default_prefix when nested
        root = Plan.for(klass)
        index = 0
        while index < classes.size
          plan = Plan.for(classes[index])
          nested = index.positive?
          index += 1
          unqualified ||= plan.unqualified_children || (nested && plan.namespace.nil?)
          late << Need.new(plan.default_prefix, plan.namespace, nil) if nested && plan.default_prefix
          needs.concat(plan.needs)
          plan.model_types.each do |type|
            next if seen[type]

            seen[type] = true
            classes << type
          end
        end
        # A namespace without a prefix takes one already declared for it, if any;
        # the root's, when it is the default namespace, needs none (nothing in the
        # tree then resets the default namespace).
        late.each do |need|
          next if needs.any? { |other| other.uri == need.uri }
          next if !unqualified && need.uri == root.namespace && root.default_prefix

          needs << Need.new(need.prefix, need.uri, XML::Escape.declaration(need.prefix, need.uri).freeze).freeze
        end
        if root.default_prefix && unqualified && needs.none? { |other| other.uri == root.namespace }
          needs.unshift(Need.new(root.default_prefix, root.namespace, XML::Escape.declaration(root.default_prefix, root.namespace).freeze).freeze)
        end
        declared = {}
        needs = needs.select { |need| declared[need.prefix].nil? && (declared[need.prefix] = need.uri) }.uniq
        Namespaces.new(needs.freeze, needs.map(&:declaration).join.freeze, !unqualified).freeze
      end
      private_class_method :collect_namespaces

      # @return [Array<Class>] the model classes this plan's attributes hold
      #   (each once), in declaration order
      def model_types
        types = []
        @klass.attributes.each do |attribute|
          next unless attribute.model?

          (attribute.choices || [attribute.type]).each { |type| types << type unless types.include?(type) }
        end
        types
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
        if attribute.nested_list?
          raise SchemaError, "#{context}: a list of lists maps to JSON only; XML has no shape that tells " \
                             "where an inner list ends (wrap the inner list in a model)"
        end
        kind = attribute.model? ? MODEL : OpenContent.kind(attribute.wire_type)
        self.class.check_mapping(xml, kind == MODEL, attribute.list?, context)
        shape, name, elements = self.class.parse(xml, context)
        case shape
        when :text
          raise SchemaError, "#{context}: the element's text is already mapped" if @text

          @text = slot(attribute, kind, nil, nil)
        when :attribute
          holder = elements.empty? ? self : wrapper(elements, context, attributes: true)
          local, uri = name
          raise SchemaError, "#{context}: XML attribute '#{xml}' is already mapped" if find(holder.attributes, local, uri)

          entry = slot(attribute, kind, local, uri)
          chain(holder.attributes, local, entry)
          holder.attribute_writes << entry
        when :element
          attribute.choices ? add_choices(attribute, name, context) : add_path(attribute, kind, name, context)
        end
      end

      # :xml as "." holds the element's whole content: no child element can be
      # mapped beside it (XML attributes can).
      def check_whole_content
        return unless @text&.kind == OPEN && (!@table.empty? || @any)

        raise SchemaError, "#{@klass}##{@text.attribute.name} (xml: \".\"): an :xml value as \".\" holds the element's whole " \
                           "content; no child element can be mapped beside it"
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
      # +attributes+: the steps lead to an XML attribute, which may sit on a single
      # scalar's element.
      def wrapper(steps, context, attributes: false)
        holder = self # the plan or a group: anything with table, any and writes
        steps.each_with_index do |(local, uri), at|
          existing = find(holder.table, local, uri)
          if attributes && at == steps.size - 1 && existing&.kind == SCALAR && Plan.text_with_attributes?(existing.attribute)
            # A single scalar's own element ("Amt" beside "Amt/@Ccy"); most slots have no attributes: made here.
            existing.attributes ||= {}
            existing.attribute_writes ||= []
            holder = existing
            break
          end

          if existing.nil?
            group = Group.new(kind: GROUP, name: local, uri: uri, table: {}, any: nil, writes: [], attributes: {}, attribute_writes: [],
                              prefix: uri.nil? || uri.empty? ? nil : prefix_for(uri), home: @namespace)
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
        elsif (existing = find(holder.table, local, uri))
          raise SchemaError, "#{context}: <#{local}> is already mapped" unless attributes_only?(existing) && Plan.text_with_attributes?(attribute)

          # "Amt/@Ccy" came first and made <Amt> a wrapper: the value takes its place and its attributes.
          entry.attributes = existing.attributes
          entry.attribute_writes = existing.attribute_writes
          replace(holder, local, existing, entry)
        else
          insert(holder, local, entry, context)
        end
      end

      # A Group that only holds XML attributes (no child element).
      def attributes_only?(entry)
        entry.kind == GROUP && entry.table.empty? && entry.any.nil?
      end

      # Puts +entry+ where +old+ was, in the table's chain and in the writes.
      def replace(holder, local, old, entry)
        entry.alt = old.alt
        if holder.table[local].equal?(old)
          holder.table[local] = entry
        else
          before = holder.table[local]
          before = before.alt until before.alt.equal?(old)
          before.alt = entry
        end
        holder.writes[holder.writes.index { |write| write.equal?(old) }] = entry
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
        Slot.new(kind: kind, index: attribute.index, type: attribute.wire_type, list: attribute.list?,
                 name: local, uri: uri, alt: nil, nil_xsi: attribute.nil_style == :xsi, attribute: attribute,
                 default_offset: attribute.default_offset, prefix: uri.nil? || uri.empty? ? nil : prefix_for(uri), home: @namespace)
      end

      # The prefixes this class names namespaces with, by URI: those it declared
      # with {Model::ClassMethods#xml_prefix}, then those the model classes its
      # attributes hold declared for their own namespace (an attribute holding
      # Photo named in Photo's namespace is written with Photo's prefix), unless the prefix is
      # already taken here.
      def prefixes_of(klass)
        prefixes = klass.xml_prefixes.dup
        taken = prefixes.invert
        taken[klass.xml_namespace_prefix] = klass.xml_namespace_uri if klass.xml_namespace_prefix
        klass.attributes.each do |attribute|
          next unless attribute.model?

          (attribute.choices || [attribute.type]).each do |type|
            uri = type.xml_namespace_uri
            prefix = type.xml_namespace_prefix
            next if prefix.nil? || prefixes.key?(uri) || taken.key?(prefix)

            prefixes[uri] = prefix
            taken[prefix] = uri
          end
        end
        prefixes
      end

      # The prefix this class writes +uri+ with: "xml" for the XML namespace, its
      # own prefix for its own namespace, one of #prefixes_of, or the automatic one.
      def prefix_for(uri)
        return "xml" if uri == XML::Syntax::XML_NS
        return @prefix if @prefix && uri == @namespace

        @prefixes[uri] || XML::Escape.automatic_prefix(uri)
      end

      # The bindings this record's own names use (see #needs), each once.
      def collect_needs
        need(@prefix, @namespace) if @prefix
        pending = [self]
        until pending.empty?
          holder = pending.shift
          holder.attribute_writes.each { |slot| need(slot.prefix, slot.uri) if slot.uri }
          next if holder.is_a?(Slot) # a scalar's element: its XML attributes only

          holder.writes.each do |entry|
            if entry.uri == ""
              @unqualified_children = true unless @namespace.nil?
            elsif entry.uri && entry.uri != @namespace
              need(entry.prefix, entry.uri)
            end
            pending << entry if entry.kind == GROUP || entry.attribute_writes
          end
        end
        @needs.freeze
      end

      def need(prefix, uri)
        return if uri == XML::Syntax::XML_NS || @needs.any? { |other| other.prefix == prefix && other.uri == uri }

        @needs << Need.new(prefix, uri, XML::Escape.declaration(prefix, uri).freeze).freeze
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

      # Freezes the XML attributes a group or a scalar's element maps.
      def freeze_attributes(holder)
        holder.attributes.each_value { |slot| slot = slot.freeze.alt while slot }
        holder.attributes.freeze
        holder.attribute_writes.freeze
      end

      # Freezes a plan's or group's entries iteratively (wrappers may nest deeply
      # in a contrived schema; a schema is still input to be careful with).
      def freeze_group(root)
        pending = [root]
        until pending.empty?
          holder = pending.pop
          holder.writes.each do |entry|
            pending << entry if entry.kind == GROUP
            freeze_attributes(entry) if entry.kind != GROUP && entry.attribute_writes
            entry.freeze unless entry.kind == GROUP
          end
          freeze_attributes(holder) if holder.is_a?(Group)
          holder.table.freeze
          holder.writes.freeze
          holder.freeze if holder.is_a?(Group)
        end
      end
    end
  end
end
