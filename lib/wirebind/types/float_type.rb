# frozen_string_literal: true

module Wirebind
  module Types
    # +:float+: xs:double, read to the nearest Float (ties to even), the way a
    # correct C strtod reads it, so that the native twin agrees bit for bit.
    #
    # @api private
    module FloatType
      EXPECTED_TEXT = "a double (like 1.5, -2E10, INF, -INF or NaN)"
      EXPECTED_VALUE = "a Float or Integer"

      # The whole lexical space of xs:double (and XML Schema 1.1's "+INF").
      PATTERN = /\A([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?\z/
      # The forms Kernel#Float reads ("1." is not one of them), without and
      # with an exponent.
      FLOAT_PLAIN = /\A[+-]?(?:\d+(?:\.\d+)?|\.\d+)\z/
      FLOAT_EXPONENT = /\A[+-]?(?:\d+(?:\.\d+)?|\.\d+)[eE][+-]?\d+\z/
      # Kernel#Float is exact for short texts, but ignores digits past the
      # sixtieth and warns when a value overflows or underflows. Up to this
      # length, with an exponent of at most EXACT_EXPONENT_LIMIT, neither can
      # happen: such a value lies between 1e-290 and 1e290. JRuby's
      # Kernel#Float misrounds texts of 31 or more significant digits near a
      # tie between two doubles (about one in ten such texts, measured on
      # 9.4.14); there the limit is 24 characters, the longest Float#to_s text.
      EXACT_LENGTH_LIMIT = RUBY_ENGINE == "jruby" ? 24 : 40
      EXACT_EXPONENT_LIMIT = 250
      LEADING_ZEROS = /\A0+/
      NONZERO_DIGIT = /[1-9]/
      # Keeps the exact path's arithmetic bounded however long the text.
      MAX_SIGNIFICANT_DIGITS = 800

      SIGNIFICAND_BITS = 53
      # The exponent of the least subnormal, 2**-1074.
      MIN_BINARY_EXPONENT = -1074
      # Every finite double is below 2**1024.
      MAX_BITS = 1024
      # JRuby's Float#to_s drops a needed digit of some doubles
      # (3.0974109830400201e+19 as 3.09741098304002e+19, another double).
      FLOAT_TO_S_READS_BACK = RUBY_ENGINE != "jruby"

      # @param text [String] without surrounding whitespace
      # @return [Float, nil] nil when +text+ is not a double
      def self.parse(text)
        if text.bytesize <= EXACT_LENGTH_LIMIT
          return Float(text) if FLOAT_PLAIN.match?(text)

          if FLOAT_EXPONENT.match?(text)
            exponent_at = text.index("e") || text.index("E")
            return Float(text) if text.byteslice(exponent_at + 1, EXACT_LENGTH_LIMIT).to_i.abs <= EXACT_EXPONENT_LIMIT
          end
        end

        case text
        when "INF", "+INF" then Float::INFINITY
        when "-INF" then -Float::INFINITY
        when "NaN" then Float::NAN
        else
          match = PATTERN.match(text)
          match && parse_exactly(match)
        end
      end

      # @param value [Object]
      # @return [String, nil] nil when +value+ is neither a Float nor an Integer
      # @raise [InvalidValue] an Integer too large for a double
      def self.generate(value)
        case value
        when Float
          return text(value) if value.finite?

          value.nan? ? "NaN" : (value.positive? ? "INF" : "-INF")
        when Integer
          # Integer#to_f warns past the largest double; past 2**53 the exact
          # rounding also keeps this in step with reading.
          magnitude = value.abs
          float = magnitude.bit_length <= SIGNIFICAND_BITS ? magnitude.to_f : nearest(magnitude, 0)
          raise InvalidValue, "cannot write #{Types.describe(value)} as a double: it is too large" unless float.finite?

          text(value.negative? ? -float : float)
        end
      end

      # Float#to_s is the shortest text that reads back to the same double, and
      # its "1.0e+20" form is valid xs:double. Where it may not read back
      # (JRuby), such a double is written with 17 significant digits, which do.
      def self.text(float)
        text = float.to_s
        return text if FLOAT_TO_S_READS_BACK || Float(text).eql?(float) # rubocop:disable Lint/FloatComparison -- bit for bit is the point

        format("%.17g", float)
      end

      # The slow path for long or extreme texts: integer arithmetic, exact.
      def self.parse_exactly(match)
        fraction = match[3] || match[4] || ""
        digits = "#{match[2]}#{fraction}".sub(LEADING_ZEROS, "")
        negative = match[1] == "-"
        return negative ? -0.0 : 0.0 if digits.empty?

        exponent = match[5].to_i - fraction.length
        if digits.length > MAX_SIGNIFICANT_DIGITS
          # No halfway point between two doubles needs more than 767 digits, so
          # the digits past 800 only matter as "some" or "none": a sticky 1.
          sticky = digits.index(NONZERO_DIGIT, MAX_SIGNIFICANT_DIGITS) ? "1" : "0"
          exponent += digits.length - MAX_SIGNIFICANT_DIGITS - 1
          digits = "#{digits[0, MAX_SIGNIFICANT_DIGITS]}#{sticky}"
        end
        # The value lies in [10**magnitude, 10**(magnitude + 1)). Deciding the
        # extremes here also keeps 10**exponent below bounded by the text's length.
        magnitude = digits.length - 1 + exponent
        value =
          if magnitude > 308 then Float::INFINITY
          elsif magnitude < -324 then 0.0
          else nearest(digits.to_i, exponent)
          end
        negative ? -value : value
      end

      # The double nearest to +significand+ * 10**+exponent+, ties to even.
      #
      # @param significand [Integer] positive
      # @param exponent [Integer]
      # @return [Float]
      def self.nearest(significand, exponent)
        numerator = exponent.negative? ? significand : significand * (10**exponent)
        denominator = exponent.negative? ? 10**-exponent : 1
        # A binary exponent that leaves a 53- or 54-bit quotient (fewer for a
        # subnormal); one correction brings a 54-bit one down to 53.
        binary_exponent = [numerator.bit_length - denominator.bit_length - SIGNIFICAND_BITS, MIN_BINARY_EXPONENT].max
        quotient, half = scaled_division(numerator, denominator, binary_exponent)
        if quotient.bit_length > SIGNIFICAND_BITS
          binary_exponent += 1
          quotient, half = scaled_division(numerator, denominator, binary_exponent)
        end
        quotient += 1 if half.positive? || (half.zero? && quotient.odd?)
        return Float::INFINITY if quotient.bit_length + binary_exponent > MAX_BITS

        # Exact: the quotient has at most 53 bits (or is 2**53 after rounding up).
        Math.ldexp(quotient, binary_exponent)
      end

      # @return [Array(Integer, Integer)] the quotient of numerator / (denominator
      #   * 2**binary_exponent), and how the remainder compares with half the divisor
      def self.scaled_division(numerator, denominator, binary_exponent)
        if binary_exponent.negative?
          numerator <<= -binary_exponent
        else
          denominator <<= binary_exponent
        end
        quotient, remainder = numerator.divmod(denominator)
        [quotient, (remainder * 2) <=> denominator]
      end

      private_class_method :parse_exactly, :scaled_division, :text
    end
  end
end
