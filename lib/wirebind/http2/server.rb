# frozen_string_literal: true

require "socket"
require "timeout"
require_relative "../../wirebind"
require_relative "../http2"
require_relative "server/rack_call"
require_relative "server/h2_handler"
require_relative "server/http1"

module Wirebind
  module HTTP2
    # A Rack 3 server on {Connection}: HTTP/2 with prior knowledge (h2c),
    # HTTP/2 over TLS chosen by ALPN (+h2+, else +http/1.1+) and HTTP/1.1 on
    # the same port (the first bytes tell the HTTP/2 preface from a request
    # line; HTTP/1.1 is parsed by the llhttp-ffi gem).
    #
    # Concurrency: one thread per connection, and the Rack application is
    # called in that thread, so the streams of one HTTP/2 connection are
    # answered one after the other and at most +threads+ connections are
    # served at once (further ones wait in the kernel's accept queue).
    # Request bodies are read whole before the application is called (up to
    # +max_body+ bytes). Response bodies are sent as they are produced
    # (+each+ and +call(stream)+, held back while the peer does not read),
    # Arrays whole, +to_path+ bodies copied from the file by the kernel.
    #
    # @example
    #   server = Wirebind::HTTP2::Server.new(app, port: 9292)
    #   server.run # until #stop, INT or TERM
    class Server
      # The server cannot start as asked (a TLS file that cannot be read, a missing gem).
      class Error < Wirebind::Error; end

      # The options {#initialize} takes when not given: address, port, worker threads,
      # seconds to finish requests in flight on stop, and the largest request body in bytes.
      DEFAULTS = { bind: "127.0.0.1", port: 9292, threads: 64, drain_timeout: 10, max_body: 64 * 1024 * 1024 }.freeze
      # Accept failing for lack of descriptors: wait this long (doubling up to the max) and try again.
      ACCEPT_BACKOFF = 0.01
      ACCEPT_BACKOFF_MAX = 1.0
      private_constant :ACCEPT_BACKOFF, :ACCEPT_BACKOFF_MAX
      # Seconds a new connection may stay silent before its first byte (or
      # +idle_timeout+ if shorter): it holds one of the +threads+ meanwhile.
      FIRST_BYTE_TIMEOUT = 10

      # @return [Integer] the port bound (useful with port: 0)
      attr_reader :port

      # @param app [#call] a Rack application
      # @param bind [String] address to listen on
      # @param port [Integer] 0 picks a free port
      # @param tls_cert [String, nil] PEM certificate chain file: TLS with ALPN
      # @param tls_key [String, nil] PEM private key file
      # @param threads [Integer] connections served at once
      # @param drain_timeout [Numeric] seconds {#stop} waits for requests in flight
      # @param max_body [Integer] bytes of request body accepted
      # @param log [IO] where errors of the application are written
      # @param header_timeout [Numeric] seconds a request head (an HTTP/2 header
      #   block, an HTTP/1.1 request line and fields) may take from its first
      #   byte: a slowloris is cut (HTTP/2 GOAWAY ENHANCE_YOUR_CALM, HTTP/1.1 408)
      # @param write_timeout [Numeric] seconds one write to a client may stay
      #   blocked (a client that stops reading) before its connection is closed
      # @param idle_timeout [Numeric] seconds a connection may stay silent with
      #   nothing to send before it is closed (HTTP/2: GOAWAY NO_ERROR first);
      #   a client silent from the start is let go after at most {FIRST_BYTE_TIMEOUT}
      # @raise [Error] a timeout or +threads+ that is not a positive number, TLS half configured
      def initialize(app, bind: DEFAULTS[:bind], port: DEFAULTS[:port], tls_cert: nil, tls_key: nil,
                     threads: DEFAULTS[:threads], drain_timeout: DEFAULTS[:drain_timeout],
                     max_body: DEFAULTS[:max_body], log: $stderr, header_timeout: Connection::HEADER_TIMEOUT,
                     write_timeout: Connection::WRITE_TIMEOUT, idle_timeout: Connection::IDLE_TIMEOUT)
        raise Error, "--threads must be at least 1 (got #{threads})" unless threads.is_a?(Integer) && threads.positive?
        raise Error, "TLS needs both a certificate and a key" if tls_cert.nil? != tls_key.nil?

        @timeouts = { header_timeout: header_timeout, write_timeout: write_timeout, idle_timeout: idle_timeout }
        @timeouts.each do |name, seconds|
          raise Error, "--#{name.to_s.tr('_', '-')} must be a number of seconds above 0 (got #{seconds.inspect})" unless seconds.is_a?(Numeric) && seconds.positive?
        end

        @rack = RackCall.new(app, max_body: max_body, log: log)
        @tls = tls_cert && tls_context(tls_cert, tls_key)
        @threads = threads
        @drain_timeout = drain_timeout
        @listener = TCPServer.new(bind, port)
        @bind = bind
        @port = @listener.local_address.ip_port
        @connections = {}
        @lock = Mutex.new
        @slot_free = ConditionVariable.new
        @wake, @waker = IO.pipe
        @stopping = false
      end

      # @return [String] the URL it serves, e.g. "https://127.0.0.1:9292"
      def url
        "#{@tls ? 'https' : 'http'}://#{@bind.include?(':') ? "[#{@bind}]" : @bind}:#{@port}"
      end

      # Accepts and serves connections until {#stop} (or INT/TERM when
      # +trap+ is true), then waits for requests in flight.
      # @param trap [Boolean] stop on INT and TERM
      # @return [void]
      def run(trap: false)
        %w[INT TERM].each { |signal| Signal.trap(signal) { stop } } if trap
        accept_loop
        drain
      ensure
        @listener.close unless @listener.closed?
      end

      # Stops accepting; {#run} then gives the requests in flight up to
      # +drain_timeout+ seconds, closes the connections and returns. Safe
      # from a signal handler.
      # @return [void]
      def stop
        @stopping = true
        @waker.write_nonblock(".", exception: false)
      end

      private

      def tls_context(cert_file, key_file)
        require "openssl"
        context = OpenSSL::SSL::SSLContext.new
        context.min_version = OpenSSL::SSL::TLS1_2_VERSION
        context.add_certificate(OpenSSL::X509::Certificate.new(File.read(cert_file)), OpenSSL::PKey.read(File.read(key_file)))
        context.alpn_protocols = %w[h2 http/1.1]
        context.alpn_select_cb = ->(offered) { offered.include?("h2") ? "h2" : "http/1.1" }
        context
      rescue OpenSSL::OpenSSLError, SystemCallError => e
        raise Error, "cannot use #{cert_file} / #{key_file} for TLS: #{e.message}"
      end

      def accept_loop
        @backoff = ACCEPT_BACKOFF
        until @stopping
          wait_for_slot
          break if @stopping

          ready, = IO.select([@listener, @wake])
          break if ready.include?(@wake)

          accept_one
        end
      end

      def accept_one
        socket = @listener.accept_nonblock(exception: false)
        return if socket == :wait_readable

        @backoff = ACCEPT_BACKOFF
        start_connection(socket)
      rescue Errno::EMFILE, Errno::ENFILE, Errno::ENOBUFS, Errno::ENOMEM => e
        # out of descriptors: keep serving the connections we have, try again later
        @rack.log_error("accept", e) if @backoff == ACCEPT_BACKOFF
        @wake.wait_readable(@backoff)
        @backoff = [@backoff * 2, ACCEPT_BACKOFF_MAX].min
      rescue Errno::ECONNABORTED, Errno::EPROTO
        nil
      end

      def wait_for_slot
        @lock.synchronize do
          @slot_free.wait(@lock, 0.5) while @connections.size >= @threads && !@stopping
        end
      end

      def start_connection(socket)
        thread = Thread.new(socket) { |client| serve(client) }
        @lock.synchronize { @connections[thread] = socket }
      end

      def serve(socket)
        socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
        remote = socket.remote_address
        io, secure, protocol = handshake(socket)
        return unless io

        if protocol == :h2
          handler = H2Handler.new(@rack, secure: secure, remote: remote)
          Connection.new(io, handler, stopping: -> { @stopping }, **@timeouts).run
        else
          HTTP1.new(io, @rack, secure: secure, remote: remote, stopping: -> { @stopping }, **@timeouts).run
        end
      rescue StandardError => e
        @rack.log_error("connection failed", e) unless peer_left?(e)
      ensure
        io.close if io && !io.closed?
        socket.close unless socket.closed?
        @lock.synchronize do
          @connections.delete(Thread.current)
          @slot_free.signal
        end
      end

      # A peer that leaves (reset, broken pipe, gone before we looked, TLS cut short) is no error of ours.
      def peer_left?(error)
        error.is_a?(Errno::ECONNRESET) || error.is_a?(Errno::EPIPE) || error.is_a?(Errno::ENOTCONN) ||
          (defined?(OpenSSL::SSL::SSLError) && error.is_a?(OpenSSL::SSL::SSLError))
      end

      # @return [Array(IO, Boolean, Symbol)] what to read from, TLS or not, :h2 or :http1
      def handshake(socket)
        return [socket, false, sniff(socket)] unless @tls

        ssl = OpenSSL::SSL::SSLSocket.new(socket, @tls)
        ssl.sync_close = true
        Timeout.timeout(10) { ssl.accept }
        [ssl, true, ssl.alpn_protocol == "h2" ? :h2 : :http1]
      rescue OpenSSL::SSL::SSLError, Timeout::Error
        nil
      end

      # Peeks (without reading) until the bytes are the HTTP/2 preface or cannot be.
      # A partial preface must be complete within the header timeout of its first byte.
      def sniff(socket)
        preface = Connection::PREFACE
        deadline = nil
        loop do
          return nil unless socket.wait_readable([FIRST_BYTE_TIMEOUT, @timeouts[:idle_timeout]].min)

          seen = socket.recv(preface.bytesize, Socket::MSG_PEEK)
          return nil if seen.empty?
          return :http1 unless preface.start_with?(seen)
          return :h2 if seen.bytesize == preface.bytesize

          now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          deadline ||= now + @timeouts[:header_timeout]
          return nil if now >= deadline

          sleep 0.001 # a partial preface: wait for the rest
        end
      end

      def drain
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + @drain_timeout
        loop do
          threads = @lock.synchronize { @connections.keys }
          break if threads.empty?

          left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          if left <= 0
            # time is up: the connections still open are closed under their threads
            @lock.synchronize { @connections.each_value { |socket| socket.close unless socket.closed? } }
            threads.each { |thread| thread.join(1) }
            break
          end
          threads.first.join([left, 0.1].min)
        end
      end
    end
  end
end
