# frozen_string_literal: true

module Wirebind
  module Model
    # One declared attribute: its Ruby name, its type and its names on the wire.
    # Frozen; a class's schema is the frozen list of these ({ClassMethods#attributes}).
    #
    # @api private
    class Attribute
      # Ruby's identifiers: non-ASCII letters, marks and digits too (a WSDL's
      # КонтактнаяИнформация is +контактная_информация+), starting as a local
      # variable does (not with an uppercase letter or a digit).
      NAME_PATTERN = /\A[_\p{Ll}\p{Lo}][_\p{L}\p{M}\p{N}]*\z/

      # Names a model's instances cannot give up: what Ruby itself calls on any
      # object (Object's public methods in Ruby 3.1, initialization, implicit
      # conversions, Marshal, YAML and pp hooks) and what every model defines.
      # A fixed list, so that a schema means the same whatever else is loaded.
      # An attribute may have such a name (SAML's +Method+, SEPA's +binding+):
      # it is its keyword in +new+, its +to_h+ key and its default wire name, but
      # its reader and writer are +<name>_value+ ({.reader_name}), never the
      # method Ruby needs.
      RESERVED_NAMES = %i[
        __id__ __send__ _dump binding class clone define_singleton_method display dup
        encode_with enum_for extend freeze hash init_with initialize initialize_clone
        initialize_copy initialize_dup inspect instance_eval instance_exec
        instance_variable_get instance_variable_set instance_variables itself
        marshal_dump marshal_load method method_missing methods object_id
        pretty_inspect pretty_print pretty_print_cycle pretty_print_inspect
        pretty_print_instance_variables private_methods protected_methods
        public_method public_methods public_send remove_instance_variable send
        singleton_class singleton_method singleton_methods taint tap then to_a
        to_ary to_enum to_h to_hash to_int to_io to_json to_path to_proc to_regexp
        to_s to_str to_sym to_xml to_yaml trust untaint untrust yield_self
      ].freeze
      # Wirebind's own methods on models and their classes start with this.
      INTERNAL_PREFIX = "__wb"
      NIL_STYLES = %i[omit xsi].freeze
      JSON_KEY_STYLES = %i[snake camel].freeze
      OPTIONS = %i[xml json nil enum open_enum default_offset format one_or_many string_as lenient_numbers expandable].freeze
      RESERVED_SET = RESERVED_NAMES.to_h { |name| [name, true] }.freeze
      OPTION_SET = OPTIONS.to_h { |option| [option, true] }.freeze

      # A decoded value its attribute refuses as the record is built (outside
      # +enum:+, not in its +:time+ +format:+, not a list of lists of its type).
      # Raised by the record builders, which know the attribute but not where
      # the record is: a DecodeError naming the attribute alone. Every decoder
      # rescues it where the record's place is known and raises a DecodeError
      # with the whole path instead (JSON +segments[0][1].lat+, XML
      # +root/es/s+), on both backends.
      class Refusal < DecodeError
        # @return [Attribute] the attribute that refused its value
        attr_reader :attribute
        # @return [String] what is wrong, without a place
        attr_reader :reason

        # @param attribute [Attribute]
        # @param reason [String]
        # @param path [String] the attribute's own name(s) on the wire
        def initialize(attribute, reason, path)
          @attribute = attribute
          @reason = reason
          super(reason, path: path)
        end

        # @return [String] the attribute's JSON key, in UTF-8 (the key a JSON
        #   error's path names)
        def json_key
          key = @attribute.json
          key.encoding == Encoding::UTF_8 ? key : key.encode(Encoding::UTF_8)
        end

        # @return [String, nil] the attribute's place below its record's
        #   element by local names, as an XML error's path names it
        #   (+"s"+, +"@currency"+, +"price/@currency"+); nil for the element's own text
        def xml_path
          XML::Plan.error_path(@attribute)
        end
      end
      NO_UNION = {}.freeze
      # Where a declaration is, for its messages ("Issue.attribute :votes"), written when one is.
      Declaration = Struct.new(:owner, :name) do
        def to_s
          Attribute.__send__(:declaration, owner, name)
        end
      end
      private_constant :RESERVED_SET, :OPTION_SET, :NO_UNION, :Declaration
      # The scalar item types of a list of lists (+[[:float]]+, +[[[:float]]]+ to
      # any depth; a model class, +[[Point]]+, may be one too, two levels deep): JSON only.
      NESTED_ITEM_TYPES = %i[string integer float boolean].freeze
      # The JSON shapes a union option accepts besides the type's own (see {.json_union}).
      NUMERIC_TYPES = %i[integer float decimal].freeze
      # "Z", "+hh:mm" or "-hh:mm": the offset xs:dateTime text without one is read in.
      OFFSET_PATTERN = /\A(?:Z|[+-](?:0\d|1[0-4]):[0-5]\d)\z/
      # An unprefixed element name (ASCII): a mapping XML::Plan.check_mapping always accepts.
      PLAIN_ELEMENT = /\A[A-Za-z_][A-Za-z0-9_.-]*\z/
      # An underscore between words: after a letter or digit, before one.
      WORD_BREAK = /(?<=[a-zA-Z0-9])_([a-z0-9])/
      TYPE_HELP = "a type is one of #{(Types::SCALARS + Types::OPEN).map(&:inspect).join(', ')}, " \
                  "a class that includes Wirebind::Model, or [type] for a list".freeze

      # @return [Symbol] the Ruby name, e.g. +:release_date+
      attr_reader :name
      # @return [Symbol] the instance variable, e.g. +:@release_date+
      attr_reader :ivar
      # @return [Symbol, Module] the item type: a {Types::SCALARS} name or a model class
      #   ({Wirebind::Model} itself for a list of several model classes, see {#choices})
      attr_reader :type
      # @return [Array<Class>, nil] for +[A, B, C]+, the model classes a list may hold,
      #   told apart in XML by their element names (+xml_root+)
      attr_reader :choices
      # @return [String] the XML path, e.g. +"releaseDate"+, +"@lang"+, +"affectsVersions/*"+
      attr_reader :xml
      # @return [String] the JSON key
      attr_reader :json
      # @return [Symbol] how XML writes a nil: +:omit+ (leave the element out) or
      #   +:xsi+ (an empty element with xsi:nil="true")
      attr_reader :nil_style
      # @return [String, nil] for a +:time+ attribute, the offset ("Z", "+hh:mm") of
      #   date-times written without one; nil: the call's +default_offset:+, else UTC
      attr_reader :default_offset
      # @return [Symbol, nil] for a +:time+ attribute, how it is written
      #   (+:rfc822+, +:epoch+, +:epoch_ms+, see {Types::TimeFormat}); nil: xs:dateTime
      attr_reader :time_format
      # @return [Symbol, nil] for a +:string+ attribute, the XML Schema type whose
      #   lexical space its values are checked against on decode and encode
      #   (+:duration+, +:time_of_day+, +:g_year+, +:g_year_month+, +:g_month_day+,
      #   +:g_day+, +:g_month+; the text is kept as it is); nil: any string
      attr_reader :string_format
      # @return [Symbol, Module] the type the codecs read and write: {#type}, or
      #   for a {#time_format}, the String or Integer it is written as
      attr_reader :wire_type
      # @return [Integer] the position in the owning class's attributes, and in
      #   the values given to +__wb_build+
      attr_reader :index
      # @return [Class] the class that declared this attribute
      attr_reader :owner
      # @return [Hash{String => true}, nil] the values allowed by +enum:+ (nil: any);
      #   a decoded value outside is a {DecodeError} (kept as decoded when {#open_enum?}),
      #   an encoded one an {EncodeError}
      attr_reader :enum

      class << self
        # Checks a declaration and builds its attribute.
        #
        # @param owner [Class] the declaring class
        # @param name [Symbol] a name {.check_name} has passed
        # @param type [Symbol, Class, Array]
        # @param options [Hash] +xml:+, +json:+, +nil:+
        # @param index [Integer]
        # @param json_keys [Symbol] the owner's {ClassMethods#json_keys} style
        # @return [Attribute]
        # @raise [SchemaError]
        def declare(owner, name, type, options, index:, json_keys:)
          # Messages start with where; it is written only when one is.
          where = Declaration.new(owner, name)
          options.each_key do |option|
            next if OPTION_SET.key?(option)

            raise SchemaError, "#{where}: unknown option #{option.inspect} (known: #{OPTIONS.map { |o| "#{o}:" }.join(', ')})"
          end

          choices = choice_types(where, type)
          # A scalar or a model class, or a list of one: the declarations
          # generated code makes, told without building a pair.
          if !choices && plain_type?(type)
            item_type = type
            list = false
          elsif !choices && type.is_a?(Array) && type.length == 1 && plain_type?(type[0])
            item_type = type[0]
            list = true
          else
            item_type, list = choices ? [Model, true] : resolve_type(where, type)
          end
          # A list of lists: how many list levels hold the innermost list (1 for [[:float]]).
          nested = list.is_a?(Integer) ? list : false
          list = true if nested
          if nested && !(options.keys - %i[xml json nil]).empty?
            raise SchemaError, "#{where}: a list of lists takes only the json: option, not #{(options.keys - %i[xml json nil]).inspect}"
          end

          default_offset = options[:default_offset]
          check_default_offset(where, item_type, default_offset) unless default_offset.nil?
          time_format = options[:format]
          string_format = nil
          if item_type == :string && !time_format.nil?
            string_format = check_string_format(where, time_format)
            time_format = nil
          elsif !time_format.nil?
            check_time_format(where, item_type, time_format, default_offset)
          end
          json = options[:json]
          xml = wire_name(where, :xml, options.fetch(:xml) { lower_camel(name) })
          # A bad path is an error here, not at the first decode. A plain element name, the usual
          # mapping, fits any type but a list of several classes.
          if choices || !xml.match?(PLAIN_ELEMENT)
            XML::Plan.check_mapping(xml, model_class?(item_type), list, "#{where} (xml: #{xml.inspect})", choices: !choices.nil?)
            XML::OpenContent.check_mapping(xml, item_type, "#{where} (xml: #{xml.inspect})") if Types.open?(item_type)
          end
          new(
            owner: owner,
            name: name,
            type: item_type,
            list: list,
            xml: xml,
            json: json.nil? ? default_json(name, json_keys) : wire_name(where, :json, json),
            json_explicit: !json.nil?,
            nil_style: nil_style(where, options.fetch(:nil, :omit)),
            default_offset: default_offset&.then { |offset| -offset },
            time_format: time_format,
            string_format: string_format,
            nested: nested,
            choices: choices,
            enum: options.key?(:enum) ? enum(where, item_type, options[:enum]) : nil,
            open_enum: open_enum(where, options),
            index: index,
            json_union: json_union(where, item_type, list, options)
          )
        end

        # The JSON unions an attribute may accept, checked against its type:
        # +one_or_many: true+ (a list attribute also takes a single item, read
        # as a list of one), +string_as: :name+ (a model attribute, or a list of
        # models, also takes a string, read as a record whose +:string+
        # attribute +name+ holds it and whose others are nil) and
        # +lenient_numbers: true+ (an +:integer+, +:float+ or +:decimal+ also
        # takes a string holding a JSON number; +:string+: the same, and encoding
        # writes the number as a string, as Shopify's prices are). Encoding
        # otherwise writes the type's own shape.
        #
        # @return [Hash{Symbol => Object}] the options given, frozen (empty: none)
        # @raise [SchemaError] an option that does not fit the type
        def json_union(where, type, list, options)
          return NO_UNION unless options.key?(:one_or_many) || options.key?(:string_as) || options.key?(:lenient_numbers) ||
                                 options.key?(:expandable)

          union = {}
          if (value = options[:one_or_many])
            raise SchemaError, "#{where}: one_or_many: must be true or false, not #{value.inspect}" unless value == true
            raise SchemaError, "#{where}: one_or_many: applies to a list type, like [Link]" unless list

            union[:one_or_many] = true
          end
          if (name = options[:string_as])
            union[:string_as] = string_target(where, type, name)
          end
          if options.key?(:expandable) && (union[:expandable] = expandable(where, type, options)).nil?
            union.delete(:expandable)
          end
          if (value = options[:lenient_numbers])
            unless value == true || value == :string
              raise SchemaError, "#{where}: lenient_numbers: must be true, :string or false, not #{value.inspect}"
            end
            unless NUMERIC_TYPES.include?(type)
              raise SchemaError, "#{where}: lenient_numbers: applies to :integer, :float and :decimal (or lists of them)"
            end

            union[:lenient_numbers] = value
          end
          union.empty? ? NO_UNION : union.freeze
        end

        # @return [String] +name+ in lowerCamelCase: +release_date+ gives "releaseDate"
        def lower_camel(name)
          # An underscore after a letter or digit joins words; a leading one, or
          # one of a pair, is kept as written.
          text = name.name
          # One word (most of a WSDL's names, declared without xml:): the name itself, nothing made.
          return text unless text.include?("_")

          text.gsub(WORD_BREAK) { Regexp.last_match(1).upcase }
        end

        # @return [String] the JSON key +name+ gets under the +json_keys+ style
        def default_json(name, json_keys)
          -(json_keys == :camel ? lower_camel(name) : name.name)
        end

        # @param owner [Class]
        # @param name [Object] as declared
        # @return [Symbol] the name, safe to write into generated source
        # @raise [SchemaError] not a valid attribute name, or one every model needs
        def check_name(owner, name)
          unless name.is_a?(Symbol) || name.is_a?(String)
            raise SchemaError, "#{Model.display_name(owner)}.attribute: the name must be a Symbol, not #{name.inspect}"
          end

          name = name.to_sym
          # The message's prefix is built only for an error: declaring is on the path of loading generated code.
          unless NAME_PATTERN.match?(name)
            raise SchemaError, "#{declaration(owner, name)}: a name starts with a lowercase letter or _ and has only letters, marks, digits and _ (of any script; a letter of no case may start it)"
          end
          if name.start_with?(INTERNAL_PREFIX)
            raise SchemaError, "#{declaration(owner, name)}: names starting with #{INTERNAL_PREFIX} are wirebind's own"
          end

          name
        end

        # @param attributes [Array<Attribute>] a class's
        # @param name [Symbol]
        # @return [Attribute, nil] the one named +name+
        def named(attributes, name)
          i = 0
          while i < attributes.size
            return attributes[i] if attributes[i].name == name

            i += 1
          end
          nil
        end

        # @param attributes [Array<Attribute>] a class's
        # @param name [Symbol] a new attribute's name
        # @param reader [Symbol] its {reader_name}
        # @return [Attribute, nil] another attribute whose reader is +reader+ too:
        #   only a pair like +:method+ and +:method_value+ can clash, so
        #   declaring an attribute of another name (every one, nearly) does
        #   not look
        def reader_taken(attributes, name, reader)
          return nil unless reader != name || name.end_with?("_value")

          attributes.find { |existing| existing.name != name && reader_name(existing.name) == reader }
        end

        # Records +attribute+ in +heads+, a class's attributes by the head of
        # their +xml:+ mapping ({XML::Plan.mapping_head}), which
        # {XML::Plan.check_siblings} compares a new one with: an index kept as
        # attributes are declared, so that declaring N attributes takes time
        # linear in N. A head's value is its one attribute (the usual case, no
        # Array made) or a frozen Array of several. Call with SCHEMA_LOCK held.
        # @param heads [Hash{String => Attribute, Array<Attribute>}] changed in place
        # @param head [String] +attribute+'s
        # @param attribute [Attribute]
        # @param replaced [Attribute, nil] the inherited one it replaces
        # @return [void]
        def index_mapping(heads, head, attribute, replaced)
          if replaced
            old = XML::Plan.mapping_head(replaced.xml)
            kept = Array(heads[old]).reject { |other| other.equal?(replaced) }
            kept.empty? ? heads.delete(old) : heads[old] = (kept.size == 1 ? kept[0] : kept.freeze)
          end
          same_head = heads[head]
          heads[head] = same_head.nil? ? attribute : [*same_head, attribute].freeze
        end

        # The reader of an attribute (and, with "=", its writer): its name, or
        # +<name>_value+ for a name in {RESERVED_NAMES} (+method_value+ for +:method+).
        # @param name [Symbol]
        # @return [Symbol]
        def reader_name(name)
          RESERVED_SET.key?(name) ? :"#{name}_value" : name
        end

        private

        def declaration(owner, name)
          "#{Model.display_name(owner)}.attribute #{name.inspect}"
        end

        # A type a list may hold directly, or an attribute be.
        def plain_type?(type)
          Types.scalar?(type) || Types.open?(type) || model_class?(type)
        end

        # [item type, list levels] of a type {.declare} did not take at once (a
        # plain type or a list of one): a list of lists, or a SchemaError.
        def resolve_type(where, type)
          if type.is_a?(Array)
            if type.length == 1
              item = type.first
              if item.is_a?(Array) && (levels = nested_levels(item))
                return levels
              end
              if item.is_a?(Array)
                raise SchemaError, "#{where}: a list of lists holds #{NESTED_ITEM_TYPES.map(&:inspect).join(', ')} " \
                                   "(to any depth) or a model class (two levels), JSON only, like GeoJSON's [[:float]] " \
                                   "coordinates, not #{type.inspect}"
              end

              raise SchemaError, "#{where}: #{describe_type(item)} in #{type.inspect}; #{TYPE_HELP}"
            end
            raise SchemaError, "#{where}: a list names exactly one item type, like [:string] or [Version], not #{type.inspect}"
          end
          raise SchemaError, "#{where}: #{describe_type(type)}; #{TYPE_HELP}"
        end

        # [A, B, ...]: a list of several model classes, or nil for any other type.
        def choice_types(where, type)
          return nil unless type.is_a?(Array) && type.size > 1 && type.all? { |item| model_class?(item) }
          raise SchemaError, "#{where}: #{type.inspect} names a class twice" unless type.uniq.size == type.size

          type.dup.freeze
        end

        def model_class?(type)
          # Every model class, and no other, extends ClassMethods (Model.included);
          # asked of ClassMethods, not of the type: see ClassMethods#__wb_schema_values.
          ClassMethods === type
        end

        # [item type, levels] of +item+, the one item of a list (an Array
        # itself): +[:float]+ gives [:float, 1], +[[:float]]+ [:float, 2];
        # nil for anything else, or a model more than one level down.
        def nested_levels(item)
          levels = 1
          while item.is_a?(Array) && item.length == 1
            inner = item.first
            return [inner, levels] if NESTED_ITEM_TYPES.include?(inner) || (levels == 1 && model_class?(inner))

            item = inner
            levels += 1
          end
          nil
        end

        def describe_type(type)
          case type
          when Symbol then "unknown type #{type.inspect}"
          when Class then "#{Model.display_name(type)} is not a model (it does not include Wirebind::Model)"
          else "#{type.inspect} is not a type"
          end
        end

        def wire_name(where, option, value)
          return -value if value.is_a?(String) && !value.empty?

          raise SchemaError, "#{where}: #{option}: must be a non-empty String, not #{value.inspect}"
        end

        # +expandable: true+: a model attribute (or list) whose JSON value is
        # also an id string, kept as the String (Stripe's expandable fields).
        def expandable(where, type, options)
          value = options[:expandable]
          raise SchemaError, "#{where}: expandable: must be true or false, not #{value.inspect}" unless [true, false].include?(value)
          return nil unless value
          raise SchemaError, "#{where}: expandable: applies to a model type (or a list of one)" unless model_class?(type)
          raise SchemaError, "#{where}: expandable: keeps the string itself; string_as: makes a record of it: pick one" if options[:string_as]

          true
        end

        def string_target(where, type, name)
          unless model_class?(type)
            raise SchemaError, "#{where}: string_as: applies to a model type (or a list of one), naming its :string attribute"
          end

          target = name.is_a?(Symbol) && type.attributes.find { |attribute| attribute.name == name }
          unless target && target.type == :string && !target.list?
            raise SchemaError, "#{where}: string_as: must name a :string attribute of #{Model.display_name(type)}, not #{name.inspect}"
          end
          # The string is the record's value as it is: a closed enum would not be checked.
          if target.enum && !target.open_enum?
            raise SchemaError, "#{where}: string_as: #{name.inspect} of #{Model.display_name(type)} has a closed enum:, " \
                               "which a string taken whole would skip; declare it open_enum: true"
          end

          name
        end

        def check_default_offset(where, type, offset)
          raise SchemaError, "#{where}: default_offset: applies to :time only, not #{type.inspect}" unless type == :time
          return if offset.is_a?(String) && offset.match?(OFFSET_PATTERN)

          raise SchemaError, "#{where}: default_offset: must be \"Z\" or \"+hh:mm\"/\"-hh:mm\" (at most 14:00), not #{offset.inspect}"
        end

        # +open_enum: true+ only makes sense beside an +enum:+.
        def open_enum(where, options)
          return false unless options.key?(:open_enum)

          value = options[:open_enum]
          raise SchemaError, "#{where}: open_enum: must be true or false, not #{value.inspect}" unless [true, false].include?(value)
          raise SchemaError, "#{where}: open_enum: needs an enum:" if value && !options.key?(:enum)

          value
        end

        def check_string_format(where, format)
          return format if Types::StringFormat::FORMATS.key?(format)

          formats = Types::StringFormat::FORMATS.keys.map(&:inspect).join(", ")
          raise SchemaError, "#{where}: format: applies to :time with #{format.inspect}; a :string's is one of #{formats}" if Types::TimeFormat::FORMATS.include?(format)

          raise SchemaError, "#{where}: format: on a :string must be one of #{formats}, not #{format.inspect}"
        end

        def check_time_format(where, type, time_format, default_offset)
          if Types::StringFormat::FORMATS.key?(time_format)
            raise SchemaError, "#{where}: format: #{time_format.inspect} applies to :string, not #{describe_type(type)}"
          end
          raise SchemaError, "#{where}: format: applies to :time and :string only, not #{describe_type(type)}" unless type == :time
          unless Types::TimeFormat::FORMATS.include?(time_format)
            raise SchemaError, "#{where}: format: must be one of #{Types::TimeFormat::FORMATS.map(&:inspect).join(', ')}, " \
                               "not #{time_format.inspect}"
          end
          return if default_offset.nil?

          raise SchemaError, "#{where}: default_offset: applies to xs:dateTime text, not to format: #{time_format.inspect}"
        end

        # An enumeration: a frozen Hash of the allowed strings (for lookups in
        # constant time), only on +:string+ attributes and lists of them.
        def enum(where, item_type, values)
          raise SchemaError, "#{where}: enum: applies to :string attributes, not #{describe_type(item_type)}" unless item_type == :string
          unless values.is_a?(Array) && !values.empty? && values.all?(String)
            raise SchemaError, "#{where}: enum: must be a non-empty Array of Strings, not #{values.inspect}"
          end

          table = {}
          values.each { |value| table[-value] = true }
          table.freeze
        end

        def nil_style(where, value)
          return value if NIL_STYLES.include?(value)

          raise SchemaError, "#{where}: nil: must be :omit or :xsi, not #{value.inspect}"
        end
      end

      # Use {.declare}: this trusts its arguments.
      # @api private
      def initialize(owner:, name:, type:, list:, xml:, json:, json_explicit:, nil_style:, index:, enum: nil,
                     open_enum: false, default_offset: nil, time_format: nil, string_format: nil, nested: false, choices: nil,
                     json_union: {}.freeze)
        @owner = owner
        @name = name
        @ivar = :"@#{name}"
        @type = type
        @list = list
        @model = !type.is_a?(Symbol)
        @xml = xml
        @json = json
        @json_explicit = json_explicit
        @nil_style = nil_style
        @default_offset = default_offset
        @time_format = time_format
        @string_format = string_format
        @nested = nested
        @wire_type = time_format ? Types::TimeFormat.wire_type(time_format) : type
        @choices = choices
        @index = index
        @enum = enum
        @open_enum = open_enum
        @json_union = json_union
        freeze
      end

      # @return [Boolean] whether the attribute holds a list of {#type}
      def list?
        @list
      end

      # @return [Boolean] whether the JSON value may also be a single item (+one_or_many: true+)
      def one_or_many?
        @json_union.fetch(:one_or_many, false)
      end

      # @return [Symbol, nil] the +:string+ attribute of {#type} a JSON string fills (+string_as:+)
      def string_as
        @json_union[:string_as]
      end

      # @return [Boolean] whether the JSON value may also be a string, kept as
      #   the String, and a String is written as one (+expandable: true+)
      def expandable?
        @json_union.fetch(:expandable, false)
      end

      # @return [Boolean] whether a JSON string holding a number is read as one (+lenient_numbers: true+)
      def lenient_numbers?
        @json_union.fetch(:lenient_numbers, false)
      end

      # @return [Boolean] whether the attribute is a list of lists of {#type}
      #   (+[[:float]]+, +[[[:float]]]+, +[[Point]]+)
      def nested_list?
        @nested ? true : false
      end

      # @return [Integer] how many list levels hold the innermost list of
      #   {#type}: 0 for a plain list, 1 for +[[:float]]+, 2 for +[[[:float]]]+
      def nested_levels
        @nested || 0
      end

      # @return [Boolean] whether the codecs carry a value the builders and
      #   {Model.encodable} convert ({#time_format})
      def converted?
        !@time_format.nil?
      end

      # @return [Boolean] whether {#type} is a model class
      def model?
        @model
      end

      # @param json_keys [Symbol] +:snake+ or +:camel+
      # @return [Attribute] self, or a copy whose default JSON key follows +json_keys+
      def with_json_keys(json_keys)
        return self if @json_explicit

        json = self.class.default_json(@name, json_keys)
        json == @json ? self : copy(json: json)
      end

      # @return [Boolean] whether decoding keeps a value outside {#enum} (the
      #   String as read) instead of failing; encoding checks it all the same
      def open_enum?
        @open_enum
      end

      # The value outside {#enum}, if any (each item of a list is looked at).
      # @return [String, nil]
      def enum_violation(value)
        return nil if value.nil?

        if @list
          value.each { |item| return item unless item.nil? || @enum.key?(item) } if value.is_a?(Array)
          nil
        else
          @enum.key?(value) ? nil : value
        end
      end

      # @return [Boolean] whether the record builders check or convert this
      #   attribute's decoded value ({#check_decoded}, {#decode_wire}), so that
      #   building a record can refuse it ({Refusal})
      def checked_on_build?
        (@enum && !@open_enum) || converted? || !@string_format.nil?
      end

      # Raises when a decoded value is outside {#enum} (unless open) or its
      # {#string_format}: the record builders call it.
      # @raise [Refusal]
      def check_decoded(value)
        if @enum && !@open_enum
          bad = enum_violation(value)
          raise Refusal.new(self, "#{bad.inspect} is not one of #{@enum.keys.inspect}", @xml) unless bad.nil?
        end
        return unless @string_format

        problem = format_violation(value)
        raise Refusal.new(self, problem, @xml == @json ? @json : "#{@xml} (JSON #{@json})") if problem
      end

      # What is wrong with a value (or an item of a list) outside {#string_format}.
      # @return [String, nil]
      def format_violation(value)
        return nil if value.nil?
        return Types::StringFormat.violation(@string_format, value) unless @list

        return nil unless value.is_a?(Array)

        value.each do |item|
          problem = item.nil? ? nil : Types::StringFormat.violation(@string_format, item)
          return problem if problem
        end
        nil
      end

      # Converts a decoded {#converted?} value to the attribute's: Times for a
      # {#time_format} (or a list of them). The record builders call it.
      # @param value [String, Integer, Array, nil] as the codecs read it
      # @return [Time, Array, nil]
      # @raise [Refusal]
      def decode_wire(value)
        return value if value.nil?
        return value.map { |item| item.nil? ? nil : Types::TimeFormat.decode(@time_format, item) } if @list

        Types::TimeFormat.decode(@time_format, value)
      rescue Types::InvalidValue => e
        raise Refusal.new(self, e.message, @xml == @json ? @json : "#{@xml} (JSON #{@json})")
      end

      # Converts a {#converted?} value to what the codecs write.
      # @param value [Time, Array, nil]
      # @return [String, Integer, Array, nil]
      # @raise [Types::InvalidValue]
      def encode_wire(value)
        return value if value.nil?
        return value.map { |item| item.nil? ? nil : Types::TimeFormat.encode(@time_format, item) } if @list && value.is_a?(Array)

        Types::TimeFormat.encode(@time_format, value)
      end

      # @return [String]
      def inspect
        type = @choices ? @choices.map { |choice| Model.display_name(choice) }.join(", ") : Model.display_name(@type)
        type = "[#{type}]" if @list
        "#<#{self.class.name} #{Model.display_name(@owner)}##{@name} #{type} xml=#{@xml.inspect} json=#{@json.inspect}>"
      end

      private

      def copy(**changes)
        self.class.new(
          owner: @owner, name: @name, type: @type, list: @list, xml: @xml, json: @json,
          json_explicit: @json_explicit, nil_style: @nil_style, index: @index, enum: @enum, open_enum: @open_enum,
          json_union: @json_union,
          default_offset: @default_offset, time_format: @time_format, string_format: @string_format, nested: @nested, choices: @choices,
          **changes
        )
      end
    end
  end
end
