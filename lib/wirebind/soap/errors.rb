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

    # The HTTP proxy refused the request: it answered a +CONNECT+ (the tunnel to
    # an +https+ endpoint) with a status other than 2xx, or a request for an
    # +http+ endpoint with 407 (Proxy Authentication Required: no or wrong
    # credentials in the +proxy:+ URL). Nothing reached the endpoint through it.
    class ProxyError < ConnectionError
      # @return [Integer, nil] the proxy's HTTP status (nil: its answer was not HTTP)
      attr_reader :status

      # @param message [String]
      # @param status [Integer, nil]
      def initialize(message, status = nil)
        @status = status
        super(message)
      end
    end

    # An MTOM/XOP message that cannot be read: a malformed +multipart/related+
    # body or part, a part cut short, an +xop:Include+ naming a part the message
    # does not hold, or a message over its size limit.
    class AttachmentError < Error; end

    # A WS-Addressing reply whose +wsa:RelatesTo+ names another message than the
    # request's +wsa:MessageID+: not this call's answer, so nothing of it is returned.
    class AddressingError < Error; end

    # A WS-Security check failed on a message (a response the client verifies):
    # nothing of it is delivered. The subclasses say which check.
    class WSSecurityError < Error; end

    # The message is not signed, a reference's digest or the signature value does
    # not verify, the Body is not among what is signed, or the signature uses an
    # algorithm, transform or structure that is not accepted.
    class SignatureError < WSSecurityError; end

    # The signing certificate is not trusted by the store the client was given.
    class UntrustedCertificateError < WSSecurityError; end

    # The message's signed Timestamp has expired, or was created in the future
    # (beyond the allowed clock skew).
    class TimestampError < WSSecurityError; end

    # A response holds a header block with +mustUnderstand+ true for this node
    # that the client was not told it understands (+understands:+): SOAP 1.1
    # §4.2.3, SOAP 1.2 Part 1 §5.2.3. The result is not decoded.
    class MustUnderstandError < Error
      # @return [Array<Array(String, String)>] the blocks not understood: local name and namespace
      attr_reader :headers

      # @param headers [Array<Array(String, String)>]
      def initialize(headers)
        @headers = headers
        super("the response has mustUnderstand header #{headers.map { |local, uri| uri ? "{#{uri}}#{local}" : local }.join(', ')}, " \
              "which this client does not understand (Client.new(understands: [...]) names those it does)")
      end
    end
  end
end
