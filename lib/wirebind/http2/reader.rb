# frozen_string_literal: true

module Wirebind
  module HTTP2
    # Reads frames from an IO, or from bytes pushed into it, a frame at a time
    # whatever the reads' boundaries. Each frame's payload is a read-only view
    # of the bytes read: a frame wholly inside one read is never copied; only
    # a frame cut by a read boundary has its start copied once.
    class Reader
      READ_SIZE = 256 * 1024
      private_constant :READ_SIZE

      # @return [Integer] frames longer than this are a FRAME_SIZE_ERROR (our SETTINGS_MAX_FRAME_SIZE)
      attr_accessor :max_frame_size

      # @param io [IO, nil] read with +readpartial+; nil to {#push} bytes instead
      # @param max_frame_size [Integer]
      def initialize(io = nil, max_frame_size: Frame::DEFAULT_MAX_FRAME_SIZE)
        @io = io
        @max_frame_size = max_frame_size
        @data = "".b.freeze
        @view = Buffer.read_only(@data)
        @pos = 0
        @read_buffer = nil # the IO reads into this one String (push copies what came)
      end

      # Adds bytes read elsewhere.
      # @param bytes [String]
      # @return [self]
      def push(bytes)
        rest = @data.bytesize - @pos
        @data = (rest.zero? ? bytes.b : @data.byteslice(@pos, rest) + bytes.b).freeze
        @view = Buffer.read_only(@data)
        @pos = 0
        self
      end

      # @return [Integer] bytes buffered, not yet returned as frames
      def buffered
        @data.bytesize - @pos
      end

      # @return [Integer, Symbol, nil] the type of the frame whose first bytes
      #   are buffered but not the rest: nil when none is, :unknown before its type byte
      def partial_frame_type
        available = @data.bytesize - @pos
        return nil if available.zero?
        return :unknown if available < 4

        @data.getbyte(@pos + 3)
      end

      # Reads exactly n bytes (the connection preface), from the buffer then the IO.
      # @return [String, nil] nil if the input ends first
      def read_bytes(n)
        while buffered < n
          return nil unless fill
        end
        bytes = @data.byteslice(@pos, n)
        @pos += n
        bytes
      end

      # The next complete frame in what was pushed or read so far.
      # @return [Frame, nil] nil if more bytes are needed
      # @raise [ProtocolError] FRAME_SIZE_ERROR for a frame above {#max_frame_size}
      def next_frame
        available = @data.bytesize - @pos
        return nil if available < Frame::HEADER_SIZE

        length = @view.get_u24(@pos)
        if length > @max_frame_size
          raise ProtocolError.new("a frame of #{length} bytes is above SETTINGS_MAX_FRAME_SIZE (#{@max_frame_size})",
                                  code: :FRAME_SIZE_ERROR)
        end
        return nil if available < Frame::HEADER_SIZE + length

        frame = Binary.decode(@view, Frame, offset: @pos)
        @pos += Frame::HEADER_SIZE + length
        frame
      end

      # Reads from the IO until a frame is complete.
      # @return [Frame, nil] nil when the IO ends between frames
      # @raise [ConnectionClosed] the IO ends inside a frame
      def read_frame
        loop do
          frame = next_frame
          return frame if frame

          next if fill

          raise ConnectionClosed, "the connection closed inside a frame (#{buffered} bytes buffered)" if buffered.positive?

          return nil
        end
      end

      # One read from the IO without blocking.
      # @return [Boolean, Symbol] true if bytes came, :wait_readable, or false at the end
      def fill_nonblock
        chunk = @io.read_nonblock(READ_SIZE, read_buffer, exception: false)
        return false if chunk.nil?
        return :wait_readable if chunk == :wait_readable

        push(chunk)
        true
      rescue Errno::ECONNRESET, Errno::EPIPE, IOError
        false
      end

      private

      def read_buffer
        @read_buffer ||= String.new(capacity: READ_SIZE, encoding: Encoding::BINARY)
      end

      def fill
        raise ArgumentError, "this reader has no IO: push bytes into it" unless @io

        push(@io.readpartial(READ_SIZE, read_buffer))
        true
      rescue IOError, Errno::ECONNRESET, Errno::EPIPE # EOFError is an IOError
        false
      end
    end
  end
end
