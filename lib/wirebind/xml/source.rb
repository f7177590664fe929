# frozen_string_literal: true

module Wirebind
  module XML
    # Turns the caller's input (a String, or an IO answering +readpartial+ or
    # +read(n)+) into a sequence of UTF-8 chunks the tokenizer can match with
    # regular expressions: the encoding is detected (BOM, then the XML
    # declaration) and transcoded, line ends are normalized to LF (XML 1.0 §2.11),
    # and bytes that are not text are rejected before any token is matched.
    #
    # A String input is used in place when it is already clean UTF-8 with LF line
    # ends: the payload is never copied in that case.
    #
    # @api private
    class Source
      CHUNK_SIZE = Chunks::SIZE
      HEAD_SIZE = 1024
      UTF8_BOM = "\xEF\xBB\xBF".b.freeze
      DECLARATION_START = "<?xml".b.freeze

      # Characters XML 1.0 forbids anywhere in a document (§2.2). Surrogates cannot
      # occur in valid UTF-8, so only the control characters and U+FFFE/U+FFFF remain.
      FORBIDDEN_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\u{FFFE}\u{FFFF}]/

      FORBIDDEN_BYTES = "\x00-\x08\x0B\x0C\x0E-\x1F"
      NONCHARACTERS = /\xEF\xBF[\xBE\xBF]/n # U+FFFE and U+FFFF in UTF-8

      ENCODING_DECL = /\A<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:"[^"]*"|'[^']*')[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:"([A-Za-z][A-Za-z0-9._-]*)"|'([A-Za-z][A-Za-z0-9._-]*)')/n

      # Names under which UTF-8 may be declared; anything else is transcoded.
      UTF8_NAMES = %w[UTF-8 UTF8 US-ASCII ASCII].freeze

      # @return [Integer] bytes of (normalized) text handed out so far
      attr_reader :bytes_read

      # @return [String, nil] the encoding named by the document's BOM, if any
      attr_reader :bom_encoding

      # @return [String, nil] the encoding declared in the XML declaration, if any
      attr_reader :declared_encoding

      def initialize(input, chunk_size: CHUNK_SIZE)
        @bytes_read = 0
        @pending = nil # raw bytes held back because a character or CRLF straddles a read
        @converter = nil
        @eof = false
        @first = true
        @bom_encoding = nil
        @declared_encoding = nil
        @unread = nil
        @carried_cr = false
        @lines = 0       # newlines handed out so far
        @line_chars = 0  # characters handed out since the last of them
        @reader = Chunks::Reader.new(input, chunk_size)
      end

      # @return [String, nil] the next chunk of valid, LF-normalized UTF-8 text, or nil at the end
      def next_chunk
        if (text = @unread)
          @unread = nil
          return text
        end
        return nil if @eof

        raw = read_raw
        if @first
          @first = false
          raw = read_head(raw)
        end
        if raw.nil?
          @eof = true
          tail = finish(flush_pending || "".b, true)
          return tail.empty? ? nil : tail
        end
        raw = @pending + raw if @pending
        @pending = nil
        finish(raw, false)
      end

      # Gives back text already handed out (valid and normalized), to be handed
      # out again before anything else: the native backend uses it to pass a
      # document it has started reading to the pure one.
      # @param text [String]
      def unread(text)
        @unread = @unread ? text + @unread : text
        nil
      end

      private

      def read_raw
        @reader.read
      end

      # The encoding is decided on the first HEAD_SIZE bytes (or the whole input, if
      # shorter), so a BOM or declaration split across small reads is still seen.
      def read_head(raw)
        if raw.nil? || raw.bytesize < HEAD_SIZE
          head = raw ? raw.b : "".b
          while !head_decides?(head) && (more = read_raw)
            head << more.b
          end
          raw = head
        end
        raw = detect_encoding(raw)
        raw.empty? ? nil : raw
      end

      # Enough bytes to tell the encoding: a BOM or four bytes of something else, and
      # all of an XML declaration if the text starts with one. Reading no further
      # keeps +each+ streaming from the first record.
      def head_decides?(head)
        return true if head.bytesize >= HEAD_SIZE
        return false if head.bytesize < 4

        text = head.start_with?(UTF8_BOM) ? head.byteslice(3, head.bytesize - 3) : head
        return true if text.bytesize >= 4 && !DECLARATION_START.start_with?(text.byteslice(0, 5))

        head.include?("?>")
      end

      # Looks at the first bytes for a BOM or the XML declaration (XML 1.0 Appendix F)
      # and sets up transcoding. Returns the raw bytes with any BOM removed.
      def detect_encoding(raw)
        bytes = raw.byteslice(0, 4).b
        if bytes.start_with?("\xEF\xBB\xBF".b)
          @bom_encoding = "UTF-8"
          raw = raw.byteslice(3, raw.bytesize - 3)
        elsif bytes.start_with?("\xFE\xFF".b)
          @bom_encoding = "UTF-16BE"
          raw = raw.byteslice(2, raw.bytesize - 2)
        elsif bytes.start_with?("\xFF\xFE".b)
          @bom_encoding = "UTF-16LE"
          raw = raw.byteslice(2, raw.bytesize - 2)
        elsif bytes == "\x00<\x00?".b
          @bom_encoding = "UTF-16BE"
        elsif bytes == "<\x00?\x00".b
          @bom_encoding = "UTF-16LE"
        end
        if @bom_encoding&.start_with?("UTF-16")
          @converter = Encoding::Converter.new(@bom_encoding, Encoding::UTF_8)
          check_utf16_declaration(raw)
          return raw
        end

        head = raw.byteslice(0, 200).b
        if (m = ENCODING_DECL.match(head))
          @declared_encoding = m[1] || m[2]
          name = @declared_encoding.upcase
          # XML 1.0 §4.3.3: an encoding declaration that contradicts the byte order
          # mark is a fatal error.
          if @bom_encoding && !UTF8_NAMES.include?(name)
            raise ParseError.new("the byte order mark says UTF-8 but the document declares #{@declared_encoding}", line: 1, column: 1, offset: 0)
          end
          if name.start_with?("UTF-16") || name.start_with?("UTF-32") || name.start_with?("UCS")
            raise ParseError.new("the document declares #{@declared_encoding} but has no byte order mark", line: 1, column: 1, offset: 0)
          end

          unless UTF8_NAMES.include?(name) || @bom_encoding
            encoding = begin
              Encoding.find(@declared_encoding)
            rescue ArgumentError
              raise ParseError.new("unsupported encoding #{@declared_encoding.inspect}", line: 1, column: 1, offset: 0)
            end
            unless encoding.ascii_compatible?
              raise ParseError.new("unsupported encoding #{@declared_encoding.inspect}", line: 1, column: 1, offset: 0)
            end

            @converter = Encoding::Converter.new(encoding, Encoding::UTF_8) unless encoding == Encoding::UTF_8 || encoding == Encoding::US_ASCII
          end
        end
        raw
      end

      # A UTF-16 document (by its byte order mark, or its first characters) may
      # declare UTF-16 or UCS-2, nothing else (XML 1.0 §4.3.3).
      def check_utf16_declaration(raw)
        head = raw.byteslice(0, 400)
        head = head.byteslice(0, head.bytesize & ~1).force_encoding(@bom_encoding)
        head = head.encode(Encoding::UTF_8, invalid: :replace, undef: :replace).b
        return unless (m = ENCODING_DECL.match(head))

        @declared_encoding = m[1] || m[2]
        name = @declared_encoding.upcase
        return if name.start_with?("UTF-16") || name.end_with?("UCS-2")

        raise ParseError.new("the byte order mark says #{@bom_encoding} but the document declares #{@declared_encoding}", line: 1, column: 1, offset: 0)
      end

      # Transcodes (if needed), holds back an incomplete trailing character or CR,
      # validates and normalizes line ends.
      def finish(raw, last)
        text =
          if @converter
            transcode(raw, last)
          else
            utf8 = raw.encoding == Encoding::UTF_8 ? raw : raw.dup.force_encoding(Encoding::UTF_8)
            last ? utf8 : hold_back_partial_char(utf8)
          end
        # A CR at the end of a read may be the first half of a CRLF: carry it over,
        # as text, to the next chunk.
        if @carried_cr
          text = "\r" + text
          @carried_cr = false
        end
        if !last && text.end_with?("\r")
          text = text.byteslice(0, text.bytesize - 1)
          @carried_cr = true
        end
        accept(text)
      end

      # Checks a chunk of UTF-8 text, normalizes its line ends, counts it for
      # error positions and returns it (the native backend's Source overrides this
      # with a one-pass C check for the common case).
      def accept(text)
        validate(text)
        text = text.gsub(/\r\n?/, "\n") if text.include?("\r")
        @bytes_read += text.bytesize
        count_lines(text)
        text
      end

      # Lines and the characters since the last newline, for positions in errors.
      # The newline is found on a binary view (String#rindex on UTF-8 counts
      # characters from the start); only the last line's characters are counted.
      def count_lines(text)
        bytes = text.dup.force_encoding(Encoding::BINARY)
        newlines = bytes.count("\n")
        tail_chars =
          if newlines.zero?
            text.length
          else
            after = bytes.rindex("\n") + 1
            text.byteslice(after, text.bytesize - after).length
          end
        advance(newlines, tail_chars)
      end

      # Moves the position past a chunk of +newlines+ line ends whose last line
      # (all of it, without one) has +tail_chars+ characters.
      def advance(newlines, tail_chars)
        if newlines.zero?
          @line_chars += tail_chars
        else
          @lines += newlines
          @line_chars = tail_chars
        end
      end

      # An IO read may end inside a multi-byte UTF-8 character: keep its first bytes
      # for the next read instead of calling the chunk invalid.
      def hold_back_partial_char(text)
        return text if text.bytesize.zero? || text.getbyte(-1) < 0x80

        cut = text.bytesize
        back = 0
        while back < 4 && cut.positive?
          byte = text.getbyte(cut - 1)
          cut -= 1
          back += 1
          next if byte & 0xC0 == 0x80 # continuation byte: keep looking for the lead

          needed = if byte >= 0xF0
                     4
                   elsif byte >= 0xE0
                     3
                   elsif byte >= 0xC0
                     2
                   else
                     1
                   end
          return text if needed <= back # the last character is complete

          @pending = text.byteslice(cut, back).b
          return text.byteslice(0, cut)
        end
        text
      end

      def transcode(raw, last)
        out = +""
        src = raw.b
        loop do
          result = @converter.primitive_convert(src, out, nil, nil, Encoding::Converter::PARTIAL_INPUT)
          case result
          when :source_buffer_empty, :finished
            break
          when :invalid_byte_sequence, :incomplete_input
            raise_after(out, "the input is not valid #{@converter.source_encoding}")
          when :undefined_conversion
            raise_after(out, "a character in the input has no Unicode equivalent")
          end
        end
        if last
          result = @converter.primitive_convert(+"", out)
          raise_after(out, "the input ends inside a #{@converter.source_encoding} character", reason: :truncated) unless result == :finished
        end
        out.force_encoding(Encoding::UTF_8)
      end

      # Raises at the end of the text transcoded so far from the current chunk.
      def raise_after(out, message, reason: nil)
        text = out.dup.force_encoding(Encoding::UTF_8).scrub
        raise_char_error(text, text.length, message, reason: reason)
      end

      def flush_pending
        pending = @pending
        @pending = nil
        pending
      end

      def validate(text)
        unless text.valid_encoding?
          bad = text.each_char.find_index { |char| !char.valid_encoding? } || 0
          raise_char_error(text, bad, "invalid UTF-8 byte sequence")
        end
        # A regexp search over UTF-8 decodes every character (about 25 ns each);
        # counting bytes of a binary view of the same memory is a table lookup.
        bytes = text.dup.force_encoding(Encoding::BINARY)
        return if bytes.count(FORBIDDEN_BYTES).zero? && !bytes.match?(NONCHARACTERS)
        return unless (bad = text.index(FORBIDDEN_CHAR))

        raise_char_error(text, bad, format("character U+%04X is not allowed in XML", text[bad].ord))
      end

      def raise_char_error(text, char_index, message, reason: nil)
        before = text[0, char_index]
        line_in_chunk = before.count("\n")
        column = line_in_chunk.zero? ? @line_chars + char_index + 1 : char_index - before.rindex("\n")
        raise ParseError.new(message, line: @lines + line_in_chunk + 1, column: column, offset: @bytes_read + before.bytesize, reason: reason)
      end
    end
  end
end
