# frozen_string_literal: true

module Wirebind
  module Types
    # The date fields +:time+ and +:date+ share: XML Schema's proleptic Gregorian
    # calendar, with year 0000 meaning 1 BCE (XML Schema 1.1), and years of four
    # to nine digits.
    #
    # Callers have already matched the text against their pattern, so the text
    # is ASCII and every field is where the pattern put it: fields are read
    # byte by byte, without allocating a string per field.
    #
    # @api private
    module Calendar
      ZERO = "0".ord
      MINUS = "-".ord
      # Nine digits keep every year in a C int, for the native twin.
      MAX_YEAR_DIGITS = 9
      MAX_YEAR = (10**MAX_YEAR_DIGITS) - 1
      DAYS_IN_MONTH = [nil, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31].freeze
      # XML Schema bounds time zone offsets to -14:00..+14:00.
      MAX_OFFSET_MINUTES = 14 * 60

      module_function

      # @param text [String] starts with an optional '-' then the year's digits
      # @param year_end [Integer] byte offset of the '-' that ends the year
      # @param expected [String] the type's description, for messages
      # @return [Integer]
      def year(text, year_end, expected)
        digits = text.getbyte(0) == MINUS ? year_end - 1 : year_end
        if digits > MAX_YEAR_DIGITS
          raise Types.invalid_text(expected, text, "years of more than #{MAX_YEAR_DIGITS} digits are not supported")
        end
        if digits > 4 && text.getbyte(year_end - digits) == ZERO
          raise Types.invalid_text(expected, text, "a year of more than four digits must not start with 0")
        end

        # The year opens the text, so String#to_i reads it, sign and all, and
        # stops at the '-' after it: no substring needed.
        year = text.to_i
        raise Types.invalid_text(expected, text, "-0000 is not a year") if year.zero? && digits < year_end

        year
      end

      # @return [Integer] the two ASCII digits at +offset+
      def two_digits(text, offset)
        ((text.getbyte(offset) - ZERO) * 10) + text.getbyte(offset + 1) - ZERO
      end

      # @raise [InvalidValue] no such day in the proleptic Gregorian calendar
      def check_date(text, expected, year, month, day)
        raise Types.invalid_text(expected, text, "there is no month #{month}") if month < 1 || month > 12

        last_day = month == 2 && leap_year?(year) ? 29 : DAYS_IN_MONTH[month]
        return if day >= 1 && day <= last_day

        raise Types.invalid_text(expected, text, "#{year_text(year)}-#{format('%02d', month)} has days 1 to #{last_day}")
      end

      def leap_year?(year)
        # Integer#% floors, so the rule holds for negative (astronomical) years too.
        (year % 4).zero? && (!(year % 100).zero? || (year % 400).zero?)
      end

      # Days from 1970-01-01 to a date of the proleptic Gregorian calendar
      # (Howard Hinnant's days_from_civil; Integer#/ floors, so negative years
      # need no correction).
      #
      # @return [Integer]
      def days_from_civil(year, month, day)
        year -= 1 if month <= 2
        era = year / 400
        year_of_era = year - (era * 400)
        day_of_year = ((153 * (month > 2 ? month - 3 : month + 9)) + 2) / 5 + day - 1
        day_of_era = (year_of_era * 365) + (year_of_era / 4) - (year_of_era / 100) + day_of_year
        (era * 146_097) + day_of_era - 719_468
      end

      # @param offset [Integer] byte offset of the zone's sign in "+hh:mm"
      # @return [Integer] the zone's offset from UTC in seconds
      def zone_offset(text, offset, expected)
        minutes = two_digits(text, offset + 4)
        total = (two_digits(text, offset + 1) * 60) + minutes
        if minutes > 59 || total > MAX_OFFSET_MINUTES
          raise Types.invalid_text(expected, text, "a time zone offset lies between -14:00 and +14:00")
        end

        text.getbyte(offset) == MINUS ? -total * 60 : total * 60
      end

      # @return [String] the year as XML Schema writes it: at least four digits
      # @raise [InvalidValue] the year would not be read back
      def year_text(year)
        if year.abs > MAX_YEAR
          raise InvalidValue, "cannot write year #{year}: years of more than #{MAX_YEAR_DIGITS} digits are not supported"
        end

        year.negative? ? format("-%04d", -year) : format("%04d", year)
      end
    end
  end
end
