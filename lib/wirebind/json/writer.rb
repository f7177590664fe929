# frozen_string_literal: true

require "bigdecimal"
require "date"

module Wirebind
  module JSON
    # The low-level JSON writer: appends one value at a time, correctly
    # escaped and exactly written, to a UTF-8 String buffer. The generated
    # model encoders call it for each member; a serializer (HAL, JSON:API,
    # Siren...) can build documents with it directly:
    #
    #   out = +""
    #   out << "{"
    #   Writer.key(out, "_links") << "{"
    #   ...
    #
    # Every method appends to +out+ and returns it. A value that cannot be
    # written raises {EncodeError} without a path; callers that know where the
    # value sits raise it again with one.
    module Writer
      # Escaped inside strings: the quote, the backslash, the C0 controls, and
      # U+2028/U+2029, which JSON allows raw but JavaScript source (JSONP, a
      # <script> block) does not. Matched on the string's bytes (U+2028 is
      # E2 80 A8 in UTF-8): a byte class is searched several times faster than
      # a character class over multi-byte text.
      ESCAPE = Shareable.make(Regexp.new('["\\\\\x00-\x1f]|\xE2\x80[\xA8\xA9]'.b, Regexp::NOENCODING))
      # What each byte {ESCAPE} matches is written as.
      ESCAPES = Shareable.make((0x00..0x1F).to_h { |code| [code.chr.b, format("\\u%04x", code)] }.merge(
                                 '"'.b => '\\"', "\\".b => "\\\\", "\b".b => "\\b", "\f".b => "\\f", "\n".b => "\\n", "\r".b => "\\r",
                                 "\t".b => "\\t", "\u2028".b => "\\u2028", "\u2029".b => "\\u2029"
                               ))
      # Beyond this exponent a BigDecimal is written in exponent notation
      # (0.12e345) rather than with hundreds of zeros; both read back exactly.
      DECIMAL_POSITIONAL_EXPONENT = 100
      # Nesting deeper than this is refused: a cycle in the objects, most likely.
      DEFAULT_MAX_DEPTH = 1024
      # Integers shorter than this many bits are written without checking
      # their length (about 19 digits; the native encoders decline longer
      # ones to #integer, which checks).
      SHORT_INTEGER_BITS = 64
      # A key written bare in an error's path (+a.b+); any other is quoted (+["a.b"]+).
      PATH_IDENTIFIER = /\A[A-Za-z_$][A-Za-z0-9_$]*\z/

      module_function

      # Appends +value+ (a String or Symbol) as a JSON string.
      # @param out [String] a UTF-8 buffer
      # @param value [String, Symbol]
      # @return [String] +out+
      # @raise [EncodeError] not a String or Symbol, or not valid in its encoding
      def string(out, value)
        value = value.name if value.is_a?(Symbol)
        raise EncodeError, "expected a String, got #{Types.describe(value)}" unless value.is_a?(String)

        value = utf8(value) unless value.encoding == Encoding::UTF_8 && value.valid_encoding?
        bytes = value.b # a shared view, not a copy
        if bytes.match?(ESCAPE)
          out << '"' << bytes.gsub(ESCAPE, ESCAPES).force_encoding(Encoding::UTF_8) << '"'
        else
          out << '"' << value << '"'
        end
      end

      # Appends +name+ as an object key and the colon after it.
      # @param out [String]
      # @param name [String, Symbol]
      # @return [String] +out+
      def key(out, name)
        string(out, name) << ":"
      end

      # @param out [String]
      # @param value [Integer]
      # @return [String] +out+
      def integer(out, value)
        raise EncodeError, "expected an Integer, got #{Types.describe(value)}" unless value.is_a?(Integer)

        out << number_of_readable_length(value.to_s)
      end

      # What is written must read back: a number longer than the decoders'
      # default +max_number_length+ is refused here as it would be there.
      # @param text [String] a number's JSON text
      # @return [String] +text+
      # @raise [EncodeError] +text+ is too long
      def number_of_readable_length(text)
        limit = JSON::DEFAULT_LIMITS[:max_number_length]
        return text if text.bytesize <= limit

        raise EncodeError, "a number of #{text.bytesize} characters is longer than max_number_length (#{limit}): JSON.decode would refuse it"
      end

      # Appends the shortest text that reads back to the same double.
      # @param out [String]
      # @param value [Float, Integer]
      # @return [String] +out+
      # @raise [EncodeError] NaN or an infinity, which JSON cannot write
      def float(out, value)
        if value.is_a?(Float)
          raise EncodeError, "cannot write #{value} in JSON (no NaN or Infinity)" unless value.finite?

          return out << value.to_s
        end
        raise EncodeError, "expected a Float or Integer, got #{Types.describe(value)}" unless value.is_a?(Integer)

        out << number_text { Types::FloatType.generate(value) }
      end

      # Appends a decimal number exactly.
      # @param out [String]
      # @param value [BigDecimal, Integer, Rational]
      # @return [String] +out+
      def decimal(out, value)
        if value.is_a?(BigDecimal) && value.finite? && value.exponent.abs > DECIMAL_POSITIONAL_EXPONENT
          return out << number_of_readable_length(value.to_s("E"))
        end

        text = number_text { Types::DecimalType.generate(value) }
        raise EncodeError, "expected #{Types::DecimalType::EXPECTED_VALUE}, got #{Types.describe(value)}" unless text

        out << number_of_readable_length(text)
      end

      # @param out [String]
      # @param value [Boolean]
      # @return [String] +out+
      def boolean(out, value)
        case value
        when true then out << "true"
        when false then out << "false"
        else raise EncodeError, "expected true or false, got #{Types.describe(value)}"
        end
      end

      # Appends a Time as an xs:dateTime string, with its offset.
      # @return [String] +out+
      def time(out, value)
        out << '"' << scalar_text(:time, value) << '"'
      end

      # Appends a Date as "YYYY-MM-DD".
      # @return [String] +out+
      def date(out, value)
        out << '"' << scalar_text(:date, value) << '"'
      end

      # Appends bytes as a base64 string (RFC 4648, padded, no line breaks).
      # @return [String] +out+
      def base64(out, value)
        raise EncodeError, "expected a String, got #{Types.describe(value)}" unless value.is_a?(String)

        out << '"' << [value].pack("m0") << '"'
      end

      # Appends any value: a model (through its generated encoder), nil, a
      # Hash with String or Symbol keys, an Array, a String or Symbol, an
      # Integer, Float or BigDecimal, true or false, a Time or a Date. Anything
      # else raises rather than guessing (no #to_s, no #to_json).
      #
      # @param out [String]
      # @param value [Object]
      # @param depth [Integer] containers already open around +value+
      # @param max_depth [Integer]
      # @return [String] +out+
      # @raise [EncodeError] with the path of the offending value
      def value(out, value, depth = 0, max_depth = DEFAULT_MAX_DEPTH)
        case value
        when nil then out << "null"
        when String, Symbol then string(out, value)
        when Integer then integer(out, value)
        when Float then float(out, value)
        when true then out << "true"
        when false then out << "false"
        when Hash then object(out, value, depth, max_depth)
        when Array then array(out, value, depth, max_depth)
        when BigDecimal then decimal(out, value)
        when Time then time(out, value)
        when Date
          raise EncodeError, "cannot write a DateTime in JSON without a schema; use a Time" if value.is_a?(DateTime)

          date(out, value)
        when Model then model(out, value, depth, max_depth)
        else raise EncodeError, "cannot write #{Types.describe(value)} in JSON"
        end
      end

      # A Model inside a free value (the serializers' model-typed values too):
      # written by the pure JSON twin on either backend, since it appends to
      # the Ruby String being written. {MODEL_WRITER} is that twin, asked of
      # {Backend} once, where the JSON pair is registered (json.rb).
      # @return [String] +out+
      # @api private
      def model(out, value, depth, max_depth)
        MODEL_WRITER.write_model(value, out, depth, max_depth)
      end

      # @api private
      def object(out, hash, depth, max_depth)
        too_deep(max_depth) if depth >= max_depth
        out << "{"
        first = true
        hash.each do |name, item|
          out << "," unless first
          first = false
          unless name.is_a?(String) || name.is_a?(Symbol)
            raise EncodeError, "an object key must be a String or Symbol, not #{Types.describe(name)}"
          end

          begin
            key(out, name)
            value(out, item, depth + 1, max_depth)
          rescue EncodeError => e
            raise nested(e, name.to_s)
          end
        end
        out << "}"
      end

      # @api private
      def array(out, array, depth, max_depth)
        too_deep(max_depth) if depth >= max_depth
        out << "["
        array.each_with_index do |item, index|
          out << "," unless index.zero?
          begin
            value(out, item, depth + 1, max_depth)
          rescue EncodeError => e
            raise nested(e, index)
          end
        end
        out << "]"
      end

      # @param parts [Array<String, Integer>] keys and indexes, outermost first
      # @return [String, nil] e.g. +[3].affects_versions[0].sequence+; a key that is
      #   not an identifier is written as a quoted JSON string: +["a.b"]+
      def format_path(parts)
        return nil if parts.empty?

        path = +""
        parts.each do |part|
          if part.is_a?(Integer)
            path << "[" << part.to_s << "]"
          elsif PATH_IDENTIFIER.match?(part)
            path << "." unless path.empty?
            path << part
          else
            path << "[" << string(+"", part) << "]"
          end
        end
        path
      end

      # @api private
      # @return [EncodeError] +error+ again, its path under +part+ (a key or an index)
      def nested(error, part)
        parts = [part]
        rest = error.path
        message = rest ? error.message.delete_suffix(" (at #{rest})") : error.message
        path = format_path(parts)
        if rest
          path += rest.start_with?("[") ? rest : ".#{rest}"
        end
        EncodeError.new(message, path: path)
      end

      # @api private
      def too_deep(max_depth)
        raise EncodeError, "objects nest deeper than max_depth (#{max_depth}): is there a cycle?"
      end

      # @api private
      def utf8(value)
        if value.encoding == Encoding::UTF_8 || value.encoding == Encoding::BINARY
          # Bytes taken for UTF-8: binary data that is not text belongs in :base64.
          copy = value.dup.force_encoding(Encoding::UTF_8)
          return copy if copy.valid_encoding?

          raise EncodeError, "invalid UTF-8 in #{Types.excerpt(value.scrub)} (binary data belongs in a :base64 attribute)"
        end

        value.encode(Encoding::UTF_8)
      rescue EncodingError => e
        raise EncodeError, "a #{value.encoding} string cannot be converted to UTF-8 (#{e.message})"
      end

      # @api private
      def scalar_text(type, value)
        number_text { Types.to_xml_text(type, value) }
      end

      # Types speaks InvalidValue; the writer speaks EncodeError.
      # @api private
      def number_text
        yield
      rescue Types::InvalidValue => e
        raise EncodeError, e.message
      end
    end
  end
end
