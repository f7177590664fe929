# frozen_string_literal: true

module Wirebind
  module CLI
    # +wirebind serve [config.ru] --port 9292 [--bind ADDR] [--tls-cert F --tls-key F] [--threads N]+:
    # runs a Rack application on {Wirebind::HTTP2::Server} until INT or TERM.
    # Its interface is the command line (+wirebind serve --help+).
    # @api private
    class Serve < Command
      NAME = "serve"
      SUMMARY = "run a Rack application (config.ru) over HTTP/2 (h2c, TLS) and HTTP/1.1"

      def parser(options)
        OptionParser.new do |parser|
          parser.banner = "Usage: wirebind serve [config.ru] [--port 9292] [--bind ADDR] [--tls-cert F --tls-key F] [--threads N]\n" \
                          "                      [--header-timeout SECONDS] [--write-timeout SECONDS] [--idle-timeout SECONDS]"
          parser.on("--port PORT", Integer, "port to listen on (default 9292; 0 picks a free one)") { |port| options[:port] = port }
          parser.on("--bind ADDR", "address to listen on (default 127.0.0.1)") { |bind| options[:bind] = bind }
          parser.on("--tls-cert FILE", "PEM certificate (chain): serve TLS, HTTP/2 by ALPN") { |file| options[:tls_cert] = file }
          parser.on("--tls-key FILE", "PEM private key of --tls-cert") { |file| options[:tls_key] = file }
          parser.on("--threads N", Integer, "connections served at once (default 64)") { |count| options[:threads] = count }
          parser.on("--header-timeout SECONDS", Float, "a request head (HTTP/2 header block, HTTP/1.1 request line and fields)",
                    "must be complete this long after its first byte (default 10)") { |seconds| options[:header_timeout] = seconds }
          parser.on("--write-timeout SECONDS", Float, "close a connection whose write stays blocked this long",
                    "(a client that stopped reading; default 30)") { |seconds| options[:write_timeout] = seconds }
          parser.on("--idle-timeout SECONDS", Float, "close a connection silent this long with nothing to send",
                    "(HTTP/2: GOAWAY first; default 60)") { |seconds| options[:idle_timeout] = seconds }
        end
      end

      def run(arguments, options)
        raise UsageError, "one config.ru at most (got #{arguments.size})" if arguments.size > 1

        config = arguments.first || "config.ru"
        raise UsageError, "#{config} not found" unless File.file?(config)

        require "rack"
        require "rack/builder"
        require_relative "../http2/server"
        app = load_app(config)
        server = HTTP2::Server.new(app, **options, log: @err)
        @out.puts("wirebind serve: listening on #{server.url}")
        @out.flush
        server.run(trap: true)
        @out.puts("wirebind serve: stopped")
      end

      private

      def load_app(config)
        app = ::Rack::Builder.parse_file(config)
        app.is_a?(Array) ? app.first : app # Rack 2 returned [app, options]
      end
    end
    register(Serve)
  end
end
