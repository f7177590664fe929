# frozen_string_literal: true

require "bigdecimal"
require "date"

module Wirebind
  # Conversions between wire text and Ruby values for the scalar types a schema
  # may name. Each type lives in its own module under +types/+; this module
  # dispatches to them.
  #
  # The rules are those of XML Schema's lexical spaces, kept exact because the
  # native backend has a C twin of every conversion and the tests hold the two
  # equal.
  module Types
    # The scalar type names an attribute may use.
    SCALARS = %i[string integer float decimal boolean time date base64].freeze
    # The open-content types an attribute may use besides the scalars (see
    # {Wirebind::XML::OpenContent}): +:xml+ (an element's content as XML text),
    # +:any+ (XML: nested Hashes, Arrays and Strings; JSON: plain values) and
    # +:qname+ (a {Wirebind::QName}).
    OPEN = %i[xml any qname].freeze

    # A text or a value does not fit its type.
    #
    # Deliberately not a {Wirebind::Error}: it knows nothing of where the value
    # sits, so the codecs rescue it and raise {DecodeError} or {EncodeError} with
    # the schema path and the position they know.
    class InvalidValue < StandardError; end

    # @api private
    XML_WHITESPACE = " \t\r\n"
    # @api private
    NON_WHITESPACE = /[^ \t\r\n]/
    # Values longer than this are cut short in messages: a bad 10 MB payload
    # should not become a 10 MB exception.
    # @api private
    MESSAGE_EXCERPT_LENGTH = 60
  end
end

require_relative "types/calendar"
require_relative "types/string_type"
require_relative "types/integer_type"
require_relative "types/float_type"
require_relative "types/decimal_type"
require_relative "types/boolean_type"
require_relative "types/time_type"
require_relative "types/time_format"
require_relative "types/string_format"
require_relative "types/date_type"
require_relative "types/base64_type"
require_relative "types/qname_type"
require_relative "types/xsd"

module Wirebind
  module Types
    # @api private
    MODULES = {
      string: StringType,
      integer: IntegerType,
      float: FloatType,
      decimal: DecimalType,
      boolean: BooleanType,
      time: TimeType,
      date: DateType,
      base64: Base64Type
    }.freeze

    class << self
      # @api private
      # @return [Boolean] whether +type+ names a scalar type
      def scalar?(type)
        MODULES.key?(type)
      end

      # @api private
      # @return [Boolean] whether +type+ names an open-content type ({OPEN})
      def open?(type)
        OPEN.include?(type)
      end

      # Converts the text of an element or attribute to the Ruby value of +type+.
      #
      # Every type but +:string+ first drops surrounding XML whitespace (space,
      # tab, CR, LF), as XML Schema's whiteSpace="collapse" facet says.
      #
      # @api private
      # @param type [Symbol] one of {SCALARS}
      # @param text [String]
      # @return [Object] the value; for +:string+, +text+ itself
      # @raise [InvalidValue] the text is not in the type's lexical space
      # @raise [ArgumentError] +type+ is not a scalar type
      def from_xml_text(type, text)
        # The symbol case compiles to a jump table; each parse returns nil for a
        # text that does not fit, so the common, canonical text pays for one match.
        value =
          case type
          when :string then return text
          when :integer then IntegerType.parse(text)
          when :float then FloatType.parse(text)
          when :decimal then DecimalType.parse(text)
          when :boolean then BooleanType.parse(text)
          when :time then TimeType.parse(text)
          when :date then DateType.parse(text)
          when :base64 then Base64Type.parse(text)
          else raise unknown_type(type)
          end
        value.nil? ? parse_stripped(type, text) : value
      rescue ArgumentError, EncodingError
        # A regexp refuses to look at broken or ASCII-incompatible text; say so
        # in the codec's terms instead of leaking the regexp's complaint.
        raise unless MODULES.key?(type)
        raise if text.valid_encoding? && text.encoding.ascii_compatible?

        raise InvalidValue, "expected #{MODULES.fetch(type)::EXPECTED_TEXT}, got text that is not valid #{text.encoding}: #{excerpt(text)}"
      end

      # Writes a Ruby value of +type+ in its canonical XML lexical form.
      #
      # @api private
      # @param type [Symbol] one of {SCALARS}
      # @param value [Object] never nil: the codec decides how a nil is written
      # @return [String] ASCII-only except for +:string+
      # @raise [InvalidValue] the value is of the wrong class, or cannot be written
      #   exactly (a NaN BigDecimal, a Rational such as 1/3)
      # @raise [ArgumentError] +type+ is not a scalar type
      def to_xml_text(type, value)
        text =
          case type
          when :string then StringType.generate(value)
          when :integer then IntegerType.generate(value)
          when :float then FloatType.generate(value)
          when :decimal then DecimalType.generate(value)
          when :boolean then BooleanType.generate(value)
          when :time then TimeType.generate(value)
          when :date then DateType.generate(value)
          when :base64 then Base64Type.generate(value)
          else raise unknown_type(type)
          end
        text || raise(InvalidValue, "expected #{MODULES.fetch(type)::EXPECTED_VALUE} for #{type.inspect}, got #{describe(value)}")
      end

      # The message every parse failure shares.
      #
      # @api private
      # @param expected [String] e.g. "an integer"
      # @param text [String] the offending text, as found
      # @param reason [String, nil] what exactly is wrong, when the shape was right
      # @return [InvalidValue]
      def invalid_text(expected, text, reason = nil)
        InvalidValue.new("expected #{expected}, got #{excerpt(text)}#{" (#{reason})" if reason}")
      end

      # @api private
      # @param value [Object]
      # @return [String] the class and a shortened inspect, e.g. +String "x"+
      def describe(value)
        return "nil" if value.nil?

        return "#{value.class} #{excerpt(value)}" if value.is_a?(String)

        shown = value.inspect
        shown = "#{shown[0, MESSAGE_EXCERPT_LENGTH]}..." if shown.length > MESSAGE_EXCERPT_LENGTH
        "#{value.class} #{shown}"
      end

      # @api private
      # @param text [String]
      # @return [String] +text+ quoted, cut short when long
      def excerpt(text)
        return text.inspect if text.length <= MESSAGE_EXCERPT_LENGTH

        "#{text[0, MESSAGE_EXCERPT_LENGTH].inspect}... (#{text.length} characters)"
      end

      # How many decimal places write +denominator+'s fractions exactly, or nil
      # when they never end (a factor other than 2 and 5).
      #
      # @api private
      # @param denominator [Integer] positive
      # @return [Integer, nil]
      def decimal_places(denominator)
        twos = (denominator & -denominator).bit_length - 1
        denominator >>= twos
        fives = 0
        while (denominator % 5).zero?
          denominator /= 5
          fives += 1
        end
        denominator == 1 ? [twos, fives].max : nil
      end

      private

      # The codecs only ask for the types a schema passed; another one is a bug.
      def unknown_type(type)
        ArgumentError.new("#{type.inspect} is not a scalar type (one of #{SCALARS.map(&:inspect).join(', ')})")
      end

      # The slow path: the text did not fit as it stands, perhaps only because
      # of surrounding whitespace. Strip it and try once more.
      def parse_stripped(type, text)
        type_module = MODULES.fetch(type)
        stripped = strip_xml_whitespace(text)
        value = type_module.parse(stripped) unless stripped.equal?(text)
        return value unless value.nil?

        raise invalid_text(type_module::EXPECTED_TEXT, text)
      end

      # String#strip would also drop NUL, vertical tab and form feed, which XML
      # does not count as whitespace.
      def strip_xml_whitespace(text)
        first = text.index(NON_WHITESPACE)
        return "" unless first

        last = text.rindex(NON_WHITESPACE)
        first.zero? && last == text.length - 1 ? text : text[first..last]
      end
    end
  end
end
