# frozen_string_literal: true

module Wirebind
  # How every format reads its input and writes to an IO in pieces: one place, so
  # the XML and JSON backends accept the same inputs in the same way.
  # @api private
  module Chunks
    # Bytes in a piece: what the sources ask of an IO per read, what the
    # encoders gather before they write to an IO, and the size of the pieces a
    # streamed response is cut into (Rack bodies, the SOAP service).
    SIZE = 64 * 1024

    # Reads the caller's input as raw chunks: a String whole and once (never
    # copied), an IO through +readpartial+ or +read(n)+.
    # @api private
    class Reader
      # @return [String, nil] the input itself when it is a String
      attr_reader :string

      # @param input [String, #readpartial, #read]
      # @param chunk_size [Integer] bytes asked of an IO per read
      # @raise [ArgumentError] the input is neither
      def initialize(input, chunk_size)
        @chunk_size = chunk_size
        if input.is_a?(String)
          @string = input
        elsif input.respond_to?(:readpartial)
          @io = input
          @method = :readpartial
        elsif input.respond_to?(:read)
          @io = input
          @method = :read
        else
          raise ArgumentError, "input must be a String or an IO-like object answering readpartial or read, not #{input.class}"
        end
      end

      # @return [String, nil] the next chunk (never empty), or nil at the end
      def read
        if @string
          string = @string
          @string = nil
          return string.empty? ? nil : string
        end
        return nil unless @io

        chunk =
          if @method == :readpartial
            begin
              @io.readpartial(@chunk_size)
            rescue EOFError
              nil
            end
          else
            @io.read(@chunk_size)
          end
        return nil if chunk.nil?
        unless chunk.is_a?(String)
          raise ArgumentError, "#{@io.class}##{@method} returned #{chunk.class}, not a String or nil"
        end

        # A String an IO hands out may be its own buffer, reused on the next read.
        chunk.empty? ? nil : chunk.dup
      end

      # Reads nothing more.
      def close
        @string = nil
        @io = nil
      end
    end

    module_function

    # Writes what +out+ holds to +io+ and empties it. The IO gets a String of
    # its own, never touched again: a sink may keep what it is given (a Rack
    # body, a queue), and +out+ is refilled after this.
    # @return [Integer] the bytes written
    def flush(io, out)
      bytes = out.bytesize
      io.write(out.dup)
      out.clear
      bytes
    end

    # An IO to write a document to that hands it on in pieces of exactly
    # {SIZE} bytes (the last one shorter), each a new String: what a streamed
    # response body (Rack::Body, SOAP::Service) writes its encoder's output to.
    # Pieces may cut a character: they are bytes on the wire.
    # @api private
    class Pieces
      # @yieldparam piece [String] a full piece, UTF-8
      def initialize(&hand_on)
        @hand_on = hand_on
        @buffer = new_buffer
      end

      # @param text [String]
      # @return [Integer] bytes taken
      def write(text)
        text = text.dup.force_encoding(Encoding::UTF_8) unless text.encoding == Encoding::UTF_8
        size = text.bytesize
        room = SIZE - @buffer.bytesize
        if size < room
          @buffer << text
          return size
        end

        @buffer << text.byteslice(0, room)
        @hand_on.call(@buffer)
        @buffer = new_buffer
        offset = room
        while size - offset >= SIZE
          @hand_on.call(text.byteslice(offset, SIZE))
          offset += SIZE
        end
        @buffer << text.byteslice(offset, size - offset) if offset < size
        size
      end

      # @param text [String]
      # @return [Pieces] self
      def <<(text)
        write(text)
        self
      end

      # @return [String] what is not handed on yet (shorter than a piece), taken
      def rest
        rest = @buffer
        @buffer = new_buffer
        rest
      end

      # Hands on what is left.
      # @return [void]
      def finish
        piece = rest
        @hand_on.call(piece) unless piece.empty?
      end

      private

      def new_buffer
        String.new(capacity: SIZE, encoding: Encoding::UTF_8)
      end
    end
  end
end
