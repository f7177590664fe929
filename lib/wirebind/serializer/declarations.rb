# frozen_string_literal: true

module Wirebind
  class Serializer
    # One declared member of a serializer: a model attribute written as a value
    # (+attribute+), or a model-typed attribute written through another
    # serializer (+one+, +many+). Frozen.
    #
    # @api private
    # +computed+ is the block of an attribute computed by a block;
    # +condition+ its +if:+ or +unless:+, as +[:if or :unless, Symbol or Proc]+.
    Field = Struct.new(:kind, :name, :key, :serializer, :links, :computed, :condition, keyword_init: true)

    # One declared link: its relation name and the position of its block in
    # the class's frozen block list.
    #
    # @api private
    Link = Struct.new(:rel, :index, keyword_init: true)

    # The DSL every serializer class gets ({Serializer} extends it). Each call
    # is checked when it is made; what needs the model (does it declare the
    # attribute, is it a model-typed list...) is checked as soon as the model
    # is known: at once after {#model}, otherwise when the serializer is first
    # compiled for a model class.
    #
    # A subclass starts with a copy of its parent's declarations and may add
    # to them (not redeclare them); nothing reaches the parent. As with models,
    # declare a parent completely before subclassing it or using it.
    module Declarations
      # A Ruby identifier a model may declare (see {Model::Attribute::NAME_PATTERN}).
      NAME = Model::Attribute::NAME_PATTERN
      # JSON:API member names, allowed characters only (a relation name or a type).
      MEMBER_NAME = /\A[a-zA-Z0-9](?:[a-zA-Z0-9_-]*[a-zA-Z0-9])?\z/
      # Declarations copied into each subclass; every value they hold is frozen.
      STATE_IVARS = %i[@__wb_fields @__wb_links @__wb_link_blocks @__wb_type @__wb_model @__wb_id @__wb_key_transform].freeze
      # The key transforms {#transform_keys} takes, each from a snake_case Ruby name.
      KEY_TRANSFORMS = Shareable.make(
        camel: ->(name) { name.split("_").map(&:capitalize).join },
        lower_camel: ->(name) { name.split("_").each_with_index.map { |part, i| i.zero? ? part : part.capitalize }.join },
        dash: ->(name) { name.tr("_", "-") }
      )
      private_constant :STATE_IVARS, :KEY_TRANSFORMS

      # Reads, or with an argument sets, how the keys of attributes and
      # relations declared without +key:+ are written: from their Ruby names,
      # +:camel+ (+release_date+ as +ReleaseDate+), +:lower_camel+
      # (+releaseDate+) or +:dash+ (+release-date+). Without one, a key is the
      # model's JSON key. Link relations and explicit +key:+s are kept as given.
      #
      # @param style [Symbol, nil] +:camel+, +:lower_camel+ or +:dash+
      # @return [Symbol, nil]
      # @raise [SchemaError] another style
      def transform_keys(style = nil)
        unless style.nil?
          unless KEY_TRANSFORMS.key?(style)
            raise SchemaError, "#{display}.transform_keys: #{style.inspect} is not one of #{KEY_TRANSFORMS.keys.map(&:inspect).join(', ')}"
          end

          change { @__wb_key_transform = style }
        end
        @__wb_key_transform
      end

      # @api private
      # @return [String, nil] name written with the key transform, nil without one
      def __wb_transformed_key(name)
        @__wb_key_transform && -KEY_TRANSFORMS.fetch(@__wb_key_transform).call(name.name)
      end

      # Reads, or with an argument sets, the resource type: JSON:API's +type+
      # member and Siren's +class+. JSON:API needs one; HAL and plain ignore it.
      #
      # @param name [String, Symbol, nil]
      # @return [String, nil]
      # @raise [SchemaError] not a non-empty name of letters, digits, +-+ and +_+
      def type(name = nil)
        unless name.nil?
          text = name.is_a?(Symbol) ? name.name : name
          unless text.is_a?(String) && MEMBER_NAME.match?(text)
            raise SchemaError, "#{display}.type: #{name.inspect} is not a type name (letters, digits, - and _, e.g. \"issue\")"
          end

          change { @__wb_type = -text }
        end
        @__wb_type
      end

      # Reads, or with an argument sets, the model class this serializer
      # writes. Optional: without it, the model is the class of the record
      # given to {Serializer#initialize} (of the first one, for a list) or, for
      # a serializer named by {#one} or {#many}, the attribute's declared type.
      # With it, every declared name is checked against it at once, and
      # records must be instances of it.
      #
      # @param klass [Class, nil] a class that includes {Wirebind::Model}
      # @return [Class, nil]
      # @raise [SchemaError]
      def model(klass = nil)
        unless klass.nil?
          unless klass.is_a?(Class) && klass.include?(Model)
            raise SchemaError, "#{display}.model: #{Model.display_name(klass)} is not a Wirebind::Model class"
          end

          change { @__wb_model = klass }
          @__wb_fields.each { |field| check_against_model(field, klass) }
          check_id_against_model(@__wb_id, klass) if @__wb_id
        end
        @__wb_model
      end

      # Reads, or with an argument sets, the attribute whose value is the
      # JSON:API +id+ (always written as a string). By default the model's
      # +id+ attribute.
      #
      # @param name [Symbol, String, nil] a +:string+ or +:integer+ attribute
      # @return [Symbol, nil]
      # @raise [SchemaError]
      def id(name = nil)
        unless name.nil?
          name = check_name("id", name)
          check_id_against_model(name, @__wb_model) if @__wb_model
          change { @__wb_id = name }
        end
        @__wb_id
      end

      # Declares model attributes written as values, with their types'
      # JSON mapping (see {Wirebind::JSON}), under their JSON keys.
      #
      # @param names [Array<Symbol>]
      # @return [void]
      # @raise [SchemaError]
      def attributes(*names, **unsupported, &block)
        refuse_unsupported("attributes", names.first, unsupported, block)
        names.each { |name| attribute(name) }
        nil
      end

      # Declares one attribute written as a value: a model attribute, or a
      # computed one. A computed attribute's value is written by its Ruby
      # class (String, Integer, Float, true/false, nil, Time, Array and Hash
      # of these) and comes from
      # - a block, called once per record written with the record and the
      #   +context:+ given to {Serializer#initialize}; or
      # - without a block, when the model declares no attribute of that
      #   name, an instance method of the serializer of that name taking
      #   +(record)+ or +(record, context)+. It is called on an instance made
      #   once per compiled serializer (without +initialize+): it keeps no
      #   state of one rendering; use the context for that. Such a name is
      #   checked when the serializer is first compiled, since the method is
      #   usually defined after the declaration.
      #
      # @example
      #   attribute(:full_name) { |person| "#{person.first} #{person.last}" }
      #   attribute :initials
      #   def initials(person) = "#{person.first[0]}#{person.last[0]}"
      #
      # @param name [Symbol] an attribute the model declares, or the name of a
      #   computed one
      # @param key [String, nil] the member name to write it under; default:
      #   the attribute's JSON key (for a computed one, its name)
      # With +if:+ (or +unless:+), the attribute (its key too) is written only
      # for a record for which the condition is truthy (falsy): a Proc taking
      # +(record)+ or +(record, context)+, or the name of such an instance
      # method of the serializer (called as a computed attribute's method).
      #
      # @yieldparam record [Object] the record being written
      # @yieldparam context [Hash] the +context:+ given to {Serializer#initialize}
      # @yieldreturn [Object] the value
      # @param if [Proc, Symbol, nil] write the attribute only when this holds
      # @param unless [Proc, Symbol, nil] write the attribute only when this does not hold
      # @return [void]
      # @raise [SchemaError]
      def attribute(name, key: nil, if: nil, unless: nil, **unsupported, &block)
        refuse_unsupported("attribute", name, unsupported, nil)
        condition = check_condition(name, binding.local_variable_get(:if), binding.local_variable_get(:unless))
        add_field(:attribute, "attribute", name, key, nil, nil, block, condition)
      end

      # Declares a link, whose block gives its href (a String, or nil to leave
      # the link out) and is called once per record written.
      #
      # @example
      #   link(:self) { |issue| "/issues/#{issue.key}" }
      #   link(:project) { |issue, context| "#{context[:base]}/projects/#{issue.project}" }
      #
      # @param rel [Symbol, String] the relation, e.g. +:self+
      # @yieldparam record [Wirebind::Model] the record being written
      # @yieldparam context [Hash] the +context:+ given to {Serializer#initialize}
      # @yieldreturn [String, nil] the href
      # @return [void]
      # @raise [SchemaError] no block, a bad rel, or one declared twice
      def link(rel, &block)
        text = rel.is_a?(Symbol) ? rel.name : rel
        raise SchemaError, "#{display}.link #{rel.inspect}: give the href as a block, e.g. link(:self) { |record| ... }" unless block
        unless text.is_a?(String) && !text.empty?
          raise SchemaError, "#{display}.link: the relation must be a non-empty Symbol or String, not #{rel.inspect}"
        end
        raise SchemaError, "#{display}.link #{text.inspect} is declared twice" if @__wb_links.any? { |link| link.rel == text }

        change do
          @__wb_links = [*@__wb_links, Link.new(rel: -text, index: @__wb_link_blocks.size).freeze].freeze
          @__wb_link_blocks = [*@__wb_link_blocks, block].freeze
        end
        nil
      end

      # Declares a model-typed attribute written by another serializer: a
      # related resource (HAL +_embedded+, a JSON:API relationship and included
      # resource, a Siren sub-entity, a nested object in plain JSON).
      #
      # @param name [Symbol] a model attribute whose type is a model class (not a list)
      # @param serializer [Class] a {Serializer} subclass
      # @param key [String, nil] the relation name; default: the attribute's JSON key
      # @param links [Hash{Symbol, String => Proc}] JSON:API relationship links,
      #   e.g. +{ self: ->(article, ctx) { ... }, related: ->(article, ctx) { ... } }+:
      #   each called once per record written, with the record that has the
      #   relationship and the context; a nil href leaves the link out
      # @return [void]
      # @raise [SchemaError]
      def one(name, serializer, key: nil, links: nil, **unsupported, &block)
        refuse_unsupported("one", name, unsupported, block)
        add_field(:one, "one", name, key, serializer, links)
      end

      # Like {#one}, for an attribute that is a list of records.
      #
      # @param (see #one)
      # @return [void]
      # @raise [SchemaError]
      def many(name, serializer, key: nil, links: nil, **unsupported, &block)
        refuse_unsupported("many", name, unsupported, block)
        add_field(:many, "many", name, key, serializer, links)
      end

      # @api private
      # @return [Boolean] +name+ is a method the serializer class defines
      #   (not one of {Serializer}'s own), giving a computed attribute
      def __wb_method_attribute?(name)
        method_defined?(name) && !Serializer.method_defined?(name)
      end

      # @return [Array<Field>] the declared fields, in order, inherited ones first
      # @api private
      def __wb_fields
        @__wb_fields
      end

      # @return [Array<Link>]
      # @api private
      def __wb_links
        @__wb_links
      end

      # @return [Array<Proc>] the link blocks, frozen, indexed by {Link#index}
      # @api private
      def __wb_link_blocks
        @__wb_link_blocks
      end

      private

      def inherited(subclass)
        super
        STATE_IVARS.each { |ivar| subclass.instance_variable_set(ivar, instance_variable_get(ivar)) }
        subclass.__send__(:__wb_reset_compiled)
      end

      def display
        Model.display_name(self)
      end

      def check_name(method, name)
        unless (name.is_a?(Symbol) || name.is_a?(String)) && NAME.match?(name.to_s)
          raise SchemaError, "#{display}.#{method} #{name.inspect}: not an attribute name (a Ruby identifier a model declares)"
        end

        name.to_sym
      end

      # An option or a block the declaration does not take is an error here,
      # never silently dropped (a computed attribute would otherwise fail only
      # when a record is written, or not at all).
      def refuse_unsupported(method, name, options, block)
        unless options.empty?
          raise SchemaError, "#{display}.#{method} #{name.inspect}: unsupported option#{'s' if options.size > 1} " \
                             "#{options.keys.map(&:inspect).join(', ')}"
        end
        return unless block

        raise SchemaError, "#{display}.#{method} #{name.inspect}: a block (a computed value) is not supported; " \
                           "declare it as a model attribute"
      end

      def add_field(kind, method, name, key, serializer, links = nil, computed = nil, condition = nil)
        name = check_name(method, name)
        unless key.nil? || (key.is_a?(String) && !key.empty?)
          raise SchemaError, "#{display}.#{method} #{name.inspect}: key: must be a non-empty String, not #{key.inspect}"
        end
        if serializer && !(serializer.is_a?(Class) && serializer <= Serializer)
          raise SchemaError, "#{display}.#{method} #{name.inspect}: #{Model.display_name(serializer)} is not a Wirebind::Serializer class"
        end
        if @__wb_fields.any? { |field| field.name == name }
          raise SchemaError, "#{display}.#{method} #{name.inspect}: #{name.inspect} is already declared"
        end

        blocks = relationship_links(method, name, links)
        change do
          field_links = blocks.each_with_index.map { |(rel, _), n| Link.new(rel: rel, index: @__wb_link_blocks.size + n).freeze }.freeze
          field = Field.new(kind: kind, name: name, key: key && -key, serializer: serializer, links: field_links, computed: computed,
                            condition: condition).freeze
          check_against_model(field, @__wb_model) if @__wb_model
          @__wb_fields = [*@__wb_fields, field].freeze
          @__wb_link_blocks = [*@__wb_link_blocks, *blocks.map(&:last)].freeze unless blocks.empty?
        end
        nil
      end

      # @return [Array(Symbol, Object), nil] +[:if or :unless, the Symbol or Proc]+
      # @raise [SchemaError] both, or one that is neither a Symbol nor a Proc
      def check_condition(name, if_holds, unless_holds)
        return nil if if_holds.nil? && unless_holds.nil?
        raise SchemaError, "#{display}.attribute #{name.inspect}: give if: or unless:, not both" if if_holds && unless_holds

        kind, condition = if_holds ? [:if, if_holds] : [:unless, unless_holds]
        unless condition.is_a?(Symbol) || condition.is_a?(Proc)
          raise SchemaError, "#{display}.attribute #{name.inspect}: #{kind}: is a Proc (record[, context]) or a method's name, " \
                             "not #{condition.inspect}"
        end

        [kind, condition].freeze
      end

      # @raise [SchemaError] +model+ does not declare the field's attribute, or not
      #   with a type the field's kind writes
      # @return [Array<Array(String, Proc)>] the relationship links, checked
      def relationship_links(method, name, links)
        return [] if links.nil?

        where = "#{display}.#{method} #{name.inspect}"
        raise SchemaError, "#{where}: links: is a Hash of relation => Proc, not #{links.inspect}" unless links.is_a?(Hash)

        links.map do |rel, block|
          text = rel.is_a?(Symbol) ? rel.name : rel
          unless text.is_a?(String) && !text.empty?
            raise SchemaError, "#{where}: links: a relation is a non-empty Symbol or String, not #{rel.inspect}"
          end
          raise SchemaError, "#{where}: links: #{text.inspect} needs a Proc (record, context) giving the href" unless block.respond_to?(:call)

          [-text, block]
        end
      end

      #
      # A computed attribute (a block, or a method of the serializer) has no
      # model attribute: nil. An +attribute+ the model lacks may be a method
      # defined after the declaration: refused only when +compiling+.
      def check_against_model(field, model, compiling: false)
        return nil if field.computed

        attribute = model.attributes.find { |a| a.name == field.name }
        return nil if !attribute && field.kind == :attribute && (__wb_method_attribute?(field.name) || !compiling)

        where = "#{display}.#{field.kind} #{field.name.inspect}"
        unless attribute
          raise SchemaError, "#{where}: #{Model.display_name(model)} declares no attribute #{field.name.inspect}" \
                             "#{" and #{display} defines no method #{field.name}(record)" if field.kind == :attribute}"
        end

        case field.kind
        when :one
          unless attribute.model? && !attribute.list?
            raise SchemaError, "#{where}: #{Model.display_name(model)}##{field.name} is not a record (a model class); " \
                               "#{attribute.list? && attribute.model? ? 'use many' : 'use attribute'}"
          end
        when :many
          unless attribute.model? && attribute.list?
            raise SchemaError, "#{where}: #{Model.display_name(model)}##{field.name} is not a list of records; " \
                               "#{attribute.model? ? 'use one' : 'use attribute'}"
          end
        end
        attribute
      end

      def check_id_against_model(name, model)
        attribute = model.attributes.find { |a| a.name == name }
        raise SchemaError, "#{display}.id #{name.inspect}: #{Model.display_name(model)} declares no attribute #{name.inspect}" unless attribute
        return attribute if !attribute.list? && %i[string integer].include?(attribute.type)

        raise SchemaError, "#{display}.id #{name.inspect}: an id is a :string or :integer attribute"
      end

      # Every change to the declarations goes through here: compiled methods
      # are forgotten.
      def change
        Model::SCHEMA_LOCK.synchronize do
          yield
          __wb_reset_compiled
        end
      end
    end
  end
end
