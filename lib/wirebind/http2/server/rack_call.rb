# frozen_string_literal: true

require "stringio"
require_relative "body_source"

module Wirebind
  module HTTP2
    class Server
      # @api private
      # One Rack call, whatever the protocol: the env from a request, the
      # response in a form both protocols send ({Response}).
      class RackCall
        # What a protocol sends: +body+ is a File (sent by the kernel), a
        # String or a {BodySource}; +length+ is nil for a {BodySource}.
        # +finished+, if set, is called once with (error or nil) when the
        # response has been sent or has failed: rack.response_finished.
        Response = Struct.new(:status, :headers, :body, :length, :finished)

        # Response headers that belong to one connection, never forwarded.
        HOP_BY_HOP = %w[connection keep-alive proxy-connection transfer-encoding upgrade].freeze
        HIJACK_REFUSED = "rack.hijack is not supported by Wirebind::HTTP2::Server"

        attr_reader :max_body

        def initialize(app, max_body:, log:)
          @app = app
          @max_body = max_body
          @log = log
        end

        # @param method [String]
        # @param target [String] the request target ("/path?query")
        # @param headers [Array<Array(String, String)>] lower-case names
        # @param body [String] the request body
        # @param protocol [String] "HTTP/2" or "HTTP/1.1"
        # @return [Response]
        def call(method, target, authority, headers, body, protocol:, secure:, remote:)
          env = build_env(method, target, authority, headers, body, protocol, secure, remote)
          status, response_headers, response_body = @app.call(env)
          response = respond(env, status.to_i, response_headers, response_body)
          response.finished = finished_callbacks(env, status.to_i, response_headers)
          response
        rescue StandardError, ScriptError => e
          log_error("#{method} #{target}", e)
          response = RackCall.error(500, "internal server error\n")
          response.finished = finished_callbacks(env, nil, nil, e) if env
          response
        end

        def log_error(what, error)
          @log.puts("wirebind serve: #{what}: #{error.class}: #{error.message}")
        rescue IOError
          nil
        end

        # rack.response_finished: the callbacks the application registered,
        # called with (env, status, headers, error); one that raises is logged.
        def finished_callbacks(env, status, headers, app_error = nil)
          callbacks = env["rack.response_finished"]
          return nil if callbacks.nil? || callbacks.empty?

          lambda do |error|
            callbacks.reverse_each do |callback|
              callback.call(env, status, headers, app_error || error)
            rescue StandardError => e
              log_error("rack.response_finished", e)
            end
          end
        end

        def self.error(status, message)
          Response.new(status, [%w[content-type text/plain], ["content-length", message.bytesize.to_s]], message, message.bytesize)
        end

        private

        def build_env(method, target, authority, headers, body, protocol, secure, remote)
          path, query = target.split("?", 2)
          host, port = split_authority(authority, secure)
          env = {
            "REQUEST_METHOD" => method, "SCRIPT_NAME" => "", "PATH_INFO" => path, "QUERY_STRING" => query || "",
            "SERVER_NAME" => host, "SERVER_PORT" => port, "SERVER_PROTOCOL" => protocol,
            "REMOTE_ADDR" => remote.ip_address, "rack.url_scheme" => secure ? "https" : "http",
            "rack.input" => StringIO.new(body).binmode, "rack.errors" => @log, "rack.hijack?" => false,
            "rack.response_finished" => []
          }
          headers.each do |name, value|
            key = case name
                  when "content-type" then "CONTENT_TYPE"
                  when "content-length" then "CONTENT_LENGTH"
                  else "HTTP_#{name.upcase.tr('-', '_')}"
                  end
            env[key] = env.key?(key) ? "#{env[key]}#{name == 'cookie' ? '; ' : ', '}#{value}" : value
          end
          env
        end

        def split_authority(authority, secure)
          default = secure ? "443" : "80"
          return ["localhost", default] if authority.nil? || authority.empty?

          match = authority.match(/\A(\[[^\]]*\]|[^:]*)(?::(\d+))?\z/)
          return [authority, default] unless match

          [match[1], match[2] || default]
        end

        def respond(env, status, headers, body)
          pairs = []
          headers.each do |name, value|
            name = name.to_s.downcase
            next if HOP_BY_HOP.include?(name)

            if name == "rack.hijack"
              close_body(body)
              raise Error, HIJACK_REFUSED
            end

            Array(value).each { |item| item.to_s.split("\n").each { |line| pairs << [name, line] } }
          end
          payload = [204, 304].include?(status) || status < 200 ? "" : take_body(body, env)
          length = payload_length(payload)
          if length && pairs.none? { |name, _| name == "content-length" } && status != 204 && status != 304
            pairs << ["content-length", length.to_s]
          end
          close_body(body) unless payload.is_a?(BodySource)
          return Response.new(status, pairs, payload, length) unless env["REQUEST_METHOD"] == "HEAD"

          payload.close if payload.is_a?(File) || payload.is_a?(BodySource)
          Response.new(status, pairs, "", 0)
        rescue StandardError
          close_body(body)
          raise
        end

        def close_body(body)
          body.close if body.respond_to?(:close)
        end

        # A File for a to_path body (the kernel sends it), the bytes of an
        # Array body, else a {BodySource} read as the peer takes it (an Array
        # with trailers too: they follow the body).
        def take_body(body, env)
          return File.open(body.to_path, "rb") if body.respond_to?(:to_path) && File.file?(body.to_path)

          if body.respond_to?(:to_ary) && !body.respond_to?(:trailers)
            buffer = String.new(encoding: Encoding::BINARY)
            body.to_ary.each { |chunk| buffer << chunk }
            return buffer
          end
          BodySource.new(body, env["rack.input"], ->(error) { log_error("#{env['REQUEST_METHOD']} #{env['PATH_INFO']} (body)", error) })
        end

        # @return [Integer, nil] nil while unknown (a body still to be produced)
        def payload_length(payload)
          case payload
          when File then payload.size
          when String then payload.bytesize
          end
        end
      end
    end
  end
end
