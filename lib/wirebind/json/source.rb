# frozen_string_literal: true

module Wirebind
  module JSON
    # Turns the caller's input (a String, or an IO answering +readpartial+ or
    # +read(n)+) into chunks of valid UTF-8 the scanner can match with regular
    # expressions. JSON exchanged between systems is UTF-8 (RFC 8259, section
    # 8.1): the bytes are read as UTF-8 whatever encoding an IO claims, and bytes
    # that are not UTF-8 end the text.
    #
    # A String is handed out whole and in place: a UTF-8, US-ASCII or binary
    # String is never copied (a binary one is viewed as UTF-8 through a shared,
    # copy-on-write duplicate); one in another encoding (UTF-16, Latin-1...) is
    # transcoded first, which copies it. An IO is read in 64 KiB chunks, a
    # character cut by a read held back until the next one.
    #
    # Invalid bytes are reported lazily: the chunk handed out stops before
    # them, and the next call raises {Invalid}, so a document's errors are
    # reported in the order they occur.
    #
    # @api private
    class Source
      CHUNK_SIZE = Chunks::SIZE
      # What a chunk reads as when its text is checked in pieces, to find
      # where an invalid String first goes wrong without one Ruby step per byte.
      PROBE_SIZE = 4096
      UTF8_BOM = Shareable.make("\xEF\xBB\xBF".b)
      UTF16_BOMS = Shareable.make(["\xFE\xFF".b, "\xFF\xFE".b])
      UTF8_COMPATIBLE = [Encoding::UTF_8, Encoding::US_ASCII, Encoding::BINARY].freeze

      # The next bytes are not UTF-8: the scanner reports it where its text ends.
      class Invalid < StandardError; end

      # @return [Integer] bytes of a leading UTF-8 byte order mark skipped (0 or 3)
      attr_reader :bom_size

      # @param input [String, #readpartial, #read]
      # @param chunk_size [Integer] bytes per read from an IO
      def initialize(input, chunk_size: CHUNK_SIZE)
        @pending = nil # the start of a character cut by the last read
        @invalid = nil # the message to raise once the valid text is handed out
        @first = true
        @bom_size = 0
        @reader = Chunks::Reader.new(input, chunk_size)
        # A String is taken whole, here; the reader is left for IO input.
        @string = @reader.string
        @reader.close if @string
      end

      # @return [String, nil] the next chunk of valid UTF-8 (never empty), or nil at the end
      # @raise [Invalid] the bytes after the last chunk are not UTF-8
      def next_chunk
        raise Invalid, @invalid if @invalid

        text = @string ? whole_string : next_io_chunk
        return text unless text.nil? || text.empty?
        raise Invalid, @invalid if @invalid

        nil
      end

      private

      def whole_string
        text = utf8_view(@string)
        @string = nil
        text = first_text(text)
        return nil if text.empty?
        return text if text.valid_encoding?

        valid_prefix(text)
      end

      # The String's bytes as UTF-8, without a copy when they already are.
      def utf8_view(string)
        encoding = string.encoding
        return string if encoding == Encoding::UTF_8
        return string.dup.force_encoding(Encoding::UTF_8) if UTF8_COMPATIBLE.include?(encoding)

        begin
          string.encode(Encoding::UTF_8)
        rescue EncodingError => e
          @invalid = "the input, a #{encoding} String, cannot be converted to UTF-8 (#{e.message})"
          +""
        end
      end

      def next_io_chunk
        loop do
          raw = read_raw
          if raw.nil?
            @reader.close
            raw = @pending
            return nil unless raw

            # What was held back is all there is: a short text, or a character
            # the input cut short (which valid_prefix reports).
            @pending = nil
            raw = first_text(raw) if @first
            return raw if raw.valid_encoding?

            return valid_prefix(raw)
          end
          raw.force_encoding(Encoding::UTF_8)
          raw = @pending + raw if @pending
          @pending = nil
          if @first
            # A byte order mark is recognized whole, however the reads cut it.
            if raw.bytesize < 4
              @pending = raw
              next
            end
            raw = first_text(raw)
            return nil if @invalid
          end
          hold_back_cut_character(raw)
          next if raw.empty?
          return raw if raw.valid_encoding?

          return valid_prefix(raw)
        end
      end

      def read_raw
        @reader.read
      end

      # Drops a UTF-8 byte order mark (RFC 8259 lets a parser ignore one) and
      # names the encoding of text that is plainly UTF-16 or UTF-32.
      def first_text(text)
        @first = false
        head = text.byteslice(0, 4).b
        if head.start_with?(UTF8_BOM)
          @bom_size = UTF8_BOM.bytesize
          return text.byteslice(UTF8_BOM.bytesize, text.bytesize - UTF8_BOM.bytesize)
        end
        if UTF16_BOMS.any? { |bom| head.start_with?(bom) } || (head.bytesize >= 2 && (head.getbyte(0).zero? || head.getbyte(1).zero?))
          @invalid = "JSON text must be UTF-8 (RFC 8259, section 8.1); this input looks like UTF-16 or UTF-32"
          return +""
        end
        text
      end

      # Keeps the bytes of a character the read cut short for the next chunk.
      def hold_back_cut_character(raw)
        size = raw.bytesize
        back = 1
        while back <= 3 && back <= size
          byte = raw.getbyte(size - back)
          if byte >= 0xC0 # a lead byte: how long is its character?
            needed = if byte >= 0xF0 then 4
                     elsif byte >= 0xE0 then 3
                     else 2
                     end
            if needed > back
              @pending = raw.byteslice(size - back, back)
              raw.replace(raw.byteslice(0, size - back))
            end
            return
          end
          return if byte < 0x80 # ASCII: nothing is cut

          back += 1
        end
      end

      # Hands out the text before the first invalid byte; the next call raises.
      def valid_prefix(text)
        good = 0
        size = text.bytesize
        # Whole probes first, then character by character in the bad one.
        good += PROBE_SIZE while good + PROBE_SIZE <= size && probe_valid?(text, good, PROBE_SIZE)
        text.byteslice(good, size - good).each_char do |char|
          break unless char.valid_encoding?

          good += char.bytesize
        end
        @invalid = format("invalid UTF-8 (byte 0x%02X)", text.getbyte(good))
        @reader.close
        @pending = nil
        text.byteslice(0, good)
      end

      # A probe may cut a character at either end: widen it to whole ones.
      def probe_valid?(text, start, length)
        stop = start + length
        stop += 1 while stop < text.bytesize && (text.getbyte(stop) & 0xC0) == 0x80
        text.byteslice(start, stop - start).valid_encoding?
      end
    end
  end
end
