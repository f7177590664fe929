# frozen_string_literal: true

module Wirebind
  module Types
    # XML Schema types no Ruby class holds exactly, kept as the text (a +:string+
    # attribute's +format:+) and checked against the type's lexical space:
    # xsd:duration ("P1M" is no number of seconds), xsd:time (a time of day is
    # no Time), gYear, gYearMonth, gMonthDay, gDay and gMonth (a time zone may
    # follow: "2026Z" is no Integer). White space around the text is allowed, as
    # the types collapse it; the value keeps it. Each pattern is anchored and
    # has no repetition inside a repetition: a check is linear in the text.
    #
    # @api private
    module StringFormat
      ZONE = "(?:Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
      YEAR = "-?(?:[1-9][0-9]{4,}|[0-9]{4})"
      MONTH = "(?:0[1-9]|1[0-2])"
      DAY = "(?:0[1-9]|[12][0-9]|3[01])"
      BLANK = "[ \\t\\r\\n]*"

      # format => [XSD type name, pattern, an example for messages]
      FORMATS = Shareable.make(
        {
          # At least one component; "T" only before a time component; only seconds have a fraction.
          duration: ["duration", /\A#{BLANK}-?P(?=[0-9]|T[0-9])(?:[0-9]+Y)?(?:[0-9]+M)?(?:[0-9]+D)?(?:T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?)?#{BLANK}\z/, "P1DT2H"],
          time_of_day: ["time", /\A#{BLANK}(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?|24:00:00(?:\.0+)?)#{ZONE}#{BLANK}\z/, "13:20:00"],
          g_year: ["gYear", /\A#{BLANK}(?!-0000)#{YEAR}#{ZONE}#{BLANK}\z/, "2026"],
          g_year_month: ["gYearMonth", /\A#{BLANK}(?!-0000)#{YEAR}-#{MONTH}#{ZONE}#{BLANK}\z/, "2026-01"],
          g_month_day: ["gMonthDay", /\A#{BLANK}--(#{MONTH})-(#{DAY})#{ZONE}#{BLANK}\z/, "--12-31"],
          g_day: ["gDay", /\A#{BLANK}---#{DAY}#{ZONE}#{BLANK}\z/, "---01"],
          # "--05--" is XML Schema 1.0's first form, which some toolkits still write.
          g_month: ["gMonth", /\A#{BLANK}--#{MONTH}(?:--)?#{ZONE}#{BLANK}\z/, "--05"]
        }
      )
      # The month's last day in a leap year: gMonthDay has no year, so --02-29 is a day.
      LAST_DAYS = [nil, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31].freeze

      class << self
        # @param format [Symbol] one of {FORMATS}
        # @return [String] the XSD type's local name
        def xsd_name(format)
          FORMATS.fetch(format)[0]
        end

        # @param format [Symbol] one of {FORMATS}
        # @param value [Object] a String (anything else is refused too)
        # @return [String, nil] what is wrong with +value+, nil when it is in the lexical space
        def violation(format, value)
          name, pattern, example = FORMATS.fetch(format)
          expected = "an xsd:#{name} (e.g. #{example.inspect})"
          return "expected #{expected}, got #{Types.describe(value)}" unless value.is_a?(String)

          match = value.valid_encoding? && pattern.match(value)
          return Types.invalid_text(expected, value).message unless match
          return nil unless format == :g_month_day && match[2].to_i > LAST_DAYS[match[1].to_i]

          Types.invalid_text(expected, value, "month #{match[1]} has days 1 to #{LAST_DAYS[match[1].to_i]}").message
        end
      end
    end
  end
end
