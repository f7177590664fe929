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
      # The response body being sent, and its bytes still to send (nil:
      # until the body's +read+ returns nil).
      # @api private
      attr_reader :body, :remaining
      # Where the next DATA frame's bytes start in a File body (nil for other bodies).
      # @api private
      attr_reader :body_offset
      # The request's content-length, if any, and the DATA bytes received.
      # @api private
      attr_reader :content_length, :received_length
      # Called once with nil when our END_STREAM is sent, or with a
      # {StreamError} when the stream is reset before it.
      # @api private
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

      # DATA received: the state, and the bytes counted against the request's
      # content-length (section 8.1.1).
      # @param length [Integer] the frame's content, padding excluded
      def receive_data(length, end_stream)
        case @state
        when :open then @state = :half_closed_remote if end_stream
        when :half_closed_local then @state = :closed if end_stream
        when :idle then raise ProtocolError, "DATA on idle stream #{@id}"
        else raise StreamError.new("DATA on stream #{@id} in state #{@state}", stream_id: @id, code: :STREAM_CLOSED)
        end
        @received_length += length
        return unless @content_length && @received_length > @content_length

        raise StreamError.new("more DATA than content-length #{@content_length}", stream_id: @id)
      end

      # A second header block: trailers, which must end the stream (section 8.1).
      def receive_trailers(end_stream)
        raise StreamError.new("a second header block on stream #{@id} without END_STREAM", stream_id: @id) unless end_stream
      end

      # @return [StreamError, nil] PROTOCOL_ERROR if the stream depends on
      #   itself (section 5.3.1), from a PRIORITY frame or HEADERS' priority fields
      def self.dependency_error(id, dependency)
        StreamError.new("stream #{id} depends on itself", stream_id: id) if dependency == id
      end

      # A decoded header list of this stream: the first is its request,
      # checked by sections 8.2 and 8.3; the next, its trailers (section 8.1).
      #
      # @param headers [Array<Array(String, String)>, nil] nil: above
      #   SETTINGS_MAX_HEADER_LIST_SIZE
      # @param end_stream [Boolean] its HEADERS frame had END_STREAM
      # @return [Symbol] +:request+ (the handler is called), +:trailers+ (the
      #   request has ended) or +:too_large+ (a request to answer with 431)
      # @raise [StreamError] a malformed request or trailers, or trailers too large
      def receive_header_list(headers, end_stream)
        if @headers.nil?
          return :too_large if headers.nil?

          check_request(headers, end_stream)
          @headers = headers
          return :request
        end
        raise StreamError.new("trailers above the header list size", stream_id: @id) if headers.nil?

        receive_trailers(end_stream)
        headers.each do |name, value|
          raise StreamError.new("pseudo-header #{name} in trailers", stream_id: @id) if name.start_with?(":")

          check_field(name, value)
        end
        :trailers
      end

      # The request's content-length field (section 8.1.1).
      # @param value [String] the field's value
      # @param end_stream [Boolean] the request has no body
      def declare_content_length(value, end_stream)
        raise StreamError.new("content-length #{value.inspect} is not a number", stream_id: @id) unless value.match?(/\A\d{1,18}\z/)
        raise StreamError.new("content-length twice", stream_id: @id) if @content_length

        @content_length = Integer(value, 10)
        return unless end_stream && @content_length.positive?

        raise StreamError.new("content-length #{value} on a request without a body", stream_id: @id)
      end

      # The request has ended (END_STREAM): its DATA must match its content-length.
      def finish_request
        return if @content_length.nil? || @content_length == @received_length

        raise StreamError.new("content-length #{@content_length} but #{@received_length} bytes of DATA", stream_id: @id)
      end

      # A response body starts to be sent (after our HEADERS).
      # @param body [IO] a File (sent from its position) or anything with +read(n, buffer)+
      # @param length [Integer, nil] nil: until +read+ returns nil
      def start_body(body, length)
        @body = body
        @body_offset = body.is_a?(File) ? body.pos : nil
        @remaining = length
      end

      # A DATA frame of size bytes of the body was sent (the last if last):
      # the window, the bytes left, the file's offset, and END_STREAM.
      def sent_data(size, last)
        @send_window.consume(size)
        @remaining -= size if @remaining
        @body_offset += size if @body_offset
        return unless last

        @body.close
        @body = nil
        send_end_stream
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

      # Tells {#on_response_end}, once.
      # @param error [StreamError, nil] why the stream ended early, nil when our END_STREAM was sent
      # @return [void]
      # @api private
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

      private

      REGULAR_NAME = /\A[!#$%&'*+\-.^_`|~0-9a-z]+\z/
      BAD_VALUE = /[\0\r\n]|\A[ \t]|[ \t]\z/
      CONNECTION_SPECIFIC = %w[connection keep-alive proxy-connection transfer-encoding upgrade].freeze
      REQUEST_PSEUDO = %w[:method :scheme :path :authority].freeze
      private_constant :REGULAR_NAME, :BAD_VALUE, :CONNECTION_SPECIFIC, :REQUEST_PSEUDO

      # Sections 8.2 and 8.3: a request's fields, which a malformed request
      # breaks with a stream error (PROTOCOL_ERROR).
      def check_request(headers, end_stream)
        seen_regular = false
        pseudo = {}
        headers.each do |name, value|
          if name.start_with?(":")
            raise StreamError.new("pseudo-header #{name} after a regular header", stream_id: @id) if seen_regular
            raise StreamError.new("pseudo-header #{name} is not a request's", stream_id: @id) unless REQUEST_PSEUDO.include?(name)
            raise StreamError.new("pseudo-header #{name} twice", stream_id: @id) if pseudo[name]
            raise StreamError.new("pseudo-header #{name}: bad value #{value.inspect}", stream_id: @id) if value.match?(BAD_VALUE)

            pseudo[name] = value
          else
            seen_regular = true
            check_field(name, value)
            declare_content_length(value, end_stream) if name == "content-length"
          end
        end
        check_pseudo(pseudo)
      end

      def check_field(name, value)
        raise StreamError.new("header name #{name.inspect} is not a lower-case token", stream_id: @id) unless name.match?(REGULAR_NAME)
        raise StreamError.new("header #{name} is connection-specific: not allowed in HTTP/2", stream_id: @id) if CONNECTION_SPECIFIC.include?(name)
        raise StreamError.new("header te of #{value.inspect}: only \"trailers\" is allowed", stream_id: @id) if name == "te" && value != "trailers"
        raise StreamError.new("header #{name}: CR, LF, NUL or edge whitespace in its value", stream_id: @id) if value.match?(BAD_VALUE)
      end

      def check_pseudo(pseudo)
        if pseudo[":method"] == "CONNECT"
          return if pseudo[":authority"] && !pseudo[":scheme"] && !pseudo[":path"]

          raise StreamError.new("CONNECT needs :authority and no :scheme or :path", stream_id: @id)
        end
        missing = %w[:method :scheme :path].reject { |name| pseudo[name] }
        raise StreamError.new("a request without #{missing.join(', ')}", stream_id: @id) unless missing.empty?

        path = pseudo[":path"]
        return if path.start_with?("/") || (path == "*" && pseudo[":method"] == "OPTIONS")

        raise StreamError.new(":path #{path.inspect} is neither absolute nor * for OPTIONS", stream_id: @id)
      end
    end
  end
end
