# frozen_string_literal: true

require_relative "../transport"

module Wirebind
  module SOAP
    module Transport
      # The default adapter, on net/http (the standard library): persistent
      # HTTP/1.1 connections in a pool of at most +pool_size+ shared by threads
      # (a thread waits for a free one), the body streamed from the socket
      # through a Fiber, gzip and deflate asked for and inflated in the stream.
      #
      # A connection the server closed while it sat idle is noticed before the
      # request is written and reopened (net/http checks), so the request is sent
      # once; a request that failed after it was written is never sent again.
      class NetHTTP < Adapter
        # @param uri [URI::HTTP] the endpoint
        # @param open_timeout [Numeric]
        # @param read_timeout [Numeric]
        # @param write_timeout [Numeric]
        # @param ssl [Hash] see {Client#initialize}: +verify:+ (default true), whom to trust
        #   (+ca_file:+, +ca_path:+, +cert_store:+), a client certificate (+cert:+ and +key:+
        #   with +key_password:+, or +pkcs12:+ with +pkcs12_password:+)
        # @param pool_size [Integer] most connections open at once
        # @param deadline [Numeric, nil] seconds a whole exchange may take (nil: no limit)
        # @param pool_timeout [Numeric, nil] seconds to wait for a free connection (nil: no limit)
        # @param proxy [Proxy, nil] the HTTP proxy to go through (the client's +proxy:+, resolved)
        # @param ntlm [NTLM, nil] NTLM credentials (the client's +ntlm_auth:+): each pooled
        #   connection authenticated once, on its first request
        def initialize(uri, open_timeout:, read_timeout:, write_timeout:, ssl: {}, pool_size: 5, deadline: nil, pool_timeout: nil,
                       proxy: nil, ntlm: nil)
          super(pool_size, deadline: deadline, pool_timeout: pool_timeout)
          @uri = uri
          @proxy = proxy
          @ntlm = ntlm
          # Each connection NTLM authenticated, with the socket it was on: net/http
          # opens a new socket on its own when the server closed the old one,
          # and the new one must authenticate again.
          @ntlm_sockets = {}.compare_by_identity
          @ntlm_lock = Mutex.new
          @timeouts = [open_timeout, read_timeout, write_timeout]
          @ssl = Transport.ssl_params(ssl) if uri.scheme == "https"
        end

        private

        # Runs net/http's request in a Fiber that hands out the response, then its
        # body chunk by chunk, so the decoder pulls the body from the socket.
        def exchange(http, path, headers, body, deadline)
          response, reader = @ntlm && !ntlm_authenticated?(http) ? ntlm_handshake(http, path, headers, body, deadline) : start(http, path, headers, body, deadline)
          if @proxy && response.code == "407"
            raise ProxyError.new("the proxy #{@proxy} refused the request: 407 Proxy Authentication Required " \
                                 "(#{@proxy.user ? 'wrong' : 'no'} credentials in proxy:)", 407)
          end
          result = yield(response.code.to_i, response_headers(response), reader)
          # Reused only when its body was read to the end and nothing came after
          # it; after an exception the caller's +keep+ stays false and the
          # connection is dropped.
          [result, reader.drain && !unread_bytes?(http)]
        end

        # Sends the request; the response (its headers read) and the reader of its body.
        def start(http, path, headers, body, deadline)
          request = Net::HTTP::Post.new(path, headers)
          request.body = body
          fiber = Fiber.new do
            http.request(request) do |response|
              Fiber.yield response
              StrictChunks.install(response) if response.chunked?
              response.read_body { |chunk| Fiber.yield chunk }
            end
            nil
          end
          reader = BodyReader.new(fiber, http, @timeouts[1], deadline)
          http.write_timeout = Transport.budget(@timeouts[2], deadline)
          [reader.resume, reader]
        end

        # NTLM's three messages on one connection (see {NTLM}): the response and
        # reader of the request sent with the Authenticate message (a 401 when refused).
        def ntlm_handshake(http, path, headers, body, deadline)
          response, reader = start(http, path, headers.merge("Authorization" => @ntlm.negotiate), body, deadline)
          challenge = response.code == "401" && @ntlm.challenge(response["www-authenticate"])
          if challenge
            socket = http.instance_variable_get(:@socket)
            reader.drain
            # net/http would send the next request on a new socket, unauthenticated.
            unless socket && !socket.closed? && !unread_bytes?(http)
              raise ConnectionError, "the server closed the connection in the middle of NTLM authentication"
            end

            response, reader = start(http, path, headers.merge("Authorization" => @ntlm.authenticate(challenge)), body, deadline)
            raise ConnectionError, "the server closed the connection in the middle of NTLM authentication" unless http.instance_variable_get(:@socket).equal?(socket)
          end
          @ntlm_lock.synchronize { @ntlm_sockets[http] = http.instance_variable_get(:@socket) } unless response.code == "401"
          [response, reader]
        end

        # Whether +http+ authenticated on the socket it has now (net/http's
        # BufferedIO, +@socket+, replaced when it reconnects).
        def ntlm_authenticated?(http)
          socket = @ntlm_lock.synchronize { @ntlm_sockets[http] }
          !socket.nil? && socket.equal?(http.instance_variable_get(:@socket)) && !socket.closed?
        end

        # net/http checks that an idle connection is still open, but takes bytes
        # waiting on it (a response to no request) as the next answer: such a
        # connection is not used again.
        def usable?(http)
          !unread_bytes?(http)
        end

        # Whether bytes wait on the connection: in net/http's read buffer (read
        # past the last body), in OpenSSL's, or on the socket. net/http does
        # not expose its buffer, hence its instance variables (net-protocol's
        # BufferedIO: +@rbuf+, and +@rbuf_offset+ since 0.2).
        def unread_bytes?(http)
          buffered = http.instance_variable_get(:@socket) or return false
          buffer = buffered.instance_variable_get(:@rbuf)
          return true if buffer && buffer.bytesize > (buffered.instance_variable_get(:@rbuf_offset) || 0)

          io = buffered.io
          return true if io.respond_to?(:pending) && io.pending.positive?

          io.to_io.recv_nonblock(1, ::Socket::MSG_PEEK, exception: false) != :wait_readable
        rescue IOError, SystemCallError
          true
        end

        def response_headers(response)
          headers = {}
          response.each_header { |name, value| headers[name] = value }
          headers
        end

        def open_connection
          # Net::HTTP takes the proxy from the environment unless told; the
          # client's proxy: has already decided (nil: none).
          http = Net::HTTP.new(@uri.hostname, @uri.port, @proxy&.host, @proxy&.port, @proxy&.user, @proxy&.password)
          http.open_timeout, http.read_timeout, http.write_timeout = @timeouts
          http.max_retries = 0 # a POST is never sent twice
          http.keep_alive_timeout = 30
          configure_ssl(http) if @uri.scheme == "https"
          begin
            transport_errors { http.start }
          rescue Net::HTTPClientException, Net::HTTPFatalError, Net::HTTPRetriableError => e
            # net/http's answer to a CONNECT the proxy refused.
            status = e.response.code.to_i
            hint = status == 407 ? " (#{@proxy&.user ? 'wrong' : 'no'} credentials in proxy:)" : ""
            raise ProxyError.new("the proxy #{@proxy} refused CONNECT #{@uri.hostname}:#{@uri.port}: HTTP #{status}#{hint}", status)
          end
          opened
          http
        end

        def configure_ssl(http)
          http.use_ssl = true
          @ssl.each { |name, value| http.public_send(:"#{name}=", value) } # verify_mode, ca_file, cert, key...
        end

        def close_connection(http)
          @ntlm_lock.synchronize { @ntlm_sockets.delete(http) }
          http.finish if http.started?
        rescue IOError, SystemCallError, OpenSSL::SSL::SSLError
          nil
        end

        def transport_errors(&block)
          Transport.transport_errors(@uri, &block)
        end

        # The body as the decoder reads it: each readpartial resumes the Fiber
        # for the next chunk net/http read (and inflated).
        # Before each resume, net/http's read timeout is cut to what is left
        # of the call's deadline, and the deadline checked: net/http hands out
        # the body read by read, so a trickle reaches this check.
        #
        # @api private
        class BodyReader
          include Drain

          def initialize(fiber, http, read_timeout, deadline)
            @fiber = fiber
            @http = http
            @read_timeout = read_timeout
            @deadline = deadline
            @done = false
          end

          def read(_size)
            return nil if @done

            chunk = resume
            @done = true if chunk.nil?
            chunk
          end

          # @return [Object] what the Fiber hands out next (the response first, then chunks)
          def resume
            Transport.check_deadline(@deadline, "reading the response")
            @http.read_timeout = Transport.budget(@read_timeout, @deadline)
            Transport.transport_errors(nil) { @fiber.resume }
          rescue TimeoutError => e
            raise if @deadline.nil? || Transport.now < @deadline

            raise TimeoutError, "the call took longer than its deadline (#{e.message})"
          end
        end
        private_constant :BodyReader

        # What net/http reads a chunked body from, checking the framing it reads
        # leniently: it takes a chunk size line's leading hex digits ("5zz" and
        # "-5" as 5) and skips the two bytes after a chunk's data unread, so a
        # body framed wrongly was read as a body (and a ParseError, or a value).
        # Here the size line must be hex digits (at most 15), optional blanks and
        # an extension, and the data must end with CRLF; anything else is a
        # {ConnectionError}, as on the +:socket+ adapter.
        #
        # net/http offers no hook for this: the response's socket (+@socket+,
        # which +read_chunked+ reads from) is replaced by this wrapper for the
        # body only. Size and trailer lines come through +readuntil+ (net-http
        # 0.4 and later) or +readline+ (earlier); data and the CRLF through +read+.
        #
        # @api private
        class StrictChunks
          # A chunk size line: hex digits, blanks, an optional extension, the line end.
          SIZE_LINE = /\A(\h{1,15})[ \t]*(?:;[^\r\n]*)?\r?\n?\z/

          # Wraps the socket of +response+ (before its body is read).
          def self.install(response)
            response.instance_variable_set(:@socket, new(response.instance_variable_get(:@socket)))
          end

          def initialize(io)
            @io = io
            @state = :size
            @left = 0
          end

          # A size or trailer line (net-http 0.4 and later), checked.
          # @return [String]
          def readuntil(terminator, ignore_eof = false, **limit)
            line(@io.readuntil(terminator, ignore_eof, **limit))
          end

          # A size or trailer line (earlier net-http), checked.
          # @return [String]
          def readline
            line(@io.readline)
          end

          # A chunk's data, or the CRLF that must follow it.
          # @return [String]
          # @raise [ConnectionError] the data is not followed by CRLF
          def read(length, dest = +"", ignore_eof = false)
            case @state
            when :data
              @left -= length
              @state = :crlf if @left <= 0
              @io.read(length, dest, ignore_eof)
            when :crlf
              crlf = @io.read(length)
              raise ConnectionError, "a chunk does not end with CRLF (#{crlf.inspect[0, 20]} after its data)" unless crlf == "\r\n"

              @state = :size
              crlf
            else
              raise ConnectionError, "chunked body read out of turn (#{@state})"
            end
          end

          def closed?
            @io.closed?
          end

          private

          def line(text)
            return text if @state == :trailers

            size = SIZE_LINE.match(text)&.[](1) or raise ConnectionError, "a bad chunk size line: #{text.inspect[0, 80]}"
            @left = size.to_i(16)
            @state = @left.zero? ? :trailers : :data
            text
          end
        end
        private_constant :StrictChunks
      end
    end
  end
end
