# frozen_string_literal: true

require "bigdecimal"
require "date"
require_relative "codec_test_helpers"

module Wirebind
  # Round trips: decode(encode(x)) is x (classes, time offsets and string
  # encodings included), on random records of any model, through a format's
  # codec, on every backend loaded here; what one backend writes, the other
  # reads the same. The records are drawn with a seeded Random (see
  # random_seed), from values that each format can hold.
  module RoundTrip
    include CodecTestHelpers

    # What a format can hold, and what its strings should be made of.
    # - codec: Wirebind::XML or Wirebind::JSON
    # - string_pieces: the characters and look-alikes that are hard for it
    # - characters: the strings it can write (XML 1.0 has no control characters)
    # - float_specials: values tried often (±Infinity only where it has them)
    # - decimal_exponents: whether it keeps 1e500 as a decimal
    # - empty_binary: whether an empty base64 value reads back as "" (not nil)
    # - never_nil: attributes that always read back as a value (an element's own
    #   text is "" when empty)
    Format = Struct.new(:name, :codec, :string_pieces, :characters, :float_specials, :decimal_exponents, :empty_binary, :never_nil,
                        keyword_init: true) do
      # What both formats hold: for one record written in each.
      def &(other)
        pieces = (string_pieces | other.string_pieces).select { |piece| characters.match?(piece) && other.characters.match?(piece) }
        Format.new(name: :"#{name}_and_#{other.name}", codec: nil, string_pieces: pieces,
                   characters: /(?=#{characters})(?=#{other.characters})/,

                   float_specials: float_specials & other.float_specials,
                   decimal_exponents: decimal_exponents && other.decimal_exponents, empty_binary: empty_binary && other.empty_binary,
                   never_nil: ->(attribute) { never_nil.call(attribute) || other.never_nil.call(attribute) })
      end
    end

    FINITE_SPECIALS = [0.0, -0.0, Float::MAX, -Float::MIN, 5e-324, 0.1, 1e22, 1e-7, 2.0**53].freeze

    XML_FORMAT = Format.new(
      name: :xml, codec: Wirebind::XML,
      # markup characters, references look-alikes, whitespace of every kind,
      # line ends, unicode of every width
      string_pieces: [
        "a", "Z", "0", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\r", "<", ">", "&", '"', "'", "]]>", "]]", "]",
        "<![CDATA[", "-->", "<!--", "<?pi?>", "&amp;", "&#65;", "&lt;", "&bogus;", "=", "/", "xmlns", "xsi:nil",
        "é", "ß", "日本語", "\u00A0", "\u0085", "\u2028", "\u200B", "\u0301", "\uD7FF", "\uE000", "\uFFFD",
        "😀", "\u{10000}", "\u{10FFFF}", "\u007F", "\u0080", "\t\t\n "
      ].freeze,
      characters: /\A[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*\z/,
      float_specials: (FINITE_SPECIALS + [Float::INFINITY, -Float::INFINITY]).freeze,
      decimal_exponents: false,
      # An empty binary string is written as an empty element, which reads back
      # as nil (empty non-strings are nil).
      empty_binary: false,
      never_nil: ->(attribute) { attribute.xml == "." && attribute.type == :string }
    )

    JSON_FORMAT = Format.new(
      name: :json, codec: Wirebind::JSON,
      # escapes, structure characters, control characters, surrogates' neighbours
      string_pieces: [
        "a", "Z", "0", " ", "\t", "\n", "\r", "\r\n", '"', "\\", "/", "\\u0041", "\\n", "{", "}", "[", "]", ",", ":",
        "null", "true", "é", "ß", "日本語", "\u00A0", "\u2028", "\u2029", "\u200B", "\uFEFF", "😀", "\u{10FFFF}",
        "\u0000", "\u0001", "\u001F", "\u007F", "\u0080", "\uFFFF", "\uD7FF", "\uE000"
      ].freeze,
      characters: /\A.*\z/m,
      float_specials: FINITE_SPECIALS,
      decimal_exponents: true,
      empty_binary: true,
      never_nil: ->(_attribute) { false }
    )

    MIN_TIME = Time.utc(1, 1, 1).to_i
    MAX_TIME = Time.utc(9999, 12, 31, 23, 59, 59).to_i

    # The backends loaded here: both where the extension is, else the pure one.
    def round_trip_backends
      Wirebind.backend == :native ? %i[native pure] : %i[pure]
    end

    # Encodes +value+ on each backend, decodes each document on each backend and
    # asserts every result is +value+; returns the document the default backend
    # wrote.
    # @param type what to decode as (the record's class by default; [Klass] for a list)
    def assert_round_trip(value, format, type: value.class, decode: {}, **encode_options)
      documents = round_trip_backends.map { |backend| format.codec.encode(value, backend: backend, **encode_options) }
      assert_equal [documents.first] * documents.size, documents, "the backends write different documents" if documents.size > 1
      document = documents.first
      round_trip_backends.each do |backend|
        decoded = format.codec.decode(document, type, backend: backend, **decode)
        assert_equal value, decoded, -> { "#{backend}: round trip of #{value.inspect[0, 300]} through #{document[0, 300]}" }
        assert_equal_decoded value, decoded, -> { "#{backend}: offsets, encodings or classes changed: #{document[0, 300]}" }
      end
      document
    end

    # What is written once is written again the same after a round trip: the
    # written form of a value is settled by the first encode.
    def assert_stable_encoding(value, format, type: value.class)
      document = format.codec.encode(value)
      assert_equal document, format.codec.encode(format.codec.decode(document, type)), "#{format.name}: written again differently"
    end

    # ---- random values ------------------------------------------------------------------

    def gen_string(random, format, max_pieces: 8)
      Array.new(random.rand(0..max_pieces)) { format.string_pieces.sample(random: random) }.join.encode(Encoding::UTF_8)
    end

    def gen_integer(random)
      case random.rand(4)
      when 0 then random.rand(-10..10)
      when 1 then random.rand(-(2**31)..(2**31))
      when 2 then random.rand(-(2**64)..(2**64))
      else random.rand(-(10**60)..(10**60))
      end
    end

    def gen_float(random, format)
      case random.rand(6)
      when 0 then format.float_specials.sample(random: random)
      when 1 then random.rand(-1000.0..1000.0)
      when 2 then random.rand(-100..100).to_f
      else
        # any finite double: random bits
        loop do
          value = random.bytes(8).unpack1("E")
          break value if value.finite?
        end
      end
    end

    def gen_decimal(random, format)
      digits = Array.new(random.rand(1..40)) { random.rand(10) }.join
      scale = random.rand(0..digits.size)
      text = scale.zero? ? digits : "#{digits[0...-scale]}.#{digits[-scale..]}"
      text = "0#{text}" if text.start_with?(".")
      exponent = format.decimal_exponents && random.rand(4).zero? ? "e#{random.rand(-500..500)}" : ""
      BigDecimal("#{['', '-'].sample(random: random)}#{text}#{exponent}")
    end

    def gen_zone(random)
      minutes = random.rand(-14 * 60..14 * 60)
      minutes = (minutes / 15) * 15 if random.rand(2).zero?
      format("%s%02d:%02d", minutes.negative? ? "-" : "+", minutes.abs / 60, minutes.abs % 60)
    end

    def gen_time(random)
      seconds = random.rand(MIN_TIME..MAX_TIME)
      places = random.rand(0..12)
      # Seconds and nanoseconds apart: JRuby's Time.at(negative Rational) keeps a
      # negative sub-millisecond part, and is not == to the same instant read back.
      nanoseconds = places.zero? ? 0 : Rational(random.rand(10**places), 10**places) * 1_000_000_000
      case random.rand(4)
      when 0 then Time.at(seconds, nanoseconds, :nsec, in: "UTC")
      when 1 then Time.at(seconds, nanoseconds, :nsec, in: "+00:00")
      else Time.at(seconds, nanoseconds, :nsec, in: gen_zone(random))
      end
    end

    def gen_date(random)
      Date.jd(random.rand(Date.new(1, 1, 1).jd..Date.new(9999, 12, 31).jd))
    end

    def gen_base64(random, format)
      random.bytes(random.rand((format.empty_binary ? 0 : 1)..24)).b
    end

    def gen_scalar(type, random, format)
      case type
      when :string then gen_string(random, format)
      when :integer then gen_integer(random)
      when :float then gen_float(random, format)
      when :decimal then gen_decimal(random, format)
      when :boolean then random.rand(2).zero?
      when :time then gen_time(random)
      when :date then gen_date(random)
      when :base64 then gen_base64(random, format)
      else raise ArgumentError, type.inspect
      end
    end

    # A random record of +klass+: each value present or nil (unless the format
    # never reads it back as nil), lists of 0..3 items, some of them nil; records
    # nested at most 4 deep.
    def gen_record(klass, random, format, depth = 0)
      values = klass.attributes.to_h do |attribute|
        value =
          if attribute.list?
            Array.new(random.rand(0..3)) { random.rand(6).zero? ? nil : gen_value(attribute.type, random, format, depth) }
          elsif random.rand(4).zero? && !format.never_nil.call(attribute)
            nil
          else
            gen_value(attribute.type, random, format, depth)
          end
        [attribute.name, value]
      end
      klass.new(**values)
    end

    def gen_value(type, random, format, depth)
      return gen_scalar(type, random, format) if type.is_a?(Symbol)

      depth > 3 ? type.new : gen_record(type, random, format, depth + 1)
    end
  end
end
