# frozen_string_literal: true

require "io/wait"

module Wirebind
  module HTTP2
    # The server side of one HTTP/2 connection (RFC 9113): the preface, SETTINGS
    # and their ACK, PING, flow control both ways, stream states, RST_STREAM for
    # stream errors and GOAWAY with the error code the RFC names for connection
    # errors. Requests go to the handler as soon as their headers are complete;
    # it answers with {#respond}, whose body is sent in DATA frames as the
    # peer's windows allow, round robin between streams: straight from the
    # file by the kernel for a File body (+IO.copy_stream+, sendfile), else
    # read from its IO into one reused String.
    #
    # @example
    #   handler = ->(connection, stream) { connection.respond(stream, 200, [["content-length", "2"]], body: StringIO.new("hi"), length: 2) }
    #   Wirebind::HTTP2::Connection.new(socket, handler).run
    class Connection
      # The client connection preface every connection starts with (section 3.4).
      PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b.freeze
      # The SETTINGS_MAX_CONCURRENT_STREAMS a connection advertises unless told otherwise.
      MAX_CONCURRENT_STREAMS = 128
      # SETTINGS_MAX_HEADER_LIST_SIZE we advertise and enforce on each decoded
      # list (names, values and 32 bytes per field: at most 2,048 fields)
      MAX_HEADER_LIST_SIZE = 65_536
      # The bytes of one header block (HEADERS + CONTINUATION) we buffer
      MAX_HEADER_BLOCK_SIZE = 2 * MAX_HEADER_LIST_SIZE
      # Streams a client may have reset or refused beyond one per stream
      # answered in full (rapid reset, CVE-2023-44487)
      RESET_BUDGET = 200
      # Our receive window: replenished when half of it is used.
      RECEIVE_WINDOW = Frame::DEFAULT_WINDOW
      # Seconds without a byte from the peer (and nothing to send) before GOAWAY
      IDLE_TIMEOUT = 60
      # Seconds a header block may take from its first byte to END_HEADERS
      # (a block dripped a byte at a time resets the idle timeout each time)
      HEADER_TIMEOUT = 10
      # Seconds one write may stay blocked (a peer that does not read) before the connection is closed
      WRITE_TIMEOUT = 30
      # Seconds between two looks at +stopping+ while the peer is silent
      STOP_POLL = 0.25
      # Seconds the peer's last bytes are read and dropped after a stop's GOAWAY
      STOP_LINGER = 1
      # DATA frames sent between two reads of the peer's frames
      PUMP_BURST = 8
      private_constant :PUMP_BURST

      # @param io [IO] a connected socket
      # @param handler [#call] called with (connection, stream) for each request
      # @param idle_timeout [Numeric] seconds without a frame from the peer before the connection ends
      # @param max_concurrent_streams [Integer] streams open at once (each may hold a response body's file)
      # @param max_header_list_size [Integer] see {MAX_HEADER_LIST_SIZE}
      # @param max_header_block_size [Integer] see {MAX_HEADER_BLOCK_SIZE}
      # @param reset_budget [Integer] see {RESET_BUDGET}
      # @param write_timeout [Numeric] see {WRITE_TIMEOUT}
      # @param header_timeout [Numeric] see {HEADER_TIMEOUT}: GOAWAY ENHANCE_YOUR_CALM past it
      # @param stopping [#call, nil] true once the server stops: the connection
      #   then sends GOAWAY (NO_ERROR, the last stream id) within {STOP_POLL}
      #   seconds, busy or idle, refuses streams opened after it, finishes the
      #   ones it has and ends
      def initialize(io, handler, idle_timeout: IDLE_TIMEOUT, max_concurrent_streams: MAX_CONCURRENT_STREAMS,
                     max_header_list_size: MAX_HEADER_LIST_SIZE, max_header_block_size: MAX_HEADER_BLOCK_SIZE,
                     reset_budget: RESET_BUDGET, write_timeout: WRITE_TIMEOUT, header_timeout: HEADER_TIMEOUT,
                     stopping: nil)
        @io = io
        @header_timeout = header_timeout
        @header_deadline = nil # while a header block is incomplete: when it must be complete
        @stopping = stopping
        @shutdown = false # our GOAWAY of a stop sent
        @handler = handler
        @idle_timeout = idle_timeout
        @write_timeout = write_timeout
        @max_concurrent_streams = max_concurrent_streams
        @max_header_list_size = max_header_list_size
        @max_header_block_size = max_header_block_size
        @reset_budget = @reset_budget_limit = reset_budget
        @reader = Reader.new(io)
        @writer = Writer.new(io)
        @decoder = HPACK::Decoder.new
        @encoder = HPACK::Encoder.new
        @streams = Streams.new(max_concurrent: max_concurrent_streams)
        @sending = []
        @peer_max_frame_size = Frame::DEFAULT_MAX_FRAME_SIZE
        @send_window = Window.new(Frame::DEFAULT_WINDOW)
        @receive_window = Window.new(RECEIVE_WINDOW)
        @header_block = nil # a HeaderBlock awaiting CONTINUATION
        @chunk = String.new(capacity: Frame::MAX_FRAME_SIZE_LIMIT, encoding: Encoding::BINARY)
        @goaway = false
      end

      # Serves the connection until the peer leaves or breaks the protocol.
      # @return [Symbol, nil] the error code sent in GOAWAY, if any
      def run
        WriteWatchdog.watch(self) { serve }
      end

      # @return [Integer] the last stream id the peer opened
      def last_stream_id
        @streams.last_stream_id
      end

      # Closes the socket if a write has been blocked longer than the write
      # timeout (called by {WriteWatchdog}'s thread).
      #
      # @api private
      # @param now [Float] CLOCK_MONOTONIC
      def abort_stalled_write(now)
        since = @writer.writing_since
        return unless since && now - since > @write_timeout

        @io.close
      rescue IOError
        nil
      end

      # Sends a response: HEADERS, then the body's bytes in DATA frames as the
      # windows allow (from {#run}'s loop).
      #
      # @param stream [Stream]
      # @param status [Integer]
      # @param headers [Array<Array(String, String)>]
      # @param body [IO, nil] read with +read(n, buffer)+; closed when done
      # @param length [Integer, nil] bytes of body to send; nil: until +read(n)+
      #   returns nil (a body produced as it is sent, read only as the
      #   windows allow: it is never held whole; each String it returns is
      #   the connection's, cleared once sent); such a body may answer
      #   +trailers+ (name/value pairs) once it has ended
      def respond(stream, status, headers, body: nil, length: 0)
        block = @encoder.encode([[":status", status.to_s], *headers])
        end_stream = body.nil? || length&.zero?
        write_headers(stream.id, block, end_stream)
        if end_stream
          body&.close
          stream.send_end_stream
          forget(stream) if stream.closed?
        else
          stream.start_body(body, length)
          @sending << stream
        end
      end

      private

      def serve
        # the idle timeout holds from the first byte: a client that connects and is silent is let go
        while @reader.buffered < PREFACE.bytesize
          check_first_frame_deadline
          return nil unless fill_within_idle_timeout
          return nil if stop_requested?
        end
        preface = @reader.read_bytes(PREFACE.bytesize)
        raise ProtocolError, "the client preface is wrong: #{preface.inspect}" unless preface == PREFACE

        @writer.write_frame(Frame::SETTINGS, 0, 0, settings_payload)
        until (first = @reader.next_frame)
          return goaway(ERROR_CODES[:NO_ERROR], "the server is stopping") if stop_requested?

          check_first_frame_deadline
          next if fill_within_idle_timeout

          goaway(ERROR_CODES[:NO_ERROR], "no SETTINGS within #{@idle_timeout} s")
          return nil
        end
        raise ProtocolError, "the first frame is #{first.type_name}, not SETTINGS" unless first.type == Frame::SETTINGS && !first.flag?(Frame::ACK)

        @header_deadline = nil

        receive(first)
        loop do
          if stop_requested?
            shut_down
            break if @streams.empty?
          end
          frame = @reader.next_frame
          if frame
            receive(frame)
            next
          end
          check_header_deadline
          if may_pump?
            # a few frames, then a look at what the peer sent (WINDOW_UPDATE, RST_STREAM, PING)
            PUMP_BURST.times do
              pump
              break unless may_pump?
            end
            next if @reader.fill_nonblock
          else
            unless wait_readable
              goaway(ERROR_CODES[:NO_ERROR], "idle for #{@idle_timeout} s")
              break
            end
            break unless @reader.fill_nonblock
          end
          break if @goaway && @sending.empty?
          break if @shutdown && @streams.empty?
        end
        linger if @shutdown
        nil
      rescue ProtocolError => e
        goaway(e.code_number, e.message)
        e.code
      rescue ConnectionClosed, Errno::EPIPE, Errno::ECONNRESET, IOError
        nil
      ensure
        @streams.each(&:reset)
      end

      # @return [Boolean] false if the peer was silent for the idle timeout;
      #   true early when a stop is requested or a header block's deadline
      #   has passed (the caller's loop then acts on it)
      def wait_readable
        return !@io.wait_readable(@idle_timeout).nil? unless @stopping || @header_deadline

        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + @idle_timeout
        loop do
          now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          return false if now >= deadline

          wait = deadline - now
          wait = [wait, STOP_POLL].min if @stopping
          if @header_deadline
            return true if now >= @header_deadline

            wait = [wait, @header_deadline - now].min
          end
          return true if @io.wait_readable(wait) || stop_requested?
        end
      end

      # The preface and the first frame (SETTINGS) are held to the header
      # timeout from their first byte too.
      def check_first_frame_deadline
        return unless @reader.buffered.positive?

        now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        @header_deadline ||= now + @header_timeout
        return if now < @header_deadline

        raise ProtocolError.new("the preface and first SETTINGS frame not complete within #{@header_timeout} s", code: :ENHANCE_YOUR_CALM)
      end

      # A header block (HEADERS without END_HEADERS and its CONTINUATION, or
      # one HEADERS or CONTINUATION frame whose bytes are still coming) must
      # be complete within the header timeout of its first byte: a slowloris
      # sending a byte at a time would otherwise hold the connection for ever.
      def check_header_deadline
        pending = @reader.partial_frame_type
        unless @header_block || pending == :unknown || pending == Frame::HEADERS || pending == Frame::CONTINUATION
          @header_deadline = nil
          return
        end

        now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        @header_deadline ||= now + @header_timeout
        return if now < @header_deadline

        raise ProtocolError.new("a header block not complete within #{@header_timeout} s", code: :ENHANCE_YOUR_CALM)
      end

      # The server stops and our GOAWAY has not been sent yet.
      def stop_requested?
        !@shutdown && @stopping&.call ? true : false
      end

      # After our GOAWAY: our side of a plain socket is shut, and what the peer
      # still sends is read and dropped for up to {STOP_LINGER} seconds, so
      # that closing over unread bytes does not reset the connection (a
      # reset can discard the GOAWAY before the peer reads it).
      def linger
        return unless @io.is_a?(BasicSocket)

        @io.shutdown(Socket::SHUT_WR)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + STOP_LINGER
        dropped = String.new(capacity: 16_384, encoding: Encoding::BINARY)
        loop do
          left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          break if left <= 0 || !@io.wait_readable(left)
          break if @io.read_nonblock(16_384, dropped, exception: false).nil?
        end
      rescue IOError, SystemCallError
        nil
      end

      # Section 6.8: GOAWAY (NO_ERROR) with the last stream we took; the
      # streams open go on, later ones are refused.
      def shut_down
        @shutdown = true
        goaway(ERROR_CODES[:NO_ERROR], "the server is stopping")
      end

      # @return [Boolean] false if the peer was silent for the idle timeout, or left
      def fill_within_idle_timeout
        wait_readable && @reader.fill_nonblock != false
      end

      def settings_payload
        payload = Buffer.new
        [[Frame::SETTINGS_MAX_CONCURRENT_STREAMS, @max_concurrent_streams], [Frame::SETTINGS_ENABLE_PUSH, 0],
         [Frame::SETTINGS_MAX_HEADER_LIST_SIZE, @max_header_list_size]].each do |id, value|
          Binary.encode(Frame::Setting.new(id: id, value: value), into: payload)
        end
        payload
      end

      def write_headers(stream_id, block, end_stream)
        max = @peer_max_frame_size
        flags = end_stream ? Frame::END_STREAM : 0
        if block.bytesize <= max
          @writer.write_frame(Frame::HEADERS, flags | Frame::END_HEADERS, stream_id, block)
          return
        end
        @writer.write_frame(Frame::HEADERS, flags, stream_id, block.byteslice(0, max))
        offset = max
        while offset < block.bytesize
          piece = block.byteslice(offset, max)
          offset += piece.bytesize
          @writer.write_frame(Frame::CONTINUATION, offset >= block.bytesize ? Frame::END_HEADERS : 0, stream_id, piece)
        end
      end

      # @return [Boolean] the connection's window and some body's stream window are open
      def may_pump?
        @send_window.positive? && @sending.any? { |stream| stream.send_window.positive? }
      end

      # @return [Integer] the most bytes one DATA frame on the stream may carry now:
      #   its window, the connection's and the peer's frame size
      def data_budget(stream)
        [stream.send_window.size, @send_window.size, @peer_max_frame_size].min
      end

      # Sends one DATA frame for the next stream that may send.
      def pump
        stream = @sending.find { |s| s.send_window.positive? }
        @sending.delete(stream)
        return pump_produced(stream) unless stream.remaining

        size = [stream.remaining, data_budget(stream)].min
        last = stream.remaining == size
        if stream.body_offset
          return unless send_file_data(stream, size, last)
        else
          chunk = stream.body.read(size, @chunk)
          # the file shrank under us: nothing honest can follow the content-length already sent
          return reset_stream(stream, :INTERNAL_ERROR) if chunk.nil? || chunk.bytesize != size

          @writer.write_data(last ? Frame::END_STREAM : 0, stream.id, chunk)
        end
        sent_data(stream, size, last)
      end

      # One DATA frame of a body of unknown length: as many bytes as the
      # windows allow, or once it ends, its +trailers+ (if it has any) in a
      # HEADERS frame with END_STREAM, else an empty DATA frame with
      # END_STREAM. A body that raises resets its stream.
      def pump_produced(stream)
        size = data_budget(stream)
        chunk = begin
          stream.body.read(size)
        rescue StandardError
          return reset_stream(stream, :INTERNAL_ERROR)
        end
        trailers = chunk.nil? && stream.body.respond_to?(:trailers) ? stream.body.trailers : nil
        if trailers && !trailers.empty?
          # section 8.1: the trailer section, a HEADERS frame that ends the stream
          write_headers(stream.id, @encoder.encode(trailers), true)
        else
          @writer.write_data(chunk ? 0 : Frame::END_STREAM, stream.id, chunk || "")
        end
        size = chunk ? chunk.bytesize : 0
        # the bytes are ours and sent: freed now rather than by the next GC
        # (a body sent in frames smaller than its pieces is copied a frame at a time)
        chunk&.clear
        sent_data(stream, size, chunk.nil?)
      end

      def sent_data(stream, size, last)
        stream.sent_data(size, last)
        @send_window.consume(size)
        if last
          forget(stream) if stream.closed?
        else
          @sending << stream # round robin
        end
      end

      # One DATA frame of a File body, by the kernel. The file's size is
      # checked first, so that a file that shrank is a reset stream rather than
      # a frame shorter than its header says (which would break the connection).
      def send_file_data(stream, size, last)
        offset = stream.body_offset
        if stream.body.size < offset + size
          reset_stream(stream, :INTERNAL_ERROR)
          return false
        end
        sent = @writer.write_file_data(last ? Frame::END_STREAM : 0, stream.id, stream.body, offset, size)
        # shrank between the check and the copy: the frame is cut, the connection cannot go on
        raise ConnectionClosed, "a file shrank while it was being sent" if sent != size

        true
      end

      def forget(stream)
        # a stream answered in full, not reset, earns back a reset
        @reset_budget += 1 if stream.closed? && !stream.reset? && @reset_budget < @reset_budget_limit
        @streams.forget(stream)
        @sending.delete(stream)
      end

      def reset_stream(stream_or_id, code)
        id = stream_or_id.is_a?(Stream) ? stream_or_id.id : stream_or_id
        @writer.write_frame(Frame::RST_STREAM, 0, id, Binary.encode(Frame::RstStream.new(error_code: ERROR_CODES.fetch(code))))
        @streams.remember_reset(id)
        stream = @streams[id]
        return unless stream

        stream.reset
        forget(stream)
      end

      def goaway(code_number, message)
        debug = message.to_s.b.byteslice(0, 256)
        goaway = Frame::GoAway.new(reserved: 0, last_stream_id: @streams.last_stream_id, error_code: code_number, debug: debug)
        @writer.write_frame(Frame::GOAWAY, 0, 0, Binary.encode(goaway))
      rescue IOError, SystemCallError
        nil
      end

      def receive(frame)
        if @header_block && frame.type != Frame::CONTINUATION
          raise ProtocolError, "#{frame.type_name} frame while a header block on stream #{@header_block.id} awaits CONTINUATION"
        end

        case frame.type
        when Frame::DATA then receive_data(frame)
        when Frame::HEADERS then receive_headers(frame)
        when Frame::PRIORITY then receive_priority(frame)
        when Frame::RST_STREAM then receive_rst_stream(frame)
        when Frame::SETTINGS then receive_settings(frame)
        when Frame::PUSH_PROMISE then raise ProtocolError, "PUSH_PROMISE from a client"
        when Frame::PING then receive_ping(frame)
        when Frame::GOAWAY then receive_goaway(frame)
        when Frame::WINDOW_UPDATE then receive_window_update(frame)
        when Frame::CONTINUATION then receive_continuation(frame)
          # Frames of unknown types are ignored (section 4.1).
        end
      rescue StreamError => e
        reset_stream(e.stream_id, e.code)
        spend_reset_budget
      end

      # A reset or refused stream costs one from the budget, a stream answered
      # in full gives one back.
      def spend_reset_budget
        @reset_budget -= 1
        return unless @reset_budget.negative?

        raise ProtocolError.new("too many streams reset or refused (rapid reset?)", code: :ENHANCE_YOUR_CALM)
      end

      def connection_frame!(frame)
        raise ProtocolError, "#{frame.type_name} frame on stream #{frame.stream_id}: it belongs to stream 0" unless frame.stream_id.zero?
      end

      def stream_frame!(frame)
        raise ProtocolError, "#{frame.type_name} frame on stream 0" if frame.stream_id.zero?
      end

      def receive_data(frame)
        stream_frame!(frame)
        length = frame.length
        unless @receive_window.take(length)
          raise ProtocolError.new("DATA of #{length} bytes above the connection window (#{@receive_window.size})", code: :FLOW_CONTROL_ERROR)
        end

        replenish
        frame.content # checks the padding
        return if @streams.dropped?(frame.stream_id) # in flight when we reset it

        stream = @streams.named(frame.stream_id)
        end_stream = frame.flag?(Frame::END_STREAM)
        stream.receive_data(frame.content.length, end_stream)
        deliver_body(stream, frame.content.to_s, end_stream, length)
        received_end_stream(stream) if end_stream
      end

      # A handler with +receive_body(connection, stream, bytes, end_stream)+
      # gets the request body (else it is dropped, its length still checked)
      # and the stream's window is given back as it arrives: the handler
      # bounds what it keeps.
      def deliver_body(stream, bytes, end_stream, length)
        return unless @handler.respond_to?(:receive_body)

        if length.positive? && !end_stream
          write_window_update(stream.id, length)
        end
        @handler.receive_body(self, stream, bytes, end_stream)
      end

      def replenish
        return if @receive_window.size > RECEIVE_WINDOW / 2

        write_window_update(0, @receive_window.refill(RECEIVE_WINDOW))
      end

      def write_window_update(stream_id, increment)
        @writer.write_frame(Frame::WINDOW_UPDATE, 0, stream_id, Binary.encode(Frame::WindowUpdate.new(reserved: 0, increment: increment)))
      end

      def receive_headers(frame)
        stream_frame!(frame)
        priority = frame.flag?(Frame::PRIORITY_FLAG)
        fragment = frame.content(priority ? 5 : 0)
        dependency = priority ? Binary.decode(frame.payload, Frame::Priority, offset: frame.flag?(Frame::PADDED) ? 1 : 0).dependency : nil
        @header_block = @streams.receive_headers(frame.stream_id, end_stream: frame.flag?(Frame::END_STREAM), dependency: dependency,
                                                                  accepting: !@shutdown)
        @header_block << fragment
        check_header_block_size
        finish_header_block if frame.flag?(Frame::END_HEADERS)
      end

      def receive_continuation(frame)
        unless @header_block && frame.stream_id == @header_block.id
          raise ProtocolError, "CONTINUATION on stream #{frame.stream_id} without a HEADERS frame before it"
        end

        @header_block << frame.payload
        check_header_block_size
        finish_header_block if frame.flag?(Frame::END_HEADERS)
      end

      # A header block above the cap is not buffered any further: it cannot be
      # dropped without decoding (that would put HPACK out of step), so the
      # connection ends.
      def check_header_block_size
        return if @header_block.bytes.bytesize <= @max_header_block_size

        raise ProtocolError.new("a header block of more than #{@max_header_block_size} bytes on stream #{@header_block.id}",
                                code: :ENHANCE_YOUR_CALM)
      end

      # Decodes the block collected, whatever becomes of its stream, then
      # raises the stream error found on its HEADERS frame if any; the
      # stream says what the list is to it.
      def finish_header_block
        block = @header_block
        @header_block = nil
        headers = @decoder.decode(block.bytes, max_list_size: @max_header_list_size)
        raise block.error if block.error

        stream = block.stream
        return unless stream # a stream we reset

        case stream.receive_header_list(headers, block.end_stream)
        when :request then call_handler(stream)
        when :too_large then respond(stream, 431, [%w[content-length 0]])
        else # trailers
          deliver_body(stream, "", true, 0)
          received_end_stream(stream)
        end
      end

      # A handler that raises costs its stream (RST_STREAM INTERNAL_ERROR),
      # not the connection and the other requests on it. A failing socket still
      # ends the connection: the reset's write fails the same way.
      def call_handler(stream)
        @handler.call(self, stream)
      rescue StandardError
        reset_stream(stream, :INTERNAL_ERROR)
      end

      # Section 8.1.1: a content-length must match the DATA received.
      def received_end_stream(stream)
        stream.finish_request
        forget(stream) if stream.closed?
      end

      def receive_priority(frame)
        stream_frame!(frame)
        unless frame.length == 5
          raise StreamError.new("PRIORITY frame of #{frame.length} bytes", stream_id: frame.stream_id, code: :FRAME_SIZE_ERROR)
        end

        error = Stream.dependency_error(frame.stream_id, Binary.decode(frame.payload, Frame::Priority).dependency)
        raise error if error
      end

      def receive_rst_stream(frame)
        stream_frame!(frame)
        raise ProtocolError.new("RST_STREAM frame of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless frame.length == 4
        raise ProtocolError, "RST_STREAM on idle stream #{frame.stream_id}" if @streams.idle?(frame.stream_id)

        stream = @streams[frame.stream_id]
        return unless stream

        stream.reset
        forget(stream)
        spend_reset_budget
      end

      def receive_settings(frame)
        connection_frame!(frame)
        if frame.flag?(Frame::ACK)
          raise ProtocolError.new("SETTINGS ACK with a payload", code: :FRAME_SIZE_ERROR) unless frame.length.zero?

          return
        end
        raise ProtocolError.new("SETTINGS of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless (frame.length % 6).zero?

        payload = frame.payload
        (frame.length / 6).times do |i|
          setting = Binary.decode(payload, Frame::Setting, offset: i * 6)
          apply_setting(setting.id, setting.value)
        end
        @writer.write_frame(Frame::SETTINGS, Frame::ACK, 0)
      end

      def apply_setting(id, value)
        case id
        when Frame::SETTINGS_HEADER_TABLE_SIZE
          @encoder.max_table_size = [value, 4096].min
        when Frame::SETTINGS_ENABLE_PUSH
          raise ProtocolError, "SETTINGS_ENABLE_PUSH of #{value}" if value > 1
        when Frame::SETTINGS_INITIAL_WINDOW_SIZE
          @streams.initial_window = value
        when Frame::SETTINGS_MAX_FRAME_SIZE
          unless value.between?(Frame::DEFAULT_MAX_FRAME_SIZE, Frame::MAX_FRAME_SIZE_LIMIT)
            raise ProtocolError, "SETTINGS_MAX_FRAME_SIZE of #{value}"
          end

          @peer_max_frame_size = value
        end
      end

      def receive_ping(frame)
        connection_frame!(frame)
        raise ProtocolError.new("PING of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless frame.length == 8
        return if frame.flag?(Frame::ACK)

        @writer.write_frame(Frame::PING, Frame::ACK, 0, frame.payload.to_s)
      end

      def receive_goaway(frame)
        connection_frame!(frame)
        raise ProtocolError.new("GOAWAY of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) if frame.length < 8

        @goaway = true
      end

      def receive_window_update(frame)
        raise ProtocolError.new("WINDOW_UPDATE of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless frame.length == 4

        increment = Binary.decode(frame.payload, Frame::WindowUpdate).increment
        id = frame.stream_id
        if id.zero?
          raise ProtocolError, "WINDOW_UPDATE of 0 on the connection" if increment.zero?

          return if @send_window.grow(increment)

          raise ProtocolError.new("the connection window overflows (#{@send_window.size})", code: :FLOW_CONTROL_ERROR)
        end
        raise ProtocolError, "WINDOW_UPDATE on idle stream #{id}" if @streams.idle?(id)

        stream = @streams[id]
        return unless stream # closed: ignored

        raise StreamError.new("WINDOW_UPDATE of 0 on stream #{id}", stream_id: id) if increment.zero?

        return if stream.send_window.grow(increment)

        raise StreamError.new("stream #{id}'s window overflows (#{stream.send_window.size})", stream_id: id, code: :FLOW_CONTROL_ERROR)
      end
    end
  end
end
