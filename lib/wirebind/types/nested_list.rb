# frozen_string_literal: true

module Wirebind
  module Types
    # A list of lists of scalars (+[[:float]]+, GeoJSON's coordinates): the JSON
    # codecs carry it as a plain value (+:any+); the record builders and
    # {Model.encodable} check its shape here, so both backends share one rule.
    #
    # @api private
    module NestedList
      ITEM_CLASSES = Shareable.make({ string: [String], integer: [Integer], float: [Float, Integer], boolean: [TrueClass, FalseClass] })

      # @param type [Symbol] the inner item type, one of {ITEM_CLASSES}' keys
      # @param value [Object] the value read or to write, not nil
      # @param name [String] the JSON key, for messages
      # @param encoding [Boolean] writing: a float must be finite
      # @return [Array<Array, nil>] a new list of new lists (+:float+ items as Floats)
      # @raise [InvalidValue] not a list of lists (or nulls) of +type+
      def self.check(type, value, name, encoding: false)
        expected = "a list of lists of #{type.inspect} for #{name}"
        raise InvalidValue, "expected #{expected}, got #{Types.describe(value)}" unless value.is_a?(Array)

        classes = ITEM_CLASSES.fetch(type)
        value.each_with_index.map do |inner, i|
          next nil if inner.nil?
          raise InvalidValue, "expected #{expected}, got #{Types.describe(inner)} at [#{i}]" unless inner.is_a?(Array)

          inner.each_with_index.map do |item, j|
            unless classes.any? { |klass| item.is_a?(klass) }
              raise InvalidValue, "expected #{expected}, got #{Types.describe(item)} at [#{i}][#{j}]"
            end
            next item unless type == :float

            item = item.to_f
            raise InvalidValue, "cannot write #{item} in JSON (at [#{i}][#{j}] of #{name})" if encoding && !item.finite?

            item
          end
        end
      end
    end
  end
end
