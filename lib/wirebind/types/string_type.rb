# frozen_string_literal: true

module Wirebind
  module Types
    # +:string+: the text exactly as the document carries it, whitespace and all.
    #
    # @api private
    module StringType
      EXPECTED_TEXT = "a string"
      EXPECTED_VALUE = "a String or Symbol"

      # @param text [String]
      # @return [String] +text+ itself: the codec already made it a fresh string
      def self.parse(text)
        text
      end

      # @param value [Object]
      # @return [String, nil] nil when +value+ is not a String or Symbol
      def self.generate(value)
        case value
        when String then value
        when Symbol then value.name
        end
      end
    end
  end
end
