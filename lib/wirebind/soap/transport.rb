# frozen_string_literal: true

require "net/http"
require "openssl"
require "zlib"

module Wirebind
  module SOAP
    # HTTP transports for {Client}. An adapter is any object that answers:
    #
    # - +request(path, headers, body) { |status, headers, reader| ... }+: sends one
    #   POST and yields the status (Integer), the response headers (a Hash of
    #   lowercase names to Strings) and the body as +reader+, an object answering
    #   +read(size)+ (a String of at most about +size+ bytes, nil at the end) that hands
    #   out the body as it arrives, already inflated when it came gzip- or
    #   deflate-encoded. Returns
    #   the block's value. A body the block left unread is drained (or the
    #   connection dropped) by the adapter.
    # - +close+: closes every connection it holds.
    #
    # It raises {TimeoutError} when opening, writing or reading takes longer than
    # its timeout, and {ConnectionError} when the connection is refused, reset, or
    # closed before the body ended; the block's own exceptions pass through.
    #
    # {Transport::Socket} (+adapter: :socket+, the standard library's sockets) is the
    # default: it does what net/http does for SOAP (TLS with verification,
    # gzip/deflate, chunked bodies, keep-alive, the timeouts) with about half the
    # work per call. {Transport::NetHTTP} (+adapter: :net_http+) is there for an
    # HTTP proxy (net/http takes +http_proxy+ from the environment), and
    # Transport::HTTPX (+adapter: :httpx+) uses the httpx gem; each is loaded when
    # first used. All take their connections from a {Pool}.
    module Transport
      # Errors of the socket layer, as {ConnectionError}s.
      CONNECTION_ERRORS = [
        EOFError, IOError, SocketError, SystemCallError, OpenSSL::SSL::SSLError, Net::HTTPBadResponse, Net::HTTPHeaderSyntaxError,
        Zlib::Error
      ].freeze
      # The keys of the client's +ssl:+ option ({Transport.ssl_params}).
      SSL_OPTIONS = %i[verify ca_file ca_path cert_store cert key key_password pkcs12 pkcs12_password].freeze
      # How much of a body left unread is drained to keep its connection.
      DRAIN_LIMIT = 1024 * 1024

      # What the three adapters share: their {Pool}, the count of connections
      # opened, and #request, which takes a connection for the exchange and gives
      # it back, kept only when the exchange read the body to its end. A
      # subclass defines +open_connection+, +usable?(connection)+,
      # +close_connection(connection)+ and +exchange(connection, path, headers,
      # body) { |status, headers, reader| }+, which returns the block's value and
      # whether the connection may carry the next request.
      # @api private
      class Adapter
        # @return [Integer] connections opened so far
        attr_reader :connections_opened

        # @param deadline [Numeric, nil] seconds a whole exchange may take; nil: no limit
        # @param pool_timeout [Numeric, nil] seconds to wait for a free connection
        def initialize(pool_size, deadline: nil, pool_timeout: nil)
          @connections_opened = 0
          @lock = Mutex.new
          @deadline = Transport.seconds(deadline, "deadline")
          @pool_timeout = Transport.seconds(pool_timeout, "pool_timeout")
          @pool = Pool.new(pool_size, open: -> { open_connection }, usable: ->(connection) { usable?(connection) },
                                      close: ->(connection) { close_connection(connection) })
        end

        # @see Transport
        def request(path, headers, body, &block)
          now = Transport.now
          deadline = @deadline && (now + @deadline)
          connection = @pool.checkout([@pool_timeout && (now + @pool_timeout), deadline].compact.min)
          keep = false
          begin
            Transport.check_deadline(deadline, "opening a connection")
            result, keep = exchange(connection, path, headers, body, deadline, &block)
            result
          ensure
            @pool.checkin(connection, keep)
          end
        end

        # Closes every idle connection; connections in use close when given back.
        # @return [void]
        def close
          @pool.close
        end

        private

        def opened
          @lock.synchronize { @connections_opened += 1 }
        end

        def usable?(_connection)
          true
        end
      end

      class << self
        # @api private
        def now
          Process.clock_gettime(Process::CLOCK_MONOTONIC)
        end

        # @api private
        def seconds(value, name)
          return nil if value.nil?
          raise ArgumentError, "#{name} must be a positive number of seconds or nil, not #{value.inspect}" unless value.is_a?(Numeric) && value.positive?

          value
        end

        # The time a wait of +timeout+ seconds may last, and what to say when it
        # is over: the call's deadline when that comes first.
        # @api private
        def limit(timeout, deadline, what)
          own = now + timeout
          return [own, "#{what} took longer than the timeout (#{timeout} s)"] unless deadline && deadline < own

          [deadline, "the call took longer than its deadline (#{what})"]
        end

        # Seconds a wait may last: +timeout+, or less when the deadline comes first.
        # @api private
        def budget(timeout, deadline)
          return timeout unless deadline

          [[deadline - now, timeout].min, 0.001].max
        end

        # Raises {TimeoutError} when the call's deadline has passed.
        # @api private
        def check_deadline(deadline, what)
          raise TimeoutError, "the call took longer than its deadline (#{what})" if deadline && now >= deadline
        end

        # The +ssl:+ option as OpenSSL parameters (+verify_mode+, +ca_file+,
        # +ca_path+, +cert_store+, +cert+, +key+, +extra_chain_cert+: those given):
        # +verify:+ (default true), +ca_file:+/+ca_path:+/+cert_store:+ (whom to
        # trust instead of the system's store), and a client certificate either
        # as +cert:+ and +key:+ (OpenSSL objects or paths of PEM files; a key
        # file may be encrypted, opened with +key_password:+) or as +pkcs12:+ (a
        # path or an OpenSSL::PKCS12, opened with +pkcs12_password:+).
        # @api private
        def ssl_params(ssl)
          unknown = ssl.keys - SSL_OPTIONS
          raise ArgumentError, "ssl: unknown option#{'s' if unknown.size > 1} #{unknown.join(', ')}" unless unknown.empty?

          params = { verify_mode: ssl.fetch(:verify, true) ? OpenSSL::SSL::VERIFY_PEER : OpenSSL::SSL::VERIFY_NONE }
          %i[ca_file ca_path cert_store].each { |name| params[name] = ssl[name] if ssl[name] }
          params[:cert] = ssl[:cert].is_a?(String) ? OpenSSL::X509::Certificate.new(File.read(ssl[:cert])) : ssl[:cert] if ssl[:cert]
          params[:key] = private_key(ssl[:key], ssl[:key_password]) if ssl[:key]
          client_pkcs12(ssl[:pkcs12], ssl[:pkcs12_password], params) if ssl[:pkcs12]
          params
        end

        private

        def private_key(key, password)
          return key unless key.is_a?(String)

          OpenSSL::PKey.read(File.read(key), password.to_s)
        rescue OpenSSL::PKey::PKeyError => e
          raise ArgumentError, "ssl: cannot read the key #{key} (#{password ? 'wrong key_password?' : 'encrypted? give key_password:'}): #{e.message}"
        end

        def client_pkcs12(pkcs12, password, params)
          bundle = pkcs12.is_a?(String) ? OpenSSL::PKCS12.new(File.binread(pkcs12), password.to_s) : pkcs12
          params[:cert] = bundle.certificate
          params[:key] = bundle.key
          params[:extra_chain_cert] = bundle.ca_certs if bundle.ca_certs
        rescue OpenSSL::PKCS12::PKCS12Error => e
          raise ArgumentError, "ssl: cannot open the PKCS#12 file #{pkcs12} (wrong pkcs12_password?): #{e.message}"
        end
      end

      autoload :NetHTTP, File.expand_path("transport/net_http", __dir__)
      autoload :Socket, File.expand_path("transport/socket", __dir__)
      autoload :HTTPX, File.expand_path("transport/httpx", __dir__)
      autoload :Pool, File.expand_path("transport/pool", __dir__)
      autoload :Proxy, File.expand_path("transport/proxy", __dir__)
      autoload :DigestAuth, File.expand_path("transport/digest_auth", __dir__)
      autoload :NTLM, File.expand_path("transport/ntlm", __dir__)

      # What every adapter does with a body the caller left unread: read it to
      # its end, up to DRAIN_LIMIT bytes, so the connection can carry the next
      # request. Included by each adapter's body reader, which answers +read+.
      # @api private
      module Drain
        # @return [Boolean] whether the body ended, so the connection may be reused
        def drain
          left = DRAIN_LIMIT
          while (chunk = read(Chunks::SIZE))
            left -= chunk.bytesize
            return false if left.negative?
          end
          true
        rescue Error
          false
        end
      end

      class << self
        # Runs the block, turning transport exceptions into {TimeoutError} and
        # {ConnectionError}.
        # @api private
        def transport_errors(uri)
          yield
        rescue Net::OpenTimeout => e
          raise TimeoutError, "opening a connection#{" to #{uri.host}:#{uri.port}" if uri} took longer than the open_timeout (#{e.message})"
        rescue Net::ReadTimeout, Net::WriteTimeout => e
          raise TimeoutError, "#{e.is_a?(Net::ReadTimeout) ? 'reading the response' : 'writing the request'} took longer than the timeout (#{e.message})"
        rescue Errno::ECONNREFUSED => e
          raise ConnectionError, "connection refused#{" by #{uri.host}:#{uri.port}" if uri} (#{e.message})"
        rescue *CONNECTION_ERRORS => e
          raise ConnectionError, "the connection failed: #{e.class}: #{e.message}"
        end
      end
    end
  end
end
