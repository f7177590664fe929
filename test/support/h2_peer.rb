# frozen_string_literal: true

require "socket"
require "stringio"
require "timeout"
require "wirebind/http2"

# A Wirebind::HTTP2::Connection served in a thread over a socket pair, and a
# raw-frame client for it: for tests that break the protocol on purpose.
# The handler answers 200 with the request's :path as the body, except for
# paths starting with /hold, which it never answers (their streams stay open).
class H2Peer
  Frame = Wirebind::HTTP2::Frame
  PREFACE = Wirebind::HTTP2::Connection::PREFACE

  # Requests RFC 9113 section 8 calls malformed: label => header list
  MALFORMED = {
    "CR in a value" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["x-a", "a\rb"]],
    "LF in a value" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["x-a", "a\nb"]],
    "NUL in a value" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["x-a", "a\0b"]],
    "an upper-case name" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["X-A", "1"]],
    "a space in a name" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["x a", "1"]],
    "a colon in a name" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["x:a", "1"]],
    "an empty name" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["", "1"]],
    "connection" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["connection", "close"]],
    "transfer-encoding" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["transfer-encoding", "chunked"]],
    "te: gzip" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], %w[te gzip]],
    "an unknown pseudo-header" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":foo", "1"]],
    "a response pseudo-header" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":status", "200"]],
    "a pseudo-header after a regular one" => [[":method", "GET"], [":scheme", "http"], ["x-a", "1"], [":path", "/"]],
    "no :method" => [[":scheme", "http"], [":path", "/"]],
    "no :scheme" => [[":method", "GET"], [":path", "/"]],
    "no :path" => [[":method", "GET"], [":scheme", "http"]],
    "an empty :path" => [[":method", "GET"], [":scheme", "http"], [":path", ""]],
    "two :method" => [[":method", "GET"], [":method", "GET"], [":scheme", "http"], [":path", "/"]],
    "two :path" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":path", "/"]],
    "content-length on a request without a body" => [[":method", "GET"], [":scheme", "http"], [":path", "/"], ["content-length", "3"]],
    "a content-length that is not a number" => [[":method", "POST"], [":scheme", "http"], [":path", "/"], ["content-length", "-1"]]
  }.freeze

  # The handler: echoes :path; /hold is left unanswered, /raise raises.
  class EchoHandler
    attr_reader :requests

    def initialize
      @requests = Queue.new
    end

    def call(connection, stream)
      path = stream.headers.find { |name, _| name == ":path" }&.last.to_s
      @requests << [stream.id, stream.headers]
      return if path.start_with?("/hold")
      raise ArgumentError, "the handler fails" if path == "/raise"

      connection.respond(stream, 200, [["content-length", path.bytesize.to_s]], body: StringIO.new(path), length: path.bytesize)
    end
  end

  attr_reader :response_headers, :socket, :writer, :encoder, :handler, :result, :thread

  # @param preface [Boolean] send the preface and an empty SETTINGS
  # @param options [Hash] Connection.new's keyword arguments
  # @param socket [Socket, nil] a connected socket to talk over (no server thread); nil for a socket pair
  def initialize(preface: true, handler: EchoHandler.new, socket: nil, **options)
    @handler = handler
    if socket
      @socket = socket
    else
      @socket, server = UNIXSocket.pair
      @thread = Thread.new do
        Thread.current.report_on_exception = false
        @result = Wirebind::HTTP2::Connection.new(server, handler, **options).run
      ensure
        server.close
      end
    end
    @writer = Wirebind::HTTP2::Writer.new(@socket)
    @reader = Wirebind::HTTP2::Reader.new(@socket, max_frame_size: Frame::MAX_FRAME_SIZE_LIMIT)
    @encoder = Wirebind::HTTP2::HPACK::Encoder.new
    @decoder = Wirebind::HTTP2::HPACK::Decoder.new
    @response_headers = {}
    return unless preface

    @socket.write(PREFACE)
    @writer.write_frame(Frame::SETTINGS, 0, 0)
  end

  def close
    @socket.close unless @socket.closed?
    @thread.nil? || @thread.join(10) || raise("the connection's thread did not end")
  end

  # A TCP server on 127.0.0.1 serving each connection with EchoHandler in a
  # thread of its own; stopped (threads joined) by the block's end.
  # @yieldparam port [Integer]
  def self.tcp_server(**options)
    server = TCPServer.new("127.0.0.1", 0)
    threads = []
    acceptor = Thread.new do
      loop do
        client = server.accept
        threads << Thread.new(client) do |socket|
          Wirebind::HTTP2::Connection.new(socket, EchoHandler.new, **options).run
        rescue StandardError
          nil
        ensure
          socket.close
        end
      end
    rescue IOError
      nil
    end
    yield server.local_address.ip_port
  ensure
    acceptor&.kill&.join
    server&.close
    threads&.each { |thread| thread.join(5) || thread.kill.join }
  end

  def block(path, extra = [], method: "GET")
    @encoder.encode([[":method", method], [":scheme", "http"], [":path", path], [":authority", "x"], *extra])
  end

  def frame(type, flags, stream_id, payload = nil)
    @writer.write_frame(type, flags, stream_id, payload)
  end

  # HEADERS with END_HEADERS (and END_STREAM unless body)
  # (the block cut into HEADERS and CONTINUATION frames of 16 KiB)
  def request(stream_id, path, extra = [], body: false)
    whole = block(path, extra)
    pieces = (0...whole.bytesize).step(16_384).map { |at| whole.byteslice(at, 16_384) }
    pieces.each_with_index do |piece, i|
      flags = i == pieces.size - 1 ? Frame::END_HEADERS : 0
      if i.zero?
        frame(Frame::HEADERS, flags | (body ? 0 : Frame::END_STREAM), stream_id, piece)
      else
        frame(Frame::CONTINUATION, flags, stream_id, piece)
      end
    end
  end

  # @return [Frame, nil] the next frame, nil at the end of the connection
  # Every HEADERS block is decoded (the HPACK state in step), into {#response_headers}.
  def read_frame(timeout = 10)
    frame = Timeout.timeout(timeout) { @reader.read_frame }
    @response_headers[frame.stream_id] = @decoder.decode(frame.payload.to_s) if frame&.type == Frame::HEADERS
    frame
  rescue Wirebind::HTTP2::ConnectionClosed, IOError, SystemCallError
    nil
  end

  # Reads frames until the stream ends, is reset, or the connection ends.
  # @return [Array] [:body, String] / [:reset, code] / [:goaway, code] / [:closed]
  def outcome(stream_id)
    body = +""
    while (frame = read_frame)
      next unless frame.stream_id == stream_id || frame.type == Frame::GOAWAY

      case frame.type
      when Frame::DATA
        body << frame.payload.to_s
        return [:body, body] if frame.flag?(Frame::END_STREAM)
      when Frame::HEADERS
        return [:body, body] if frame.flag?(Frame::END_STREAM)
      when Frame::RST_STREAM then return [:reset, code(frame.payload.get_u32(0))]
      when Frame::GOAWAY then return [:goaway, code(frame.payload.get_u32(4))]
      end
    end
    [:closed]
  end

  # @return [String, nil] the :status of the stream's response
  def response_status(stream_id)
    while (frame = read_frame)
      next unless frame.type == Frame::HEADERS && frame.stream_id == stream_id

      return @response_headers[stream_id].find { |name, _| name == ":status" }&.last
    end
    nil
  end

  # Reads until the stream is reset (the response may come first).
  # @return [Symbol, nil] RST_STREAM's code, or nil if the connection ends first
  def reset_code(stream_id)
    while (frame = read_frame)
      return code(frame.payload.get_u32(0)) if frame.type == Frame::RST_STREAM && frame.stream_id == stream_id
    end
    nil
  end

  # Reads until GOAWAY or the end. @return [Symbol, nil] GOAWAY's code
  def goaway_code
    while (frame = read_frame)
      return code(frame.payload.get_u32(4)) if frame.type == Frame::GOAWAY
    end
    nil
  end

  # The server's first SETTINGS, as { id => value }.
  def server_settings
    while (frame = read_frame)
      next unless frame.type == Frame::SETTINGS && !frame.flag?(Frame::ACK)

      return (frame.length / 6).times.to_h { |i| [frame.payload.get_u16(i * 6), frame.payload.get_u32(i * 6 + 2)] }
    end
    {}
  end

  def code(number)
    Wirebind::HTTP2::ERROR_CODES.key(number) || number
  end
end
