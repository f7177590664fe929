# frozen_string_literal: true

module Wirebind
  module Types
    # +:boolean+: xs:boolean, whose lexical space also has "1" and "0".
    #
    # @api private
    module BooleanType
      EXPECTED_TEXT = "a boolean (true, false, 1 or 0)"
      EXPECTED_VALUE = "true or false"

      # @param text [String] without surrounding whitespace
      # @return [Boolean, nil] nil when +text+ is not a boolean
      def self.parse(text)
        case text
        when "true", "1" then true
        when "false", "0" then false
        end
      end

      # @param value [Object]
      # @return [String, nil] nil unless +value+ is true or false: a truthy
      #   object is not a boolean, and guessing would hide a bug
      def self.generate(value)
        case value
        when true then "true"
        when false then "false"
        end
      end
    end
  end
end
