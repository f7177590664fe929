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
  # Ruby source for its own attribute list and regenerated when it changes.
  # They live in a module of their own, so the class body may override them and
  # call +super+. See {ClassMethods} for the DSL and how schemas inherit.
  module Model
    # Guards every change to a schema, and every plan kept, so that a plan
    # computed from a schema that changed meanwhile is never kept.
    # @api private
    SCHEMA_LOCK = Mutex.new
    @xml_types = {}.freeze
    @enums = false

    class << self
      # @api private
      def included(base)
        super
        raise SchemaError, "Wirebind::Model is included in classes, not in #{display_name(base)}" unless base.is_a?(Class)
        # A subclass of a model already has its schema, copied from its parent.
        return if base.singleton_class.include?(ClassMethods)

        base.extend(ClassMethods)
        base.__send__(:__wb_start_schema, nil)
      end

      # Records a class that declared {ClassMethods#xml_type}. Call with
      # SCHEMA_LOCK held.
      # @api private
      def register_xml_type(klass)
        name = klass.xml_type[0]
        others = (@xml_types[name] || []).reject { |other| other.equal?(klass) }
        # The latest declaration first: it wins over an older one of the same name.
        @xml_types = @xml_types.merge(name => [klass, *others].freeze).freeze
      end

      # The class an +xsi:type+ names where +declared+ is expected: +declared+
      # itself or a subclass of it that declared that type, the one declared in
      # exactly +uri+ first, then one declared without a namespace (when two
      # classes declared the same, the later one).
      #
      # @api private
      # @param declared [Class] the model class the schema expects
      # @param local [String] the type's local name
      # @param uri [String, nil] the type's namespace, resolved where it appeared
      # @return [Class, nil] nil when no such class was declared
      def xml_subtype(declared, local, uri)
        candidates = @xml_types[local] or return nil
        loose = nil
        candidates.each do |klass|
          next unless klass <= declared

          namespace = klass.xml_type[1]
          return klass if namespace == uri
          loose ||= klass if namespace.nil?
        end
        loose
      end

      # @api private
      # Records that some class declared an +enum:+ attribute: from then on the
      # encoders check enumerations ({check_enums}).
      def enums_declared!
        @enums = true
      end

      # @api private
      # @return [Boolean] whether any class declared an +enum:+ attribute
      def enums?
        @enums
      end

      # Checks every +enum:+ attribute of +value+ and of the records it holds
      # (an explicit stack, each record once). The encoders call it before
      # writing, once any class declared an enumeration, so no partial output
      # is written.
      #
      # @api private
      # @param value [Wirebind::Model, Array]
      # @return [void]
      # @raise [EncodeError] a value outside its enumeration, with its path
      def check_enums(value)
        stack = [[value, nil]]
        seen = {}.compare_by_identity
        until stack.empty?
          object, path = stack.pop
          if object.is_a?(Array)
            object.each_with_index { |item, index| stack << [item, "#{path}[#{index}]"] }
          elsif object.is_a?(Model) && !seen[object]
            seen[object] = true
            object.class.attributes.each do |attribute|
              current = object.instance_variable_get(attribute.ivar)
              where = path ? "#{path}/#{attribute.xml}" : attribute.xml
              if attribute.enum && !(bad = attribute.enum_violation(current)).nil?
                raise EncodeError.new("#{bad.inspect} is not one of #{attribute.enum.keys.inspect}", path: where)
              end
              stack << [current, where] if attribute.model? && current
            end
          end
        end
      end

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
  end
end

require_relative "model/attribute"
require_relative "model/generator"
require_relative "model/class_methods"
