# frozen_string_literal: true

module Wirebind
  module Types
    # +:date+: xs:date, read to a Date. A time zone may follow the date; it is
    # checked, then dropped, as a Date has none.
    #
    # @api private
    module DateType
      EXPECTED_TEXT = "a date (YYYY-MM-DD)"
      EXPECTED_VALUE = "a Date (not a DateTime or Time)"
      PATTERN = /\A-?\d{4,}-\d\d-\d\d(?:Z|[+-]\d\d:\d\d)?\z/
      # Years after the Gregorian reform read the same in Date's default
      # calendar (the Italian reform of 1582); earlier ones need the proleptic
      # Gregorian calendar XML Schema uses.
      LAST_YEAR_BEFORE_REFORM = 1582

      # @param text [String] without surrounding whitespace
      # @return [Date, nil] nil when +text+ does not have the shape of a date
      # @raise [InvalidValue] the shape is right but a field is out of range
      def self.parse(text)
        return nil unless PATTERN.match?(text)

        year_end = text.index("-", 1)
        year = Calendar.year(text, year_end, EXPECTED_TEXT)
        month = Calendar.two_digits(text, year_end + 1)
        day = Calendar.two_digits(text, year_end + 4)
        Calendar.check_date(text, EXPECTED_TEXT, year, month, day)
        zone_start = year_end + 6
        Calendar.zone_offset(text, zone_start, EXPECTED_TEXT) if text.bytesize > zone_start + 1

        if year > LAST_YEAR_BEFORE_REFORM
          Date.new(year, month, day)
        else
          Date.new(year, month, day, Date::GREGORIAN)
        end
      end

      # @param value [Object]
      # @return [String, nil] nil when +value+ is not a plain Date
      def self.generate(value)
        return nil unless value.is_a?(Date) && !value.is_a?(DateTime)

        # A Date before its calendar's reform counts Julian days; XML Schema
        # counts Gregorian ones.
        value = value.gregorian if value.julian?
        format("%s-%02d-%02d", Calendar.year_text(value.year), value.month, value.day)
      end
    end
  end
end
