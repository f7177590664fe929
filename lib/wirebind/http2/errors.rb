# frozen_string_literal: true

module Wirebind
  module HTTP2
    # RFC 9113 section 7: error codes by name.
    ERROR_CODES = {
      NO_ERROR: 0x0, PROTOCOL_ERROR: 0x1, INTERNAL_ERROR: 0x2, FLOW_CONTROL_ERROR: 0x3,
      SETTINGS_TIMEOUT: 0x4, STREAM_CLOSED: 0x5, FRAME_SIZE_ERROR: 0x6, REFUSED_STREAM: 0x7,
      CANCEL: 0x8, COMPRESSION_ERROR: 0x9, CONNECT_ERROR: 0xa, ENHANCE_YOUR_CALM: 0xb,
      INADEQUATE_SECURITY: 0xc, HTTP_1_1_REQUIRED: 0xd
    }.freeze

    # The root of HTTP/2 errors: a protocol violation, with the RFC 9113 error
    # code that answers it.
    class Error < Wirebind::Error
      # @return [Symbol] a key of {ERROR_CODES}, e.g. +:PROTOCOL_ERROR+
      attr_reader :code

      # @param message [String]
      # @param code [Symbol]
      def initialize(message = nil, code: :PROTOCOL_ERROR)
        @code = code
        super(message)
      end

      # @return [Integer] the code's number on the wire
      def code_number
        ERROR_CODES.fetch(@code)
      end
    end

    # A connection error (section 5.4.1), a protocol violation: answered
    # with GOAWAY carrying {#code}, then the connection is closed. (Named
    # apart from {Wirebind::SOAP::ConnectionError}, a network failure; it was
    # HTTP2::ConnectionError.)
    class ProtocolError < Error; end

    # A stream error (section 5.4.2): answered with RST_STREAM on that stream;
    # the connection goes on.
    class StreamError < Error
      # @return [Integer]
      attr_reader :stream_id

      def initialize(message = nil, stream_id:, code: :PROTOCOL_ERROR)
        @stream_id = stream_id
        super(message, code: code)
      end
    end

    # A malformed HPACK block (RFC 7541): a connection error of type COMPRESSION_ERROR.
    class CompressionError < ProtocolError
      def initialize(message = nil, code: :COMPRESSION_ERROR)
        super
      end
    end

    # The peer closed the connection, or the socket failed (a network fault,
    # not a protocol violation).
    class ConnectionClosed < Wirebind::Error; end
  end
end
