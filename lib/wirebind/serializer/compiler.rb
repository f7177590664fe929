# frozen_string_literal: true

require "monitor"

module Wirebind
  class Serializer
    # A serializer compiled for one model class and one format: its
    # {Program} (the format's description of a record, built once), and an
    # object whose singleton methods (+write+, and for JSON:API +id_of+) are
    # the Ruby source {Generator} translates the program into, evaluated
    # once. The source holds only names the schema declared and
    # +inspect+-quoted literals; the link blocks are called from a frozen
    # Array by index, and nested serializers through instance variables set
    # once, before the object is published. The native engine runs the same
    # program ({#native_program}).
    #
    # @api private
    class Compiled
      # Records nested deeper than this are refused: a cycle, most likely.
      MAX_DEPTH = JSON::Writer::DEFAULT_MAX_DEPTH
      # For the generated source.
      Writer = JSON::Writer

      # One declared field, resolved against the model.
      # +condition+: the index in {#links} of its +if:+/+unless:+ (true or nil).
      Resolved = Struct.new(:field, :attribute, :key, :at, :serializer, :model, :condition, keyword_init: true)

      # @return [Class] the serializer class
      attr_reader :serializer
      # @return [Class] the model class written
      attr_reader :model
      # @return [Symbol] the format
      attr_reader :format
      # @return [JSON::Plan] the model's JSON plan this was compiled from
      attr_reader :plan
      # @return [String, nil] the serializer's type
      attr_reader :type
      # @return [String] the generated source, for debugging
      attr_reader :source
      # @return [Program] how a record is written, for both backends
      attr_reader :program

      # @param serializer [Class]
      # @param model [Class]
      # @param format [Symbol]
      # @raise [SchemaError] a declaration does not fit the model or the format
      def initialize(serializer, model, format)
        @serializer = serializer
        @model = model
        @format = format
        # nil for a class that is not a model: its records are read through
        # their readers, and their values written by their Ruby class.
        @plan = model.include?(Model) ? JSON::Plan.for(model) : nil
        @type = serializer.type
        @computed = []
        @fields = resolve_fields.freeze
        @discriminator = discriminator_call
        # The link blocks, then the computed attributes' callables: the
        # generated code and the native engine call them by index.
        @links = (serializer.__wb_link_blocks + @computed).freeze
        remove_instance_variable(:@computed)
        # Path parts of errors, by the +at+ index the generated code sets.
        # Error paths by +at+: the fields, then each link block (a resource
        # link by its relation, a relationship link by the relationship's key).
        link_paths = Array.new(@links.size)
        serializer.__wb_links.each { |link| link_paths[link.index] = link.rel }
        @fields.each do |resolved|
          resolved.field.links&.each { |link| link_paths[link.index] = resolved.key }
          link_paths[resolved.attribute.index] = resolved.key if resolved.attribute.is_a?(ComputedAttribute)
        end
        link_paths[@discriminator[1]] = @discriminator[0] if @discriminator
        @paths = (@fields.map(&:key) + link_paths).freeze
        @types = @fields.map { |resolved| resolved.attribute.type }.freeze
        @fields.each { |resolved| instance_variable_set(:"@n#{resolved.at}", nil) if resolved.serializer }
        @native_program = nil
        prepare
        @program = FORMATS.fetch(format).program(self)
        @source = Generator.new(self, @program).source
        singleton_class.class_eval(@source, "(#{Model.display_name(serializer)} #{format} for #{Model.display_name(model)})", 1)
      end

      # @return [Array<Resolved>]
      attr_reader :fields

      # @return [Array(String, Integer), nil] for a model under a +json_type+
      #   mapping: the discriminator's key and the index in {#links} of the
      #   callable giving a record's value ({Values::DISCRIMINATOR})
      attr_reader :discriminator

      # @return [Array<Proc>] the link blocks and computed attributes'
      #   callables, each called with +(record, context)+, by index
      attr_reader :links

      # Sets the instance variables of the nested serializers' compiled forms.
      # Called once, before this object is published (the nested ones may be
      # this one, or on their way: see {Serializer.__wb_compiled}).
      # @return [void]
      def resolve_nested
        @fields.each do |resolved|
          next unless resolved.serializer

          nested = resolved.model ? resolved.serializer.__wb_compiled(@format, resolved.model) : Dispatch.new(resolved.serializer, @format)
          instance_variable_set(:"@n#{resolved.at}", nested)
        end
      end

      # @return [Object] the native engine's compiled program (a
      #   Serializer::Native::Program), made on first use
      def native_program
        @native_program ||= Native.compile(@program)
      end

      # The native engine asks, compiling {#program}: the nested serializer of
      # field +at+ (a Compiled, or a Dispatch that picks one per record).
      # @return [Compiled, Dispatch]
      def nested(at)
        instance_variable_get(:"@n#{at}")
      end

      # The native engine's way out for a model-typed attribute's value: the
      # generated source's, as a String.
      # @return [String]
      def native_model_value(at, value, depth)
        raise wrong_value(at, value) unless @types[at] === value

        JSON::Writer.model(+"", value, depth + 1, MAX_DEPTH)
      end

      # @return [String]
      def inspect
        "#<#{self.class.name} #{Model.display_name(@serializer)} #{@format} for #{Model.display_name(@model)}>"
      end

      # @return [EncodeError] +error+ with its path under field +at+ and list index +index+
      def nested_error(error, at, index)
        error = EncodeError.new(error.message) unless error.is_a?(EncodeError)
        error = JSON::Writer.nested(error, index) if index
        error = JSON::Writer.nested(error, @paths[at]) if at
        error
      end

      # @return [EncodeError] for a record that is not an instance of the model
      def wrong_record(record)
        EncodeError.new("#{Model.display_name(@serializer)} writes #{Model.display_name(@model)} records, got #{Types.describe(record)}")
      end

      # @return [EncodeError] for a list attribute that is not an Array
      def not_a_list(value)
        EncodeError.new("expected an Array, got #{Types.describe(value)}")
      end

      # @return [EncodeError] for a model-typed value of the wrong class
      def wrong_value(at, value)
        EncodeError.new("expected #{Model.display_name(@types[at])} object, got #{Types.describe(value)}")
      end

      # @return [EncodeError]
      def too_deep
        EncodeError.new("records nest deeper than #{MAX_DEPTH}: is there a cycle?")
      end

      private

      # Format-specific checks and instance variables, before generation.
      def prepare; end

      def resolve_fields
        keys = {}
        @serializer.__wb_fields.each_with_index.map do |field, at|
          attribute = computed(field) ||
                      (@plan ? @serializer.__send__(:check_against_model, field, @model, compiling: true) : reader(field.name))
          key = field.key || @serializer.__wb_transformed_key(field.name) ||
                (@plan && attribute.is_a?(Model::Attribute) ? @plan.slots[attribute.index].key : field.name.name)
          if (other = keys[key])
            raise SchemaError, "#{Model.display_name(@serializer)}: #{other.inspect} and #{field.name.inspect} are both written as #{key.inspect}"
          end

          keys[key] = field.name
          attribute = nested_rows(attribute) if attribute.is_a?(Model::Attribute) && attribute.nested_list?
          nested_model = field.serializer && (field.serializer.model || (attribute.model? ? attribute.type : nil))
          Resolved.new(field: field, attribute: attribute, key: key, at: at, serializer: field.serializer, model: nested_model,
                       condition: condition(field)).freeze
        end
      end
    end

    # What the serializer reads of a record that is not a model: a reader,
    # whose values are written by their Ruby class ({JSON::Writer.value}).
    # Answers what a {Program} asks of a {Model::Attribute}. +hash_record+:
    # the records are Hashes, read by key ({Values.hash_value}).
    #
    # @api private
    ReaderAttribute = Struct.new(:name, :hash_record) do
      # A value of any Ruby class, one (not a list), no model, no instance
      # variable: read through the reader, always.
      def type
        :any
      end

      def ivar
        nil
      end

      def list?
        false
      end

      def model?
        false
      end
    end

    # A computed attribute: read as a {ReaderAttribute} is (never a Hash's
    # key), its value from its callable, +index+ in {Compiled#links}.
    #
    # @api private
    class ComputedAttribute < ReaderAttribute
      # @return [Integer]
      attr_reader :index

      def initialize(name, index)
        super(name, false)
        @index = index
      end
    end

    class Compiled
      private

      # A block's field, or an +attribute+ the record's class does not have
      # and the serializer defines as a method: its {ComputedAttribute}, its
      # callable added to the ones {#links} will hold. nil for the others.
      def computed(field)
        return nil unless field.kind == :attribute

        callable = field.computed ? two_arguments(field.computed) : method_callable(field.name)
        return nil unless callable

        ComputedAttribute.new(field.name, add_callable(callable)).freeze
      end

      # A list of lists attribute, written as a value computed from it
      # ({Values.nested_rows}): what Wirebind::JSON.encode writes.
      # @return [ComputedAttribute]
      def nested_rows(attribute)
        ivar = attribute.ivar
        ComputedAttribute.new(attribute.name, add_callable(->(record, _context) { Values.nested_rows(attribute, record.instance_variable_get(ivar)) })).freeze
      end

      # The discriminator of a model under a +json_type+ mapping, whose
      # records (of whichever class) are written with it first.
      # @return [Array(String, Integer), nil] see {#discriminator}
      def discriminator_call
        key, = @plan && JSON::Plan.__send__(:discriminator, @model)
        key && [key, add_callable(Values::DISCRIMINATOR)].freeze
      end

      # @return [Integer] the index +callable+ will have in {#links}
      def add_callable(callable)
        @computed << callable
        @serializer.__wb_link_blocks.size + @computed.size - 1
      end

      # The index of a field's +if:+/+unless:+ callable, giving true (write
      # the field) or nil; nil without a condition.
      def condition(field)
        return nil unless field.condition

        kind, given = field.condition
        test = given.is_a?(Symbol) ? serializer_method(given, "an #{kind}: condition") : two_arguments(given)
        add_callable(kind == :if ? ->(record, context) { true if test.call(record, context) } : ->(record, context) { true unless test.call(record, context) })
      end

      # @return [Proc] +proc+, or for a lambda of one argument one that takes two
      def two_arguments(proc)
        proc.lambda? && proc.arity == 1 ? ->(record, _context) { proc.call(record) } : proc
      end

      # The serializer's method +name+ as a Proc taking +(record, context)+,
      # when the record's class has no such attribute or reader.
      def method_callable(name)
        return nil unless @serializer.__wb_method_attribute?(name)
        return nil if @plan ? @model.attributes.any? { |a| a.name == name } : @model.public_method_defined?(name)

        serializer_method(name, "a computed attribute's method")
      end

      # @return [Proc] the serializer's instance method +name+, taking +(record, context)+
      # @raise [SchemaError] no such method, or one taking other arguments
      def serializer_method(name, what)
        unless @serializer.__wb_method_attribute?(name)
          raise SchemaError, "#{Model.display_name(@serializer)}: #{what} names #{name.inspect}, which the serializer does not define"
        end

        method = (@instance ||= @serializer.allocate).method(name)
        case method.arity
        when 1 then ->(record, _context) { method.call(record) }
        when 2, -2, -3 then method.to_proc
        else raise SchemaError, "#{Model.display_name(@serializer)}##{name}: #{what} takes (record) or (record, context)"
        end
      end

      # @return [ReaderAttribute] the reader +name+ of the (non-model) record class
      # @raise [EncodeError] the class has no public reader of that name
      def reader(name)
        return ReaderAttribute.new(name, true).freeze if @model <= Hash
        return ReaderAttribute.new(name, false).freeze if @model.public_method_defined?(name)

        raise EncodeError, "#{Model.display_name(@serializer)} reads ##{name}, which #{Model.display_name(@model)} does not have"
      end
    end

    # The nested serializer of a relation whose records' class is not known
    # when compiling (a serializer without a declared model, under a record
    # that is not a model): each record is written by the compiled form for
    # its own class.
    #
    # @api private
    class Dispatch
      NO_HEAD = Object.new.freeze
      NOTHING = [nil, nil].freeze

      def initialize(serializer, format)
        @serializer = serializer
        @format = format
        # The (non-model) class last seen and its compiled form, in one frozen
        # pair: one write, so that threads sharing this object never see a
        # mismatched pair.
        @last = NOTHING
      end

      # Compiled#write (Siren's takes a head too).
      def write(record, out, context, depth, head = NO_HEAD)
        compiled = compiled_for(record)
        return compiled.write(record, out, context, depth) if NO_HEAD.equal?(head)

        compiled.write(record, out, context, depth, head)
      end

      # JsonApi::Compiled#relate
      def relate(record, out, state, key)
        compiled_for(record).relate(record, out, state, key)
      end

      # The native engine's program for +record+ (Compiled#native_program of
      # the compiled form for its class).
      def native_program_for(record)
        compiled_for(record).native_program
      end

      private

      def compiled_for(record)
        klass = record.class
        last = @last
        return last[1] if last[0].equal?(klass)

        compiled = @serializer.__wb_compiled(@format, klass)
        # A model's compiled form follows its schema: asked for each time.
        @last = [klass, compiled].freeze if compiled.plan.nil?
        compiled
      end
    end
  end
end
