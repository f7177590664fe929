# frozen_string_literal: true

require "socket"

module Wirebind
  module HTTP2
    # Writes frames to an IO: the 9-byte header, packed into a String reused
    # from frame to frame, and the payload as it is, in one +IO#write(header,
    # payload)+ (a writev): the payload is never copied to be framed. Inside
    # {#cork}, frames are queued and leave together in one +IO#write+ (one
    # writev for up to {MAX_CORKED} frames).
    class Writer
      # Frames queued by {#cork} before they are written anyway (each is two
      # iovecs: Linux's IOV_MAX is 1024).
      MAX_CORKED = 256

      # @return [Float, nil] when the write under way started (CLOCK_MONOTONIC), nil between writes
      attr_reader :writing_since

      # @param io [IO]
      def initialize(io)
        @io = io
        @writing_since = nil
        @header = String.new(capacity: Frame::HEADER_SIZE, encoding: Encoding::BINARY)
        @corked = nil # the headers and payloads queued by #cork
      end

      # Queues the frames written in the block and writes them with one
      # +IO#write+ when it ends (one system call for many frames). The
      # payloads are queued as they are, not copied: they must not change
      # before the block ends. If the block raises, what it queued is dropped.
      #
      # @yieldparam writer [Writer] self
      # @return [Object] the block's value
      def cork
        return yield(self) if @corked # nested: the outer block writes

        @corked = []
        begin
          result = yield(self)
          flush_corked
        ensure
          @corked = nil
        end
        result
      end

      # @param type [Integer]
      # @param flags [Integer]
      # @param stream_id [Integer]
      # @param payload [String, Wirebind::Buffer, nil]
      # @return [void]
      def write_frame(type, flags, stream_id, payload = nil)
        payload = payload.to_s if payload && !payload.is_a?(String)
        length = payload ? payload.bytesize : 0
        return queue(type, flags, stream_id, payload, length) if @corked

        frame_header(@header.clear, length, type, flags, stream_id)
        @writing_since = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        if length.zero?
          @io.write(@header)
        else
          @io.write(@header, payload)
        end
      ensure
        @writing_since = nil
      end

      # A frame whose payload is the first length bytes of a String (a reused read buffer).
      def write_data(flags, stream_id, chunk)
        write_frame(Frame::DATA, flags, stream_id, chunk)
      end

      # A DATA frame whose payload is length bytes of file at offset, copied
      # by the kernel (+IO.copy_stream+: sendfile to a socket) and never read
      # into Ruby: the header goes first, written on its own (with MSG_MORE on
      # a socket, so that it leaves in the payload's first packet).
      #
      # @param file [File]
      # @return [Integer] the bytes of payload written (less than length if the file shrank)
      def write_file_data(flags, stream_id, file, offset, length)
        frame_header(@header.clear, length, Frame::DATA, flags, stream_id)
        @writing_since = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        if MSG_MORE && @io.is_a?(BasicSocket)
          sent = @io.send(@header, MSG_MORE)
          @io.write(@header.byteslice(sent, Frame::HEADER_SIZE - sent)) if sent < Frame::HEADER_SIZE
        else
          @io.write(@header)
        end
        IO.copy_stream(file, @io, length, offset)
      ensure
        @writing_since = nil
      end

      private

      # The 9-byte frame header (section 4.1), appended to out: the one place it is written.
      def frame_header(out, length, type, flags, stream_id)
        [length >> 16, length & 0xffff, type, flags, stream_id].pack("CnCCN", buffer: out)
      end

      def queue(type, flags, stream_id, payload, length)
        @corked << frame_header(String.new(capacity: Frame::HEADER_SIZE, encoding: Encoding::BINARY), length, type, flags, stream_id)
        @corked << payload unless length.zero?
        flush_corked if @corked.size >= 2 * MAX_CORKED
        nil
      end

      def flush_corked
        unless @corked.empty?
          @writing_since = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          @io.write(*@corked)
        end
        @corked.clear
      ensure
        @writing_since = nil
      end

      # Linux's flag for "more data follows": nil where there is none.
      MSG_MORE = Socket.const_defined?(:MSG_MORE) ? Socket::MSG_MORE : nil
      private_constant :MSG_MORE
    end
  end
end
