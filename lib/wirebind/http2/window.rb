# frozen_string_literal: true

module Wirebind
  module HTTP2
    # A flow-control window (RFC 9113 section 6.9): the bytes of DATA one side
    # may still send, on a stream or on the whole connection. The same object
    # for both directions and both scopes; the caller turns an overflow into
    # the error its scope calls for.
    #
    # @api private
    class Window
      # @return [Integer] may be negative after SETTINGS_INITIAL_WINDOW_SIZE shrinks it (section 6.9.2)
      attr_reader :size

      # @param size [Integer]
      def initialize(size)
        @size = size
      end

      # @return [Boolean] DATA may be sent
      def positive?
        @size.positive?
      end

      # @param bytes [Integer] DATA sent or received
      # @return [self]
      def consume(bytes)
        @size -= bytes
        self
      end

      # DATA received against our window.
      # @param bytes [Integer]
      # @return [Boolean] false (and the window unchanged) if bytes exceed it: a FLOW_CONTROL_ERROR
      def take(bytes)
        return false if bytes > @size

        @size -= bytes
        true
      end

      # A WINDOW_UPDATE's increment, or the change of SETTINGS_INITIAL_WINDOW_SIZE.
      # @param increment [Integer]
      # @return [Boolean] false if the window went above 2^31-1 (a FLOW_CONTROL_ERROR)
      def grow(increment)
        @size += increment
        @size <= Frame::MAX_WINDOW
      end

      # @return [Integer] the increment that brings it back to target
      def refill(target)
        increment = target - @size
        @size = target
        increment
      end
    end
  end
end
