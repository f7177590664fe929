# frozen_string_literal: true

module Wirebind
  module Types
    # +:integer+: xs:integer, of any size.
    #
    # @api private
    module IntegerType
      EXPECTED_TEXT = "an integer"
      EXPECTED_VALUE = "an Integer"
      # \d is ASCII-only in Ruby regexps, so no Arabic-Indic or full-width digits.
      PATTERN = /\A[+-]?\d+\z/

      # @param text [String] without surrounding whitespace
      # @return [Integer, nil] nil when +text+ is not an integer
      def self.parse(text)
        # Once the pattern has vouched for the text, String#to_i reads it exactly
        # (base 10, leading zeros and sign included) and is faster than Integer().
        text.to_i if PATTERN.match?(text)
      end

      # @param value [Object]
      # @return [String, nil] nil when +value+ is not an Integer
      def self.generate(value)
        value.to_s if value.is_a?(Integer)
      end
    end
  end
end
