# frozen_string_literal: true

module Wirebind
  module Types
    # +:time+: xs:dateTime, read to a Time that keeps the text's offset from
    # UTC ("Z" and no zone at all give a UTC time) and its fraction of a second
    # exactly, however many digits it has.
    #
    # Time.iso8601 and Time.parse are not used: both are slow, and lenient in
    # ways a typed decoder must not be.
    #
    # @api private
    module TimeType
      EXPECTED_TEXT = "a date-time (YYYY-MM-DDThh:mm:ss with optional .fraction and Z or +hh:mm)"
      EXPECTED_VALUE = "a Time"
      PATTERN = /\A-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?\z/
      ZULU = "Z".ord
      PLUS = "+".ord
      MINUS = "-".ord
      COLON = ":".ord
      SECONDS_PER_DAY = 86_400
      NANOSECOND_DIGITS = 9

      # @param text [String] without surrounding whitespace
      # @return [Time, nil] nil when +text+ does not have the shape of a date-time
      # @raise [InvalidValue] the shape is right but a field is out of range
      def self.parse(text)
        return nil unless PATTERN.match?(text)

        # The pattern fixed every field's place relative to the end of the year.
        year_end = text.index("-", 1)
        year = Calendar.year(text, year_end, EXPECTED_TEXT)
        month = Calendar.two_digits(text, year_end + 1)
        day = Calendar.two_digits(text, year_end + 4)
        Calendar.check_date(text, EXPECTED_TEXT, year, month, day)
        hour = Calendar.two_digits(text, year_end + 7)
        minute = Calendar.two_digits(text, year_end + 10)
        second = Calendar.two_digits(text, year_end + 13)
        length = text.bytesize
        zone_start = find_zone(text, length)
        fraction_start = year_end + 16
        nanoseconds = zone_start > fraction_start ? read_nanoseconds(text, fraction_start, zone_start - fraction_start) : 0
        check_time(text, hour, minute, second, nanoseconds)

        # Seconds since the epoch and Time.at: several times faster than
        # Time.utc or Time.new given a fraction, and 24:00:00 needs no special case.
        seconds = (Calendar.days_from_civil(year, month, day) * SECONDS_PER_DAY) + (hour * 3600) + (minute * 60) + second
        if zone_start == length || text.getbyte(zone_start) == ZULU
          Time.at(seconds, nanoseconds, :nsec).utc
        else
          offset = Calendar.zone_offset(text, zone_start, EXPECTED_TEXT)
          Time.at(seconds - offset, nanoseconds, :nsec, in: offset)
        end
      end

      # @param value [Object]
      # @return [String, nil] nil when +value+ is not a Time
      # @raise [InvalidValue] the time has a fraction of a second with no finite
      #   decimal form (Time.at(Rational(1, 3))), or a year beyond nine digits
      def self.generate(value)
        return nil unless value.is_a?(Time)

        offset = value.utc_offset
        # xs:dateTime cannot write an offset with seconds (a city's local mean
        # time before time zones) nor one past 14 hours: keep the instant, in UTC.
        value = value.getutc unless value.utc? || ((offset % 60).zero? && offset.abs <= Calendar::MAX_OFFSET_MINUTES * 60)
        subsec = value.subsec
        format(
          "%s-%02d-%02dT%02d:%02d:%02d%s%s",
          Calendar.year_text(value.year), value.month, value.day, value.hour, value.min, value.sec,
          subsec.zero? ? "" : ".#{fraction_digits(value, subsec)}",
          value.utc? ? "Z" : zone_text(offset)
        )
      end

      # @param text [String] a date-time, maybe with white space around it
      # @param offset [String] "Z" or "+hh:mm"
      # @return [String] +text+, with +offset+ appended when it has no zone
      def self.with_default_offset(text, offset)
        text = text.strip
        length = text.bytesize
        return text if length < 7 || text.getbyte(length - 1) == ZULU

        sign = text.getbyte(length - 6)
        return text if (sign == PLUS || sign == MINUS) && text.getbyte(length - 3) == COLON

        text + offset
      end

      # @return [Integer] where the zone starts: the text's length when there is none
      def self.find_zone(text, length)
        return length - 1 if text.getbyte(length - 1) == ZULU

        # Fraction digits and the clock are digits and colons: a sign six bytes
        # from the end can only open a zone.
        sign = text.getbyte(length - 6)
        sign == PLUS || sign == Calendar::MINUS ? length - 6 : length
      end

      # @return [Integer, Rational] the fraction of a second in nanoseconds;
      #   a Rational only for digits past the ninth
      def self.read_nanoseconds(text, start, digit_count)
        digits = text.byteslice(start, digit_count).to_i
        return digits * (10**(NANOSECOND_DIGITS - digit_count)) if digit_count <= NANOSECOND_DIGITS

        Rational(digits, 10**(digit_count - NANOSECOND_DIGITS))
      end

      def self.check_time(text, hour, minute, second, nanoseconds)
        raise Types.invalid_text(EXPECTED_TEXT, text, "there is no minute #{minute}") if minute > 59
        # XML Schema has no leap seconds.
        raise Types.invalid_text(EXPECTED_TEXT, text, "there is no second #{second}") if second > 59
        # 24:00:00 is XML Schema's way to write the first instant of the next day.
        return if hour < 24 || (hour == 24 && minute.zero? && second.zero? && nanoseconds.zero?)

        raise Types.invalid_text(EXPECTED_TEXT, text, "there is no hour #{hour} (24 only as 24:00:00)")
      end

      def self.fraction_digits(value, subsec)
        places = Types.decimal_places(subsec.denominator)
        unless places
          raise InvalidValue,
                "cannot write #{Types.describe(value)} exactly: its fraction of a second, #{subsec}, has no finite decimal form"
        end

        # The fewest places that write the fraction exactly never end in a zero.
        (subsec * (10**places)).to_i.to_s.rjust(places, "0")
      end

      def self.zone_text(offset)
        minutes = offset.abs / 60
        format("%s%02d:%02d", offset.negative? ? "-" : "+", minutes / 60, minutes % 60)
      end

      private_class_method :find_zone, :read_nanoseconds, :check_time, :fraction_digits, :zone_text
    end
  end
end
