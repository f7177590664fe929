# frozen_string_literal: true

require "stringio"

module Wirebind
  module HTTP2
    class Server
      # @api private
      # The {Connection} handler of one HTTP/2 connection: collects each
      # request's body ({Connection}'s +receive_body+), calls the Rack
      # application once the request has ended and answers on its stream.
      class H2Handler
        def initialize(rack, secure:, remote:)
          @rack = rack
          @secure = secure
          @remote = remote
          @bodies = {} # stream id => body received so far
        end

        # Headers complete: a request without a body is answered at once.
        def call(connection, stream)
          if stream.state == :half_closed_remote || stream.closed?
            answer(connection, stream, "")
          else
            @bodies[stream.id] = String.new(encoding: Encoding::BINARY)
          end
        end

        def receive_body(connection, stream, bytes, end_stream)
          body = @bodies[stream.id]
          return unless body # refused already

          if body.bytesize + bytes.bytesize > @rack.max_body
            @bodies.delete(stream.id)
            return send_response(connection, stream, RackCall.error(413, "request body above #{@rack.max_body} bytes\n"))
          end
          body << bytes
          return unless end_stream

          @bodies.delete(stream.id)
          answer(connection, stream, body)
        end

        private

        def answer(connection, stream, body)
          pseudo = {}
          regular = []
          stream.headers.each { |name, value| name.start_with?(":") ? pseudo[name] = value : regular << [name, value] }
          path = pseudo[":path"].to_s
          return send_response(connection, stream, RackCall.error(400, "bad :path\n")) unless path.start_with?("/")

          response = @rack.call(pseudo[":method"], path, pseudo[":authority"], regular, body,
                                protocol: "HTTP/2", secure: @secure, remote: @remote)
          send_response(connection, stream, response)
        end

        def send_response(connection, stream, response)
          payload = response.body
          length = response.length
          body = case payload
                 when BodySource then payload
                 when File then length.zero? ? payload.close : payload
                 else length.zero? ? nil : StringIO.new(payload)
                 end
          stream.on_response_end = response.finished
          connection.respond(stream, response.status, response.headers, body: body, length: length)
        end
      end
    end
  end
end
