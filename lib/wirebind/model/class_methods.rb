# frozen_string_literal: true

module Wirebind
  module Model
    # The schema DSL every model class gets, and what the codecs ask of it.
    #
    # A class's schema is its attribute list and its XML and JSON settings. A
    # subclass starts with a copy of its parent's schema and may add to it,
    # redeclare inherited attributes, and change settings; none of it reaches
    # the parent. The copy is taken when the subclass is defined: what is added
    # to the parent afterwards does not reach the subclass either (its readers
    # and writers do, as Ruby methods, but not its place in the schema). Declare
    # a parent completely before subclassing it.
    module ClassMethods
      # XML's NCName, approximated: a name without a colon.
      XML_NAME = /\A[[:alpha:]_][[:alnum:]_.-]*\z/
      NO_PLANS = {}.freeze
      NO_PREFIXES = {}.freeze
      NO_ATTRIBUTES = [].freeze
      XML_NS = Namespaces::XML
      private_constant :XML_NAME, :NO_PLANS, :NO_PREFIXES, :NO_ATTRIBUTES, :XML_NS

      # Declares an attribute: a reader, a writer, a keyword of +new+, and a
      # place on the wire.
      #
      # @example
      #   attribute :release_date, :time, xml: "releaseDate"
      #   attribute :labels, [:string], xml: "label"
      #   attribute :versions, [Version], xml: "affectsVersions/*"
      #
      # @param name [Symbol] matches +/\A[a-z_][a-zA-Z0-9_]*\z/+ and is none of
      #   the methods every object needs (+hash+, +class+, +send+, ...)
      # @param type [Symbol, Class, Array] a name from {Types::SCALARS}, a model
      #   class, or a one-element Array of either for a list
      # @param options [Hash]
      # @option options [String] :xml the XML path; default: +name+ in lowerCamelCase
      # @option options [String] :json the JSON key; default: +name+, or lowerCamelCase
      #   under <tt>json_keys :camel</tt>
      # @option options [Symbol] :nil how XML writes a nil: +:omit+ (the default)
      #   leaves it out, +:xsi+ writes xsi:nil="true"
      # @option options [Boolean] :one_or_many JSON: a list attribute also reads a
      #   single item (a HAL rel: one link object or an array of them)
      # @option options [Symbol] :string_as JSON: a model attribute also reads a
      #   string, into the model's +:string+ attribute of this name (a JSON:API
      #   link: +"/a"+ or +{"href": "/a"}+)
      # @option options [Boolean, Symbol] :lenient_numbers JSON: an +:integer+,
      #   +:float+ or +:decimal+ also reads a string holding a number (+"-58.17"+);
      #   {json_numbers} sets it for a whole model. +:string+ also writes the
      #   number as a JSON string (+"price": "19.99"+)
      # @option options [Symbol] :format a +:time+ written otherwise than as
      #   xs:dateTime: +:rfc822+ ("Tue, 10 Jun 2003 04:00:00 GMT" or "... -0500",
      #   RSS's pubDate), +:epoch+ (whole seconds since 1970 as an integer, Stripe's
      #   "created") or +:epoch_ms+ (milliseconds); XML and JSON alike
      # @option options [Array<String>] :enum the only values a +:string+ attribute
      #   (or list) may hold: decoding another is a {DecodeError}, encoding one an
      #   {EncodeError} (XML and JSON, both backends); nil is always allowed
      # @option options [Boolean] :open_enum with +enum:+: decoding keeps a value
      #   outside the enumeration (the String as read, for a server newer than
      #   the schema); encoding still refuses it
      # @return [Attribute]
      # @raise [SchemaError] a bad name, type or option, or a name declared twice
      #   in this class (redeclaring an inherited one replaces it, in place)
      def attribute(name, type, **options)
        name = Attribute.check_name(self, name)
        SCHEMA_LOCK.synchronize do
          reader = Attribute.reader_name(name)
          attributes = @__wb_attributes
          inherited = Attribute.named(attributes, name)
          other = Attribute.reader_taken(attributes, name, reader)
          if inherited&.owner.equal?(self)
            raise SchemaError, "#{Model.display_name(self)}.attribute #{name.inspect} is declared twice"
          end

          if other
            raise SchemaError, "#{Model.display_name(self)}.attribute #{name.inspect}: its reader ##{reader} is also " \
                               "#{other.name.inspect}'s"
          end

          index = inherited ? inherited.index : @__wb_attributes.length
          attribute = Attribute.declare(self, name, type, options, index: index, json_keys: @__wb_json_keys)
          # Only mappings that start with the same element (or text, or XML attribute) can clash.
          head = XML::Plan.mapping_head(attribute.xml)
          same_head = @__wb_xml_heads[head]
          XML::Plan.check_siblings(attribute, same_head.is_a?(Array) ? same_head : [same_head]) if same_head
          Attribute.index_mapping(@__wb_xml_heads, head, attribute, inherited)
          Model.enums_declared! if attribute.enum || attribute.string_format
          Model.time_formats_declared! if attribute.converted?
          attributes = @__wb_attributes.dup
          attributes[index] = attribute
          @__wb_attributes = attributes.freeze
          @__wb_generated_methods.accessor(reader, name) unless inherited
          @__wb_methods_stale ||= Generator.defer(@__wb_generated_methods)
          schema_changed
          attribute
        end
      end

      # Declares the model's binary layout: its fields, in wire order. Each
      # field is an attribute: declared here (+:integer+, +:float+ for f32/f64,
      # +:base64+ for a payload) unless the class already has an attribute of
      # that name and a fitting type, which it then maps. See {Wirebind::Binary}.
      #
      # @example An HTTP/2 frame
      #   binary do
      #     field :length, :u24
      #     field :type, :u8
      #     field :flags, :u8
      #     bits :reserved, 1
      #     bits :stream_id, 31
      #     payload :data, length: :length
      #   end
      #
      # @param endian [Symbol] +:big+ (the default) or +:little+, for every field
      # @return [Wirebind::Binary::Layout]
      # @raise [SchemaError]
      def binary(endian: :big, &block)
        layout = Wirebind::Binary::Layout.build(self, endian, &block)
        SCHEMA_LOCK.synchronize do
          @__wb_binary = layout
          schema_changed
        end
        layout
      end

      # @return [Wirebind::Binary::Layout, nil] the layout {#binary} declared
      def binary_layout
        @__wb_binary
      end

      # @return [Array<Attribute>] frozen, in declaration order, inherited ones first
      def attributes
        @__wb_attributes
      end

      # Sets the XML namespace of the element a record of this class is written as.
      #
      # @param uri [String, nil] the namespace; nil for none (to undo a parent's)
      # @param prefix [String, nil] the prefix to write it with; nil for none
      # @return [void]
      # @raise [SchemaError]
      def xml_namespace(uri, prefix: nil)
        unless uri.nil? || (uri.is_a?(String) && !uri.empty?)
          raise SchemaError, "#{Model.display_name(self)}.xml_namespace: the URI must be a non-empty String or nil, not #{uri.inspect}"
        end
        unless prefix.nil? || (uri && prefix.is_a?(String) && XML_NAME.match?(prefix) && !%w[xml xmlns].include?(prefix))
          raise SchemaError, "#{Model.display_name(self)}.xml_namespace: #{prefix.inspect} cannot be a prefix#{' without a URI' unless uri}"
        end

        if uri && (problem = XML::Plan.namespace_problem(uri))
          raise SchemaError, "#{Model.display_name(self)}.xml_namespace: #{problem}"
        end

        SCHEMA_LOCK.synchronize do
          @__wb_xml_namespace_uri = uri && -uri
          @__wb_xml_namespace_prefix = prefix && -prefix
          schema_changed
        end
        nil
      end

      # @return [String, nil] the namespace set by {#xml_namespace}
      def xml_namespace_uri
        @__wb_xml_namespace_uri
      end

      # @return [String, nil] the prefix set by {#xml_namespace}
      def xml_namespace_prefix
        @__wb_xml_namespace_prefix
      end

      # Names the prefix to write a namespace with, for the names of this class's
      # attributes declared in it (`xml:` paths that name it in braces) and for
      # its records' own names when {#xml_namespace} gave no prefix. Inherited.
      # Without one, such a namespace is written with an automatic prefix
      # ("wb" and a checksum of the URI).
      #
      # @example
      #   CORE = "urn:core_2020_2.platform.webservices.netsuite.com"
      #   xml_prefix "platformCore", CORE
      #   attribute :status, Status, xml: "{#{CORE}}status"   # <platformCore:status>
      #
      # @param prefix [String] an XML name without a colon, not +xml+ or +xmlns+
      # @param uri [String] the namespace, non-empty (not the XML namespace, whose
      #   prefix is always +xml+)
      # @return [void]
      # @raise [SchemaError] a bad prefix or URI, or a prefix this class already
      #   uses for another namespace
      def xml_prefix(prefix, uri)
        unless prefix.is_a?(String) && XML_NAME.match?(prefix) && !prefix.match?(/\Axml/i)
          raise SchemaError, "#{Model.display_name(self)}.xml_prefix: #{prefix.inspect} cannot be a prefix"
        end
        unless uri.is_a?(String) && !uri.empty? && uri != XML_NS
          raise SchemaError, "#{Model.display_name(self)}.xml_prefix: #{uri.inspect} cannot be given a prefix"
        end

        if (problem = XML::Plan.namespace_problem(uri))
          raise SchemaError, "#{Model.display_name(self)}.xml_prefix: #{problem}"
        end

        SCHEMA_LOCK.synchronize do
          taken = @__wb_xml_prefixes.find { |other_uri, other| other == prefix && other_uri != uri }
          taken ||= [@__wb_xml_namespace_uri] if prefix == @__wb_xml_namespace_prefix && uri != @__wb_xml_namespace_uri
          raise SchemaError, "#{Model.display_name(self)}.xml_prefix: #{prefix.inspect} already stands for #{taken[0].inspect}" if taken

          @__wb_xml_prefixes = @__wb_xml_prefixes.merge(-uri => -prefix).freeze
          schema_changed
        end
        nil
      end

      # @return [Hash{String => String}] the prefixes {#xml_prefix} declared, by namespace
      def xml_prefixes
        @__wb_xml_prefixes
      end

      # Reads, or with an argument sets, the name of the element a record of
      # this class is written as.
      #
      # @param name [String, nil] the element name, without a prefix
      # @return [String] the name set here or inherited; by default the class
      #   name without its modules ("Issue" for +Tracker::Issue+), or "record"
      #   for an anonymous class
      # @raise [SchemaError]
      def xml_root(name = nil)
        unless name.nil?
          unless name.is_a?(String) && XML_NAME.match?(name)
            raise SchemaError, "#{Model.display_name(self)}.xml_root: #{name.inspect} is not an XML element name"
          end

          SCHEMA_LOCK.synchronize do
            @__wb_xml_root = -name
            schema_changed
          end
        end
        # The default follows the class's name, which an anonymous class only
        # gets when first assigned to a constant.
        @__wb_xml_root || (self.name ? self.name[/[^:]+\z/] : "record")
      end

      # Names this class's XML Schema type, as +xsi:type+ writes it: SOAP
      # rpc/encoded writes it on every record, and wherever a record's declared
      # type is a model class, an +xsi:type+ naming a subclass that declared
      # +xml_type+ decodes into that subclass. Not inherited: a subclass is
      # another type and declares its own.
      #
      # When decoding, a type is found by its local name and namespace (the
      # +xsi:type+ value's prefix resolved where it appears): first a class
      # declared in exactly that namespace, then one whose +matching:+ accepts
      # it, then one declared without a namespace.
      #
      # @example
      #   class RemoteIssue < AbstractRemoteEntity
      #     xml_type "RemoteIssue", namespace: "http://beans.soap.rpc.jira.atlassian.com"
      #   end
      # @example NetSuite: one type across the versions of its namespace
      #   class Customer < Record
      #     xml_type "Customer", namespace: "urn:relationships_2020_2.lists.webservices.netsuite.com",
      #                          matching: /\Aurn:relationships_\d{4}_\d\.lists\.webservices\.netsuite\.com\z/
      #   end
      #
      # @param name [String, nil] the type's local name; nil reads the setting
      # @param namespace [String, nil] the type's namespace, the one encoding
      #   writes; nil matches any namespace when decoding (and is written unprefixed)
      # @param matching [Regexp, :any, nil] other namespaces the type is recognized
      #   in when decoding (services that rebind one prefix to several versions of
      #   a namespace, such as NetSuite's, need that): a pattern the namespace
      #   must match, or +:any+ for any namespace (including none)
      # @param root [Boolean] true: a record of this class is also written as an
      #   element of the type's name and namespace, as {#xml_root} +name+ and
      #   {#xml_namespace} +namespace+ declare it (what generated code declares
      #   for a named type of a schema whose elements are qualified: one call
      #   instead of three, for each of thousands of classes)
      # @return [Array(String, String), nil] the type's name and namespace, if declared
      # @raise [SchemaError]
      def xml_type(name = nil, namespace: nil, matching: nil, root: false)
        unless name.nil?
          unless name.is_a?(String) && XML_NAME.match?(name)
            raise SchemaError, "#{Model.display_name(self)}.xml_type: #{name.inspect} is not an XML type name"
          end
          unless namespace.nil? || (namespace.is_a?(String) && !namespace.empty?)
            raise SchemaError, "#{Model.display_name(self)}.xml_type: the namespace must be a non-empty String or nil, not #{namespace.inspect}"
          end

          if namespace && (problem = XML::Plan.namespace_problem(namespace))
            raise SchemaError, "#{Model.display_name(self)}.xml_type: #{problem}"
          end
          unless matching.nil? || matching == :any || matching.is_a?(Regexp)
            raise SchemaError, "#{Model.display_name(self)}.xml_type: matching: must be a Regexp, :any or nil, not #{matching.inspect}"
          end
          raise SchemaError, "#{Model.display_name(self)}.xml_type: root: must be true or false, not #{root.inspect}" unless root == true || root == false

          SCHEMA_LOCK.synchronize do
            if root
              @__wb_xml_root = -name
              @__wb_xml_namespace_uri = namespace && -namespace
              @__wb_xml_namespace_prefix = nil
            end
            @__wb_xml_type = [-name, namespace && -namespace].freeze
            @__wb_xml_type_matching = matching.is_a?(Regexp) ? Shareable.make(matching.dup) : matching
            Model.register_xml_type(self)
            schema_changed
          end
        end
        @__wb_xml_type
      end

      # @return [Regexp, :any, nil] the +matching:+ of {#xml_type}
      def xml_type_matching
        @__wb_xml_type_matching
      end

      # Marks this class as an abstract XML Schema type: a record of exactly
      # this class is an +EncodeError+ wherever it is written (only a subclass,
      # written with its +xsi:type+, may stand for it); decoding is unaffected.
      # Not inherited: a subclass is concrete unless it declares it too.
      #
      # @example EWS's t:Path
      #   class BasePathToElementType
      #     include Wirebind::Model
      #     xml_abstract
      #   end
      #
      # @return [void]
      def xml_abstract
        SCHEMA_LOCK.synchronize do
          @__wb_xml_abstract = true
          schema_changed
        end
      end

      # Takes the parent's schema as it is now, for a subclass created before
      # its parent was declared completely (a subclass otherwise keeps the
      # copy taken when it was created). Generated code creates every class
      # first, so that types may refer to each other in any order, then
      # declares each class, a parent before its subclasses: a subclass calls
      # this first and declares only what it adds.
      #
      # @example
      #   class Base; include Wirebind::Model; end
      #   class Derived < Base; end
      #   class Base; attribute :id, :integer; end
      #   class Derived
      #     inherit_schema # Derived.attributes now starts with :id
      #     attribute :name, :string
      #   end
      #
      # @return [void]
      # @raise [SchemaError] the class has no model parent, or has already declared
      #   something of its own
      def inherit_schema
        parent = superclass
        unless ClassMethods === parent
          raise SchemaError, "#{Model.display_name(self)}.inherit_schema: its parent #{Model.display_name(parent)} is not a model"
        end

        SCHEMA_LOCK.synchronize do
          unless @__wb_schema_generation.zero?
            raise SchemaError, "#{Model.display_name(self)}.inherit_schema comes before the class's own declarations"
          end

          @__wb_attributes, @__wb_xml_namespace_uri, @__wb_xml_namespace_prefix, @__wb_xml_prefixes, @__wb_xml_root,
            @__wb_json_keys, @__wb_json_numbers, @__wb_binary, heads = parent.__wb_schema_values
          @__wb_xml_heads = heads.dup
          schema_changed
        end
      end

      # @return [Boolean] whether this class declared {#xml_abstract}
      def xml_abstract?
        @__wb_xml_abstract == true
      end

      # Reads, or with an argument sets, how default JSON keys are spelled.
      #
      # @param style [Symbol, nil] +:snake+ (the default: keys are the attribute
      #   names) or +:camel+ (lowerCamelCase); explicit +json:+ keys never change
      # @return [Symbol] the style in effect
      # @raise [SchemaError]
      def json_keys(style = nil)
        unless style.nil?
          unless Attribute::JSON_KEY_STYLES.include?(style)
            raise SchemaError, "#{Model.display_name(self)}.json_keys: must be :snake or :camel, not #{style.inspect}"
          end

          SCHEMA_LOCK.synchronize do
            @__wb_json_keys = style
            @__wb_attributes = @__wb_attributes.map { |attribute| attribute.with_json_keys(style) }.freeze
            schema_changed
          end
        end
        @__wb_json_keys
      end

      # Reads, or with an argument sets, how this class's +:integer+, +:float+
      # and +:decimal+ attributes read JSON.
      #
      # @example Prices written as strings ("-58.17")
      #   json_numbers :lenient
      # @param style [Symbol, nil] +:strict+ (the default: a number must be a
      #   JSON number) or +:lenient+ (a JSON string holding one is read too, as
      #   +lenient_numbers: true+ on each of them); encoding writes numbers
      # @return [Symbol] the style in effect
      # @raise [SchemaError]
      def json_numbers(style = nil)
        unless style.nil?
          unless %i[strict lenient].include?(style)
            raise SchemaError, "#{Model.display_name(self)}.json_numbers: must be :strict or :lenient, not #{style.inspect}"
          end

          SCHEMA_LOCK.synchronize do
            @__wb_json_numbers = style
            schema_changed
          end
        end
        @__wb_json_numbers
      end

      # Reads, or with arguments sets, the member of a JSON object that names
      # its class (Stripe's +"object"+, GeoJSON's +"type"+), as +xml_type+ names
      # XML types: where a JSON value's declared type is this class (an
      # attribute, a list item, the document), the member's value picks the
      # class to decode into, wherever the member is in the object; absent or
      # null, the declared class itself. Encoding a record of a mapped class
      # writes the member first. Declared on the base class, after the
      # subclasses it names (each is this class or a subclass of it). The
      # classes' attributes with one JSON key must have one type; a member of
      # another class than the one picked is passed over, as an unknown one.
      #
      # @example Stripe's objects
      #   StripeObject.json_type "object", "charge" => Charge, "refund" => Refund
      # @param key [String, nil] the discriminator's JSON key; nil reads the setting
      # @param classes [Hash{String => Class}] each value of the member and its class
      # @return [Array(String, Hash{String => Class}), nil] the key and classes, if declared here
      # @raise [SchemaError] a mapping that does not fit
      def json_type(key = nil, classes = nil)
        unless key.nil?
          where = "#{Model.display_name(self)}.json_type"
          raise SchemaError, "#{where}: the key must be a non-empty String, not #{key.inspect}" unless key.is_a?(String) && !key.empty?
          unless classes.is_a?(Hash) && !classes.empty?
            raise SchemaError, "#{where}: needs at least one value and its class, like \"charge\" => Charge"
          end

          classes.each do |value, klass|
            raise SchemaError, "#{where}: a value must be a String, not #{value.inspect}" unless value.is_a?(String)
            unless klass.is_a?(Class) && klass <= self
              raise SchemaError, "#{where}: #{value.inspect} => #{klass.inspect}: the class must be #{Model.display_name(self)} or a subclass of it"
            end
          end
          raise SchemaError, "#{where}: a class is named twice" unless classes.values.uniq.size == classes.size

          SCHEMA_LOCK.synchronize do
            @__wb_json_type = [-key, classes.to_h { |value, klass| [-value, klass] }.freeze].freeze
            schema_changed
          end
        end
        @__wb_json_type
      end

      # Decodes XML into records of this class.
      #
      # @param source [String, IO] the document
      # @param options [Hash] as {Wirebind::XML.decode} takes them, e.g. +at:+
      # @return [Object] what {Wirebind::XML.decode} returns
      def from_xml(source, **options)
        Wirebind::XML.decode(source, self, **options)
      end

      # Memoizes the block's result for this class and +format+ until the schema
      # changes. Safe under threads: two may compute the same plan, and a plan
      # computed while the schema changed is neither kept nor returned: the
      # block runs again, so that what a caller gets was computed from one
      # schema throughout (and names that schema's builders, {#__wb_builders}).
      #
      # A plan may copy the plans of the model classes it holds (the native JSON
      # plan does), so a plan is kept only while no model class's schema changed:
      # after any change each class makes its plans again on first use (a
      # holder's plan that still wrote a held class's old fields was a silently
      # dropped field, and decoding left the new one nil).
      #
      # @api private
      # @param format [Object] a Hash key, e.g. +:xml+
      # @yieldreturn [Object] the plan, computed from the schema
      # @return [Object] the memoized plan
      def wirebind_plan(format)
        kept = @__wb_plans[format]
        return kept[1] if kept && kept[0] == Model.schema_generation

        loop do
          generation = @__wb_schema_generation
          everyone = Model.schema_generation
          plan = yield
          # A change holds the lock from start to end: once we hold it, a
          # change that began while the block ran has moved the generation on.
          SCHEMA_LOCK.synchronize do
            # (Kept under the generation it started from: were another class
            # changed meanwhile, or by the block itself, the next use makes it again.)
            if generation == @__wb_schema_generation
              @__wb_plans = @__wb_plans.merge(format => [everyone, plan].freeze).freeze
              return plan
            end
          end
        end
      end

      # The record builders of the schema as it is now: a +__wb_load_vN(values)+
      # and a +__wb_fill_vN(v0, v1, ...)+ generated for it (on first request)
      # and never redefined, so that a plan made from this schema keeps
      # building the records it was made for after the schema changes. Plans
      # ask for them inside {#wirebind_plan}'s block.
      #
      # @api private
      # @return [Array(Symbol, Symbol)] the names of the load and fill methods
      def __wb_builders
        SCHEMA_LOCK.synchronize do
          @__wb_builders ||= begin
            @__wb_builder_version += 1
            Generator.generate_builders(@__wb_generated_methods, @__wb_attributes, @__wb_builder_version)
          end
        end
      end

      # What a subclass copies of this class's schema (every value frozen, so
      # sharing them is copying them, but the index of XML heads, which the
      # subclass copies): the instance variables, in the order
      # {#__wb_start_schema} assigns them. Kept until the schema changes, so
      # that the subclasses of one class share one.
      #
      # (A subclass assigns them itself rather than through
      # instance_variable_set, and the helpers of declaring are called on
      # shared objects rather than on the class: each method called on a new
      # class costs Ruby a method cache entry kept for that class, thousands
      # of them for a large WSDL's generated code.)
      #
      # @api private
      # @return [Array] frozen
      def __wb_schema_values
        @__wb_schema_values ||= [
          @__wb_attributes, @__wb_xml_namespace_uri, @__wb_xml_namespace_prefix, @__wb_xml_prefixes, @__wb_xml_root,
          @__wb_json_keys, @__wb_json_numbers, @__wb_binary, @__wb_xml_heads
        ].freeze
      end

      # Starts the schema of a new model class: a copy of +parent+'s, or an
      # empty one; the generated methods' module in place, its methods to be
      # written on first use.
      #
      # @api private
      # @param parent [Class, nil] the model class to copy the schema from
      # @return [void]
      def __wb_start_schema(parent)
        if parent
          @__wb_attributes, @__wb_xml_namespace_uri, @__wb_xml_namespace_prefix, @__wb_xml_prefixes, @__wb_xml_root,
            @__wb_json_keys, @__wb_json_numbers, @__wb_binary, heads = parent.__wb_schema_values
          @__wb_xml_heads = heads.dup
        else
          @__wb_xml_heads = {}
          @__wb_attributes = NO_ATTRIBUTES
          @__wb_xml_namespace_uri = nil
          @__wb_xml_namespace_prefix = nil
          @__wb_xml_prefixes = NO_PREFIXES
          @__wb_xml_root = nil
          @__wb_json_keys = :snake
          @__wb_json_numbers = :strict
          @__wb_binary = nil
        end
        @__wb_schema_values = nil
        @__wb_xml_type = nil
        @__wb_json_type = nil
        @__wb_xml_type_matching = nil
        @__wb_xml_abstract = false
        @__wb_plans = NO_PLANS
        @__wb_schema_generation = 0
        @__wb_builders = nil
        @__wb_builder_version = 0
        @__wb_generated_methods = GeneratedMethods.new(self)
        include @__wb_generated_methods
        # Placeholders until the first call writes the methods for the
        # attributes as they are then ({#__wb_methods}): declaring a class and
        # its attributes costs no Ruby source at all, and a class with N
        # attributes is generated once, not N times.
        @__wb_methods_stale = Generator.defer(@__wb_generated_methods)
      end

      # Builds a record from decoded values, without +initialize+.
      #
      # @api private
      # @param values [Array] aligned with {#attributes}: +values[attribute.index]+;
      #   nil in a list's place gives an empty list
      # @return [Wirebind::Model] a new record with every attribute set
      def __wb_build(values)
        allocate.__wb_load(values)
      end

      private

      # Starts a subclass with a copy of this class's schema.
      def inherited(subclass)
        # Before super: another inherited hook may already declare attributes.
        subclass.__wb_start_schema(self)
        super
      end

      public

      # The module of this class's generated methods, written first if the
      # schema changed since they last were. The placeholders call it, then
      # the method it now holds.
      #
      # @api private
      # @return [GeneratedMethods]
      def __wb_methods
        return @__wb_generated_methods unless @__wb_methods_stale

        # A placeholder may run under the lock (an inspect in a schema error's message).
        SCHEMA_LOCK.owned? ? __wb_write_methods : SCHEMA_LOCK.synchronize { __wb_write_methods }
        @__wb_generated_methods
      end

      private

      def __wb_write_methods
        return unless @__wb_methods_stale

        Generator.generate(@__wb_generated_methods, @__wb_attributes)
        @__wb_methods_stale = false
      end

      # Call with SCHEMA_LOCK held, after the schema has changed.
      def schema_changed
        Model.schema_changed!
        @__wb_schema_generation += 1
        @__wb_plans = NO_PLANS
        @__wb_builders = nil
        @__wb_schema_values = nil
      end
    end
  end
end
