# frozen_string_literal: true

require "tempfile"

module Wirebind
  module SOAP
    module MTOM
      # Reads a +multipart/related+ body as it arrives, one piece of
      # {Chunks::SIZE} bytes at a time, never whole: each part's bytes go to a
      # String, or (a part other than the root, sent binary, of at least
      # +file_threshold+ bytes) to a Tempfile once they reach that size. Bounded
      # by +limit+ bytes in all; linear in the body's size.
      # @api private
      class Parts
        # The most bytes a part's header lines (or a boundary line) may take.
        HEADER_LIMIT = 16 * 1024
        # The most header lines a part may have.
        MAX_HEADERS = 64

        # @param reader [#read] the body
        # @param boundary [String]
        # @param limit [Integer] most bytes read
        # @param file_threshold [Integer, nil] parts of at least this many bytes go to a file
        def initialize(reader, boundary, limit, file_threshold)
          @reader = reader
          @delimiter = "--#{boundary}".b
          @close = "\r\n#{@delimiter}".b
          @limit = limit
          @file_threshold = file_threshold
          @buffer = +"".b
          @read = 0
        end

        # @param root [Proc] told a part's headers, answers whether it may be the root (kept in memory)
        # @return [Array<Array(Hash, String, Tempfile)>] each part's headers (lowercase names) and bytes
        # @raise [AttachmentError] (its files removed)
        def read(root)
          parts = []
          skip_preamble
          while part_follows?
            headers = read_headers
            memory = root.call(headers) || !%w[binary 8bit 7bit].include?(headers.fetch("content-transfer-encoding", "binary").downcase)
            sink = Sink.new(memory ? nil : @file_threshold)
            parts << [headers, sink]
            read_body(sink)
          end
          parts.map { |headers, sink| [headers, sink.value] }
        rescue StandardError
          parts&.each { |_, sink| sink.discard }
          raise
        end

        private

        def fill
          piece = next_piece or return false
          @buffer << piece
          true
        end

        # @return [String, nil] the next piece of the body (binary), nil at its end
        def next_piece
          piece = @reader.read(Chunks::SIZE) or return nil
          @read += piece.bytesize
          raise AttachmentError, "the MTOM message is larger than #{@limit} bytes (max_size)" if @read > @limit

          piece.encoding == Encoding::BINARY ? piece : piece.b
        end

        def consume(count)
          @buffer = @buffer.byteslice(count, @buffer.bytesize - count)
        end

        # Drops what comes before the first delimiter.
        def skip_preamble
          until (at = @buffer.index(@delimiter))
            keep = @delimiter.bytesize - 1
            consume(@buffer.bytesize - keep) if @buffer.bytesize > keep
            fill or raise AttachmentError, "the multipart body has no part (no #{@delimiter} line)"
          end
          consume(at + @delimiter.bytesize)
        end

        # After a delimiter: false at the close delimiter (+--+), else skips the
        # rest of the line (transport padding) and answers true.
        def part_follows?
          fill or raise AttachmentError, "a multipart part is not closed by its boundary (cut short?)" while @buffer.bytesize < 2
          return false if @buffer.start_with?("--")

          at = line_end("a multipart boundary line does not end with CRLF")
          raise AttachmentError, "a multipart boundary line does not end with CRLF" unless @buffer.byteslice(0, at).match?(/\A[ \t]*\z/)

          consume(at + 2)
          true
        end

        # @return [Integer] where the next CRLF is, reading more as needed
        def line_end(message)
          until (at = @buffer.index("\r\n"))
            raise AttachmentError, message if @buffer.bytesize > HEADER_LIMIT || !fill
          end
          at
        end

        # @return [Hash{String => String}] the part's header lines, names lowercased
        def read_headers
          headers = {}
          loop do
            at = line_end("a multipart part has no end of its headers")
            line = @buffer.byteslice(0, at)
            consume(at + 2)
            return headers if line.empty?
            raise AttachmentError, "a multipart part has more than #{MAX_HEADERS} header lines" if headers.size >= MAX_HEADERS

            name, value = line.split(":", 2)
            raise AttachmentError, "a multipart part has a malformed header line #{line[0, 80].inspect}" unless value

            headers[name.strip.downcase] = value.strip
          end
        end

        # Copies the part's bytes to +sink+ up to the next delimiter. Each piece
        # read goes to the sink as it is (no copy), but for the few bytes at its
        # end that could begin a delimiter, held back until the next piece shows.
        def read_body(sink)
          pending = @buffer
          @buffer = +"".b
          loop do
            if (at = pending.index(@close))
              sink << pending.byteslice(0, at)
              @buffer = pending.byteslice(at + @close.bytesize, pending.bytesize)
              return
            end
            held = held_back(pending)
            tail = pending.byteslice(pending.bytesize - held, held)
            sink.take(held.zero? ? pending : pending.byteslice(0, pending.bytesize - held))
            piece = next_piece or raise AttachmentError, "a multipart part is not closed by its boundary (cut short?)"
            pending = tail.empty? ? piece : tail << piece
          end
        end

        # @return [Integer] how many bytes at the end of +bytes+ could be the start of a delimiter
        def held_back(bytes)
          from = [bytes.bytesize - @close.bytesize + 1, 0].max
          while (at = bytes.index("\r", from))
            return bytes.bytesize - at if @close.start_with?(bytes.byteslice(at, bytes.bytesize - at))

            from = at + 1
          end
          0
        end

        # Where a part's bytes go: a String, then a Tempfile from +threshold+ bytes on.
        # @api private
        class Sink
          def initialize(threshold)
            @threshold = threshold
            @string = +"".b
            @file = nil
          end

          # Like {#<<}, and frees +bytes+ once written to the file: the pieces
          # the body was read in (a new String each, the reader's contract) are
          # not left for the garbage collector, so memory stays bounded.
          def take(bytes)
            self << bytes
            bytes.clear if @file && !bytes.frozen?
          end

          def <<(bytes)
            return @file.write(bytes) if @file

            @string << bytes
            return unless @threshold && @string.bytesize >= @threshold

            @file = Tempfile.new("wirebind-mtom", binmode: true)
            @file.write(@string)
            @string = nil
          end

          # @return [String, Tempfile] the bytes, or the file holding them (at its start)
          def value
            return @string unless @file

            @file.flush
            @file.rewind
            @file
          end

          def discard
            @file&.close!
          end
        end
      end
    end
  end
end
