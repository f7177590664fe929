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
