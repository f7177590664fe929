# frozen_string_literal: true

require "socket"
require_relative "../transport"

module Wirebind
  module SOAP
    module Transport
      # A lean HTTP/1.1 client on the standard library's sockets (+adapter: :socket+):
      # what a SOAP client needs and nothing else, for when the cost per call
      # matters (net/http spends about three times a small call's own work on
      # building and parsing its objects). The same contract as {NetHTTP}: a pool
      # of keep-alive connections shared by threads, the body handed out as it is
      # read (Content-Length, chunked, or until the server closes), gzip and
      # deflate inflated as they arrive, each request written once.
      #
      # An idle connection the server closed is noticed before the request is
      # written (it reads as ready: end of stream, or stray bytes) and replaced;
      # a write that fails on a reused connection (the server closed it as the
      # request went out, so it read nothing) is retried once on a new one.
      class Socket < Adapter
        # Bytes asked of the socket per read.
        READ_SIZE = 16 * 1024
        # The largest response head (status line and fields) read, in bytes: a larger one is a {ConnectionError}.
        HEAD_LIMIT = 64 * 1024
        # The User-Agent field sent with each request.
        USER_AGENT = "wirebind/#{Wirebind::VERSION}".freeze
        # Matches a response's status line: the HTTP minor version and the status code.
        STATUS_LINE = %r{\AHTTP/1\.([01]) (\d{3})}

        # @param (see NetHTTP#initialize)
        def initialize(uri, open_timeout:, read_timeout:, write_timeout:, ssl: {}, pool_size: 5, deadline: nil, pool_timeout: nil,
                       proxy: nil, ntlm: nil)
          super(pool_size, deadline: deadline, pool_timeout: pool_timeout)
          @host = uri.hostname # without the brackets of an IPv6 address
          @port = uri.port
          @tls = uri.scheme == "https"
          @host_header = "#{uri.host}#{":#{uri.port}" unless uri.port == uri.default_port}"
          @proxy = proxy
          # Through a proxy, a plain-HTTP request names the whole URL (absolute
          # form, RFC 9112 §3.2.2) and carries the proxy's credentials; an https
          # one goes through a CONNECT tunnel and names only its path.
          @forward = proxy && !@tls ? "http://#{@host_header}" : nil
          @proxy_authorization = proxy&.authorization
          @ntlm = ntlm
          @open_timeout = open_timeout
          @read_timeout = read_timeout
          @write_timeout = write_timeout
          @context = tls_context(ssl) if @tls
        end

        private

        def exchange(connection, path, headers, body, deadline)
          if @ntlm && !connection.authenticated
            response = ntlm_handshake(connection, path, headers, body, deadline)
          else
            send_request(connection, path, headers, body, deadline)
            response = Response.new(connection, @read_timeout, deadline)
          end
          if @forward && response.status == 407
            raise ProxyError.new("the proxy #{@proxy} refused the request: 407 Proxy Authentication Required " \
                                 "(#{@proxy_authorization ? 'wrong' : 'no'} credentials in proxy:)", 407)
          end
          result = yield(response.status, response.headers, response)
          [result, response.finish]
        end

        def open_connection
          Connection.new(open_socket)
        end

        # NTLM's three messages on a new connection (see {NTLM}); the response
        # to the request sent with the Authenticate message (a 401 when refused).
        def ntlm_handshake(connection, path, headers, body, deadline)
          send_request(connection, path, headers.merge("Authorization" => @ntlm.negotiate), body, deadline)
          response = Response.new(connection, @read_timeout, deadline)
          challenge = response.status == 401 && @ntlm.challenge(response.headers["www-authenticate"])
          if challenge
            raise ConnectionError, "the server closed the connection in the middle of NTLM authentication" unless response.finish

            send_request(connection, path, headers.merge("Authorization" => @ntlm.authenticate(challenge)), body, deadline)
            response = Response.new(connection, @read_timeout, deadline)
          end
          connection.authenticated = response.status != 401
          response
        end

        def usable?(connection)
          connection.usable?
        end

        def close_connection(connection)
          connection.close
        end

        def send_request(connection, path, headers, body, deadline)
          head = +"POST #{@forward}#{path} HTTP/1.1\r\nHost: #{@host_header}\r\nUser-Agent: #{USER_AGENT}\r\n"
          head << "Proxy-Authorization: " << @proxy_authorization << "\r\n" if @forward && @proxy_authorization
          head << "Accept-Encoding: gzip, deflate\r\n" unless headers.any? { |name, _| name.casecmp?("accept-encoding") }
          headers.each do |name, value|
            raise ArgumentError, "HTTP header #{name.inspect} holds a line break" if line_break?(name) || line_break?(value)

            head << name << ": " << value << "\r\n"
          end
          head << "Content-Length: " << body.bytesize.to_s << "\r\n\r\n"
          begin
            write_message(connection, head, body, deadline)
          rescue ConnectionError
            raise unless connection.reused?

            # The server closed it as the request went out: it read nothing. Once more, on a new connection.
            connection.reopen(open_socket)
            write_message(connection, head, body, deadline)
          end
          connection.used!
        end

        # A small request in one write (one segment, one syscall); a large body
        # after its head, not copied behind it.
        def write_message(connection, head, body, deadline)
          if body.bytesize <= SMALL_BODY
            connection.write(head.b << body.b, @write_timeout, deadline)
          else
            connection.write(head.b, @write_timeout, deadline)
            connection.write(body, @write_timeout, deadline)
          end
        end
        SMALL_BODY = 64 * 1024

        def line_break?(text)
          text.include?("\n") || text.include?("\r")
        end

        def open_socket
          host, port = @proxy ? [@proxy.host, @proxy.port] : [@host, @port]
          what = @proxy ? "the proxy #{@proxy}" : "#{host}:#{port}"
          socket = Transport.transport_errors(nil) do
            ::Socket.tcp(host, port, connect_timeout: @open_timeout)
          rescue Errno::ETIMEDOUT
            raise TimeoutError, "opening a connection to #{what} took longer than the open_timeout (#{@open_timeout} s)"
          rescue Errno::ECONNREFUSED => e
            raise ConnectionError, "connection refused by #{what} (#{e.message})"
          end
          socket.setsockopt(::Socket::IPPROTO_TCP, ::Socket::TCP_NODELAY, 1)
          if @tls
            tunnel(socket) if @proxy
            socket = start_tls(socket)
          end
          opened
          socket
        rescue Exception # rubocop:disable Lint/RescueException
          socket.close if socket && !socket.closed?
          raise
        end

        # Asks the proxy for a tunnel to the endpoint (CONNECT, RFC 9110 §9.3.6);
        # TLS then runs through it to the endpoint, verified as without a proxy.
        def tunnel(socket)
          target = "#{@host.include?(':') ? "[#{@host}]" : @host}:#{@port}"
          head = +"CONNECT #{target} HTTP/1.1\r\nHost: #{target}\r\nUser-Agent: #{USER_AGENT}\r\n"
          head << "Proxy-Authorization: " << @proxy_authorization << "\r\n" if @proxy_authorization
          connection = Connection.new(socket)
          deadline = Transport.now + @open_timeout
          connection.write(head << "\r\n", @open_timeout, deadline)
          status = begin
            Response.new(connection, @open_timeout, deadline).status
          rescue ConnectionError => e
            raise ProxyError, "the proxy #{@proxy} did not answer CONNECT #{target} with HTTP (#{e.message})"
          end
          unless (200..299).cover?(status)
            hint = status == 407 ? " (#{@proxy_authorization ? 'wrong' : 'no'} credentials in proxy:)" : ""
            raise ProxyError.new("the proxy #{@proxy} refused CONNECT #{target}: HTTP #{status}#{hint}", status)
          end
          # The endpoint speaks first in nothing: bytes here came from the proxy.
          raise ProxyError, "the proxy #{@proxy} sent bytes after its CONNECT answer" unless connection.buffer.empty?
        end

        def tls_context(ssl)
          context = OpenSSL::SSL::SSLContext.new
          context.set_params(Transport.ssl_params(ssl))
          context
        end

        def start_tls(tcp)
          tls = OpenSSL::SSL::SSLSocket.new(tcp, @context)
          tls.sync_close = true
          tls.hostname = @host
          deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + @open_timeout
          Transport.transport_errors(nil) do
            loop do
              case tls.connect_nonblock(exception: false)
              when :wait_readable then Connection.wait(tls, :read, deadline, "the TLS handshake took longer than the open_timeout")
              when :wait_writable then Connection.wait(tls, :write, deadline, "the TLS handshake took longer than the open_timeout")
              else break
              end
            end
            tls.post_connection_check(@host) if @context.verify_mode == OpenSSL::SSL::VERIFY_PEER
          end
          tls
        rescue Exception # rubocop:disable Lint/RescueException
          tls.close
          raise
        end

        # One keep-alive connection: the socket and what was read past the
        # current response's end.
        # @api private
        class Connection
          attr_reader :socket
          attr_accessor :buffer
          # Whether NTLM authenticated this connection (its socket: a new one starts over).
          attr_accessor :authenticated

          def initialize(socket)
            @socket = socket
            @tcp = socket.is_a?(BasicSocket) # else TLS
            @buffer = +"".b
            @read_buffer = String.new(capacity: READ_SIZE, encoding: Encoding::BINARY)
            @used = false
            @authenticated = false
          end

          def reused?
            @used
          end

          # The same connection on a new socket (in the pool, it takes the old one's place).
          def reopen(socket)
            close
            @socket = socket
            @tcp = socket.is_a?(BasicSocket)
            @buffer = +"".b
            @used = false
            @authenticated = false
          end

          def used!
            @used = true
          end

          # An idle connection is usable when nothing can be read from it: a
          # closed one reads as ready (end of stream). Asked with a peek that
          # does not wait, so the thread keeps the GVL (IO#wait_readable(0)
          # gives it up, and with many threads sharing the client, getting it
          # back is what a call waits on).
          def usable?
            return false if @socket.closed? || !@buffer.empty?

            io = @tcp ? @socket : @socket.to_io
            io.recv_nonblock(1, ::Socket::MSG_PEEK, exception: false) == :wait_readable
          rescue IOError, SystemCallError
            false
          end

          def write(data, timeout, call_deadline)
            deadline, late = Transport.limit(timeout, call_deadline, "writing the request")
            Transport.transport_errors(nil) do
              until data.empty?
                written = @socket.write_nonblock(data, exception: false)
                case written
                when :wait_writable then Connection.wait(@socket, :write, deadline, late)
                when :wait_readable then Connection.wait(@socket, :read, deadline, late)
                else data = data.byteslice(written, data.bytesize - written)
                end
              end
            end
          end

          # @return [String, nil] bytes from the socket (the buffer first), nil at the end of the stream
          def read(timeout, call_deadline)
            unless @buffer.empty?
              data = @buffer
              @buffer = +"".b
              return data
            end
            # Checked before each read, data waiting or not: a server trickling
            # bytes never makes a read wait, only the deadline ends the call.
            Transport.check_deadline(call_deadline, "reading the response")
            deadline, late = Transport.limit(timeout, call_deadline, "reading the response")
            Transport.transport_errors(nil) do
              loop do
                # Into one buffer per connection (a fresh 64 KiB String per read costs
                # a large malloc each time), handed out as a copy of what was read.
                # A TCP socket is read with recv_nonblock, which keeps the GVL
                # (read_nonblock gives it up for the read, ready or not): only
                # waiting for the response lets other threads run.
                data = if @tcp
                         @socket.recv_nonblock(READ_SIZE, 0, @read_buffer, exception: false)
                       else
                         @socket.read_nonblock(READ_SIZE, @read_buffer, exception: false)
                       end
                case data
                when :wait_readable then Connection.wait(@socket, :read, deadline, late)
                when :wait_writable then Connection.wait(@socket, :write, deadline, late)
                when nil then return nil
                else return data.empty? ? nil : data.dup # recv's end of stream is an empty String
                end
              end
            end
          end

          def close
            @socket.close unless @socket.closed?
          rescue IOError, SystemCallError, OpenSSL::SSL::SSLError
            nil
          end

          # Waits for the socket, or raises TimeoutError saying +late+ at the deadline.
          def self.wait(socket, direction, deadline, late)
            left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
            io = socket.respond_to?(:to_io) ? socket.to_io : socket
            ready = left.positive? && (direction == :read ? io.wait_readable(left) : io.wait_writable(left))
            raise TimeoutError, late unless ready
          end
        end

        # A response: its head parsed, its body handed out by #read as it comes.
        # @api private
        class Response
          attr_reader :status, :headers

          def initialize(connection, timeout, deadline)
            @connection = connection
            @timeout = timeout
            @deadline = deadline
            @done = false
            read_head
            @inflater = inflater(@headers["content-encoding"])
            @done = true if @length&.zero? || @status == 204 || @status == 304 || (100..199).cover?(@status)
          end

          # @return [String, nil] the next piece of the body, inflated; nil at its end
          def read(_size = nil)
            loop do
              return nil if @done

              data = next_piece
              if data.nil?
                @done = true
                finish_inflater
                tail = @tail
                @tail = nil
                return tail unless tail.nil? || tail.empty?

                return nil
              end
              data = inflate(data) if @inflater
              return data unless data.empty?
            end
          end

          include Drain

          # Reads what is left of the body (at most DRAIN_LIMIT bytes).
          # @return [Boolean] whether the connection can carry another request
          # Bytes read past the body's end (a response to no request, or junk)
          # would become the next call's answer: such a connection is closed.
          def finish
            drain && @keep_alive && @connection.buffer.empty?
          end

          private

          # Reads heads until the final one: 1xx interim responses (100
          # Continue, 103 Early Hints) are skipped, at most INTERIM_LIMIT of them.
          def read_head
            INTERIM_LIMIT.times do
              read_one_head
              return unless (100..199).cover?(@status) && @status != 101
            end
            raise ConnectionError, "more than #{INTERIM_LIMIT} interim (1xx) responses"
          end
          INTERIM_LIMIT = 8

          def read_one_head
            buffer = @connection.buffer
            @connection.buffer = +"".b
            until (ends = buffer.index("\r\n\r\n"))
              raise ConnectionError, "the response's head is larger than #{HEAD_LIMIT} bytes" if buffer.bytesize > HEAD_LIMIT

              data = @connection.read(@timeout, @deadline)
              if data.nil?
                raise ConnectionError,
                      buffer.empty? ? "the server closed the connection without answering" : "the server closed the connection in the response's head"
              end

              buffer << data
            end
            @connection.buffer = buffer.byteslice(ends + 4, buffer.bytesize - ends - 4)
            lines = buffer.byteslice(0, ends).split("\r\n")
            match = STATUS_LINE.match(lines.shift) or raise ConnectionError, "not an HTTP/1.x response: #{lines.first.inspect[0, 80]}"
            @status = match[2].to_i
            @headers = {}
            lines.each do |line|
              name, value = line.split(":", 2)
              next unless value

              name = name.strip.downcase
              value = value.strip.force_encoding(Encoding::UTF_8)
              @headers[name] = @headers.key?(name) ? "#{@headers[name]}, #{value}" : value
            end
            connection = @headers["connection"].to_s.downcase
            @keep_alive = match[1] == "1" ? !connection.include?("close") : connection.include?("keep-alive")
            if @headers["transfer-encoding"].to_s.downcase.include?("chunked")
              @chunked = true
              @chunk_left = 0
            elsif (length = @headers["content-length"])
              # Decimal digits only (Integer() takes "-5" and "0xb4"); repeated copies must agree.
              lengths = length.split(",").map(&:strip).uniq
              raise ConnectionError, "a bad Content-Length: #{length.inspect[0, 80]}" unless lengths.size == 1 && lengths[0].match?(/\A\d{1,18}\z/)

              @length = lengths[0].to_i
            else
              @keep_alive = false # the body ends when the server closes
            end
          end

          def next_piece
            if @chunked
              next_chunk
            elsif @length
              return nil if @length.zero?

              data = @connection.read(@timeout, @deadline) or raise ConnectionError, "the server closed the connection #{@length} bytes before the body's end"
              data = take(data, @length)
              @length -= data.bytesize
              data
            else
              @connection.read(@timeout, @deadline)
            end
          end

          # The first limit bytes of data; what was read past them (the next
          # chunk's size line, or the next response) goes back to the connection.
          def take(data, limit)
            return data if data.bytesize <= limit

            @connection.buffer = data.byteslice(limit, data.bytesize - limit)
            data.byteslice(0, limit)
          end

          def next_chunk
            if @chunk_left.zero?
              line = read_line
              size = line[/\A([0-9a-fA-F]{1,15})[ \t]*(?:;|\z)/, 1] or raise ConnectionError, "a bad chunk size line: #{line.inspect[0, 80]}"
              @chunk_left = size.to_i(16)
              if @chunk_left.zero?
                nil until read_line.empty? # trailers, up to the empty line
                return nil
              end
            end
            data = @connection.read(@timeout, @deadline) or raise ConnectionError, "the server closed the connection inside a chunk"
            data = take(data, @chunk_left)
            @chunk_left -= data.bytesize
            expect_crlf if @chunk_left.zero?
            data
          end

          def expect_crlf
            line = read_line
            raise ConnectionError, "a chunk does not end with CRLF" unless line.empty?
          end

          def read_line
            buffer = +"".b
            until (ends = buffer.index("\r\n"))
              raise ConnectionError, "a chunk line is too long" if buffer.bytesize > 4096

              data = @connection.read(@timeout, @deadline) or raise ConnectionError, "the server closed the connection inside a chunked body"
              buffer << data
            end
            @connection.buffer = buffer.byteslice(ends + 2, buffer.bytesize - ends - 2) + @connection.buffer
            buffer.byteslice(0, ends)
          end

          def inflater(encoding)
            case encoding.to_s.downcase.strip
            when "", "identity" then nil
            when "gzip", "x-gzip" then Zlib::Inflate.new(Zlib::MAX_WBITS + 32)
            when "deflate" then :deflate # zlib-wrapped or raw: told by the first bytes
            else raise ConnectionError, "the response is encoded as #{encoding.inspect}, which was not asked for"
            end
          end

          def inflate(data)
            if @inflater == :deflate
              # A zlib header's first byte is 0x?8 with (b0 * 256 + b1) % 31 == 0.
              zlib = data.bytesize >= 2 && (data.getbyte(0) & 0x0f) == 8 && (((data.getbyte(0) << 8) | data.getbyte(1)) % 31).zero?
              @inflater = Zlib::Inflate.new(zlib ? Zlib::MAX_WBITS : -Zlib::MAX_WBITS)
            end
            Transport.transport_errors(nil) { @inflater.inflate(data) }
          end

          def finish_inflater
            return unless @inflater.is_a?(Zlib::Inflate)

            @tail = Transport.transport_errors(nil) { @inflater.finish }
            raise ConnectionError, "the compressed body ended early" unless @inflater.finished?
          ensure
            @inflater.close if @inflater.is_a?(Zlib::Inflate) && !@inflater.closed?
          end
        end
        private_constant :Connection, :Response
      end
    end
  end
end
