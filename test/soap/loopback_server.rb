# frozen_string_literal: true

require "socket"
require "zlib"
require "openssl"

# A small HTTP/1.1 server on 127.0.0.1, port 0, for the client's tests: keep-alive,
# counts connections and requests, and lets a handler answer normally
# ([status, headers, body]) or write raw bytes for fault injection (a Proc given
# the socket). Everything it starts stops in #stop.
class LoopbackServer
  Request = Struct.new(:verb, :path, :headers, :body, keyword_init: true)

  attr_reader :port, :requests

  def initialize(handler, ssl: nil)
    @handler = handler
    @tcp = TCPServer.new("127.0.0.1", 0)
    @port = @tcp.addr[1]
    @server = ssl ? OpenSSL::SSL::SSLServer.new(@tcp, ssl).tap { |s| s.start_immediately = false } : @tcp
    @ssl = ssl
    @threads = []
    @sockets = []
    @requests = Queue.new
    @connections = 0
    @lock = Mutex.new
    @acceptor = Thread.new { accept_loop }
  end

  def url(path = "/soap")
    "#{@ssl ? 'https' : 'http'}://127.0.0.1:#{@port}#{path}"
  end

  def connections
    @lock.synchronize { @connections }
  end

  def stop
    @tcp.close unless @tcp.closed?
    @acceptor.kill
    @acceptor.join(2)
    @lock.synchronize { @sockets.dup }.each { |s| s.close unless s.closed? }
    @threads.each { |t| t.kill.join(2) }
  end

  def self.open(handler, **options)
    server = new(handler, **options)
    yield server
  ensure
    server&.stop
  end

  private

  def accept_loop
    loop do
      socket = @server.accept
      (socket.respond_to?(:to_io) ? socket.to_io : socket).setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
      @lock.synchronize do
        @connections += 1
        @sockets << socket
      end
      @threads << Thread.new(socket) do |s|
        s.accept if @ssl # the handshake, in the connection's thread
        serve(s)
      rescue OpenSSL::SSL::SSLError, IOError, SystemCallError
        s.close
      end
    end
  rescue IOError, SystemCallError
    nil
  end

  def serve(socket)
    loop do
      request = read_request(socket) or break
      @requests << request
      answer = @handler.call(request)
      if answer.is_a?(Proc)
        answer.call(socket)
        break if socket.closed?
      else
        write_response(socket, *answer)
      end
    end
  rescue IOError, SystemCallError
    nil
  ensure
    socket.close unless socket.closed?
  end

  def read_request(socket)
    line = socket.gets("\r\n") or return nil
    method, path, = line.split(" ")
    headers = {}
    while (header = socket.gets("\r\n")) && header != "\r\n"
      name, value = header.split(":", 2)
      headers[name.downcase] = value.strip
    end
    body = socket.read(Integer(headers.fetch("content-length", "0")))
    Request.new(verb: method, path: path, headers: headers, body: body)
  end

  def write_response(socket, status, headers, body)
    body = body.b
    headers = { "Content-Type" => "text/xml; charset=utf-8" }.merge(headers)
    head = +"HTTP/1.1 #{status} X\r\n"
    headers.each { |k, v| head << "#{k}: #{v}\r\n" }
    if headers["Transfer-Encoding"] == "chunked"
      socket.write(head << "\r\n")
      body.bytes.each_slice(1000) { |slice| socket.write("#{slice.size.to_s(16)}\r\n#{slice.pack('C*')}\r\n") }
      socket.write("0\r\n\r\n")
    else
      socket.write(head << "Content-Length: #{body.bytesize}\r\n\r\n" << body)
    end
  end
end
