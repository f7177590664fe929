# frozen_string_literal: true

module Wirebind
  # Include in a class to declare its schema once, and read and write it.
  #
  # @example
  #   class Entity
  #     include Wirebind::Model
  #     attribute :id, :string
  #   end
  #
  #   class Issue < Entity
  #     attribute :lang,   :string,   xml: "@lang"
  #     attribute :votes,  :integer
  #     attribute :labels, [:string], xml: "label"
  #   end
  #
  #   issue = Issue.new(id: "1", votes: 3)
  #   issue.labels          # => []
  #   issue.to_h            # => {id: "1", lang: nil, votes: 3, labels: []}
  #   Issue.from_xml(xml)   # see Wirebind::XML.decode
  #
  # Each class gets a reader and a writer per attribute, and +initialize+ (all
  # keywords optional), +==+, +eql?+, +hash+, +to_h+ and +inspect+, generated as
  # Ruby source for its own attribute list, on first use and again on first use
  # after it changes (declaring thousands of models compiles nothing until they
  # are used).
  # They live in a module of their own, so the class body may override them and
  # call +super+. See {ClassMethods} for the DSL and how schemas inherit.
  #
  # A record's values are its instance variables (+@votes+), which is what
  # +new+, the writers and every decoder set. Everything that reads a record
  # reads them too, not the readers: +==+, +hash+, +to_h+, and every encoder
  # and serializer on both backends (XML, JSON, binary, SOAP, HAL, JSON:API,
  # Siren), so a class that overrides a reader changes what Ruby code sees
  # through it, never what is written, and a record written then read back is
  # equal to itself. Objects that are not models (Structs, plain objects,
  # ActiveRecord rows) can only be read through their readers: serializers do
  # that for them.
  module Model
    # Guards every change to a schema, and every plan kept, so that a plan
    # computed from a schema that changed meanwhile is never kept.
    # @api private
    SCHEMA_LOCK = Mutex.new
    @xml_types = {}.freeze
    @enums = false
    @time_formats = false
    # Moves on with every schema change of any model class: what {wire_walk?}
    # kept for a class is worked out again after one.
    @schema_generation = 0

    class << self
      # @api private
      def included(base)
        super
        # (Asked of Class and ClassMethods, not of base: see ClassMethods#__wb_schema_values.)
        raise SchemaError, "Wirebind::Model is included in classes, not in #{display_name(base)}" unless Class === base
        # A subclass of a model already has its schema, copied from its parent.
        return if ClassMethods === base

        base.extend(ClassMethods)
        base.__wb_start_schema(nil)
      end

      # Records a class that declared {ClassMethods#xml_type}. Call with
      # SCHEMA_LOCK held.
      # @api private
      def register_xml_type(klass)
        # Inside a batch, registered together at its end: one copy of the table, not one per class.
        return Thread.current[:__wb_model_batch_types] << klass if Thread.current[:__wb_model_batch_types]

        register_xml_types([klass])
      end

      # Call with SCHEMA_LOCK held.
      # @api private
      def register_xml_types(classes)
        table = @xml_types.dup
        classes.each do |klass|
          name = klass.xml_type[0]
          # The latest declaration first: it wins over an older one of the same name.
          table[name] = if (known = table[name])
                          [klass, *known.reject { |other| other.equal?(klass) }].freeze
                        else
                          [klass].freeze
                        end
        end
        @xml_types = table.freeze
      end

      # The class an +xsi:type+ names where +declared+ is expected: +declared+
      # itself or a subclass of it that declared that type, the one declared in
      # exactly +uri+ first, then one whose +matching:+ accepts +uri+, then one
      # declared without a namespace (when two classes qualify alike, the later one).
      #
      # @api private
      # @param declared [Class] the model class the schema expects
      # @param local [String] the type's local name
      # @param uri [String, nil] the type's namespace, resolved where it appeared
      # @return [Class, nil] nil when no such class was declared
      def xml_subtype(declared, local, uri)
        candidates = @xml_types[local] or return nil
        matched = loose = nil
        candidates.each do |klass|
          next unless klass <= declared

          namespace = klass.xml_type[1]
          return klass if namespace == uri

          matching = klass.xml_type_matching
          matched ||= klass if matching == :any || (matching && uri && matching.match?(uri))
          loose ||= klass if namespace.nil?
        end
        matched || loose
      end

      # The class an +:any+ element's xsi:type names: one declared in exactly
      # that namespace (or, for no namespace, without one); when several are
      # (two generated modules holding the same schema's types, as vSphere's
      # pbm and vim25 clients both do), the one in the module of +owner+, the
      # record holding the field, else the later one. Not the looser matches of
      # {.xml_subtype}: open content is any document's, so a type by that local
      # name elsewhere must not take it.
      #
      # @api private
      # @param local [String] the type's local name
      # @param uri [String, nil] the type's namespace, resolved where it appeared
      # @param owner [Class, nil] the model whose field the element is
      # @return [Class, nil]
      def xml_type_named(local, uri, owner = nil)
        candidates = @xml_types[local] or return nil
        first = scope = nil
        candidates.each do |klass| # the latest declaration first
          next unless klass.xml_type[1] == uri
          return klass unless owner
          next first = klass if first.nil?

          if scope.nil?
            scope = lexical_scope(owner)
            return first if lexical_scope(first) == scope
          end
          return klass if lexical_scope(klass) == scope
        end
        first
      end

      # The module a class was declared in, by its name ("" at the top level).
      # @api private
      def lexical_scope(klass)
        klass.name.to_s.rpartition("::").first
      end
      private :lexical_scope

      # Declares many models at once: the +xml_type+s declared inside the block
      # are registered together when it ends (one copy of the registry, not one
      # per class). Generated code (+wirebind generate+) uses it. Per thread;
      # nested blocks join the outermost. (Each class's methods are written on
      # first use in any case, see {ClassMethods#attribute}.)
      #
      # @yield declares classes and attributes
      # @return [Object] the block's value
      def batch
        return yield if Thread.current[:__wb_model_batch_types]

        types = Thread.current[:__wb_model_batch_types] = []
        begin
          yield
        ensure
          Thread.current[:__wb_model_batch_types] = nil
          SCHEMA_LOCK.synchronize { register_xml_types(types) }
        end
      end

      # @api private
      # Records that some class declared an +enum:+ attribute or a +:string+
      # +format:+: from then on the encoders check them ({check_enums}).
      def enums_declared!
        @enums = true
      end

      # @api private
      # @return [Boolean] whether any class declared an +enum:+ attribute (or a +:string+ +format:+)
      def enums?
        @enums
      end

      # Checks every +enum:+ attribute (and +:string+ +format:+) of +value+ and of
      # the records it holds (an explicit stack, each record once). The encoders
      # call it before writing, once any class declared one, so no partial
      # output is written.
      #
      # @api private
      # @param value [Wirebind::Model, Array]
      # @return [void]
      # @raise [EncodeError] a value outside its enumeration or format, with its path
      def check_enums(value)
        # Paths are linked [parent, segment] pairs, joined only for an error; arrays
        # and records are each visited once, so a structure holding itself ends.
        stack = [[value, nil]]
        seen = {}.compare_by_identity
        until stack.empty?
          object, path = stack.pop
          next if seen[object]

          if object.is_a?(Array)
            seen[object] = true
            object.each_with_index { |item, index| stack << [item, [path, "[#{index}]"]] if item.is_a?(Model) || item.is_a?(Array) }
          elsif object.is_a?(Model)
            seen[object] = true
            object.class.attributes.each do |attribute|
              current = object.instance_variable_get(attribute.ivar)
              if attribute.enum && !(bad = attribute.enum_violation(current)).nil?
                raise EncodeError.new("#{bad.inspect} is not one of #{attribute.enum.keys.inspect}",
                                      path: enum_path([path, attribute.xml]))
              end
              if attribute.string_format && (problem = attribute.format_violation(current))
                raise EncodeError.new(problem, path: enum_path([path, attribute.xml]))
              end

              stack << [current, [path, attribute.xml]] if attribute.model? && current
            end
          end
        end
      end

      # @api private
      # Records that some class declared a +:time+ attribute with a +format:+
      # ({Attribute#converted?}).
      def time_formats_declared!
        @time_formats = true
      end

      # What the encoders write: +value+ with its enumerations checked
      # ({check_enums}) and, once any class declared a +:time+ +format:+, a copy
      # of its records and lists whose formatted times are their wire values
      # (Strings, Integers), so that both backends write them as such.
      #
      # @api private
      # @param value [Wirebind::Model, Array]
      # @return [Wirebind::Model, Array]
      # @raise [EncodeError] a value outside its enumeration, or a time its format cannot write
      def encodable(value)
        check_enums(value) if @enums
        @time_formats && wire_walk_for?(value) ? with_wire_times(value) : value
      end

      # @api private
      # Records that a model class's schema changed ({wire_walk?} asks again,
      # and every class's plans are made again: see {ClassMethods#wirebind_plan}).
      def schema_changed!
        @schema_generation += 1
      end

      # @api private
      # @return [Integer] moves on with every schema change of any model class
      attr_reader :schema_generation

      # @api private
      # Whether a record of +klass+ may hold a value {encodable} converts: one of
      # its attributes, or of the model classes (and their subclasses) it may
      # hold, to any depth, is {Attribute#converted?}, or holds +:any+ (which may
      # hold records of any class). Kept per class until a schema changes.
      # @param klass [Class] a model class
      # @return [Boolean]
      def wire_walk?(klass)
        kept = klass.instance_variable_get(:@__wb_wire_walk)
        return kept[1] if kept && kept[0] == @schema_generation

        generation = @schema_generation
        answer = holds_converted?(klass)
        klass.instance_variable_set(:@__wb_wire_walk, [generation, answer].freeze)
        answer
      end

      # {encodable}'s question for a record or a list of them (each class asked
      # once in a row; an Array inside the list is walked).
      def wire_walk_for?(value)
        return wire_walk?(value.class) if value.is_a?(Model)
        return false unless value.is_a?(Array)

        last = NilClass # no record is one
        value.any? do |item|
          next true if item.is_a?(Array)
          next false if !item.is_a?(Model) || item.instance_of?(last)

          wire_walk?(last = item.class)
        end
      end
      private :wire_walk_for?

      # A breadth-first walk of the classes a +klass+ record may hold, each once.
      def holds_converted?(klass)
        seen = { klass => true }.compare_by_identity
        pending = [klass]
        until pending.empty?
          pending.shift.attributes.each do |attribute|
            return true if attribute.converted?

            if attribute.model?
              (attribute.choices || [attribute.type]).each do |type|
                with_subclasses(type).each do |held|
                  next if seen[held]

                  seen[held] = true
                  pending << held
                end
              end
            elsif attribute.wire_type == :any
              return true
            end
          end
        end
        false
      end
      private :holds_converted?

      # +klass+ and every subclass of it (a value may be of any of them).
      def with_subclasses(klass)
        all = [klass]
        index = 0
        while index < all.size
          all.concat(all[index].subclasses)
          index += 1
        end
        all
      end
      private :with_subclasses

      # The copy {encodable} makes: every record and list reachable from +value+
      # once (shared ones stay shared, a cycle stays a cycle), without recursion.
      def with_wire_times(value)
        # First a walk that only looks (most graphs hold no formatted value), then
        # the copies, only when one does.
        wire = {}.compare_by_identity # object => {ivar => wire value} ({} for none)
        stack = [[value, nil]]
        formatted = false
        until stack.empty?
          object, path = stack.pop
          next if wire.key?(object)

          converted = wire[object] = {}
          if object.is_a?(Array)
            object.each_with_index { |item, index| stack << [item, [path, "[#{index}]"]] if item.is_a?(Model) || item.is_a?(Array) }
          elsif object.is_a?(Model)
            object.class.attributes.each do |attribute|
              current = object.instance_variable_get(attribute.ivar)
              if attribute.converted?
                formatted = true
                converted[attribute.ivar] = wire_time(attribute, current, [path, attribute.xml])
              elsif current.is_a?(Model) || current.is_a?(Array)
                stack << [current, [path, attribute.xml]]
              end
            end
          end
        end
        formatted ? wire_copies(wire).fetch(value, value) : value
      end
      private :with_wire_times

      # Copies of the objects {with_wire_times} walked, pointing at each other and
      # holding the wire values.
      def wire_copies(wire)
        copies = {}.compare_by_identity
        wire.each_key { |object| copies[object] = object.dup }
        copies.each do |object, copy|
          if copy.is_a?(Array)
            copy.map! { |item| copies.fetch(item, item) }
          else
            converted = wire[object]
            copy.class.attributes.each do |attribute|
              ivar = attribute.ivar
              current = copy.instance_variable_get(ivar)
              if converted.key?(ivar)
                copy.instance_variable_set(ivar, converted[ivar])
              elsif copies.key?(current)
                copy.instance_variable_set(ivar, copies[current])
              end
            end
          end
        end
        copies
      end
      private :wire_copies

      # The wire value of one attribute; a value it refuses raises {EncodeError} at +path+.
      # @api private
      def wire_time(attribute, value, path)
        attribute.encode_wire(value)
      rescue Types::InvalidValue => e
        raise EncodeError.new(e.message, path: enum_path(path))
      end
      private :wire_time

      # @return [String] a linked path from {check_enums} as "a/b[2]/c"
      def enum_path(link)
        segments = []
        while link
          segments.unshift(link[1]) if link[1]
          link = link[0]
        end
        segments.each_with_index.map { |segment, i| i.zero? || segment.start_with?("[") ? segment : "/#{segment}" }.join
      end
      private :enum_path

      # @api private
      # @return [Boolean] whether any class declared an +xml_type+ (decoders skip
      #   looking at +xsi:type+ until one has)
      def xml_types?
        !@xml_types.empty?
      end

      # @api private
      # @return [String] how messages name +object+: a class by its name
      def display_name(object)
        object.is_a?(Module) ? object.name || object.inspect : object.inspect
      end
    end

    # Encodes this record as XML.
    #
    # @param options [Hash] as {Wirebind::XML.encode} takes them
    # @return [Object] what {Wirebind::XML.encode} returns
    def to_xml(**options)
      Wirebind::XML.encode(self, **options)
    end

    private

    # The native JSON decoder's builder for a class with {ClassMethods#json_type}
    # variants: the record the discriminator picks, from the plan's values (this
    # object, allocated by the decoder, is let go).
    # @api private
    def __wb_json_variant(*values)
      JSON::Plan.for(self.class).build(values)
    end
  end
end

require_relative "model/attribute"
require_relative "model/generator"
require_relative "model/class_methods"
