# frozen_string_literal: true

require "uri"
require "stringio"
require "time"
require_relative "transport"

module Wirebind
  module SOAP
    # Calls the operations of a SOAP service and decodes their results into
    # models, reading each response body as it arrives (never whole) over
    # persistent connections that threads may share.
    #
    # @example JIRA's SOAP API (rpc/encoded, Axis 1)
    #   client = Wirebind::SOAP::Client.new(
    #     endpoint: "https://jira.example.com/rpc/soap/jirasoapservice-v2",
    #     namespace: "http://soap.rpc.jira.atlassian.com", style: :rpc_encoded)
    #   token  = client.call(:login, { in0: "bot", in1: secret }, returns: :string)
    #   issues = client.call(:getIssuesFromJqlSearch, { in0: token, in1: "project = OPS", in2: 1000 }, returns: [RemoteIssue])
    #   client.each(:getIssuesFromJqlSearch, { in0: token, in1: jql, in2: 100_000 }, returns: RemoteIssue) { |issue| ... }
    #
    # Errors, all {Wirebind::Error}s: {Fault} (a fault body, whatever the HTTP
    # status), {HTTPError} (a status outside 2xx without a fault), {TimeoutError},
    # {ConnectionError}; a malformed body raises the codec's {ParseError} or
    # {DecodeError}. No partial result is ever returned.
    class Client
      ADAPTERS = %i[net_http socket httpx].freeze
      # Seconds a call may take by default: twice the default read_timeout, so
      # that a large streamed response (Client#each over many records) has room,
      # while a server trickling bytes frees the call and its connection.
      DEFAULT_DEADLINE = 120
      private_constant :ADAPTERS

      # @return [String] the endpoint URL
      attr_reader :endpoint
      # @return [Object] the HTTP adapter (see {Transport})
      attr_reader :transport

      # @param endpoint [String] the service's URL (http or https)
      # @param namespace [String, nil] the operations' namespace
      # @param version [String] +"1.1"+ or +"1.2"+
      # @param style [Symbol] +:document+ (document/literal wrapped, the default), +:rpc+
      #   or +:rpc_encoded+. Responses are read with +href+ references resolved in
      #   every style (multiRefs; in literal responses too, the elements with an
      #   +id+ that PHP SoapServer points repeated values at); +references: false+
      #   turns that off
      # @param open_timeout [Numeric] seconds to open a connection
      # @param read_timeout [Numeric] seconds to wait for each read of the response
      # @param write_timeout [Numeric] seconds to wait for each write of the request
      # @param headers [Hash{String => String}] more HTTP headers for every call
      # @param soap_headers [Array<Wirebind::Model, Array(String, Object)>] written into
      #   every envelope's Header: a model under its +xml_root+, a pair +[element name, model]+
      #   under that name (a header part's element whose type has another name), a pair
      #   +["{namespace}name", scalar]+ as that element holding the scalar's text
      # @param soap_action [String, Proc, nil] the SOAPAction, or a proc given the
      #   operation name; default +"#{namespace}/#{operation}"+
      # @param wsse [WSSE::UsernameToken, WSSE::Timestamp, WSSE::Signature, Hash, Array, nil]
      #   WS-Security: one token or several (see {WSSE}); a Hash is a UsernameToken's
      #   options (+{ username:, password:, digest: false }+). A {WSSE::Signature} with
      #   +verify:+ makes every 2xx response be verified before it is decoded (read whole first)
      # @param basic_auth [Array(String, String), nil] user and password for HTTP basic auth
      # @param ntlm_auth [Array(String, String), Array(String, String, String), nil] user,
      #   password and (optionally) domain for NTLM (NTLMv2) authentication, per connection,
      #   on the built-in adapters (each pooled connection authenticated once; an adapter
      #   object is an ArgumentError); needs the rubyntlm gem
      # @param addressing [Boolean] WS-Addressing 1.0 ({Addressing}): each request carries
      #   +wsa:Action+, a fresh +wsa:MessageID+, +wsa:To+ and +wsa:ReplyTo+, and a response
      #   whose +wsa:RelatesTo+ names another message is an {AddressingError}
      # @param mtom [Boolean, Hash, nil] MTOM/XOP requests ({MTOM}): +true+, or
      #   +{ threshold: bytes }+ (default {MTOM::DEFAULT_THRESHOLD}): each +:base64+ value
      #   (a part, or a model's attribute written as an element) of at least that many
      #   bytes goes as a binary attachment referenced by +xop:Include+; a request with
      #   none goes as plain XML. Not with a {WSSE::Signature} (which would sign the markers)
      # @param attachment_file_threshold [Integer, nil] the received MTOM attachments of at
      #   least this many bytes are streamed to a Tempfile instead of memory, and the
      #   +:base64+ value decoded from one is that Tempfile (binary, at its start; yours
      #   to read and +close!+); nil (the default): every attachment is a String
      # @param digest_auth [Array(String, String), nil] user and password for HTTP Digest
      #   authentication (RFC 7616: SHA-256 or MD5, +qop="auth"+), answered when the server asks
      # @param ssl [Hash] +verify:+ (true unless said otherwise); whom to trust instead of the
      #   system's store: +ca_file:+, +ca_path:+ or +cert_store:+ (an OpenSSL::X509::Store); a
      #   client certificate: +cert:+ and +key:+ (OpenSSL objects or PEM file paths; an
      #   encrypted key file opened with +key_password:+), or +pkcs12:+ (a path or an
      #   OpenSSL::PKCS12) with +pkcs12_password:+
      # @param pool_size [Integer] most connections open at once (threads beyond wait)
      # @param deadline [Numeric, nil] seconds a whole call may take on the built-in
      #   adapters: waiting for a connection, opening it, writing the request and
      #   reading the whole response (the per-read timeouts alone let a server
      #   trickling bytes hold a call forever); nil: no limit. See README, "Deadline".
      # @param pool_timeout [Numeric, nil] seconds to wait for a free connection of the
      #   pool ({PoolTimeoutError}); nil: as long as the deadline
      # @param adapter [Symbol, Object] +:socket+ (the default: a lean HTTP/1.1 client on
      #   the standard library's sockets, {Transport::Socket}, with TLS, gzip/deflate,
      #   chunked bodies, keep-alive and the timeouts; about twice the calls per second of
      #   net/http), +:net_http+ (net/http, {Transport::NetHTTP}), +:httpx+ (the httpx gem, an
      #   optional dependency loaded only then), or an object answering the {Transport} interface
      # @param proxy [:env, String, URI::HTTP, nil] the HTTP proxy every built-in adapter goes
      #   through: +:env+ (the default) takes it from +http_proxy+/+https_proxy+ and
      #   +no_proxy+ (as URI#find_proxy reads them: never for a loopback endpoint); a URL
      #   (+"http://user:password@proxy:3128"+, credentials sent as Basic
      #   +Proxy-Authorization+) names it; nil: none. An https endpoint is reached
      #   through a CONNECT tunnel, TLS verified at the endpoint. A refusal is a {ProxyError}.
      # @param logger [Logger, nil] gets one line per call: operation, HTTP status, bytes, time
      # @param debug [#call, nil] sees each exchange as bytes, credentials filtered:
      #   called with +(:request, { path:, headers:, body: })+, then
      #   +(:response, { status:, headers: })+, then +(:response_body, piece)+ for each
      #   piece of the body as it is read (inflated), and +(:response_end, bytes)+ when
      #   the body ended. Filtered (replaced by +[FILTERED]+): the Authorization,
      #   Proxy-Authorization, Cookie and Set-Cookie headers, and the text of
      #   WS-Security +Password+ and +Nonce+ elements in the request. See README, "Debugging".
      # @param understands [Array<String>] the response header blocks this client
      #   understands, +"\{namespace}local"+ or +"local"+: a response with a
      #   +mustUnderstand+ block for it that is not one of them is a {MustUnderstandError}
      # @param decode_options [Hash] more options for every decode (+strict:+,
      #   +max_references:+, +backend:+, limits)
      def initialize(endpoint:, namespace: nil, version: "1.1", style: :document, open_timeout: 10, read_timeout: 60,
                     write_timeout: 60, headers: {}, soap_headers: [], soap_action: nil, wsse: nil, basic_auth: nil, digest_auth: nil, ntlm_auth: nil, addressing: false, mtom: nil, attachment_file_threshold: nil,
                     ssl: {}, pool_size: 5, deadline: DEFAULT_DEADLINE, pool_timeout: 10, adapter: :socket, proxy: :env,
                     logger: nil, debug: nil, understands: [], **decode_options)
        @endpoint = endpoint
        @uri = URI(endpoint)
        raise ArgumentError, "endpoint must be an http or https URL, not #{endpoint.inspect}" unless @uri.is_a?(URI::HTTP) && @uri.host

        @namespace = namespace
        @version = Version.fetch(version)
        Envelope.check_style(style)
        @style = style
        @soap_headers = soap_headers.freeze
        @soap_action = soap_action
        @wsse = wsse && WSSE.tokens(wsse)
        @mtom = MTOM.writer(mtom)
        @attachment_file_threshold = MTOM.file_threshold(attachment_file_threshold)
        if @mtom && @wsse&.any?(WSSE::Signature)
          raise ArgumentError, "mtom: with a WSSE::Signature is not supported (the signature would cover the attachments' markers)"
        end

        @verifier = @wsse&.filter_map { |token| token.verifier if token.respond_to?(:verifier) }&.first
        @logger = logger
        raise ArgumentError, "debug: must answer call(event, data), not #{debug.inspect}" unless debug.nil? || debug.respond_to?(:call)

        @debug = debug
        @decode_options = decode_options.freeze
        @addressing = addressing
        @understands = Envelope.header_names(understands + (addressing ? ADDRESSING_HEADERS : []))
        @http_headers = headers.to_h { |name, value| [name.to_s, value.to_s] }
        @http_headers["Authorization"] = basic_authorization(*basic_auth) if basic_auth
        @http_headers.freeze
        @path = @uri.request_uri
        @read_options = nil
        @read_options = read_options({}).freeze # those of a call without options of its own
        @request_headers = {} # operation => its headers (frozen), when no proc or per-call SOAPAction
        options = { open_timeout: open_timeout, read_timeout: read_timeout, write_timeout: write_timeout, ssl: ssl,
                    pool_size: pool_size, deadline: deadline, pool_timeout: pool_timeout, proxy: Transport::Proxy.for(proxy, @uri) }
        if ntlm_auth
          raise ArgumentError, "ntlm_auth: is done by the built-in adapters (NTLM authenticates a connection)" unless ADAPTERS.include?(adapter)
          raise ArgumentError, "ntlm_auth: must be [user, password] or [user, password, domain]" unless ntlm_auth.is_a?(Array) && [2, 3].include?(ntlm_auth.size)

          options[:ntlm] = Transport::NTLM.new(*ntlm_auth)
        end
        @transport = build_adapter(adapter, options)
        @transport = Transport::DigestAuth.new(@transport, *credentials(digest_auth, "digest_auth")) if digest_auth
      end

      # Calls +operation+ (what a client generated from a WSDL does for each of its
      # methods): {#call} with the operation's name, argument types, result type
      # and place, and SOAPAction.
      #
      # @param operation [Operation]
      # @param args [Hash] argument names to values, in order
      # @param options [Hash] any other keyword of {#call} (+soap_headers:+, decode options)
      # @return [Object, Array, nil]
      def invoke(operation, args = {}, **options)
        call(operation.name, args, returns: operation.returns, at: operation.at, types: operation.args,
                                   soap_action: operation.soap_action, action: operation.action,
                                   reply_action: operation.reply_action, **options)
      end

      # Streams the items of +operation+'s list result ({#each}); as {#invoke}.
      #
      # @param (see #invoke)
      # @yieldparam record [Object]
      # @return [Integer, Enumerator] how many were yielded; an Enumerator without a block
      def invoke_each(operation, args = {}, **options, &block)
        item = operation.returns.is_a?(Array) ? operation.returns.first : operation.returns
        each(operation.name, args, returns: item, at: operation.at, types: operation.args, soap_action: operation.soap_action,
                                   action: operation.action, reply_action: operation.reply_action, **options, &block)
      end

      # Calls an operation and decodes its result.
      #
      # @param operation [Symbol, String] written as given, in +namespace+
      # @param args [Hash] argument names to values, in order (see {Envelope.write})
      # @param returns [Class, Symbol, Array, nil] what {Wirebind::XML.decode} takes: a
      #   single type decodes the first child of the response element, a list type
      #   that child's items; nil returns nil
      # @param at [String, Wirebind::XML::Path, nil] a path below Body instead
      # @param types [Hash] declared types of arguments (see {Envelope.write})
      # @param soap_headers [Array<Wirebind::Model, Array(String, Object)>] more headers
      #   for this call, as the constructor's
      # @param soap_action [String, Proc, nil] this call's SOAPAction
      # @param action [String, nil] with +addressing: true+, the +wsa:Action+ sent, and
      #   the SOAPAction with it (nil: the SOAPAction)
      # @param reply_action [String, nil] with +addressing: true+, the +wsa:Action+ a
      #   reply must carry when it carries one (nil: any); another is an {AddressingError}
      # @return [Object, Array, nil]
      # @raise [Fault, HTTPError, TimeoutError, ConnectionError, ParseError, DecodeError]
      def call(operation, args = {}, returns: nil, at: nil, types: {}, soap_headers: [], soap_action: nil, action: nil, reply_action: nil,
               **decode_options)
        exchange(operation, args, types, soap_headers, soap_action, [action, reply_action]) do |reader, received|
          result = reader.decode(returns, at: at, **read_options(decode_options))
          received ? received.apply(result).tap { received.finish } : result
        end
      end

      # Calls an operation and yields the result's items one at a time, as they
      # are read: one record held at a time, the body never whole. Records
      # already yielded stay yielded when the call then fails.
      #
      # @param (see #call)
      # @yieldparam record [Object]
      # @return [Integer, Enumerator] how many were yielded; an Enumerator without a block
      def each(operation, args = {}, returns:, at: nil, types: {}, soap_headers: [], soap_action: nil, action: nil, reply_action: nil,
               **decode_options, &block)
        unless block
          return enum_for(:each, operation, args, returns: returns, at: at, types: types, soap_headers: soap_headers,
                                                  soap_action: soap_action, action: action, reply_action: reply_action, **decode_options)
        end

        exchange(operation, args, types, soap_headers, soap_action, [action, reply_action]) do |reader, received|
          next reader.each(returns, at: at, **read_options(decode_options), &block) unless received

          count = reader.each(returns, at: at, **read_options(decode_options)) { |record| block.call(received.apply(record)) }
          received.finish
          count
        end
      end

      # Closes the connections.
      # @return [void]
      def close
        @transport.close
      end

      private

      def read_options(call_options)
        return @read_options if @read_options && call_options.empty?

        # max_size bounds what is read whole (message_limit), not a decode option.
        options = @decode_options.merge(call_options).except(:max_size)
        # Every style: PHP SoapServer writes repeated values as href in literal responses too.
        options[:references] = true unless options.key?(:references)
        options
      end

      # +actions+: the WS-Addressing action sent and the one a reply must carry (nil: the SOAPAction; any).
      def exchange(operation, args, types, call_headers, call_action, actions, &block)
        operation = operation.to_s
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        security = @wsse && WSSE::Request.new(@wsse)
        message_id = @addressing ? Addressing.message_id : nil
        # WS-Addressing's SOAP binding: a SOAPAction that is not empty is the wsa:Action.
        call_action = actions[0] if message_id && actions[0]
        header_xml = [
          message_id && Addressing.request_xml(action: soap_action_for(operation, call_action), to: @endpoint, message_id: message_id),
          security&.header_xml
        ].compact.join
        mtom = @mtom&.message(args, types)
        body = Envelope.write(+"", operation: operation, namespace: @namespace, parts: mtom ? mtom.parts : args, types: types, version: @version,
                                   style: @style, headers: @soap_headers + call_headers, header_xml: header_xml.empty? ? nil : header_xml,
                                   body_id: security&.body_id)
        body = security.finish(body) if security
        headers = request_headers(operation, call_action)
        body, headers = mtom_request(mtom, body, headers) if mtom&.any?
        status = nil
        counter = nil
        @debug&.call(:request, { path: @path, headers: DebugReader.filter_headers(headers), body: DebugReader.filter_body(body) })
        outcome = @transport.request(@path, headers, body) do |code, response_headers, reader|
          status = code
          if @debug
            @debug.call(:response, { status: code, headers: DebugReader.filter_headers(response_headers) })
            reader = DebugReader.new(reader, @debug)
          end
          counter = CountingReader.new(reader)
          respond(code, response_headers, counter, message_id && [message_id, actions[1]], &block)
        end
        raise outcome if outcome.is_a?(Error)

        outcome
      ensure
        log(operation, status, counter, started)
      end

      # The result; or a Fault or HTTPError, returned so that the transport reads
      # the rest of the body and keeps the connection. +addressed+: the request's
      # MessageID and the reply's action (nil without addressing).
      def respond(status, headers, reader, addressed)
        unless (200..299).cover?(status)
          reader = PeekReader.new(reader, HTTPError::BODY_LIMIT)
          return HTTPError.new(status, reader.peeked) unless soap_body?(headers, reader)
        end
        return nil if [202, 204].include?(status)

        source = reader
        if MTOM.package?(headers["content-type"])
          received = MTOM.receive(reader, headers["content-type"], limit: message_limit, file_threshold: @attachment_file_threshold)
          source = StringIO.new(received.xml)
        end
        source = verified(source) if @verifier && (200..299).cover?(status)
        envelope = Envelope::Reader.new(source, http_status: status, **limits)
        return envelope.fault if envelope.fault
        return HTTPError.new(status, reader.peeked) unless (200..299).cover?(status)

        unknown = Envelope.not_understood(envelope.must_understand, @understands)
        return MustUnderstandError.new(unknown) unless unknown.empty?

        Addressing.check_reply(envelope.headers, *addressed) if addressed

        yield envelope, received
      rescue ParseError, DecodeError => e
        raise ConnectionError, "the response body ended before the envelope closed (#{e.message})" if reader.truncated?(e)
        raise if (200..299).cover?(status)

        HTTPError.new(status, reader.respond_to?(:peeked) ? reader.peeked : "")
      ensure
        received&.discard unless received&.finished? # the files of a call that failed
      end

      def limits
        @decode_options.slice(*XML::DEFAULT_LIMITS.keys)
      end

      # An error status may still carry a SOAP fault (SOAP 1.1 says 500); a body
      # that does not start like XML is an error page.
      def soap_body?(headers, reader)
        type = headers["content-type"].to_s
        return true if type.include?("xml")

        reader.peeked.lstrip.start_with?("<?xml", "<") && !reader.peeked.lstrip.downcase.start_with?("<!doctype html", "<html")
      end

      # The same few operations call after call: their headers are made once
      # (at most REQUEST_HEADERS_KEPT of them; a proc's action is asked each call).
      def request_headers(operation, call_action)
        return build_request_headers(operation, call_action) if call_action || @soap_action.is_a?(Proc)

        @request_headers[operation] || begin
          headers = build_request_headers(operation, nil).freeze
          @request_headers = @request_headers.merge(operation.dup.freeze => headers) if @request_headers.size < REQUEST_HEADERS_KEPT
          headers
        end
      end
      # The WS-Addressing header blocks a client with +addressing: true+ understands.
      ADDRESSING_HEADERS = Shareable.make(%w[Action MessageID To From ReplyTo FaultTo RelatesTo].map { |name| "{#{Addressing::NS}}#{name}" })
      private_constant :ADDRESSING_HEADERS
      REQUEST_HEADERS_KEPT = 256
      private_constant :REQUEST_HEADERS_KEPT

      def build_request_headers(operation, call_action)
        action = soap_action_for(operation, call_action)
        headers = @http_headers.dup
        @version.request_headers(headers, action)
      end

      # The request as an MTOM package: its body and headers.
      def mtom_request(message, envelope, headers)
        type = headers["Content-Type"]
        root_type = @version.mtom_root_type(type)
        body, content_type = message.package(envelope, root_type)
        [body, headers.merge("Content-Type" => content_type)]
      end

      def soap_action_for(operation, call_action)
        action = call_action || @soap_action
        case action
        when nil then @namespace ? "#{@namespace.chomp('/')}/#{operation}" : operation
        when Proc then action.call(operation).to_s
        else action.to_s
        end
      end

      def credentials(pair, option)
        raise ArgumentError, "#{option}: must be [user, password]" unless pair.is_a?(Array) && pair.size == 2

        pair
      end

      def basic_authorization(user, password)
        "Basic #{["#{user}:#{password}"].pack('m0')}"
      end

      # The whole response, verified (WSSE::Verifier), then read from memory:
      # a signature covers the whole Body, so nothing is decoded before it holds.
      def verified(reader)
        limit = message_limit
        xml = SOAP.read_whole(reader, limit) do
          raise DecodeError, "the response is larger than max_size (#{limit} bytes), the most read whole to verify its signature"
        end
        @verifier.verify(xml.force_encoding(Encoding::UTF_8))
        StringIO.new(xml)
      end

      # The most a response read whole (to verify it, or an MTOM package) may hold.
      def message_limit
        @decode_options.fetch(:max_size, WHOLE_MESSAGE_LIMIT)
      end

      def build_adapter(adapter, options)
        case adapter
        when :net_http then Transport::NetHTTP.new(@uri, **options)
        when :socket then Transport::Socket.new(@uri, **options)
        when :httpx then Transport::HTTPX.new(@uri, **options)
        when Symbol then raise ArgumentError, "adapter: must be one of #{ADAPTERS.inspect} or an adapter object, not #{adapter.inspect}"
        else
          raise ArgumentError, "an adapter answers request(path, headers, body) { |status, headers, reader| }" unless adapter.respond_to?(:request)

          adapter
        end
      end

      # For {Stub}: what writing a response for this client takes.
      def wire_settings
        { namespace: @namespace, version: @version, style: @style }
      end

      # For {Stub}: puts +adapter+ in the transport's place.
      # @return [Object] the transport it replaced
      def swap_transport(adapter)
        previous = @transport
        @transport = adapter
        previous
      end

      # Never the body or headers: they may hold passwords or tokens.
      def log(operation, status, counter, started)
        return unless @logger

        elapsed = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000
        @logger.info(format("SOAP %s: HTTP %s, %d bytes, %.1f ms", operation, status || "-", counter ? counter.bytes : 0, elapsed))
      end

      # Hands each piece of the body to the +debug:+ hook as it is read; and the
      # filters for what the hook sees.
      # @api private
      class DebugReader
        FILTERED = "[FILTERED]"
        SECRET_HEADERS = %w[authorization proxy-authorization cookie set-cookie].freeze
        # The text of a WS-Security Password or Nonce element, whatever its prefix.
        SECRET_ELEMENT = %r{(<(?:[A-Za-z_][\w.-]*:)?(?:Password|Nonce)(?:\s[^>]*)?>)[^<]*(</)}

        def initialize(reader, hook)
          @reader = reader
          @hook = hook
          @bytes = 0
        end

        def read(size)
          piece = @reader.read(size)
          if piece
            @bytes += piece.bytesize
            @hook.call(:response_body, piece.b)
          else
            @hook.call(:response_end, @bytes)
          end
          piece
        end

        def self.filter_headers(headers)
          headers.to_h { |name, value| [name, SECRET_HEADERS.include?(name.to_s.downcase) ? FILTERED : value] }
        end

        def self.filter_body(body)
          body.b.gsub(SECRET_ELEMENT) { "#{Regexp.last_match(1)}#{FILTERED}#{Regexp.last_match(2)}" }
        end
      end

      # Counts the body's bytes and remembers whether it ended, for the log and to
      # tell a truncated body from a malformed one.
      # @api private
      class CountingReader
        attr_reader :bytes

        def initialize(reader)
          @reader = reader
          @bytes = 0
          @ended = false
        end

        def read(size)
          chunk = @reader.read(size)
          if chunk
            @bytes += chunk.bytesize
          else
            @ended = true
          end
          chunk
        end

        # A parse error at the very end of a body that ended: the body was cut
        # short (a server that closed the connection mid-response without a length).
        def truncated?(error)
          @ended && error.is_a?(ParseError) && error.reason == :truncated
        end
      end

      # Keeps the first bytes of an error response for HTTPError#body, then
      # replays them.
      # @api private
      class PeekReader
        attr_reader :peeked

        def initialize(reader, limit)
          @reader = reader
          @peeked = +""
          @pending = []
          while @peeked.bytesize < limit && (chunk = reader.read(limit))
            @peeked << chunk
            @pending << chunk
          end
          @peeked = @peeked.byteslice(0, limit).force_encoding(Encoding::UTF_8)
        end

        def read(size)
          return @pending.shift unless @pending.empty?

          @reader.read(size)
        end

        def truncated?(error)
          @reader.truncated?(error)
        end
      end
      private_constant :CountingReader, :PeekReader, :DebugReader
    end
  end
end
