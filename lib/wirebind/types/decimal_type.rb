# frozen_string_literal: true

module Wirebind
  module Types
    # +:decimal+: xs:decimal, read to an exact BigDecimal. No exponent, no
    # INF or NaN: those belong to xs:double.
    #
    # @api private
    module DecimalType
      EXPECTED_TEXT = "a decimal number (like 12, -0.5 or 3.25)"
      EXPECTED_VALUE = "a BigDecimal, Integer or Rational"
      PATTERN = /\A[+-]?(?:\d+(?:\.\d*)?|\.\d+)\z/

      # @param text [String] without surrounding whitespace
      # @return [BigDecimal, nil] nil when +text+ is not a decimal
      def self.parse(text)
        return nil unless PATTERN.match?(text)

        # BigDecimal() refuses the trailing point that xs:decimal allows ("12.").
        BigDecimal(text.end_with?(".") ? text.chop : text)
      end

      # A Float is refused rather than written: it is binary, and which decimal
      # it stands for is a guess better made by the caller.
      #
      # @param value [Object]
      # @return [String, nil] nil when +value+ is of another class
      # @raise [InvalidValue] +value+ has no exact decimal form (NaN, Infinity, 1/3)
      def self.generate(value)
        case value
        when BigDecimal
          raise InvalidValue, "cannot write #{Types.describe(value)} as a decimal" unless value.finite?

          value.to_s("F")
        when Integer then value.to_s
        when Rational then rational_text(value)
        end
      end

      def self.rational_text(value)
        places = Types.decimal_places(value.denominator)
        raise InvalidValue, "cannot write #{Types.describe(value)} as a decimal: it has no finite decimal form" unless places
        return value.numerator.to_s if places.zero?

        whole, fraction = (value.abs * (10**places)).to_i.divmod(10**places)
        "#{'-' if value.negative?}#{whole}.#{fraction.to_s.rjust(places, '0')}"
      end
      private_class_method :rational_text
    end
  end
end
