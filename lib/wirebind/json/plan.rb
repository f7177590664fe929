# frozen_string_literal: true

module Wirebind
  module JSON
    # The JSON plan of a model class: its schema compiled, once, into frozen
    # tables the codecs walk. For decoding, a Hash from each JSON key to the
    # {Slot} its value fills, looked up with the key's text exactly as the
    # scanner finds it in the input; for encoding, the same slots in
    # declaration order.
    #
    # A plan holds no procs and no per-call state: a backend in C reads the
    # same tables (key, index, code, list flag, item class) that the pure one
    # does.
    #
    # @api private
    class Plan
      # Where one member's value goes. +index+ is the attribute's position in the
      # model's values (nil for the value a decode returns), +code+ the scalar
      # type's Symbol or +:model+, +type+ the scalar Symbol or model Class, +list+
      # whether the value is a JSON array of such items.
      # The JSON unions (see Model::Attribute.json_union): +one_or_many+, +string_as+
      # (the index, in the item model's values, of the attribute a string fills;
      # nil for none) and +lenient+ (a string holding a number is read as one;
      # +:string+: numbers are written as strings too).
      # +nested+: for a list of lists, how many list levels hold the innermost
      # list (1 for +[[Point]]+ and +[[:float]]+, 2 for +[[[:float]]]+); nil for none.
      # +expandable+: a model (or item) may also be a string, kept as the String.
      # +variants+: a key the classes of a json_type read differently (see
      # {Plan#build}): a Hash from each discriminator value to that class's
      # slot (at the same index), which decoders read with once the
      # discriminator's value is known; this slot (+:any+) reads the value
      # before that, kept as a {Deferred}.
      Slot = Struct.new(:key, :index, :code, :type, :list, :attribute, :one_or_many, :string_as, :lenient, :nested, :expandable,
                        :variants, keyword_init: true) do
        # @return [Plan] the plan of this slot's model type (compiled on first use:
        #   models may refer to each other, or to themselves)
        def plan
          Plan.for(type)
        end

        # @return [Plan, nil] the plan of the items of this list slot's array: nil
        #   for a {#nested} slot, whose items are arrays (the innermost read with {#plan})
        def list_plan
          nested ? nil : plan
        end

        # @param item [Boolean] describe one item of a list slot
        # @return [String] what a value of this slot is, for messages: "an
        #   integer", "an array (of Version objects)", "a Version object"...
        def expected(item: false)
          one = code == :model ? "#{Model.display_name(type)} object" : EXPECTED.fetch(code)
          one = "#{one.match?(/\A[aeiou]/i) ? 'an' : 'a'} #{one}" if code == :model
          one = "#{one} or a string" if string_as || expandable
          one = "#{one} or a string holding one" if lenient
          return one unless list && !item

          many = "an array (of #{'arrays of ' * nested.to_i}#{one.sub(/\Aan? /, '')} items)"
          one_or_many ? "#{many} or #{one}" : many
        end

        # A value of a {#variants} slot read before its discriminator, as plain JSON.
        # @param value [Object]
        # @return [Deferred]
        def defer(value)
          Deferred.new(value)
        end

        # @param levels [Integer] how many list levels the item still holds (1: the innermost list)
        # @return [String] what an item of a {#nested} slot is: "an array (of Point object items)"
        def row_expected(levels = 1)
          "an array (of #{'arrays of ' * (levels - 1)}#{expected(item: true).sub(/\Aan? /, '')} items)"
        end
      end

      # A member the discriminator's class reads, met before the discriminator:
      # its plain JSON value, converted by {Plan#build} once the class is known.
      Deferred = Struct.new(:value)

      # A {Deferred} member that does not fit its class: +index+, its slot;
      # +rest+, the path inside its value (nil, "[0][1]", "a.b").
      class MemberError < Types::InvalidValue
        # @return [Integer]
        attr_reader :index
        # @return [String, nil]
        attr_reader :rest

        def initialize(message, index, rest)
          super(message)
          @index = index
          @rest = rest
        end

        # @param path [String] the member's path ("features[0].geometry.coordinates")
        # @return [String] the path of what did not fit
        def path_under(path)
          return path if rest.nil? || rest.empty?

          rest.start_with?("[") ? path + rest : "#{path}.#{rest}"
        end
      end

      # How messages name what each scalar type reads.
      EXPECTED = {
        string: "a string",
        integer: "an integer",
        float: "a number",
        decimal: "a number",
        boolean: "true or false",
        time: "a date-time string",
        date: "a date string",
        base64: "a base64 string",
        any: "a JSON value"
      }.freeze

      # The code of a type whose JSON form is another's: +:xml+ content is a string.
      JSON_CODES = { xml: :string }.freeze

      # @return [Class] the model class
      attr_reader :klass
      # @return [Hash{String => Slot}] slots by JSON key
      attr_reader :table
      # @return [Array<Slot>] slots in declaration order, for encoding
      attr_reader :slots
      # @return [Array<Slot>] every slot of {#table} in index order: {#slots},
      #   then for a class with {Model::ClassMethods#json_type} variants, the
      #   variants' other attributes and the discriminator (at {#tag_index})
      attr_reader :read_slots
      # @return [Integer] how many values a decoder collects ({#read_slots})
      attr_reader :size
      # @return [Array(String, String), nil] the discriminator's key and this
      #   class's value, which encoders write first
      attr_reader :tag
      # @return [Integer, nil] where the discriminator's value is among the
      #   values, for a class with variants (nil: none)
      attr_reader :tag_index
      # @return [Boolean] whether building a record (of this class or a
      #   variant) may refuse a value (Model::Attribute#checked_on_build?): the
      #   native decoder rescues around such plans' builders only
      attr_reader :checked

      class << self
        # @param klass [Class] a Wirebind::Model class
        # @return [Plan] the (cached, frozen) plan of +klass+
        def for(klass)
          # Deeply frozen, so Ractors other than the main one may read it too.
          klass.wirebind_plan(:json) { Shareable.make(new(klass)) }
        end

        # The slot of the value a decode returns: a model, a scalar type or
        # +:any+ (plain Ruby values), alone or as a list.
        #
        # @param item [Class, Symbol]
        # @param list [Boolean]
        # @return [Slot]
        def root(item, list)
          code = item.is_a?(Class) ? :model : item
          Shareable.make(Slot.new(key: nil, index: nil, code: code, type: item, list: list, attribute: nil))
        end

        # The json_type mapping +klass+ is under: [key, Hash of value => class] of the
        # nearest ancestor (or itself) that declared one, nil for none.
        # @api private
        def discriminator(klass)
          klass.ancestors.each do |ancestor|
            next unless ancestor.is_a?(Class) && ancestor.include?(Model)

            mapping = ancestor.json_type
            return mapping if mapping
          end
          nil
        end
      end

      # @param klass [Class]
      # @raise [SchemaError] two attributes share a JSON key
      def initialize(klass)
        @klass = klass
        attributes = klass.attributes
        @size = attributes.size
        @loader = klass.__wb_builders.first
        @table = {}
        @slots = attributes.map do |attribute|
          key = utf8_key(attribute)
          if (other = @table[key])
            raise SchemaError,
                  "#{Model.display_name(klass)}: attributes #{other.attribute.name.inspect} and " \
                  "#{attribute.name.inspect} both have the JSON key #{key.inspect}"
          end
          @table[key] = slot(klass, attribute, key, attribute.index)
        end.freeze
        @read_slots = @slots
        @tag = @tag_index = @variants = @deferred = nil
        discriminated(klass)
        @checked = (@variants ? @variants.values.map(&:first) : [klass]).any? { |k| k.attributes.any?(&:checked_on_build?) }
        @table.freeze
        freeze
      end

      # A record from its values, by the builder of the schema this plan was
      # made from: a schema that changed since cannot mix into it. For a class
      # with variants, a record of the class the discriminator names.
      # @param values [Array] aligned with the plan's {#read_slots}
      # @return [Wirebind::Model]
      # @raise [Types::InvalidValue] the discriminator names no class (the
      #   decoders name the member's path)
      def build(values)
        return @klass.allocate.__send__(@loader, values) unless @variants

        value = values[@tag_index]
        klass, loader, indexes = value.nil? ? @variants.fetch(nil) : @variants[value]
        unless klass
          known = @variants.keys.compact
          raise Types::InvalidValue, "#{@read_slots[@tag_index].key.inspect} is #{Types.excerpt(value)}, which names no class " \
                                     "#{Model.display_name(@klass)} may be (#{known.map(&:inspect).join(', ')})"
        end
        @deferred&.each { |index| values[index] = converted(values, value, index) if values[index].is_a?(Deferred) }
        klass.allocate.__send__(loader, indexes.map { |index| values[index] })
      end

      # For a strict decode of a class with variants: what is wrong with a member
      # at read slot +index+ when the discriminator in +values+ picks a class that
      # does not declare its key.
      # @param values [Array] aligned with the plan's {#read_slots}
      # @param index [Integer] a read slot's index
      # @return [String, nil] the message, or nil: the key is the picked class's,
      #   or the discriminator names no class ({#build} says so)
      def stray_key(values, index)
        return nil if index == @tag_index

        value = values[@tag_index]
        klass, _loader, indexes = @variants[value]
        return nil if klass.nil? || indexes.include?(index)

        tag = @read_slots[@tag_index].key.inspect
        picked = value.nil? ? "the class read without the #{tag} member" : "the class #{tag}: #{value.inspect} picks"
        "#{@read_slots[index].key.inspect} is not a key of #{Model.display_name(klass)}, #{picked} (strict: true)"
      end

      private

      # A {Deferred} member read again as the class the discriminator's +value+
      # names reads it (nil: the class has no such member). Lists (of lists) of
      # numbers, strings and booleans that fit are converted in place; anything
      # else, and every misfit (for its exact message and path), is written back
      # as JSON and decoded with that class's slot.
      def converted(values, value, index)
        typed = @read_slots[index].variants[value] or return nil
        plain = values[index].value
        return nil if plain.nil?

        if PLAIN_FITS.key?(typed.code) && !typed.one_or_many
          fitted = fit(plain, typed.list ? typed.nested.to_i + 1 : 0, typed.code)
          return fitted unless UNFIT.equal?(fitted)
        end
        Pure.decode_member(Writer.value(+"", plain, 0, DEFAULT_LIMITS[:max_depth]), typed, DEFAULT_LIMITS)
      rescue DecodeError => e
        where = [("at #{e.path}" if e.path), ("line #{e.line}" if e.line), ("column #{e.column}" if e.column)].compact.join(", ")
        raise MemberError.new(where.empty? ? e.message : e.message.delete_suffix(" (#{where})"), index, e.path)
      end

      # What {#fit} returns for a plain value that does not fit.
      UNFIT = Object.new.freeze
      # The plain values each scalar code takes as they are (a :float also an Integer, as a Float).
      PLAIN_FITS = Shareable.make({ float: [Float, Integer], integer: [Integer], string: [String], boolean: [TrueClass, FalseClass] })
      private_constant :UNFIT, :PLAIN_FITS

      # +plain+ (not nil) as +levels+ list levels of +code+ items, or UNFIT.
      # Its Arrays are the decoder's own, new ones: they are kept (and an
      # Integer item of a :float list replaced in place). Recurses once per
      # declared level, never deeper than the declaration.
      def fit(plain, levels, code)
        return fit_scalar(plain, code) if levels.zero?
        return UNFIT unless plain.is_a?(Array)

        # Most lists hold items of their own class only (GeoJSON positions: two Floats): checked in one call each.
        same = PLAIN_FITS.fetch(code).first
        unless same == TrueClass
          return plain if levels == 1 && plain.all?(same)
          return plain if levels == 2 && plain.all? { |row| row.is_a?(Array) && row.all?(same) }
        end

        plain.each_with_index do |item, i|
          next if item.nil?

          fitted = fit(item, levels - 1, code)
          return UNFIT if UNFIT.equal?(fitted)

          plain[i] = fitted unless fitted.equal?(item)
        end
        plain
      end

      def fit_scalar(plain, code)
        return UNFIT unless PLAIN_FITS.fetch(code).any? { |klass| plain.is_a?(klass) }

        code == :float ? plain.to_f : plain
      end

      def slot(klass, attribute, key, index)
        if attribute.choices
          raise SchemaError, "#{Model.display_name(klass)}##{attribute.name}: a list of several model classes maps to XML only " \
                             "(by element name); JSON has no element names to tell them apart"
        end
        if attribute.type == :qname
          raise SchemaError, "#{Model.display_name(klass)}##{attribute.name}: a :qname maps to XML only " \
                             "(its prefix is resolved against the namespaces in scope); JSON has no namespaces"
        end
        Slot.new(
          key: key, index: index, code: attribute.model? ? :model : JSON_CODES.fetch(attribute.wire_type, attribute.wire_type),
          type: attribute.wire_type, list: attribute.list?, attribute: attribute,
          one_or_many: attribute.one_or_many?, string_as: string_as(attribute), lenient: lenient?(klass, attribute),
          nested: attribute.nested_list? ? attribute.nested_levels : nil, expandable: attribute.expandable?
        ).freeze
      end

      # A class under a json_type mapping: the tag it writes, and for decoding,
      # the other attributes of the mapped classes it may be (itself and its
      # subclasses) in the table, the discriminator last.
      def discriminated(klass)
        key, classes = Plan.__send__(:discriminator, klass)
        return unless key

        name = Model.display_name(klass)
        own = classes.key(klass)
        if own.nil? && !klass.json_type
          raise SchemaError, "#{name} is a subclass of a json_type base whose mapping does not name it " \
                             "(add it, so that its records read back as #{name})"
        end
        if (clash = @table[key])
          raise SchemaError, "#{name}##{clash.attribute.name}: its JSON key #{key.inspect} is the json_type discriminator's"
        end

        @tag = [key, own].freeze if own
        @variants = { nil => [klass, @loader, (0...@size).to_a.freeze].freeze }
        readings = Hash.new { |hash, name| hash[name] = {} } # key => { discriminator value => slot }
        classes.each do |value, variant|
          next unless variant <= klass

          @variants[value] = [variant, variant.__wb_builders.first, variant_indexes(key, variant, value, readings)].freeze
        end
        @variants.freeze
        varying(klass, readings)
        @tag_index = @table.size
        @table[key] = Slot.new(key: key, index: @tag_index, code: :string, type: :string, list: false).freeze
        @read_slots = @table.values.sort_by!(&:index).freeze
        @size = @table.size
      end

      # The keys the classes read differently: each a plain slot whose
      # +variants+ are the classes' own slots at its index.
      def varying(klass, readings)
        readings.each do |name, by_value|
          slots = by_value.values
          next if slots.all? { |other| same_reading?(slots.first, other) }

          check_varying(klass, name, slots)
          index = @table[name].index
          typed = by_value.transform_values { |one| Slot.new(**one.to_h, index: index).freeze }.freeze
          @table[name] = Slot.new(key: name, index: index, code: :any, type: :any, list: false, variants: typed).freeze
          (@deferred ||= []) << index
        end
        @deferred&.freeze
      end

      # A varying key may differ in its type and list levels, not in what a
      # plain reading would lose (a decimal's digits) or in a JSON union.
      def check_varying(klass, name, slots)
        odd = slots.find do |one|
          one.code == :decimal || one.one_or_many || one.string_as || one.lenient || one.expandable || one.attribute.enum
        end
        return unless odd

        raise SchemaError, "#{Model.display_name(klass)}.json_type: #{Model.display_name(odd.attribute.owner)}##{odd.attribute.name} " \
                           "shares the JSON key #{name.inspect} with classes that read it differently, which is allowed only " \
                           "for types and list levels (not :decimal, enum: or a JSON union)"
      end

      # Where each attribute of +variant+ is among the values, its slot added to
      # the table when no class had its key yet.
      def variant_indexes(key, variant, value, readings)
        variant.attributes.map do |attribute|
          attribute_key = utf8_key(attribute)
          if attribute_key == key
            raise SchemaError, "#{Model.display_name(variant)}##{attribute.name}: its JSON key #{key.inspect} is the json_type discriminator's"
          end

          candidate = slot(variant, attribute, attribute_key, @table.size)
          readings[attribute_key][value] = candidate unless @slots.any? { |own| own.key == attribute_key }
          existing = @table[attribute_key]
          next (@table[attribute_key] = candidate).index unless existing

          existing.index
        end.freeze
      end

      def same_reading?(one, other)
        %i[code type list one_or_many string_as lenient nested expandable].all? { |field| one[field] == other[field] } &&
          one.attribute.converted? == other.attribute.converted? && one.attribute.enum == other.attribute.enum
      end

      def string_as(attribute)
        name = attribute.string_as or return nil
        attribute.type.attributes.find { |target| target.name == name }&.index
      end

      def lenient?(klass, attribute)
        attribute.lenient_numbers? ||
          (klass.json_numbers == :lenient && Model::Attribute::NUMERIC_TYPES.include?(attribute.type))
      end

      # Input is scanned as UTF-8, and keys are looked up by their bytes: a key
      # declared in another encoding is transcoded once, here.
      def utf8_key(attribute)
        key = attribute.json
        return key if key.encoding == Encoding::UTF_8 && key.valid_encoding?

        -key.encode(Encoding::UTF_8)
      rescue EncodingError
        raise SchemaError, "#{Model.display_name(@klass)}##{attribute.name}: the JSON key #{key.inspect} cannot be converted to UTF-8"
      end
    end
  end
end
