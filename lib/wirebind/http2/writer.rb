# frozen_string_literal: true

module Wirebind
  module HTTP2
    # Writes frames to an IO: the 9-byte header, packed into a String reused
    # from frame to frame, and the payload as it is, in one +IO#write(header,
    # payload)+ (a writev): the payload is never copied to be framed.
    class Writer
      # @param io [IO]
      def initialize(io)
        @io = io
        @header = String.new(capacity: Frame::HEADER_SIZE, encoding: Encoding::BINARY)
      end

      # @param type [Integer]
      # @param flags [Integer]
      # @param stream_id [Integer]
      # @param payload [String, Wirebind::Buffer, nil]
      # @return [void]
      def write_frame(type, flags, stream_id, payload = nil)
        payload = payload.to_s if payload && !payload.is_a?(String)
        length = payload ? payload.bytesize : 0
        @header.clear
        [length >> 16, length & 0xffff, type, flags, stream_id].pack("CnCCN", buffer: @header)
        if length.zero?
          @io.write(@header)
        else
          @io.write(@header, payload)
        end
      end

      # A frame whose payload is the first length bytes of a String (a reused read buffer).
      def write_data(flags, stream_id, chunk)
        write_frame(Frame::DATA, flags, stream_id, chunk)
      end
    end
  end
end
