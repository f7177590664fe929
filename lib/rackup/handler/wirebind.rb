# frozen_string_literal: true

require "rackup/handler"
require_relative "../../wirebind/http2/server"

# Rackup's namespace, reopened to register the +wirebind+ server.
module Rackup
  # Rackup's servers, looked up by name (+rackup -s wirebind+).
  module Handler
    # +rackup -s wirebind+: runs the application on {Wirebind::HTTP2::Server}.
    module Wirebind
      # @param app [#call]
      # @param options [Hash] rackup's options (:Host, :Port; :Threads)
      # @yield [Wirebind::HTTP2::Server] before it serves
      # @return [void]
      def self.run(app, **options)
        server = ::Wirebind::HTTP2::Server.new(app, bind: options[:Host] || "127.0.0.1", port: Integer(options[:Port] || 9292),
                                                    threads: Integer(options[:Threads] || ::Wirebind::HTTP2::Server::DEFAULTS[:threads]))
        yield server if block_given?
        $stdout.puts("wirebind: listening on #{server.url}")
        $stdout.flush
        server.run(trap: true)
      end

      # @return [Hash{String => String}] the options rackup shows in --help
      def self.valid_options
        { "Host=HOST" => "address to listen on (default 127.0.0.1)", "Port=PORT" => "port (default 9292)",
          "Threads=N" => "connections served at once" }
      end
    end

    register :wirebind, Wirebind
  end
end
