# frozen_string_literal: true

module Wirebind
  module Types
    # +:base64+: xs:base64Binary, decoded to a binary (ASCII-8BIT) String.
    #
    # @api private
    module Base64Type
      EXPECTED_TEXT = "base64 data"
      EXPECTED_VALUE = "a String"
      WHITESPACE = /[ \t\r\n]/

      # Whitespace may sit anywhere (documents wrap base64 at 76 columns); the
      # rest must be the strict alphabet with canonical padding, which is what
      # unpack's "m0" (RFC 4648, strict) checks, trailing bits included.
      #
      # @param text [String]
      # @return [String, nil] the bytes, or nil when +text+ is not base64
      def self.parse(text)
        text = text.delete(XML_WHITESPACE) if text.match?(WHITESPACE)
        text.unpack1("m0")
      rescue ArgumentError
        nil
      end

      # @param value [Object]
      # @return [String, nil] the bytes in strict base64, without line breaks;
      #   nil when +value+ is not a String
      def self.generate(value)
        [value].pack("m0") if value.is_a?(String)
      end
    end
  end
end
