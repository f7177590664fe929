# frozen_string_literal: true

require "strscan"
require_relative "../source"

module Wirebind
  module JSON
    module Pure
      # The lexical layer every pure JSON reader shares: a buffer refilled from a
      # {Source}, the regular expressions of the fast paths, the exact slow paths
      # they fall back to, and positioned errors.
      #
      # Fast paths match a whole token, in place, with one regular expression,
      # and never refill: each ends on a character that proves the token complete
      # (a closing quote, or a delimiter after a number), so a token cut by the end
      # of the buffer simply fails to match. The slow paths then read it exactly,
      # refilling as they go, and are the only code that reports syntax errors.
      #
      # Positions: +@base_offset+, +@base_lines+ and +@base_column+ describe the
      # input discarded before the buffer; lines and columns are worked out only
      # when an error needs them.
      #
      # @api private
      class Scanner
        QUOTE = 0x22
        BACKSLASH = 0x5C
        COMMA = 0x2C
        COLON = 0x3A
        LBRACE = 0x7B
        RBRACE = 0x7D
        LBRACKET = 0x5B
        RBRACKET = 0x5D
        MINUS = 0x2D
        DIGIT_0 = 0x30
        DIGIT_9 = 0x39

        # JSON's four whitespace characters; \s would also take \f and \v.
        WS = /[ \t\n\r]+/
        # A string without escapes, whole.
        STRING = /"([^"\\\x00-\x1f]*)"/
        # What ends a run of plain characters in a string. Searched for with
        # skip_until, which skips through the text several times faster than a
        # character class can match it.
        STRING_STOP = /["\\\x00-\x1f]/
        # A member's key and the colon, after the object's '{' or after a ','.
        FIRST_KEY = /[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*/
        NEXT_KEY = /[ \t\n\r]*,[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*/
        # The same, and the member's value when it is a string without escapes
        # (group 2; absent for other values, the scan position then at the value).
        FIRST_MEMBER = /[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*(?:"([^"\\\x00-\x1f]*)")?/
        NEXT_MEMBER = /[ \t\n\r]*,[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*(?:"([^"\\\x00-\x1f]*)")?/
        NEXT_ITEM = /[ \t\n\r]*,[ \t\n\r]*/
        OBJECT_END = /[ \t\n\r]*\}/
        ARRAY_END = /[ \t\n\r]*\]/
        OBJECT_START = /\{/
        ARRAY_START = /\[[ \t\n\r]*/
        NULL = /null/
        TRUE = /true/
        FALSE = /false/
        # Numbers the fast path converts without a second look: an integer that
        # fits a machine word, and a number that Kernel#Float reads exactly (at
        # most 38 characters and an exponent below 100; see Types::FloatType).
        # The lookahead proves the number complete.
        INTEGER = /-?(?:0|[1-9][0-9]{0,17})(?=[ \t\n\r,\]}])/
        NUMBER = /-?(?:0|[1-9][0-9]{0,15})(?:\.[0-9]{1,16})?(?:[eE][+-]?[0-9]{1,2})?(?=[ \t\n\r,\]}])/
        FAST_NUMBER_LENGTH = 40
        # The slow path reads the longest run of number characters, then checks it.
        NUMBER_RUN = /[-+0-9.eE]+/
        NUMBER_GRAMMAR = /\A-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\z/
        NOT_INTEGER = /[.eE]/

        ESCAPES = {
          QUOTE => '"', BACKSLASH => "\\", 0x2F => "/", 0x62 => "\b",
          0x66 => "\f", 0x6E => "\n", 0x72 => "\r", 0x74 => "\t"
        }.freeze
        HEX4 = /\A[0-9a-fA-F]{4}\z/
        HIGH_SURROGATES = (0xD800..0xDBFF)
        LOW_SURROGATES = (0xDC00..0xDFFF)

        # @param input [String, #readpartial, #read]
        # @param max_depth [Integer] deepest nesting of arrays and objects accepted
        # @param max_token_size [Integer] largest string or number token, in bytes of input
        # @param max_number_length [Integer] longest number token, in characters
        def initialize(input, max_depth:, max_token_size:, max_number_length:)
          @source = input.is_a?(Source) ? input : Source.new(input)
          @max_depth = max_depth
          @max_token_size = max_token_size
          @max_number_length = max_number_length
          @buf = +""
          @s = StringScanner.new(@buf)
          @eof = false
          @base_offset = 0
          @base_lines = 0
          @base_column = 0
          @token_start = nil # where the last token read by a slow path started
          @pin = false       # a slow path is reading: keep its token in the buffer
          @small = true      # the whole buffer is within max_token_size: no token in it can exceed it
          # The fast paths read numbers of up to 38 characters; under lower limits
          # every number takes the exact path, which checks them.
          @fast_numbers = max_number_length >= FAST_NUMBER_LENGTH && max_token_size >= FAST_NUMBER_LENGTH
          refill
          # A byte order mark is not in the buffer; it counts in offsets only.
          @base_offset = @source.bom_size
        end

        # @return [Array(Integer, Integer, Integer)] line, column (in characters) and
        #   byte offset of +pos+, a position in the current buffer
        def position(pos = @s.pos)
          pos = @buf.bytesize if pos > @buf.bytesize
          prefix = @buf.byteslice(0, pos)
          newline = prefix.rindex("\n")
          line = @base_lines + prefix.count("\n") + 1
          column = newline ? prefix.length - newline : @base_column + prefix.length + 1
          [line, column, @base_offset + pos]
        end

        private

        # ---- buffer ---------------------------------------------------------------

        # Appends the next chunk, first dropping what has been read (all of it, or
        # up to the start of the token a slow path is reading).
        # @return [Boolean] false at the end of the input
        def refill
          return false if @eof

          chunk =
            begin
              @source.next_chunk
            rescue Source::Invalid => e
              error(e.message, ParseError, @buf.bytesize)
            end
          unless chunk
            @eof = true
            return false
          end
          s = @s
          pos = s.pos
          keep = @pin ? @token_start : pos
          if keep.positive?
            dropped = @buf.byteslice(0, keep)
            newline = dropped.rindex("\n")
            @base_lines += dropped.count("\n")
            @base_column = newline ? dropped.length - newline - 1 : @base_column + dropped.length
            @base_offset += keep
            @buf = @buf.byteslice(keep, @buf.bytesize - keep) << chunk
          elsif @buf.empty?
            @buf = chunk
          else
            @buf << chunk
          end
          if @token_start
            @token_start -= keep
            @token_start = nil if @token_start.negative?
          end
          s.string = @buf
          s.pos = pos - keep
          @small = @buf.bytesize <= @max_token_size
          true
        end

        # Refills until +count+ bytes follow the scan position.
        # @return [Boolean] false when the input ends first
        def ensure_bytes(count)
          while @buf.bytesize - @s.pos < count
            return false unless refill
          end
          true
        end

        # Skips whitespace, refilling as needed.
        # @return [Integer, nil] the next byte, or nil at the end of the input
        def peek_byte
          s = @s
          while true
            s.skip(WS)
            return @buf.getbyte(s.pos) unless s.eos?
            return nil unless refill
          end
        end

        # ---- tokens: the exact slow paths -----------------------------------------

        # Reads the string that starts at the scan position (its opening quote),
        # escapes and all.
        # @param build [Boolean] false to check the string without keeping it
        # @return [String, nil] the string (nil unless +build+)
        def read_string(build)
          s = @s
          start = @token_start = s.pos
          if s.skip(STRING)
            check_size(start) unless @small
            return build ? s[1] : nil
          end
          read_string_exactly(build)
        end

        # The exact path of #read_string, a run of plain characters at a time:
        # for strings with escapes, cut by the buffer's end, or not well-formed.
        def read_string_exactly(build)
          s = @s
          start = @token_start = s.pos
          @pin = true
          s.pos = start + 1
          text = build ? String.new(encoding: Encoding::UTF_8) : nil
          while true
            from = s.pos
            if s.skip_until(STRING_STOP)
              s.pos -= 1
            else
              s.terminate
            end
            text << @buf.byteslice(from, s.pos - from) if build && s.pos > from
            check_size(@token_start) if s.pos - @token_start > @max_token_size
            byte = @buf.getbyte(s.pos)
            if byte == QUOTE
              s.pos += 1
              # Counted as the fast path counts it: both quotes included.
              check_size(@token_start) unless @small
              @pin = false
              return text
            elsif byte == BACKSLASH
              if (char = ESCAPES[@buf.getbyte(s.pos + 1)])
                text << char if build
                s.pos += 2
              else
                escape(text) # \u, or cut by the buffer's end, or invalid
              end
            elsif byte.nil?
              truncated("the input ends inside a string", @token_start) unless refill
            else
              error(format("control character U+%04X must be escaped in a string", byte))
            end
          end
        end

        # Reads the escape at the scan position into +text+ (nil: check only).
        def escape(text)
          s = @s
          ensure_bytes(2) || truncated("the input ends inside a string", @token_start)
          letter = @buf.getbyte(s.pos + 1)
          if (char = ESCAPES[letter])
            text << char if text
            s.pos += 2
            return
          end
          error("invalid escape '\\#{@buf.byteslice(s.pos + 1, 1).scrub}' in a string") unless letter == 0x75 # u

          code = hex_escape(0)
          if HIGH_SURROGATES.cover?(code)
            # A character beyond the Basic Multilingual Plane is a pair of escapes.
            ensure_bytes(8)
            low = @buf.byteslice(s.pos + 6, 2) == "\\u" ? hex_escape(6) : nil
            unless low && LOW_SURROGATES.cover?(low)
              error(format("lone surrogate \\u%04X: a high surrogate must be followed by a \\uDC00-\\uDFFF escape", code))
            end
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            s.pos += 12
          elsif LOW_SURROGATES.cover?(code)
            error(format("lone surrogate \\u%04X: a low surrogate must follow a \\uD800-\\uDBFF escape", code))
          else
            s.pos += 6
          end
          text << code.chr(Encoding::UTF_8) if text
        end

        # @param ahead [Integer] where the escape starts, in bytes after the scan position
        # @return [Integer] the code unit of the \uXXXX escape there
        def hex_escape(ahead)
          ensure_bytes(ahead + 6) || truncated("the input ends inside a string", @token_start)
          at = @s.pos + ahead
          # On the bytes: four bytes may end inside a character, and a regexp
          # refuses to look at a String cut that way.
          hex = @buf.byteslice(at + 2, 4).b
          error("\\u must be followed by four hexadecimal digits", ParseError, at) unless HEX4.match?(hex)

          hex.to_i(16)
        end

        # Reads the number that starts at the scan position.
        # @return [String] its text, checked against JSON's grammar
        def read_number
          s = @s
          start = @token_start = s.pos
          @pin = true
          length = 0
          loop do
            length = s.match?(NUMBER_RUN) || 0
            break unless s.pos + length == @buf.bytesize && !@eof
            break if length > @max_number_length

            refill
            start = @token_start
          end
          if length > @max_number_length
            limit_error("a number is longer than max_number_length (#{@max_number_length} characters)", start)
          end
          limit_error("a number is larger than max_token_size (#{@max_token_size} bytes)", start) if length > @max_token_size
          text = @buf.byteslice(start, length)
          error("invalid number #{number_excerpt(text)}", ParseError, start) unless NUMBER_GRAMMAR.match?(text)

          s.pos = start + length
          @pin = false
          text
        end

        # Reads +word+ (true, false or null) at the scan position.
        def read_literal(word)
          s = @s
          ensure_bytes(word.bytesize)
          if @buf.byteslice(s.pos, word.bytesize) == word
            s.pos += word.bytesize
            return
          end
          truncated("the input ends inside a literal (expected #{word})") if @eof && @buf.bytesize - s.pos < word.bytesize

          error("invalid literal #{Types.excerpt(@buf.byteslice(s.pos, word.bytesize).scrub)} (expected #{word})")
        end

        # Reads an object key (from its opening quote), the colon and the
        # whitespace before the value.
        # @return [String]
        def read_key
          key = read_string(true)
          error("expected ':' after the key #{Types.excerpt(key)}") unless peek_byte == COLON
          @s.pos += 1
          peek_byte
          key
        end

        # After '{' (+first+) or after a member: the next key, or nil at '}'.
        # @return [String, nil]
        def next_key(first)
          byte = peek_byte
          if !first && (byte == COMMA)
            @s.pos += 1
            byte = peek_byte
            return read_key if byte == QUOTE

            byte ? error("expected a key string after ','") : truncated("the input ends inside an object (expected a key)")
          end
          if byte == RBRACE
            @s.pos += 1
            return nil
          end
          return read_key if first && byte == QUOTE

          if byte.nil?
            truncated("the input ends inside an object (expected #{first ? "a key or '}'" : "',' or '}'"})")
          end
          error("expected #{first ? "a key string or '}'" : "',' or '}' after a member"}, got #{describe_byte(byte)}")
        end

        # After '[' (+first+) or after an item: true when another item follows (the
        # scan position then at its first byte, or at the end of the input), false
        # at ']'.
        #
        # After a ',' the value's reader reports what is there instead of a
        # value (']', or the end of the input), exactly as it does when the
        # NEXT_ITEM fast path read the ',': so the message is the same however
        # the input's reads were cut.
        def next_item?(first)
          byte = peek_byte
          if !first && byte == COMMA
            @s.pos += 1
            peek_byte
            return true
          end
          if byte == RBRACKET
            @s.pos += 1
            return false
          end
          return true if first && byte

          truncated("the input ends inside an array (expected #{first ? "a value or ']'" : "',' or ']'"})") if byte.nil?
          error("expected ',' or ']' after an item, got #{describe_byte(byte)}")
        end

        # After the top-level value: only whitespace may follow.
        def finish_input
          byte = peek_byte
          error("unexpected #{describe_byte(byte)} after the JSON value") if byte
        end

        # ---- errors ---------------------------------------------------------------

        # @return [String] a number's text as messages show it: raw, cut short when long
        def number_excerpt(text)
          return text if text.length <= Types::MESSAGE_EXCERPT_LENGTH

          "#{text[0, Types::MESSAGE_EXCERPT_LENGTH]}... (#{text.length} characters)"
        end

        # @return [String] how a message names the character at the scan position
        def describe_byte(byte)
          return "the end of the input" if byte.nil?

          Scanner.describe_char(@buf.byteslice(@s.pos, 4).scrub[0])
        end

        # @param char [String] one character
        # @return [String] how a message names it: quoted when printable, else U+XXXX
        def self.describe_char(char) # rubocop:disable Lint/IneffectiveAccessModifier -- public: the C scanner words messages with it
          char.match?(/[[:print:]]/) ? "'#{char}'" : format("U+%04X", char.ord)
        end

        # Raises the max_token_size error unless the token from +start+ to the scan
        # position fits.
        def check_size(start)
          return if @s.pos - start <= @max_token_size

          limit_error("a string is larger than max_token_size (#{@max_token_size} bytes)", start)
        end

        def error(message, klass = ParseError, pos = @s.pos, reason: nil)
          line, column, offset = position(pos)
          raise klass.new(message, line: line, column: column, offset: offset, reason: reason)
        end

        # The input ended inside a value (ParseError#reason +:truncated+).
        def truncated(message, pos = @s.pos)
          error(message, ParseError, pos, reason: :truncated)
        end

        def limit_error(message, pos = @s.pos)
          error(message, LimitError, pos)
        end

        def depth_error(pos = @s.pos)
          limit_error("arrays and objects are nested deeper than max_depth (#{@max_depth})", pos)
        end
      end
    end
  end
end
