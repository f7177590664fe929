# frozen_string_literal: true

require "uri"

module Wirebind
  module SOAP
    module Transport
      # The HTTP proxy a client goes through: host, port and the credentials for
      # +Proxy-Authorization+ (Basic). Made from the client's +proxy:+ option by
      # {.for}; the adapters ask it for the +Proxy-Authorization+ header and where
      # to connect. Only +http://+ proxies: requests to an +http+ endpoint are sent
      # to it in absolute form, those to an +https+ endpoint through a +CONNECT+
      # tunnel, so TLS still ends at the endpoint and is verified there.
      # @api private
      class Proxy
        attr_reader :host, :port, :user, :password

        class << self
          # @param option [:env, String, URI::HTTP, nil, false] +:env+: the
          #   +http_proxy+/+https_proxy+ and +no_proxy+ environment variables (as
          #   URI#find_proxy reads them; none set: no proxy); a URL: that proxy, with
          #   its credentials (+http://user:password@host:port+); nil or false: none
          # @param endpoint [URI::HTTP]
          # @return [Proxy, nil]
          def for(option, endpoint)
            uri =
              case option
              when :env then endpoint.find_proxy
              when nil, false then nil
              when String, URI::Generic then parse(option)
              else raise ArgumentError, "proxy: must be :env, a URL or nil, not #{option.inspect}"
              end
            uri && new(uri)
          end

          private

          def parse(option)
            uri = URI(option.to_s)
            unless uri.is_a?(URI::HTTP) && !uri.is_a?(URI::HTTPS) && uri.host
              raise ArgumentError, "proxy: must be an http:// URL (http://[user:password@]host:port), not #{option.to_s.inspect}"
            end

            uri
          rescue URI::InvalidURIError
            raise ArgumentError, "proxy: is not a URL: #{option.to_s.inspect}"
          end
        end

        # @param uri [URI::HTTP]
        def initialize(uri)
          @host = uri.hostname
          @port = uri.port
          @user = uri.user && URI.decode_www_form_component(uri.user)
          @password = uri.password && URI.decode_www_form_component(uri.password)
          freeze
        end

        # @return [String, nil] the +Proxy-Authorization+ header's value, when the proxy has credentials
        def authorization
          "Basic #{["#{@user}:#{@password}"].pack('m0')}" if @user
        end

        # @return [String] for messages: the proxy without its credentials
        def to_s
          "#{@host.include?(':') ? "[#{@host}]" : @host}:#{@port}"
        end
      end
    end
  end
end
