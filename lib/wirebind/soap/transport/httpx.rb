# frozen_string_literal: true

require "set"     # httpx 1.9 uses Set and $ERROR_INFO without loading them, which Ruby 3.1
require "English" # does not do for it (and warns about the undefined global)
begin
  require "httpx"
rescue LoadError
  raise LoadError, "adapter: :httpx needs the httpx gem (gem \"httpx\" in the Gemfile)"
end
require_relative "../transport"

module Wirebind
  module SOAP
    module Transport
      # The httpx gem as the SOAP client's HTTP adapter (+adapter: :httpx+),
      # loaded only when asked for. Each connection of the {Pool} is an httpx
      # session with its persistent and stream plugins (a session is not to be
      # shared by threads), so keep-alive, TLS, gzip/deflate and timeouts are
      # httpx's; the body is pulled chunk by chunk from the stream's enumerator.
      class HTTPX < Adapter
        # The session class with its plugins, made once when this file loads: httpx
        # loads a plugin (and the plugins it depends on) on first use, and two
        # threads loading one at once is a circular require.
        # +max_retries: 0+: the persistent plugin would send a POST again on a new
        # connection after its first connection failed mid-response, though the
        # server may have processed it; a connection the server closed while idle
        # is noticed before use instead ({#usable?}), as on the other adapters.
        SESSION = ::HTTPX.plugin(:persistent).plugin(:stream).with(max_retries: 0)
        # Through an HTTP proxy (only then: without a proxy named, httpx's
        # proxy plugin would read the environment itself). Plain-HTTP endpoints
        # only: httpx 1.9's stream plugin fails on the proxy plugin's CONNECT.
        PROXY_SESSION = SESSION.plugin(:proxy)
        private_constant :SESSION, :PROXY_SESSION

        # @param (see NetHTTP#initialize)
        # @param ntlm [NTLM, nil] NTLM credentials (the client's +ntlm_auth:+): each
        #   session authenticated once, on its first request, on its connection
        def initialize(uri, open_timeout:, read_timeout:, write_timeout:, ssl: {}, pool_size: 5, deadline: nil, pool_timeout: nil,
                       proxy: nil, ntlm: nil)
          if proxy && uri.scheme == "https"
            raise ArgumentError, "adapter: :httpx cannot reach an https endpoint through a proxy (httpx's stream plugin fails " \
                                 "on its CONNECT); use adapter: :socket or :net_http"
          end

          super(pool_size, deadline: deadline, pool_timeout: pool_timeout)
          @session = proxy ? PROXY_SESSION : SESSION
          @proxy = proxy
          @uri = uri
          @url = uri.to_s.freeze
          # The deadline as httpx's request_timeout (from the request's start; the
          # same for every request, else httpx would not reuse its connections),
          # and checked again before each piece of the body.
          @timeout = { connect_timeout: open_timeout, read_timeout: read_timeout, write_timeout: write_timeout,
                       request_timeout: deadline }.compact.freeze
          options = { timeout: @timeout }
          options[:ssl] = Transport.ssl_params(ssl) if uri.scheme == "https"
          options[:proxy] = { uri: "http://#{proxy}", username: proxy.user, password: proxy.password }.compact if proxy
          @options = options
          @ntlm = ntlm
          # Each session NTLM authenticated, with the socket it was on (httpx
          # opens another on its own when the server closed the first).
          @ntlm_sockets = {}.compare_by_identity
          @ntlm_lock = Mutex.new
        end

        # httpx's errors as {TimeoutError} and {ConnectionError}.
        # @api private
        def self.errors
          yield
        rescue ::HTTPX::HTTPError
          raise
        rescue ::HTTPX::TimeoutError => e
          what =
            case e
            when ::HTTPX::ConnectTimeoutError then "opening a connection took longer than the open_timeout"
            when ::HTTPX::WriteTimeoutError then "writing the request took longer than the timeout"
            when ::HTTPX::ReadTimeoutError then "reading the response took longer than the timeout"
            when ::HTTPX::RequestTimeoutError then "the call took longer than its deadline"
            else "reading the response took longer than the timeout"
            end
          raise TimeoutError, "#{what} (#{e.class.name.split('::').last}: #{e.message})"
        rescue ::HTTPX::ProxyError => e
          raise ProxyError, "the proxy refused the connection: #{e.message}"
        rescue ::HTTPX::Error, IOError, SystemCallError, OpenSSL::SSL::SSLError, Zlib::Error => e
          raise ConnectionError, "the connection failed: #{e.class}: #{e.message}"
        rescue Error, StopIteration
          raise
        rescue StandardError => e
          # httpx 1.9's HTTP/1 parser fails this way on some hostile responses (a
          # negative Content-Length, bytes after a body, 103 after 100): the
          # session is dropped, as for any failed exchange.
          raise ConnectionError, "httpx failed on the response: #{e.class}: #{e.message.lines.first&.chomp}"
        end

        private

        def exchange(session, path, headers, body, deadline)
          status, response_headers, reader =
            if @ntlm && !ntlm_authenticated?(session)
              ntlm_handshake(session, path, headers, body, deadline)
            else
              start(session, path, headers, body, deadline)
            end
          if @proxy && status == 407
            raise ProxyError.new("the proxy #{@proxy} refused the request: 407 Proxy Authentication Required " \
                                 "(#{@proxy.user ? 'wrong' : 'no'} credentials in proxy:)", 407)
          end
          result = yield(status, response_headers, reader)
          [result, reader.drain]
        end

        # Sends the request: its status, headers and body reader.
        def start(session, path, headers, body, deadline)
          # The stream plugin reads without a timeout unless the request names one.
          response = errors { session.post(url_for(path), headers: headers, body: body, stream: true, timeout: @timeout) }
          status, response_headers, chunks =
            begin
              errors { [response.status, response.headers.to_h, response.each] }
            rescue ::HTTPX::HTTPError => e
              # An error status with an empty body: the stream raises it while
              # looking for the headers, which it then holds.
              [e.response.status, e.response.headers.to_h, [].each]
            end
          check_content_length(response_headers)
          [status, response_headers, BodyReader.new(chunks, identity_length(response_headers), deadline)]
        end

        # NTLM's three messages on the session's one connection (see {NTLM}).
        def ntlm_handshake(session, path, headers, body, deadline)
          status, response_headers, reader = start(session, path, headers.merge("Authorization" => @ntlm.negotiate), body, deadline)
          challenge = status == 401 && @ntlm.challenge(response_headers["www-authenticate"])
          if challenge
            reader.drain
            socket = socket(session)
            status, response_headers, reader = start(session, path, headers.merge("Authorization" => @ntlm.authenticate(challenge)), body, deadline)
            # A refusal (401) may close the connection; an acceptance on another than the challenge's is no authentication.
            unless status == 401 || (!socket.nil? && socket.equal?(socket(session)))
              raise ConnectionError, "the server closed the connection in the middle of NTLM authentication"
            end
          end
          @ntlm_lock.synchronize { @ntlm_sockets[session] = socket(session) } unless status == 401
          [status, response_headers, reader]
        end

        def ntlm_authenticated?(session)
          socket = @ntlm_lock.synchronize { @ntlm_sockets[session] }
          !socket.nil? && socket.equal?(socket(session)) && !socket.closed?
        end

        # The socket of the session's one open connection, nil unless there is
        # exactly one. httpx does not expose its connections: an idle one is in
        # the session's pool (httpx 1.x: Session's +@pool+, Pool's
        # +@connections+), one in use in the thread's selector.
        def socket(session)
          idle = session.instance_variable_get(:@pool)&.instance_variable_get(:@connections) || []
          busy = session.__send__(:get_current_selector)&.each_connection.to_a
          open = (idle + busy).uniq.reject { |connection| connection.state == :closed }
          open.size == 1 ? open.first.to_io : nil
        rescue IOError, NoMethodError
          nil
        end

        # httpx takes the first of two different Content-Lengths (and so may read
        # another response's bytes as the rest of this one): refused, as
        # the socket adapter and net/http do.
        def check_content_length(headers)
          length = headers["content-length"] or return
          return if length.is_a?(String) && length.match?(/\A\d{1,18}\z/)

          raise ConnectionError, "a bad Content-Length: #{length.inspect[0, 80]}"
        end

        # httpx reads bytes waiting on an idle connection (a response to no
        # request) as the next request's answer, and a connection the server
        # closed while idle fails after the request was written: a session
        # whose idle connections have anything to read (bytes or the end) is
        # not used again. httpx does not expose its connections, hence its
        # instance variables (httpx 1.x: Session's +@pool+, Pool's +@connections+).
        def usable?(session)
          pool = session.instance_variable_get(:@pool)
          connections = pool&.instance_variable_get(:@connections) or return false
          connections.none? { |connection| readable?(connection) }
        end

        def readable?(connection)
          io = connection.to_io
          return true if io.respond_to?(:pending) && io.pending.positive?

          io.recv_nonblock(1, ::Socket::MSG_PEEK, exception: false) != :wait_readable
        rescue IOError, SystemCallError, NoMethodError
          true
        end

        # The length the body must have as handed out: the Content-Length of a
        # body not compressed (httpx ends a body cut short without an error).
        def identity_length(headers)
          return nil if headers.key?("content-encoding") || headers.key?("transfer-encoding")

          length = headers["content-length"]
          length.to_i if length.is_a?(String) && length.match?(/\A\d{1,18}\z/)
        end

        def url_for(path)
          path == @uri.request_uri ? @url : URI.join(@url, path).to_s
        end

        def open_connection
          session = @session.with(**@options)
          opened
          session
        end

        def close_connection(session)
          @ntlm_lock.synchronize { @ntlm_sockets.delete(session) }
          session.close
        rescue ::HTTPX::Error, IOError, SystemCallError
          nil
        end

        def errors(&block)
          HTTPX.errors(&block)
        end

        # The body, pulled from the stream's enumerator (a Fiber inside).
        # @api private
        class BodyReader
          include Drain

          def initialize(enumerator, length, deadline)
            @enumerator = enumerator
            @left = length
            @deadline = deadline
            @done = false
          end

          def read(_size)
            return nil if @done

            Transport.check_deadline(@deadline, "reading the response")

            chunk = HTTPX.errors { @enumerator.next }
            @left -= chunk.bytesize if @left
            chunk
          rescue StopIteration, ::HTTPX::HTTPError
            # The stream raises HTTPError for a status outside 2xx once its body
            # has been handed out: here that is the end of the body (the client
            # reads the status itself).
            @done = true
            raise ConnectionError, "the server closed the connection #{@left} bytes before the body's end" if @left&.positive?

            nil
          end
        end
        private_constant :BodyReader
      end
    end
  end
end
