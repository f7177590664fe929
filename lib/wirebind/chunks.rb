# frozen_string_literal: true

module Wirebind
  # How every format reads its input and writes to an IO in pieces: one place, so
  # the XML and JSON backends accept the same inputs in the same way.
  # @api private
  module Chunks
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
  end
end
