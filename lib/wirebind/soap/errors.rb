# frozen_string_literal: true

module Wirebind
  module SOAP
    # An HTTP response with a status outside 2xx and no SOAP fault in its body
    # (an HTML error page from a proxy, a 404 from the wrong endpoint).
    class HTTPError < Error
      # How much of the body {#body} keeps.
      BODY_LIMIT = 4096

      # @return [Integer] the HTTP status
      attr_reader :status
      # @return [String] at most the first {BODY_LIMIT} bytes of the body
      attr_reader :body

      # @param status [Integer]
      # @param body [String]
      # @param message [String, nil]
      def initialize(status, body = "", message = nil)
        @status = status
        @body = body.byteslice(0, BODY_LIMIT)
        super(message || "HTTP #{status} with no SOAP fault in the body")
      end
    end

    # Opening a connection, writing the request or reading the response took
    # longer than the configured timeout.
    class TimeoutError < Error; end

    # Every connection of the client's pool stayed in use for longer than
    # +pool_timeout+ (or the call's deadline): the request was not sent.
    class PoolTimeoutError < TimeoutError; end

    # The connection was refused, reset, or closed before the response ended
    # (a body cut short before the envelope closed). No partial result is
    # returned; with {Client#each} the records already yielded stay yielded.
    class ConnectionError < Error; end
  end
end
