# frozen_string_literal: true

require "bigdecimal"
require "date"

module Wirebind
  # Helpers every codec's tests use: inputs that trickle through small reads, and
  # an equality that also sees what == does not (time offsets, encodings, classes).
  module CodecTestHelpers
    # An IO that hands out its bytes a few at a time (1 to 7 per call, in a pattern
    # chosen by +seed+), so that every token, multi-byte character and CRLF of the
    # input straddles some read. Answers readpartial (and read, unless told not to).
    class TrickleIO
      attr_reader :reads, :requested

      def initialize(bytes, seed: 0, max: 7)
        @bytes = bytes.b
        @pos = 0
        @random = Random.new(seed)
        @max = max
        @reads = 0
        @requested = []
      end

      def readpartial(length, buffer = nil)
        @requested << length
        raise EOFError, "end of file reached" if @pos >= @bytes.bytesize

        @reads += 1
        n = [@random.rand(1..@max), length, @bytes.bytesize - @pos].min
        chunk = @bytes.byteslice(@pos, n)
        @pos += n
        buffer ? buffer.replace(chunk) : chunk
      end

      # @return [Integer] bytes handed out so far
      attr_reader :pos

      def eof?
        @pos >= @bytes.bytesize
      end

      def size
        @bytes.bytesize
      end
    end

    # An IO that only answers read(n) (like a pipe wrapper or a Zlib reader), a few
    # bytes at a time.
    class ReadOnlyIO
      attr_reader :requested

      def initialize(bytes, seed: 0, max: 7)
        @bytes = bytes.b
        @pos = 0
        @random = Random.new(seed)
        @max = max
        @requested = []
      end

      def read(length = nil, buffer = nil)
        @requested << length
        return (length ? nil : "".b) if @pos >= @bytes.bytesize

        n = length ? [@random.rand(1..@max), length, @bytes.bytesize - @pos].min : @bytes.bytesize - @pos
        chunk = @bytes.byteslice(@pos, n)
        @pos += n
        buffer ? buffer.replace(chunk) : chunk
      end
    end

    # Equality that also holds time offsets, string encodings and number classes equal.
    def assert_equal_decoded(expected, actual, message = nil)
      if expected.nil?
        assert_nil actual, message
      else
        assert_equal deep_shape(expected), deep_shape(actual), message
      end
    end

    # What == does not see: a Time's offset, a String's encoding, a number's class.
    def deep_shape(value)
      case value
      when Array then value.map { |v| deep_shape(v) }
      when Wirebind::Model then value.to_h.transform_values { |v| deep_shape(v) }.merge(__class: value.class)
      when Hash then value.to_h { |k, v| [deep_shape(k), deep_shape(v)] }
      when Time then [:time, value.to_r, value.utc_offset, value.utc?]
      when String then [value, value.encoding]
      when Float then [:float, value.nan? ? :nan : value.to_s]
      when BigDecimal then [:decimal, value.to_s]
      when Integer then [:integer, value]
      when Date then [:date, value.jd, value.class]
      when Wirebind::QName then [:qname, value.namespace, value.local_name, value.prefix]
      else value
      end
    end

    # Asserts that +block+ raises exactly +klass+ and returns the error; the
    # message must match every pattern given.
    def assert_error(klass, *patterns, &block)
      error = assert_raises(klass, &block)
      assert_instance_of klass, error, "expected exactly #{klass}, got #{error.class}: #{error.message}"
      patterns.each { |pattern| assert_match pattern, error.message }
      error
    end
  end
end
