# frozen_string_literal: true

module Wirebind
  module HTTP2
    # One stream and its state (RFC 9113 section 5.1), with its send window.
    class Stream
      # @return [Integer]
      attr_reader :id
      # @return [Symbol] :idle, :open, :half_closed_local, :half_closed_remote or :closed
      attr_reader :state
      # @return [Window] bytes we may still send on it (the peer's window)
      attr_reader :send_window
      # @return [Array<Array(String, String)>, nil] the request's headers
      attr_accessor :headers
      # @api private: the response body being sent ([io, remaining bytes]) and
      # the header block being collected from CONTINUATION frames
      attr_accessor :body, :remaining
      # @api private: where the next DATA frame's bytes start in a File body
      attr_accessor :body_offset
      # @api private: the request's content-length, if any, and the DATA bytes received
      attr_accessor :content_length, :received_length
      # @api private: called once with nil when our END_STREAM is sent, or
      # with a {StreamError} when the stream is reset before it
      attr_accessor :on_response_end

      def initialize(id, send_window)
        @id = id
        @state = :idle
        @send_window = Window.new(send_window)
        @headers = nil
        @body = nil
        @remaining = 0
        @body_offset = 0
        @content_length = nil
        @received_length = 0
        @reset = false
        @on_response_end = nil
      end

      # HEADERS received.
      def receive_headers(end_stream)
        case @state
        when :idle then @state = end_stream ? :half_closed_remote : :open
        when :open then @state = :half_closed_remote if end_stream # trailers
        when :half_closed_local
          @state = :closed if end_stream
        else
          raise StreamError.new("HEADERS on stream #{@id} in state #{@state}", stream_id: @id, code: :STREAM_CLOSED)
        end
      end

      # DATA received.
      def receive_data(end_stream)
        case @state
        when :open then @state = :half_closed_remote if end_stream
        when :half_closed_local then @state = :closed if end_stream
        when :idle then raise ProtocolError, "DATA on idle stream #{@id}"
        else raise StreamError.new("DATA on stream #{@id} in state #{@state}", stream_id: @id, code: :STREAM_CLOSED)
        end
      end

      # We sent END_STREAM (on HEADERS or DATA).
      def send_end_stream
        @state = case @state
                 when :open then :half_closed_local
                 else :closed
                 end
        response_ended(nil)
      end

      # RST_STREAM sent or received.
      def reset
        @state = :closed
        @reset = true
        @body&.close
        @body = nil
        response_ended(StreamError.new("stream #{@id} was reset before its response was sent", stream_id: @id, code: :CANCEL))
      end

      # @return [Boolean] closed by RST_STREAM, sent or received
      def reset?
        @reset
      end

      # @return [Boolean]
      def closed?
        @state == :closed
      end

      # @api private: tells {#on_response_end}, once.
      def response_ended(error)
        callback = @on_response_end
        return unless callback

        @on_response_end = nil
        callback.call(error)
      end

      # @return [Boolean] a response body still to send
      def sending?
        !@body.nil?
      end
    end
  end
end
