# frozen_string_literal: true

begin
  require "llhttp" # the llhttp-ffi gem: optional, needed for HTTP/1.1 only
rescue LoadError
  nil
end

module Wirebind
  module HTTP2
    class Server
      # @api private
      # One HTTP/1.1 connection, parsed by llhttp (the llhttp-ffi gem):
      # keep-alive, pipelined requests answered in order, chunked request
      # bodies, +Expect: 100-continue+. Bodies from +to_path+ go from the file
      # to a plain TCP socket by the kernel (+IO.copy_stream+: sendfile).
      class HTTP1
        READ_SIZE = 16 * 1024
        CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n"

        # llhttp's callback base class (Object without the gem: {check_parser} refuses then)
        PARSER_DELEGATE = defined?(LLHttp::Delegate) ? LLHttp::Delegate : Object

        # Collects requests from llhttp's callbacks.
        class Requests < PARSER_DELEGATE
          attr_reader :done
          attr_writer :parser

          # @return [Boolean] a request head has begun and is not complete
          def in_head? = @in_head

          def on_message_begin
            @in_head = true
          end

          def initialize(max_body)
            super()
            @max_body = max_body
            @done = []
            @continue = false
            @in_head = false
            start
          end

          def start
            @url = +""
            @headers = []
            @field = nil
            @body = String.new(encoding: Encoding::BINARY)
            @too_large = false
          end

          def on_url(data) = @url << data

          def on_header_field(data)
            if @field && @value.nil?
              @field << data
            else
              @headers << [@field.downcase, @value] if @field
              @field = data.dup
              @value = nil
            end
          end

          def on_header_value(data)
            @value ? @value << data : @value = data.dup
          end

          def on_headers_complete
            @in_head = false
            @method = @parser.method_name
            @headers << [@field.downcase, @value] if @field
            @field = nil
            @continue = true if @headers.any? { |name, value| name == "expect" && value.casecmp?("100-continue") }
          end

          def on_body(data)
            @too_large ||= @body.bytesize + data.bytesize > @max_body
            @body << data unless @too_large
          end

          def on_message_complete
            @done << { method: @method, url: @url, headers: @headers, body: @body, too_large: @too_large,
                       keep_alive: @parser.keep_alive?, http10: @parser.http_major == 1 && @parser.http_minor.zero? }
            start
          end

          # @return [Boolean] a 100 Continue is owed (once per request)
          def continue!
            owed = @continue
            @continue = false
            owed
          end
        end

        # @raise [Server::Error] without the llhttp-ffi gem
        def self.check_parser
          return if defined?(LLHttp::Delegate)

          raise Server::Error, "HTTP/1.1 needs the llhttp-ffi gem: add gem \"llhttp-ffi\" to your Gemfile"
        end

        # @param header_timeout [Numeric] seconds a request head may take from its first byte
        # @param write_timeout [Numeric] seconds one write may stay blocked (a client that does not read)
        # @param idle_timeout [Numeric] seconds without a byte from the client between requests
        def initialize(io, rack, secure:, remote:, stopping:, header_timeout: Connection::HEADER_TIMEOUT,
                       write_timeout: Connection::WRITE_TIMEOUT, idle_timeout: Connection::IDLE_TIMEOUT)
          @io = io
          @idle_timeout = idle_timeout
          @write_timeout = write_timeout
          @writing_since = nil
          @header_timeout = header_timeout
          @head_deadline = nil
          @rack = rack
          @secure = secure
          @remote = remote
          @stopping = stopping
          self.class.check_parser
          @requests = Requests.new(rack.max_body)
          @parser = LLHttp::Parser.new(@requests, type: :request)
          @requests.parser = @parser
          @buffer = String.new(capacity: READ_SIZE, encoding: Encoding::BINARY)
        end

        def run
          WriteWatchdog.watch(self) { serve }
        end

        # Closes the socket if a write has been blocked longer than the write
        # timeout (called by {WriteWatchdog}'s thread).
        def abort_stalled_write(now)
          since = @writing_since
          return unless since && now - since > @write_timeout

          @io.close
        rescue IOError
          nil
        end

        private

        def serve
          loop do
            return if @stopping.call && @requests.done.empty?

            chunk = @io.read_nonblock(READ_SIZE, @buffer, exception: false)
            if chunk == :wait_readable
              return unless wait_readable

              next
            end
            next @io.wait_writable(@idle_timeout) if chunk == :wait_writable # TLS renegotiating
            return if chunk.nil?

            begin
              @parser << chunk
            rescue LLHttp::Error => e
              write_response(RackCall.error(400, "bad request: #{e.message}\n"), "GET", false)
              return
            end
            write(CONTINUE) if @requests.continue!
            return unless answer_done
            return if head_late?
          end
        end

        # Waits for bytes, a second at a time so that a stop is noticed, up to
        # the idle timeout; a request head past its deadline is answered 408
        # and ends the connection (slowloris: a head dripped a byte at a time).
        def wait_readable
          idle_until = now + @idle_timeout
          loop do
            wait = [idle_until - now, 1].min
            wait = [wait, @head_deadline - now].min if @head_deadline
            return true if @io.wait_readable(wait.clamp(0, 1))
            return false if head_late?
            return false if now >= idle_until || @stopping.call
          end
        end

        # The deadline of a request head runs from its first byte to its end.
        # @return [Boolean] the head is late: answered 408, the connection ends
        def head_late?
          unless @requests.in_head?
            @head_deadline = nil
            return false
          end

          @head_deadline ||= now + @header_timeout
          return false if now < @head_deadline

          write_response(RackCall.error(408, "request head not complete within #{@header_timeout} s\n"), "GET", false)
          true
        end

        def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

        # @return [Boolean] the connection stays open
        def answer_done
          while (request = @requests.done.shift)
            method = request[:method]
            headers = request[:headers]
            response = if request[:too_large]
                         RackCall.error(413, "request body above #{@rack.max_body} bytes\n")
                       else
                         authority = headers.find { |name, _| name == "host" }&.last
                         @rack.call(method, request[:url], authority, headers, request[:body],
                                    protocol: "HTTP/1.1", secure: @secure, remote: @remote)
                       end
            # HTTP/1.0 knows no chunks: a body of unknown length ends with the connection
            produced_for_http10 = request[:http10] && response.length.nil?
            keep_alive = request[:keep_alive] && !@stopping.call && !request[:too_large] && !produced_for_http10
            trailers = headers.any? { |name, value| name == "te" && value.downcase.split(/\s*,\s*/).any? { |item| item.start_with?("trailers") } }
            begin
              write_response(response, method, keep_alive, chunks: !request[:http10], trailers: trailers)
            rescue BodySource::Failed => e
              response.finished&.call(e)
              return false # logged; the client sees the body cut
            rescue StandardError => e
              response.finished&.call(e)
              raise
            end
            response.finished&.call(nil)
            return false unless keep_alive
          end
          true
        end

        # @param chunks [Boolean] the client reads chunked bodies (HTTP/1.1)
        # @param trailers [Boolean] the client accepts trailers (TE: trailers)
        def write_response(response, method, keep_alive, chunks: true, trailers: false)
          body = response.body
          chunked = chunks && body.is_a?(BodySource) && response.headers.none? { |name, _| name == "content-length" }
          head = +"HTTP/1.1 #{response.status} #{reason(response.status)}\r\n"
          response.headers.each { |name, value| head << name << ": " << value << "\r\n" }
          head << "transfer-encoding: chunked\r\n" if chunked
          head << "connection: close\r\n" unless keep_alive
          head << "\r\n"
          case body
          when File
            write(head)
            timed { IO.copy_stream(body, @io, response.length, 0) } unless method == "HEAD"
            body.close
          when BodySource then write_produced(head, body, chunked, trailers)
          else write(head, body)
          end
        end

        # A body sent as it is produced: each piece written (in a chunk when
        # chunked) before the next is asked for, so a slow reader holds the
        # body back rather than filling memory. A body that raises ends the
        # connection (a chunked body without its last chunk: the client sees
        # it cut). The body's trailers follow the last chunk if the client
        # accepts them.
        def write_produced(head, body, chunked, trailers)
          write(head)
          while (piece = body.read(READ_SIZE * 4))
            chunked ? write(piece.bytesize.to_s(16), "\r\n", piece, "\r\n") : write(piece)
          end
          return unless chunked

          last = +"0\r\n"
          body.trailers.each { |name, value| last << name << ": " << value << "\r\n" } if trailers
          write(last << "\r\n")
        ensure
          body.close
        end

        # Every write is watched: {#abort_stalled_write} ends one blocked too long.
        def write(*parts)
          timed { @io.write(*parts) }
        end

        def timed
          @writing_since = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          yield
        ensure
          @writing_since = nil
        end

        def reason(status)
          require "rack/utils" unless defined?(::Rack::Utils)
          ::Rack::Utils::HTTP_STATUS_CODES.fetch(status, "Status")
        rescue LoadError
          "Status"
        end
      end
    end
  end
end
