# frozen_string_literal: true

module Wirebind
  module HTTP2
    # The streams of one connection (RFC 9113 section 5.1): the open ones by
    # id, and the state every other id implies: idle above the last stream
    # the peer opened, closed at or below it (section 5.1.1). It opens
    # streams on HEADERS, refuses them, remembers the ids reset lately (whose
    # frames in flight are dropped) and holds the peer's initial window.
    # {Connection} only dispatches frames to it.
    #
    # @api private
    class Streams
      # @return [Integer] the last stream id the peer opened
      attr_reader :last_stream_id
      # @return [Integer] the peer's SETTINGS_INITIAL_WINDOW_SIZE: a new stream's send window
      attr_reader :initial_window

      # @param max_concurrent [Integer] streams open at once; more are refused
      # @param initial_window [Integer]
      def initialize(max_concurrent:, initial_window: Frame::DEFAULT_WINDOW)
        @open = {}
        @last_stream_id = 0
        @max_concurrent = max_concurrent
        @initial_window = initial_window
        @reset_ids = {} # see #remember_reset
      end

      # @return [Stream, nil] the open stream of that id
      def [](id)
        @open[id]
      end

      # @return [Boolean] no stream open
      def empty?
        @open.empty?
      end

      # @yieldparam stream [Stream] each open stream
      def each(&block)
        @open.each_value(&block)
      end

      # The stream a frame names: the open one, or a Stream in the state its
      # id implies (idle above the last id, closed at or below it).
      # @return [Stream]
      def named(id)
        @open[id] || begin
          stream = Stream.new(id, @initial_window)
          stream.reset if id <= @last_stream_id # closed and forgotten
          stream
        end
      end

      # @return [Boolean] above every stream the peer opened
      def idle?(id)
        id > @last_stream_id
      end

      # @return [Boolean] a stream we reset lately and forgot: what the peer
      #   sent on it before it saw the reset is dropped (section 5.1, "closed")
      def dropped?(id)
        @reset_ids.key?(id) && !@open.key?(id)
      end

      # HEADERS received: opens the stream (section 5.1.1), or finds the
      # open stream whose trailers they carry. A stream error found here is
      # kept on the block, to be raised once the block is decoded: every
      # block moves the HPACK state, whatever becomes of its stream.
      #
      # @param dependency [Integer, nil] the priority fields' stream dependency
      # @param accepting [Boolean] false once our GOAWAY is sent: new streams are refused
      # @return [HeaderBlock] with the stream (nil if refused or dropped) or the error
      # @raise [ProtocolError] an even id, or a new one not above the last
      def receive_headers(id, end_stream:, dependency:, accepting:)
        raise ProtocolError, "HEADERS on stream #{id}: a client opens odd-numbered streams" if id.even?

        stream = @open[id]
        error = nil
        if stream.nil? && @reset_ids.key?(id)
          nil # trailers in flight when we reset the stream: decoded and dropped
        elsif stream.nil?
          stream, error = open_stream(id, dependency, accepting)
        else
          error = Stream.dependency_error(id, dependency)
        end
        if stream && error.nil?
          begin
            stream.receive_headers(end_stream)
          rescue StreamError => e
            error = e
          end
        end
        HeaderBlock.new(id, error ? nil : stream, error, end_stream)
      end

      # The peer's SETTINGS_INITIAL_WINDOW_SIZE: every open stream's send
      # window moves by the change (section 6.9.2).
      # @raise [ProtocolError] FLOW_CONTROL_ERROR above 2^31-1, or a window overflowing
      def initial_window=(value)
        raise ProtocolError.new("SETTINGS_INITIAL_WINDOW_SIZE of #{value}", code: :FLOW_CONTROL_ERROR) if value > Frame::MAX_WINDOW

        delta = value - @initial_window
        @initial_window = value
        @open.each_value do |stream|
          next if stream.send_window.grow(delta)

          raise ProtocolError.new("SETTINGS_INITIAL_WINDOW_SIZE overflows stream #{stream.id}'s window", code: :FLOW_CONTROL_ERROR)
        end
      end

      # A closed stream is no longer held.
      def forget(stream)
        @open.delete(stream.id)
      end

      # Streams we reset lately: the peer may have sent more on them before it
      # saw the reset, which is dropped, not answered with another reset (that
      # would spend the reset budget) or a connection error. A few hundred
      # ids, oldest forgotten first.
      def remember_reset(id)
        @reset_ids.delete(@reset_ids.first[0]) if @reset_ids.size >= 2 * @max_concurrent
        @reset_ids[id] = true
      end

      private

      def open_stream(id, dependency, accepting)
        raise ProtocolError, "HEADERS on stream #{id}, not above the last stream opened (#{@last_stream_id})" if id <= @last_stream_id

        @last_stream_id = id
        error = Stream.dependency_error(id, dependency)
        error ||= StreamError.new("stream #{id} opened after GOAWAY", stream_id: id, code: :REFUSED_STREAM) unless accepting
        if @open.size >= @max_concurrent
          error ||= StreamError.new("more than #{@max_concurrent} concurrent streams", stream_id: id, code: :REFUSED_STREAM)
        end
        return [nil, error] if error

        [@open[id] = Stream.new(id, @initial_window), nil]
      end
    end

    # A header block being received (HEADERS, then CONTINUATION until
    # END_HEADERS): its bytes, and what its HEADERS frame found (see
    # {Streams#receive_headers}).
    #
    # @api private
    class HeaderBlock
      # @return [Integer] the stream id of its HEADERS frame
      attr_reader :id
      # @return [Stream, nil] the stream it goes to once decoded; nil if refused or dropped
      attr_reader :stream
      # @return [StreamError, nil] raised once the block is decoded
      attr_reader :error
      # @return [Boolean] its HEADERS frame had END_STREAM
      attr_reader :end_stream
      # @return [String, nil] the bytes so far (nil before the first fragment)
      attr_reader :bytes

      def initialize(id, stream, error, end_stream)
        @id = id
        @stream = stream
        @error = error
        @end_stream = end_stream
        @bytes = nil
      end

      # @param fragment [Buffer] a frame's fragment of the block
      # @return [self]
      def <<(fragment)
        if @bytes
          @bytes << fragment.to_s
        else
          @bytes = fragment.to_s # a fresh binary String: the block's own (most blocks are one frame)
        end
        self
      end
    end
  end
end
