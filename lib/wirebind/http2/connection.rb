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
      PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b.freeze
      MAX_CONCURRENT_STREAMS = 128
      # Our receive window: replenished when half of it is used.
      RECEIVE_WINDOW = Frame::DEFAULT_WINDOW
      IDLE_TIMEOUT = 60
      # DATA frames sent between two reads of the peer's frames
      PUMP_BURST = 8
      private_constant :PUMP_BURST

      # @return [Integer] the last stream id the peer opened
      attr_reader :last_stream_id

      # @param io [IO] a connected socket
      # @param handler [#call] called with (connection, stream) for each request
      def initialize(io, handler, idle_timeout: IDLE_TIMEOUT)
        @io = io
        @handler = handler
        @idle_timeout = idle_timeout
        @reader = Reader.new(io)
        @writer = Writer.new(io)
        @decoder = HPACK::Decoder.new
        @encoder = HPACK::Encoder.new
        @streams = {}
        @sending = []
        @last_stream_id = 0
        @peer_initial_window = Frame::DEFAULT_WINDOW
        @peer_max_frame_size = Frame::DEFAULT_MAX_FRAME_SIZE
        @send_window = Frame::DEFAULT_WINDOW
        @receive_window = RECEIVE_WINDOW
        @continuation = nil # the stream whose header block is being continued
        @chunk = String.new(capacity: Frame::MAX_FRAME_SIZE_LIMIT, encoding: Encoding::BINARY)
        @goaway = false
      end

      # Serves the connection until the peer leaves or breaks the protocol.
      # @return [Symbol, nil] the error code sent in GOAWAY, if any
      def run
        preface = @reader.read_bytes(PREFACE.bytesize)
        return nil if preface.nil?
        raise ConnectionError, "the client preface is wrong: #{preface.inspect}" unless preface == PREFACE

        @writer.write_frame(Frame::SETTINGS, 0, 0, settings_payload)
        loop do
          frame = @reader.next_frame
          if frame
            receive(frame)
            next
          end
          if @sending.any? { |stream| stream.send_window.positive? } && @send_window.positive?
            # a few frames, then a look at what the peer sent (WINDOW_UPDATE, RST_STREAM, PING)
            PUMP_BURST.times do
              pump
              break unless @send_window.positive? && @sending.any? { |stream| stream.send_window.positive? }
            end
            next if @reader.fill_nonblock
          else
            break unless wait_readable && @reader.fill_nonblock
          end
          break if @goaway && @sending.empty?
        end
        nil
      rescue ConnectionError => e
        goaway(e.code_number, e.message)
        e.code
      rescue ConnectionClosed, Errno::EPIPE, Errno::ECONNRESET, IOError
        nil
      ensure
        @streams.each_value(&:reset)
      end

      # Sends a response: HEADERS, then the body's bytes in DATA frames as the
      # windows allow (from {#run}'s loop).
      #
      # @param stream [Stream]
      # @param status [Integer]
      # @param headers [Array<Array(String, String)>]
      # @param body [IO, nil] read with +read(n, buffer)+; closed when done
      # @param length [Integer] bytes of body to send
      def respond(stream, status, headers, body: nil, length: 0)
        block = @encoder.encode([[":status", status.to_s], *headers])
        end_stream = body.nil? || length.zero?
        write_headers(stream.id, block, end_stream)
        if end_stream
          body&.close
          stream.send_end_stream
          forget(stream) if stream.closed?
        else
          stream.body = body
          stream.body_offset = body.is_a?(File) ? body.pos : nil
          stream.remaining = length
          @sending << stream
        end
      end

      private

      def wait_readable
        !@io.wait_readable(@idle_timeout).nil?
      end

      def settings_payload
        [Frame::SETTINGS_MAX_CONCURRENT_STREAMS, MAX_CONCURRENT_STREAMS, Frame::SETTINGS_ENABLE_PUSH, 0].pack("nNnN")
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

      # Sends one DATA frame for the next stream that may send.
      def pump
        stream = @sending.find { |s| s.send_window.positive? }
        @sending.delete(stream)
        size = [stream.remaining, stream.send_window, @send_window, @peer_max_frame_size].min
        last = stream.remaining == size
        if stream.body_offset
          return unless send_file_data(stream, size, last)
        else
          chunk = stream.body.read(size, @chunk)
          # the file shrank under us: nothing honest can follow the content-length already sent
          return reset_stream(stream, :INTERNAL_ERROR) if chunk.nil? || chunk.bytesize != size

          @writer.write_data(last ? Frame::END_STREAM : 0, stream.id, chunk)
        end
        stream.remaining -= size
        stream.send_window -= size
        @send_window -= size
        if last
          stream.body.close
          stream.body = nil
          stream.send_end_stream
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

        stream.body_offset = offset + size
        true
      end

      def forget(stream)
        @streams.delete(stream.id)
        @sending.delete(stream)
      end

      def reset_stream(stream_or_id, code)
        id = stream_or_id.is_a?(Stream) ? stream_or_id.id : stream_or_id
        @writer.write_frame(Frame::RST_STREAM, 0, id, [ERROR_CODES.fetch(code)].pack("N"))
        stream = @streams[id]
        return unless stream

        stream.reset
        forget(stream)
      end

      def goaway(code_number, message)
        debug = message.to_s.b.byteslice(0, 256)
        @writer.write_frame(Frame::GOAWAY, 0, 0, [@last_stream_id, code_number].pack("NN") + debug)
      rescue IOError, SystemCallError
        nil
      end

      def receive(frame)
        if @continuation && frame.type != Frame::CONTINUATION
          raise ConnectionError, "#{frame.type_name} frame while a header block on stream #{@continuation.id} awaits CONTINUATION"
        end

        case frame.type
        when Frame::DATA then receive_data(frame)
        when Frame::HEADERS then receive_headers(frame)
        when Frame::PRIORITY then receive_priority(frame)
        when Frame::RST_STREAM then receive_rst_stream(frame)
        when Frame::SETTINGS then receive_settings(frame)
        when Frame::PUSH_PROMISE then raise ConnectionError, "PUSH_PROMISE from a client"
        when Frame::PING then receive_ping(frame)
        when Frame::GOAWAY then receive_goaway(frame)
        when Frame::WINDOW_UPDATE then receive_window_update(frame)
        when Frame::CONTINUATION then receive_continuation(frame)
          # Frames of unknown types are ignored (section 4.1).
        end
      rescue StreamError => e
        reset_stream(e.stream_id, e.code)
      end

      def connection_frame!(frame)
        raise ConnectionError, "#{frame.type_name} frame on stream #{frame.stream_id}: it belongs to stream 0" unless frame.stream_id.zero?
      end

      def stream_frame!(frame)
        raise ConnectionError, "#{frame.type_name} frame on stream 0" if frame.stream_id.zero?
      end

      # The stream a frame names: an open one, or a Stream in the state its
      # id implies (idle above the last id, closed at or below it).
      def stream_for(id)
        @streams[id] || begin
          stream = Stream.new(id, @peer_initial_window)
          stream.reset if id <= @last_stream_id # closed and forgotten
          stream
        end
      end

      def receive_data(frame)
        stream_frame!(frame)
        length = frame.length
        if length > @receive_window
          raise ConnectionError.new("DATA of #{length} bytes above the connection window (#{@receive_window})", code: :FLOW_CONTROL_ERROR)
        end

        @receive_window -= length
        replenish
        frame.content # checks the padding
        stream = stream_for(frame.stream_id)
        end_stream = frame.flag?(Frame::END_STREAM)
        stream.receive_data(end_stream)
        deliver_body(stream, frame.content.to_s, end_stream, length)
      end

      # A handler with +receive_body(connection, stream, bytes, end_stream)+
      # gets the request body (else it is dropped) and the stream's window is
      # given back as it arrives: the handler bounds what it keeps.
      def deliver_body(stream, bytes, end_stream, length)
        return unless @handler.respond_to?(:receive_body)

        @writer.write_frame(Frame::WINDOW_UPDATE, 0, stream.id, [length].pack("N")) if length.positive? && !end_stream
        @handler.receive_body(self, stream, bytes, end_stream)
      end

      def replenish
        return if @receive_window > RECEIVE_WINDOW / 2

        increment = RECEIVE_WINDOW - @receive_window
        @receive_window = RECEIVE_WINDOW
        @writer.write_frame(Frame::WINDOW_UPDATE, 0, 0, [increment].pack("N"))
      end

      def receive_headers(frame)
        stream_frame!(frame)
        id = frame.stream_id
        raise ConnectionError, "HEADERS on stream #{id}: a client opens odd-numbered streams" if id.even?

        priority = frame.flag?(Frame::PRIORITY_FLAG)
        block = frame.content(priority ? 5 : 0)
        if priority
          offset = frame.flag?(Frame::PADDED) ? 1 : 0
          dependency = frame.payload.get_u32(offset) & 0x7fff_ffff
          raise StreamError.new("stream #{id} depends on itself", stream_id: id) if dependency == id
        end
        stream = @streams[id]
        if stream.nil?
          if id <= @last_stream_id
            raise ConnectionError.new("HEADERS on closed stream #{id}", code: :STREAM_CLOSED)
          end

          @last_stream_id = id
          stream = Stream.new(id, @peer_initial_window)
          if @streams.size >= MAX_CONCURRENT_STREAMS
            decode_headers(block.to_s) if frame.flag?(Frame::END_HEADERS) # keep the HPACK state in step
            raise StreamError.new("more than #{MAX_CONCURRENT_STREAMS} concurrent streams", stream_id: id, code: :REFUSED_STREAM)
          end

          @streams[id] = stream
        end
        stream.receive_headers(frame.flag?(Frame::END_STREAM))
        stream.header_block = block.to_s.dup
        if frame.flag?(Frame::END_HEADERS)
          headers_complete(stream)
        else
          @continuation = stream
        end
      end

      def receive_continuation(frame)
        stream = @continuation
        unless stream && frame.stream_id == stream.id
          raise ConnectionError, "CONTINUATION on stream #{frame.stream_id} without a HEADERS frame before it"
        end

        stream.header_block << frame.payload.to_s
        return unless frame.flag?(Frame::END_HEADERS)

        @continuation = nil
        headers_complete(stream)
      end

      def decode_headers(block)
        @decoder.decode(block)
      rescue CompressionError
        raise
      end

      def headers_complete(stream)
        headers = decode_headers(stream.header_block)
        stream.header_block = nil
        if stream.headers # trailers: the request ends with them
          deliver_body(stream, "", true, 0)
          return
        end

        check_request(stream, headers)
        stream.headers = headers
        @handler.call(self, stream)
      end

      # Section 8.3: the pseudo-headers a request needs, lower-case names.
      def check_request(stream, headers)
        seen_regular = false
        pseudo = {}
        headers.each do |name, _value|
          if name.start_with?(":")
            raise StreamError.new("pseudo-header #{name} after a regular header", stream_id: stream.id) if seen_regular
            raise StreamError.new("pseudo-header #{name} twice", stream_id: stream.id) if pseudo[name]

            pseudo[name] = true
          else
            seen_regular = true
            if name.match?(/[A-Z]/) || %w[connection keep-alive proxy-connection transfer-encoding upgrade].include?(name)
              raise StreamError.new("header #{name.inspect} is not allowed in HTTP/2", stream_id: stream.id)
            end
          end
        end
        return if pseudo[":method"] && (pseudo[":path"] || headers.any? { |n, v| n == ":method" && v == "CONNECT" })

        raise StreamError.new("a request without :method or :path", stream_id: stream.id)
      end

      def receive_priority(frame)
        stream_frame!(frame)
        unless frame.length == 5
          raise StreamError.new("PRIORITY frame of #{frame.length} bytes", stream_id: frame.stream_id, code: :FRAME_SIZE_ERROR)
        end
        return unless (frame.payload.get_u32(0) & 0x7fff_ffff) == frame.stream_id

        raise StreamError.new("stream #{frame.stream_id} depends on itself", stream_id: frame.stream_id)
      end

      def receive_rst_stream(frame)
        stream_frame!(frame)
        raise ConnectionError.new("RST_STREAM frame of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless frame.length == 4
        raise ConnectionError, "RST_STREAM on idle stream #{frame.stream_id}" if frame.stream_id > @last_stream_id

        stream = @streams[frame.stream_id]
        return unless stream

        stream.reset
        forget(stream)
      end

      def receive_settings(frame)
        connection_frame!(frame)
        if frame.flag?(Frame::ACK)
          raise ConnectionError.new("SETTINGS ACK with a payload", code: :FRAME_SIZE_ERROR) unless frame.length.zero?

          return
        end
        raise ConnectionError.new("SETTINGS of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless (frame.length % 6).zero?

        payload = frame.payload
        (frame.length / 6).times do |i|
          id = payload.get_u16(i * 6)
          value = payload.get_u32(i * 6 + 2)
          apply_setting(id, value)
        end
        @writer.write_frame(Frame::SETTINGS, Frame::ACK, 0)
      end

      def apply_setting(id, value)
        case id
        when Frame::SETTINGS_HEADER_TABLE_SIZE
          @encoder.max_table_size = [value, 4096].min
        when Frame::SETTINGS_ENABLE_PUSH
          raise ConnectionError, "SETTINGS_ENABLE_PUSH of #{value}" if value > 1
        when Frame::SETTINGS_INITIAL_WINDOW_SIZE
          raise ConnectionError.new("SETTINGS_INITIAL_WINDOW_SIZE of #{value}", code: :FLOW_CONTROL_ERROR) if value > Frame::MAX_WINDOW

          delta = value - @peer_initial_window
          @peer_initial_window = value
          @streams.each_value do |stream|
            stream.send_window += delta
            if stream.send_window > Frame::MAX_WINDOW
              raise ConnectionError.new("SETTINGS_INITIAL_WINDOW_SIZE overflows stream #{stream.id}'s window", code: :FLOW_CONTROL_ERROR)
            end
          end
        when Frame::SETTINGS_MAX_FRAME_SIZE
          unless value.between?(Frame::DEFAULT_MAX_FRAME_SIZE, Frame::MAX_FRAME_SIZE_LIMIT)
            raise ConnectionError, "SETTINGS_MAX_FRAME_SIZE of #{value}"
          end

          @peer_max_frame_size = value
        end
      end

      def receive_ping(frame)
        connection_frame!(frame)
        raise ConnectionError.new("PING of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless frame.length == 8
        return if frame.flag?(Frame::ACK)

        @writer.write_frame(Frame::PING, Frame::ACK, 0, frame.payload.to_s)
      end

      def receive_goaway(frame)
        connection_frame!(frame)
        raise ConnectionError.new("GOAWAY of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) if frame.length < 8

        @goaway = true
      end

      def receive_window_update(frame)
        raise ConnectionError.new("WINDOW_UPDATE of #{frame.length} bytes", code: :FRAME_SIZE_ERROR) unless frame.length == 4

        increment = frame.payload.get_u32(0) & 0x7fff_ffff
        id = frame.stream_id
        if id.zero?
          raise ConnectionError, "WINDOW_UPDATE of 0 on the connection" if increment.zero?

          @send_window += increment
          raise ConnectionError.new("the connection window overflows (#{@send_window})", code: :FLOW_CONTROL_ERROR) if @send_window > Frame::MAX_WINDOW

          return
        end
        raise ConnectionError, "WINDOW_UPDATE on idle stream #{id}" if id > @last_stream_id

        stream = @streams[id]
        return unless stream # closed: ignored

        raise StreamError.new("WINDOW_UPDATE of 0 on stream #{id}", stream_id: id) if increment.zero?

        stream.send_window += increment
        return unless stream.send_window > Frame::MAX_WINDOW

        raise StreamError.new("stream #{id}'s window overflows (#{stream.send_window})", stream_id: id, code: :FLOW_CONTROL_ERROR)
      end
    end
  end
end
