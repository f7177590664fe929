# frozen_string_literal: true

module Wirebind
  module Types
    # The other ways a +:time+ attribute may be written (+format:+): RFC 822
    # dates as RSS's pubDate has them ("Tue, 10 Jun 2003 04:00:00 GMT"), and
    # whole seconds or milliseconds since 1970-01-01T00:00:00Z (Stripe's
    # "created"). The codecs carry such a value as its wire type ({.wire_type}:
    # a String, an Integer); the record builders and the encoders' entry convert
    # it here, so both backends share one conversion.
    #
    # @api private
    module TimeFormat
      FORMATS = %i[rfc822 epoch epoch_ms].freeze
      EXPECTED_RFC822 = "an RFC 822 date-time (e.g. \"Tue, 10 Jun 2003 04:00:00 GMT\" or \"... -0500\")"
      DAY_NAMES = %w[Sun Mon Tue Wed Thu Fri Sat].freeze
      MONTH_NAMES = %w[Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec].freeze
      MONTHS = MONTH_NAMES.each_with_index.to_h { |name, index| [name, index + 1] }.freeze
      DAYS = DAY_NAMES.each_with_index.to_h { |name, index| [name, index] }.freeze
      # RFC 822's zone names, in seconds east of UTC (military letters are not read:
      # RFC 1123 notes their signs were published backwards).
      ZONES = {
        "GMT" => 0, "UT" => 0, "UTC" => 0, "Z" => 0,
        "EST" => -5 * 3600, "EDT" => -4 * 3600, "CST" => -6 * 3600, "CDT" => -5 * 3600,
        "MST" => -7 * 3600, "MDT" => -6 * 3600, "PST" => -8 * 3600, "PDT" => -7 * 3600
      }.freeze
      # [day-name ","] day month year hh:mm[:ss] zone; a two-digit year is 19xx (RFC 822's own).
      RFC822 = /\A(?:([A-Z][a-z]{2}),[ \t]*)?(\d{1,2})[ \t]+([A-Z][a-z]{2})[ \t]+(\d{4}|\d{2})[ \t]+
                (\d\d):(\d\d)(?::(\d\d))?[ \t]+(?:([+-])(\d\d)(\d\d)|([A-Z]{1,3}))\z/x

      class << self
        # @param format [Symbol] one of {FORMATS}
        # @return [Symbol] the scalar type the codecs read and write: +:string+ or +:integer+
        def wire_type(format)
          format == :rfc822 ? :string : :integer
        end

        # @param format [Symbol]
        # @param value [String, Integer] as the codecs read it
        # @return [Time]
        # @raise [InvalidValue]
        def decode(format, value)
          case format
          when :rfc822 then parse_rfc822(value)
          when :epoch then Time.at(value).utc
          else Time.at(value.div(1000), value % 1000, :millisecond).utc
          end
        end

        # @param format [Symbol]
        # @param value [Object] the attribute's value, not nil
        # @return [String, Integer]
        # @raise [InvalidValue] not a Time, or one the format cannot write exactly
        def encode(format, value)
          raise InvalidValue, "expected a Time for :time (format: #{format.inspect}), got #{Types.describe(value)}" unless value.is_a?(Time)

          case format
          when :rfc822 then generate_rfc822(value)
          when :epoch then whole(value.to_r, value, "seconds")
          else whole(value.to_r * 1000, value, "milliseconds")
          end
        end

        private

        def parse_rfc822(text)
          match = RFC822.match(text.strip)
          raise Types.invalid_text(EXPECTED_RFC822, text) unless match

          day_name, day, month_name, year, hour, minute, second, sign, zone_hours, zone_minutes, zone = match.captures
          month = MONTHS[month_name] or raise Types.invalid_text(EXPECTED_RFC822, text, "no month #{month_name}")
          year = year.length == 2 ? 1900 + year.to_i : year.to_i
          day = day.to_i
          Calendar.check_date(text, EXPECTED_RFC822, year, month, day)
          hour = hour.to_i
          minute = minute.to_i
          second = second.to_i
          raise Types.invalid_text(EXPECTED_RFC822, text, "no time #{hour}:#{minute}:#{second}") if hour > 23 || minute > 59 || second > 59

          offset = zone ? ZONES[zone] : ((zone_hours.to_i * 3600) + (zone_minutes.to_i * 60)) * (sign == "-" ? -1 : 1)
          raise Types.invalid_text(EXPECTED_RFC822, text, "unknown zone #{zone}") unless offset

          seconds = (Calendar.days_from_civil(year, month, day) * TimeType::SECONDS_PER_DAY) + (hour * 3600) + (minute * 60) + second
          check_day_name(text, day_name, seconds) if day_name
          offset.zero? ? Time.at(seconds).utc : Time.at(seconds - offset, in: offset)
        end

        # A day name that is not the date's own says the text is wrong somewhere.
        def check_day_name(text, day_name, seconds)
          actual = DAY_NAMES[(seconds.div(TimeType::SECONDS_PER_DAY) + 4) % 7] # 1970-01-01 was a Thursday
          return if DAYS.key?(day_name) && day_name == actual

          raise Types.invalid_text(EXPECTED_RFC822, text, "the date is a #{actual}")
        end

        def generate_rfc822(value)
          raise InvalidValue, "cannot write #{Types.describe(value)} as RFC 822: it has a fraction of a second" unless value.subsec.zero?

          offset = value.utc_offset
          value = value.getutc unless (offset % 60).zero?
          zone = value.utc? ? "GMT" : format("%s%02d%02d", offset.negative? ? "-" : "+", offset.abs / 3600, offset.abs % 3600 / 60)
          format("%s, %02d %s %04d %02d:%02d:%02d %s", DAY_NAMES[value.wday], value.day, MONTH_NAMES[value.month - 1], value.year,
                 value.hour, value.min, value.sec, zone)
        end

        def whole(count, value, unit)
          return count.to_i if count.denominator == 1

          raise InvalidValue, "cannot write #{Types.describe(value)} as whole #{unit} since the epoch"
        end
      end
    end
  end
end
