# frozen_string_literal: true

require "json"

module Wirebind
  class Serializer
    # How serializers write scalar values: the same JSON mapping as
    # {Wirebind::JSON.encode} (it delegates to {JSON::Writer} for
    # everything but two fast paths), and the one place string escaping is
    # decided, so that a C escaper can replace {.string} and +STRING_FAST+ later.
    #
    # @api private
    module Values
      Writer = JSON::Writer

      # What JSON escapes in ASCII text: the quote, the backslash, the C0
      # controls. (A UTF-8 regexp: matching an ASCII-only String needs no
      # conversion of either.)
      ESCAPE_ASCII = Shareable.make(Regexp.new('["\\\\\x00-\x1f]'.encode(Encoding::UTF_8)))
      # A byte that may need escaping, on a UTF-8 string's binary view: those,
      # and 0xE2, which starts U+2028 and U+2029 (and other characters, which
      # the writer then leaves as they are). A single byte class is searched
      # far faster than the exact pattern.
      MAYBE_ESCAPE = Shareable.make(Regexp.new('["\\\\\x00-\x1f\xE2]'.b, Regexp::NOENCODING))
      UTF_8 = Encoding::UTF_8

      # The generated test, in Ruby source, that the value in local +x+ is an
      # ASCII-only String with nothing to escape, to be written between quotes
      # as it is. Anything else goes through {.string}. (ASCII-only: in an
      # ASCII-compatible encoding, which UTF-8 text then is too.)
      #
      # @param x [String] the name of a local variable
      # @return [String] a Ruby expression
      def self.string_fast(x)
        "String === #{x} && #{x}.ascii_only? && !Values::ESCAPE_ASCII.match?(#{x})"
      end

      # U+2028 and U+2029 in UTF-8, which the json library leaves unescaped.
      LINE_SEPARATORS = Shareable.make(Regexp.new("\xE2\x80[\xA8\xA9]".b, Regexp::NOENCODING))
      # The json library's C generator escapes a long string several times
      # faster than a gsub: it is used for valid UTF-8 without U+2028/U+2029,
      # and only if it writes exactly what the writer writes (checked below).
      JSON_STATE = ::JSON::State.new
      PROBE = ((0..127).map(&:chr).join + "é/\u00ff\u{1F680}").freeze

      # Appends +value+ as a JSON string, escaped as {JSON::Writer.string} does.
      # @return [String] +out+
      # @raise [EncodeError] not a String or Symbol, or not valid in its encoding
      def self.string(out, value)
        if String === value && value.encoding == UTF_8 && value.valid_encoding?
          bytes = value.b
          return out << '"' << value << '"' unless MAYBE_ESCAPE.match?(bytes)
          return out << JSON_STATE.generate(value) if JSON_ESCAPES && !LINE_SEPARATORS.match?(bytes)
        end
        Writer.string(out, value)
      end

      # Whether a resource that is not an Array is a list of records: an
      # Enumerator, an object answering +find_each+ (an ActiveRecord
      # Relation), or an Enumerable other than a Hash or a Struct (records).
      def self.collection?(resource)
        return false if resource.is_a?(Hash) || resource.is_a?(Struct)

        resource.is_a?(Enumerable) || resource.respond_to?(:find_each)
      end

      # Yields each record of a list: a Relation's in batches (+find_each+),
      # never all loaded at once; anything else's +each+.
      # @return [void]
      def self.each_item(list, &each)
        list.respond_to?(:find_each) ? list.find_each(&each) : list.each(&each)
        nil
      end

      # A Hash record's value for attribute +name+: under the Symbol key, or
      # else the String one (the Hash's default is not used).
      # @raise [EncodeError] neither key is present
      def self.hash_value(record, name)
        record.fetch(name) do
          record.fetch(name.name) do
            raise EncodeError, "the Hash record has no key #{name.inspect} or #{name.name.inspect}"
          end
        end
      end

      # The op type of a +:time+ attribute by its +format:+ (see {.formatted_time}).
      FORMATTED_TIMES = Types::TimeFormat::FORMATS.to_h { |format| [format, :"time_#{format}"] }.freeze
      TIME_FORMATS = FORMATTED_TIMES.invert.freeze

      # The type an attribute is written as: its own, the one whose JSON form
      # it shares (+:xml+ is a string, JSON::Plan::JSON_CODES), or for a +:time+
      # with a +format:+ one of {FORMATTED_TIMES}.
      # @raise [SchemaError] a type with no JSON form (+:qname+)
      def self.json_type(attribute)
        type = attribute.type
        return FORMATTED_TIMES.fetch(attribute.time_format) if attribute.is_a?(Model::Attribute) && attribute.time_format
        if type == :qname
          raise SchemaError, "#{Model.display_name(attribute.owner)}##{attribute.name}: a :qname maps to XML only; JSON has no namespaces"
        end

        JSON::Plan::JSON_CODES.fetch(type, type)
      end

      # The native engine's way out for an +:any+ attribute: {.any} at the
      # record's depth, as a new String.
      # @return [String]
      def self.native_any(value, depth)
        any(+"", value, depth)
      end

      # The native engine's way out: +value+ written as the generated source
      # writes a +type+ value that is not nil, as a new String. C calls it for
      # what it declines (and so for every value that raises).
      # @param type [Symbol] a scalar type, or +:href+ for a link's href or an id
      # @return [String]
      # @raise [EncodeError]
      def self.native_text(type, value)
        case type
        when :string, :href then string(+"", value)
        when :time then time(+"", value)
        when *TIME_FORMATS.keys then formatted_time(+"", type, value)
        else Writer.public_send(type, +"", value)
        end
      end

      # Whether the json library escapes as the writer does (json 2.x does).
      JSON_ESCAPES = begin
        JSON_STATE.generate(PROBE) == Writer.string(+"", PROBE)
      rescue StandardError
        false
      end

      # Greatest offset from UTC xs:dateTime can write.
      MAX_OFFSET = 14 * 3600
      NANOSECONDS = 1_000_000_000
      # The fraction digits of each whole number of milliseconds, fewest first: "5" for 500.
      MILLISECONDS = Shareable.make((0..999).map { |ms| ".#{format('%03d', ms).sub(/0+\z/, '')}" })
      TWO_DIGITS = Shareable.make((0..99).map { |n| format("%02d", n) })
      # +hh:mm of every offset in whole minutes xs:dateTime can write, by seconds.
      ZONES = Shareable.make((-MAX_OFFSET / 60..MAX_OFFSET / 60).to_h do |minutes|
        [minutes * 60, format("%s%02d:%02d", minutes.negative? ? "-" : "+", minutes.abs / 60, minutes.abs % 60)]
      end)

      # Appends a value read through a reader, by its class: as
      # {JSON::Writer.value} writes it, with this module's fast paths.
      # @param depth [Integer] containers open around it
      # @return [String] +out+
      # @raise [EncodeError] a value JSON cannot hold
      def self.any(out, value, depth)
        case value
        when String then string(out, value)
        when Time then time(out, value)
        when true then out << "true"
        when false then out << "false"
        when Array then list(out, value, depth)
        else Writer.value(out, value, depth, Writer::DEFAULT_MAX_DEPTH)
        end
      end

      # {JSON::Writer.array}, its items through {.any}.
      def self.list(out, array, depth)
        Writer.too_deep(Writer::DEFAULT_MAX_DEPTH) if depth >= Writer::DEFAULT_MAX_DEPTH
        out << "["
        array.each_with_index do |item, index|
          out << "," unless index.zero?
          begin
            any(out, item, depth + 1)
          rescue EncodeError => e
            raise Writer.nested(e, index)
          end
        end
        out << "]"
      end

      # Appends a Time as an xs:dateTime string with its offset, exactly as
      # {JSON::Writer.time} does: the common case (a four-digit year, an
      # offset in whole minutes, a fraction in whole nanoseconds) from tables in one
      # pass, anything else through the writer.
      # @return [String] +out+
      # @raise [EncodeError] not a Time, or not writable
      # A +:time+ declared with a +format:+, as Wirebind::JSON writes it: an
      # RFC 822 string, or whole seconds or milliseconds as a JSON integer.
      # @param type [Symbol] one of {FORMATTED_TIMES}' values
      # @raise [Types::InvalidValue] not a Time, or one the format cannot write exactly
      def self.formatted_time(out, type, value)
        wire = Types::TimeFormat.encode(TIME_FORMATS.fetch(type), value)
        wire.is_a?(String) ? string(out, wire) : Writer.integer(out, wire)
      end

      # A list of lists attribute's value (+[[Point]]+, +[[:float]]+) as
      # Wirebind::JSON.encode writes it, checked as it checks: rows of
      # records, written as a free value ({JSON::Writer.model} for each), or of
      # scalars ({Model::Attribute#encode_wire}).
      # @param attribute [Model::Attribute] a {Model::Attribute#nested_list?}
      # @param value [Array, nil]
      # @return [Array, nil]
      # @raise [EncodeError, Types::InvalidValue] with the place in the value as its path
      def self.nested_rows(attribute, value)
        return value if value.nil?
        return nested_scalars(attribute.type, value, attribute.nested_levels + 1, nil) unless attribute.model?
        raise EncodeError, "expected an Array, got #{Types.describe(value)}" unless value.is_a?(Array)

        type = attribute.type
        value.each_with_index do |row, i|
          next if row.nil?
          raise EncodeError.new("expected an Array, got #{Types.describe(row)}", path: "[#{i}]") unless row.is_a?(Array)

          row.each_with_index do |item, j|
            next if item.nil? || type === item

            raise EncodeError.new("expected a #{Model.display_name(type)} object, got #{Types.describe(item)}", path: "[#{i}][#{j}]")
          end
        end
        Model.encodable(value) # formatted times as their wire values, enums checked: as JSON.encode
      end

      # +value+, a list +levels+ deep of +type+ scalars, as Wirebind::JSON.encode
      # writes it: each innermost item checked through the same JSON::Writer
      # method (so the same message), an Integer of a +:float+ list as a Float.
      # The recursion is as deep as the declaration's levels, not the input's.
      def self.nested_scalars(type, value, levels, path)
        raise EncodeError.new("expected an Array, got #{Types.describe(value)}", path: path) unless value.is_a?(Array)

        value.each_with_index.map do |item, i|
          next if item.nil?

          at = "#{path}[#{i}]"
          next nested_scalars(type, item, levels - 1, at) if levels > 1

          begin
            JSON::Writer.public_send(type, +"", item)
          rescue EncodeError => e
            raise EncodeError.new(e.message, path: at)
          end
          type == :float && item.is_a?(Integer) ? item.to_f : item
        end
      end

      # A json_type discriminator's value for +record+ (the value its class's
      # mapping gives it; nil for a class the mapping leaves out), which
      # serializers write first as Wirebind::JSON.encode does.
      DISCRIMINATOR = ->(record, _context) { JSON::Plan.for(record.class).tag&.last }

      def self.time(out, value)
        return Writer.time(out, value) unless Time === value

        year = value.year
        offset = value.utc_offset
        return Writer.time(out, value) unless year >= 1000 && year <= 9999 && (offset % 60).zero? && offset.abs <= MAX_OFFSET

        nanoseconds = value.nsec
        if nanoseconds.zero?
          return Writer.time(out, value) unless value.subsec.zero?

          fraction = ""
        else
          # A fraction finer than a nanosecond (Time.at(Rational(1, 3))) is the writer's.
          return Writer.time(out, value) unless (NANOSECONDS % value.subsec.denominator).zero?

          fraction = if (nanoseconds % 1_000_000).zero?
                       MILLISECONDS[nanoseconds / 1_000_000]
                     else
                       places = 9
                       while (nanoseconds % 10).zero?
                         nanoseconds /= 10
                         places -= 1
                       end
                       "." + nanoseconds.to_s.rjust(places, "0")
                     end
        end
        second, minute, hour, day, month = value.to_a
        out << "\"#{year}-#{TWO_DIGITS[month]}-#{TWO_DIGITS[day]}T#{TWO_DIGITS[hour]}:#{TWO_DIGITS[minute]}:" \
               "#{TWO_DIGITS[second]}#{fraction}#{value.utc? ? 'Z' : ZONES[offset]}\""
      end
    end
  end
end
