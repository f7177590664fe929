# frozen_string_literal: true

module Wirebind
  module HTTP2
    class Server
      # @api private
      # A Rack body that is neither a file nor an Array (+each+ or
      # +call(stream)+), read as it is produced: {#read} resumes the body in a
      # Fiber until it yields its next piece, so the body runs only as fast as
      # the peer takes its bytes (HTTP/2 windows, the socket's buffer) and at
      # most one piece of it is held. The body is closed once it ends, fails,
      # or is abandoned ({#close}).
      class BodySource
        # Trailer fields a response may not carry (RFC 9110 section 6.5.1 and
        # RFC 9113 section 8.1: framing, routing, connection-specific fields).
        FORBIDDEN_TRAILERS = %w[content-length transfer-encoding host connection keep-alive proxy-connection upgrade te trailer].freeze
        TRAILER_NAME = /\A[!#$%&'*+\-.^_`|~0-9a-z]+\z/

        # The body raised while it was being sent: the response cannot be
        # completed (the stream is reset, the HTTP/1.1 connection closed).
        class Failed < Wirebind::Error; end

        # The +stream+ a +call(stream)+ body writes to (Rack 3's streaming
        # body): every write is handed to the peer before the body goes on.
        # Reads come from the request body.
        class Stream
          def initialize(input)
            @input = input
            @closed = false
          end

          def write(data)
            raise IOError, "the response stream is closed" if @closed

            data = data.to_s
            Fiber.yield(data) unless data.empty?
            data.bytesize
          end

          def <<(data)
            write(data)
            self
          end

          def read(*args) = @input.read(*args)

          def flush = self

          def close_read = nil

          def close_write
            @closed = true
            nil
          end

          def close = close_write

          def closed? = @closed
        end

        # @param body [#each, #call] the Rack body
        # @param input [IO] the request body (the stream's read side)
        # @param on_error [#call] told (error) when the body raises
        def initialize(body, input, on_error)
          @body = body
          @on_error = on_error
          @fiber = Fiber.new do
            if body.respond_to?(:each)
              body.each { |piece| Fiber.yield(piece.to_s) }
            else
              body.call(Stream.new(input))
            end
            nil
          end
          @piece = nil
          @offset = 0
          @trailers = []
        end

        # @return [Array<Array(String, String)>] the body's Rack 3 +trailers+ once it has
        #   ended (lower-case names; fields a trailer may not carry are left out)
        attr_reader :trailers

        # @return [String, nil] up to max bytes (into buffer), nil once the body has ended
        # @raise [Failed] the body raised (it is closed)
        def read(max, buffer = nil)
          while @piece.nil? || @offset >= @piece.bytesize
            @piece = next_piece
            @offset = 0
            return nil if @piece.nil?
          end
          out = @piece.byteslice(@offset, max)
          @offset += out.bytesize
          buffer ? buffer.replace(out) : out
        end

        # Closes the body (Rack: once, whether it ended or not).
        def close
          return unless @body

          body = @body
          @body = nil
          @piece = nil
          body.close if body.respond_to?(:close)
        end

        private

        def take_trailers
          return [] unless @body.respond_to?(:trailers)

          pairs = []
          (@body.trailers || {}).each do |name, value|
            name = name.to_s.downcase
            next if FORBIDDEN_TRAILERS.include?(name) || !name.match?(TRAILER_NAME)

            Array(value).each { |item| item.to_s.split("\n").each { |line| pairs << [name, line] unless line.match?(/[\0\r]/) } }
          end
          pairs
        end

        def next_piece
          return nil unless @body && @fiber.alive?

          piece = @fiber.resume
          unless @fiber.alive?
            @trailers = take_trailers
            close
          end
          piece
        rescue StandardError => e
          @on_error.call(e)
          close
          raise Failed, "the response body raised #{e.class}: #{e.message}"
        end
      end
    end
  end
end
