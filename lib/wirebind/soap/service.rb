# frozen_string_literal: true

require "stringio"

module Wirebind
  module SOAP
    # A Rack application serving SOAP from the same models as the client: requests
    # are read with {Envelope::Reader} and the codecs, answers written by
    # {Envelope.write} as a streaming body, +GET ?wsdl+ answered with a WSDL 1.1
    # generated from the operations and models ({WSDLWriter}).
    #
    # @example
    #   class JiraService < Wirebind::SOAP::Service
    #     namespace "http://soap.rpc.jira.atlassian.com"
    #     style :rpc_encoded
    #     multi_ref true
    #     operation :getIssuesFromJqlSearch, args: { in0: :string, in1: :string, in2: :integer },
    #                                        returns: [RemoteIssue] do |token, jql, max|
    #       Enumerator.new { |y| max.times { |n| y << RemoteIssue.new(key: "OPS-#{n}") } }
    #     end
    #   end
    #   # config.ru: run JiraService.new
    #
    # An operation's block is called with the decoded arguments, in the order
    # of +args:+, and returns the result: a value of +returns:+, or, for a list,
    # an Array or an Enumerator (streamed out as it is produced). It answers with
    # a fault by raising {Fault}. The block is not run in the service's context
    # (no +instance_eval+): it sees what it closes over.
    #
    # Responses are written in pieces of {PIECE_SIZE} bytes, each a String of its
    # own. The first piece is produced before the status is sent, so a {Fault} (or
    # any exception) raised before then, by the operation or by an Enumerator's
    # first records, becomes a fault response. One raised later cannot change the
    # status any more: the body is cut short (the client sees a connection closed
    # before the envelope ended) and the exception goes to the server's log. The
    # body must be iterated on the thread that called {#call}, as Rack servers do.
    #
    # Faults: HTTP 500, except SOAP 1.2 +Sender+ faults (400, as SOAP 1.2's HTTP
    # binding says). A request that is not well-formed or does not fit the
    # operation's arguments is a +Client+ (+Sender+) fault saying why; an
    # unexpected exception a +Server+ (+Receiver+) fault saying only that, its
    # class and message written to +rack.errors+.
    class Service
      # Bytes per piece of a response body.
      PIECE_SIZE = Chunks::SIZE
      # What {.version} accepts.
      VERSION_SETTINGS = ["1.1", "1.2", :both].freeze

      # An operation as declared: a {SOAP::Operation}, what the WSDL writer
      # reads (the name kept for code that names it here).
      Operation = SOAP::Operation

      OPERATION_NAME = XML::Syntax::NCNAME_ONLY
      # Settings copied into each subclass (each value frozen: sharing is copying).
      SETTINGS = %i[@__wbs_namespace @__wbs_style @__wbs_version @__wbs_multi_ref @__wbs_operations @__wbs_handlers
                    @__wbs_understands @__wbs_on_error @__wbs_wsse @__wbs_addressing @__wbs_mtom
                    @__wbs_attachment_file_threshold].freeze
      LOCK = Mutex.new
      # Where the endpoint's address goes in the +?wsdl+ written once (no name
      # of a description holds it: the text is split there).
      WSDL_LOCATION = "urn:wirebind:endpoint:#{Random.new_seed.to_s(36)}".freeze
      # Raised into a suspended response when the server closes its body early.
      class Closed < StandardError; end
      private_constant :OPERATION_NAME, :SETTINGS, :LOCK, :Closed

      class << self
        # Reads, or sets, the namespace of the operations (and of the WSDL's types).
        # @param uri [String, nil]
        # @return [String, nil]
        def namespace(uri = nil)
          unless uri.nil?
            raise ArgumentError, "namespace must be a non-empty String, not #{uri.inspect}" unless uri.is_a?(String) && !uri.empty?

            change { @__wbs_namespace = -uri }
          end
          @__wbs_namespace
        end

        # Reads, or sets, the message style: +:document+ (document/literal wrapped, the default),
        # +:rpc+ (rpc/literal) or +:rpc_encoded+ (SOAP 1.1 encoding).
        # @param value [Symbol, nil]
        # @return [Symbol]
        def style(value = nil)
          unless value.nil?
            Envelope.check_style(value)
            if value == :rpc_encoded
              operations.each { |op| Envelope::EncodedWriter.check_types([*op.args.values, op.returns], "#{self} operation #{op.name}") }
            end
            change { @__wbs_style = value }
          end
          @__wbs_style
        end

        # Reads, or sets, the SOAP versions served: +"1.1"+ (the default), +"1.2"+, or
        # +:both+ (told apart by the request's Content-Type, +text/xml+ or +application/soap+xml+).
        # @param value [String, Symbol, nil]
        # @return [String, Symbol]
        def version(value = nil)
          unless value.nil?
            value = value.to_s unless value == :both
            unless VERSION_SETTINGS.include?(value)
              raise ArgumentError, "version must be \"1.1\", \"1.2\" or :both, not #{value.inspect}"
            end

            change { @__wbs_version = value }
          end
          @__wbs_version
        end

        # Reads, or sets, whether +:rpc_encoded+ responses write each record as an
        # Axis-style +multiRef+ (+href="#idN"+), as Axis 1 services (JIRA's) do.
        # @param value [Boolean, nil]
        # @return [Boolean]
        def multi_ref(value = nil)
          unless value.nil?
            raise ArgumentError, "multi_ref must be true or false, not #{value.inspect}" unless [true, false].include?(value)

            change { @__wbs_multi_ref = value }
          end
          @__wbs_multi_ref
        end

        # Reads, or adds to, the request header blocks the service understands
        # (its Rack middleware or operations process them): a request with a
        # +mustUnderstand+ block for this node that is none of them is answered with
        # a +MustUnderstand+ fault (SOAP 1.1 §4.2.3, SOAP 1.2 Part 1 §5.2.3, WS-I BP R1027).
        # @param names [Array<String>] +"\{namespace}local"+, or +"local"+ for any namespace
        # @return [Array<Array(String, String)>] local names and namespaces (nil: any)
        def understands(*names)
          change { @__wbs_understands = (@__wbs_understands + Envelope.header_names(names)).freeze } unless names.empty?
          @__wbs_understands
        end

        # Sets, or reads, what is called with an unexpected exception raised by an
        # operation (not a {Fault}), before the caller is answered with a generic
        # +Server+ fault: the exception (with its backtrace) and the Rack env. The
        # default writes its class and message to +rack.errors+.
        # @yieldparam error [Exception]
        # @yieldparam env [Hash] the Rack env
        # @return [Proc, nil]
        def on_error(&block)
          change { @__wbs_on_error = block } if block
          @__wbs_on_error
        end

        # Sets, or reads, what the service requires of each request's WS-Security
        # header (a {WSSE::Policy}: a UsernameToken, a Timestamp, a signature).
        # A request that fails is answered with its WS-Security fault and no
        # operation is called; one that passes has the Rack env's +"wirebind.wsse"+
        # set to who it was authenticated as ({WSSE::Policy::Result}). The request
        # is read whole before it is checked (bounded like every request).
        # @param policy [WSSE::Policy, nil]
        # @return [WSSE::Policy, nil]
        def wsse(policy = nil)
          unless policy.nil?
            raise ArgumentError, "wsse takes a Wirebind::SOAP::WSSE::Policy, not #{policy.inspect}" unless policy.is_a?(WSSE::Policy)

            change { @__wbs_wsse = policy }
            understands("{#{WSSE::WSSE_NS}}Security")
          end
          @__wbs_wsse
        end

        # Sets, or reads, whether the service speaks WS-Addressing 1.0 ({Addressing}):
        # it understands the +wsa:+ request headers (also when +mustUnderstand+),
        # and each reply carries +wsa:Action+ (the request's Action followed by
        # +Response+) and +wsa:RelatesTo+ naming the request's +wsa:MessageID+.
        # Faults are written without them.
        # @param value [Boolean, nil]
        # @return [Boolean]
        def addressing(value = nil)
          unless value.nil?
            change { @__wbs_addressing = value ? true : false }
            understands(*%w[Action MessageID To From ReplyTo FaultTo RelatesTo].map { |name| "{#{Addressing::NS}}#{name}" }) if value
          end
          @__wbs_addressing
        end

        # Sets, or reads, when responses are MTOM/XOP packages ({MTOM}): +:request+
        # (the default) when the request was one; +true+ or +{ threshold: bytes }+
        # always; +false+ never. Each +:base64+ value of at least the threshold
        # (default {MTOM::DEFAULT_THRESHOLD} bytes) then goes as an attachment; a
        # response with none is plain XML. An MTOM response is written whole before
        # it is sent (a streamed one cannot hold its parts after the envelope).
        # @param value [Boolean, Hash, Symbol, nil]
        # @return [Boolean, Hash, Symbol]
        def mtom(value = nil)
          unless value.nil?
            MTOM.writer(value) unless value == :request # checks it
            change { @__wbs_mtom = value.is_a?(Hash) ? value.dup.freeze : value }
          end
          @__wbs_mtom
        end

        # Sets, or reads, the size from which the attachments of an MTOM request
        # are streamed to a Tempfile instead of memory: the operation's +:base64+
        # argument is then that Tempfile (binary, at its start), removed once the
        # operation has returned (copy what you keep). nil (the default): Strings.
        # @param bytes [Integer, nil]
        # @return [Integer, nil]
        def attachment_file_threshold(bytes = nil)
          change { @__wbs_attachment_file_threshold = MTOM.file_threshold(bytes) } unless bytes.nil?
          @__wbs_attachment_file_threshold
        end

        # Declares an operation.
        #
        # @param name [Symbol, String] the operation element's local name
        # @param args [Hash{Symbol => Object}] argument names to types (what
        #   {Wirebind::XML.decode} takes: a scalar Symbol, a model class, a one-element Array)
        # @param returns [Object, nil] the result's type; nil for none
        # @param soap_action [String, nil] default: +"#{namespace}/#{name}"+
        # @yield the decoded arguments, in the order of +args+; a block that declares a
        #   +context:+ keyword also gets a {Context} (the Rack env, the request's headers)
        # @yieldreturn [Object] the result (a list may be an Enumerator)
        # @return [Operation]
        # @raise [ArgumentError] a bad name, a name declared twice, a bad type, no block
        def operation(name, args: {}, returns: nil, soap_action: nil, &block)
          name = name.to_s
          raise ArgumentError, "an operation name must be an XML name without a prefix, not #{name.inspect}" unless name.match?(OPERATION_NAME)
          raise ArgumentError, "operation #{name}: args: must be a Hash of names to types" unless args.is_a?(Hash)
          raise ArgumentError, "operation #{name} needs a block" unless block
          raise ArgumentError, "operation #{name}: soap_action: must be a String" unless soap_action.nil? || soap_action.is_a?(String)

          args = args.to_h { |arg, type| [check_arg(name, arg), check_type(name, type)] }.freeze
          returns = check_type(name, returns) unless returns.nil?
          Envelope::EncodedWriter.check_types([*args.values, returns], "#{self} operation #{name}") if style == :rpc_encoded
          operation = Operation.new(name: -name, args: args, returns: returns, soap_action: soap_action && -soap_action).freeze
          change do
            raise ArgumentError, "operation #{name} is declared twice" if @__wbs_operations.any? { |op| op.name == name }

            @__wbs_operations = [*@__wbs_operations, operation].freeze
            @__wbs_handlers = [*@__wbs_handlers, block].freeze
          end
          operation
        end

        # @return [Array<Operation>] the operations, in declaration order, inherited ones first
        def operations
          @__wbs_operations
        end

        # @param operation [Operation]
        # @return [String] the SOAPAction of +operation+
        def soap_action_for(operation)
          operation.soap_action || "#{namespace}/#{operation.name}"
        end

        # @api private
        # @return [Array<Proc>] the operations' blocks, by index, frozen
        def handlers
          @__wbs_handlers
        end

        # @api private
        # @return [Dispatch] what requests are dispatched with, built once per schema
        def dispatch
          @__wbs_dispatch || LOCK.synchronize { @__wbs_dispatch ||= Dispatch.new(self) }
        end

        # @api private
        # @return [Array<String>] the +?wsdl+ answer, written once per schema (a
        #   frozen value: shared by threads, and by processes forked after it was
        #   written), split where the endpoint's address goes
        def wsdl_pieces
          @__wbs_wsdl || LOCK.synchronize { @__wbs_wsdl ||= WSDLWriter.new(self, WSDL_LOCATION).write.split(WSDL_LOCATION, -1).each(&:freeze).freeze }
        end

        private

        def inherited(subclass)
          super
          SETTINGS.each { |ivar| subclass.instance_variable_set(ivar, instance_variable_get(ivar)) }
          subclass.instance_variable_set(:@__wbs_dispatch, nil)
          subclass.instance_variable_set(:@__wbs_wsdl, nil)
        end

        def change
          LOCK.synchronize do
            yield
            @__wbs_dispatch = nil
            @__wbs_wsdl = nil
          end
        end

        def check_arg(operation, arg)
          return arg.to_sym if arg.to_s.match?(OPERATION_NAME)

          raise ArgumentError, "operation #{operation}: #{arg.inspect} is not an XML name for an argument"
        end

        def check_type(operation, type)
          item = type.is_a?(Array) && type.size == 1 ? type.first : type
          return type.is_a?(Array) ? type.dup.freeze : type if Types::SCALARS.include?(item) || (item.is_a?(Class) && item.include?(Wirebind::Model))

          raise ArgumentError, "operation #{operation}: #{type.inspect} is not a type (a scalar Symbol, a model class, or a one-element Array of one)"
        end
      end

      @__wbs_namespace = nil
      @__wbs_style = :document
      @__wbs_version = "1.1"
      @__wbs_multi_ref = false
      @__wbs_operations = [].freeze
      @__wbs_handlers = [].freeze
      @__wbs_understands = [].freeze
      @__wbs_on_error = nil
      @__wbs_wsse = nil
      @__wbs_addressing = false
      @__wbs_mtom = :request
      @__wbs_attachment_file_threshold = nil
      @__wbs_dispatch = nil
      @__wbs_wsdl = nil

      # What an operation block that declares a +context:+ keyword receives: the
      # request's Rack env and its SOAP header blocks, decoded on demand by the
      # model given.
      #
      # @example
      #   operation :whoAmI, returns: :string do |context:|
      #     auth = context.header(AuthHeader) # nil when the request has none
      #     auth ? auth.user : context.env["REMOTE_ADDR"]
      #   end
      class Context
        # @return [Hash] the Rack env of the request
        attr_reader :env
        # @return [Array<Array(String, String, String)>] each header block: local name,
        #   namespace and XML, as {Envelope::Reader#headers}
        attr_reader :header_blocks

        # @param env [Hash]
        # @param header_blocks [Array<Array(String, String, String)>]
        def initialize(env, header_blocks)
          @env = env
          @header_blocks = header_blocks
        end

        # The first header block whose name is the model's +xml_root+ (and namespace
        # its +xml_namespace+, when it declares one), decoded by it.
        # @param model [Class] a {Wirebind::Model} class
        # @return [Wirebind::Model, nil] nil when the request has no such block
        # @raise [Fault] a +Client+ fault when the block does not fit the model
        def header(model)
          root = model.xml_root
          namespace = model.xml_namespace_uri
          block = @header_blocks.find { |local, uri| local == root && (namespace.nil? || namespace == uri) } or return nil
          XML.decode(block[2], model)
        rescue ParseError, DecodeError => e
          raise Fault.new(code: "Client", reason: "the #{root} header could not be read: #{e.message}")
        end
      end

      # Per service class: each operation's arguments model and names, looked up
      # by the operation element's local name or by SOAPAction.
      # @api private
      class Dispatch
        # @api private
        Entry = Struct.new(:operation, :index, :arguments, :response, :result, :context)

        attr_reader :by_name, :by_action

        def initialize(service)
          style = service.style
          @by_name = {}
          @by_action = {}
          service.operations.each_with_index do |operation, index|
            arguments = Envelope.arguments_model(operation.args, style)
            # An operation block that takes a context: keyword gets one (others are called as before).
            context = service.handlers.fetch(index).parameters.any? { |kind, name| name == :context && %i[key keyreq].include?(kind) }
            entry = Entry.new(operation, index, arguments, -"#{operation.name}Response", -"#{operation.name}Return", context).freeze
            @by_name[operation.name] = entry
            @by_action[service.soap_action_for(operation)] = entry
          end
          @by_name.freeze
          @by_action.freeze
          freeze
        end
      end

      # Answers a Rack request: +POST+ a SOAP request, +GET ?wsdl+ the WSDL.
      #
      # @param env [Hash] the Rack environment
      # @return [Array(Integer, Hash, #each)]
      def call(env)
        case env["REQUEST_METHOD"]
        when "POST" then soap(env)
        when "GET", "HEAD"
          if wsdl_query?(env["QUERY_STRING"])
            body = self.class.wsdl_pieces.join(XML::Escape.attribute(location(env)))
            [200, { "content-type" => "text/xml; charset=utf-8", "content-length" => body.bytesize.to_s },
             env["REQUEST_METHOD"] == "HEAD" ? [] : [body]]
          else
            text(404, "a SOAP endpoint: POST requests, or GET ?wsdl for its WSDL\n")
          end
        else
          text(405, "a SOAP endpoint takes POST (and GET ?wsdl)\n").tap { |response| response[1]["allow"] = "GET, HEAD, POST" }
        end
      end

      private

      def soap(env)
        service = self.class
        version = request_version(env["CONTENT_TYPE"])
        unless version
          served = service.version == :both ? "text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2)" : Version.fetch(service.version).content_type
          return fault(Fault.new(code: "Client", reason: "Content-Type #{env['CONTENT_TYPE'].inspect} is not #{served}"),
                       default_version, status: 415)
        end

        if (mtom_request = MTOM.package?(env["CONTENT_TYPE"]))
          received = MTOM.receive(env["rack.input"] || StringIO.new, env["CONTENT_TYPE"], file_threshold: service.attachment_file_threshold)
          env = env.merge("rack.input" => StringIO.new(received.xml))
        end
        env = secured(env, version, service.wsse) if service.wsse
        entry, arguments, headers = read_request(env, version, service.dispatch)
        arguments = received.apply(arguments).tap { received.finish } if received
        handler = service.handlers.fetch(entry.index)
        result = entry.context ? handler.call(*arguments, context: Context.new(env, headers)) : handler.call(*arguments)
        header_xml = service.addressing ? addressing_reply(headers, entry) : nil
        mtom = service.mtom == :request ? mtom_request : service.mtom
        return respond_mtom(entry, result, version, header_xml, mtom) if mtom

        respond(env, entry, result, version, header_xml)
      rescue Fault => e
        fault(e, version || default_version)
      rescue ParseError, DecodeError, AttachmentError => e
        fault(Fault.new(code: "Client", reason: "the request could not be read: #{e.message}"), version || default_version)
      rescue StandardError => e
        internal_error(env, e, version || default_version)
      ensure
        received&.discard # the attachments in files live as long as the operation
      end

      # The request read whole and checked by the service's WS-Security policy:
      # the env to go on with, the body in memory and who sent it noted.
      def secured(env, version, policy)
        xml = SOAP.read_whole(env["rack.input"] || StringIO.new, WHOLE_MESSAGE_LIMIT) do
          raise Fault.new(code: "Client", reason: "the request is larger than #{WHOLE_MESSAGE_LIMIT} bytes")
        end
        result = policy.check(xml.force_encoding(Encoding::UTF_8), version)
        env.merge("rack.input" => StringIO.new(xml), "wirebind.wsse" => result)
      end

      # @return [Array(Dispatch::Entry, Array)] the operation and its arguments
      def read_request(env, version, dispatch)
        reader = Envelope::Reader.new(env["rack.input"] || "")
        raise Fault.new(code: "Client", reason: "the request holds a fault, not an operation") if reader.fault
        if reader.version != version.number
          raise Fault.new(code: "VersionMismatch", reason: "a SOAP #{reader.version} envelope sent as #{version.media_type}")
        end

        unknown = Envelope.not_understood(reader.must_understand, self.class.understands)
        unless unknown.empty?
          names = unknown.map { |local, uri| uri ? "{#{uri}}#{local}" : local }.join(", ")
          raise Fault.new(code: "MustUnderstand", reason: "header #{names} was not understood")
        end

        action = soap_action(env, version)
        local = reader.operation&.first
        entry = local ? dispatch.by_name[local] : dispatch.by_action[action]
        raise Fault.new(code: "Client", reason: "no operation #{(local || action).inspect} here") unless entry

        named = action && dispatch.by_action[action]
        if named && !named.equal?(entry)
          raise Fault.new(code: "Client", reason: "SOAPAction #{action.inspect} names #{named.operation.name}, the body #{local}")
        end

        # References in every style: PHP SoapClient and SOAP::Lite repeat a value by
        # id and href in literal requests too.
        record = local ? reader.arguments(entry.arguments, references: true) : nil
        [entry, entry.arguments.attributes.map { |attribute| record&.instance_variable_get(attribute.ivar) }, reader.headers]
      end

      # The reply's WS-Addressing blocks, from the request's.
      def addressing_reply(headers, entry)
        action = Addressing.value(headers, "Action") || self.class.soap_action_for(entry.operation)
        Addressing.reply_xml(action: "#{action}Response", relates_to: Addressing.value(headers, "MessageID"))
      end

      def respond(env, entry, result, version, header_xml = nil)
        stream = Stream.new { |out| write_response(out, entry, response_parts(entry, result), version, header_xml) }
        first = stream.first
        headers = { "content-type" => version.content_type }
        return [200, headers.merge("content-length" => first.bytesize.to_s), [first]] if stream.done?

        [200, headers, Body.new(stream, first, env["rack.errors"])]
      end

      def response_parts(entry, result)
        entry.operation.returns.nil? ? {} : { entry.result => result }
      end

      def write_response(out, entry, parts, version, header_xml)
        service = self.class
        style = service.style
        returns = entry.operation.returns
        Envelope.write(out, operation: entry.response, namespace: service.namespace, parts: parts,
                            types: { entry.result => returns }, version: version, style: style,
                            multi_ref: service.multi_ref, wrap_lists: style == :document,
                            rpc_result: returns.nil? ? nil : entry.result, header_xml: header_xml)
      end

      # The response written whole, as an MTOM package when any value goes as an attachment.
      def respond_mtom(entry, result, version, header_xml, option)
        message = MTOM.writer(option).message(response_parts(entry, result), { entry.result => entry.operation.returns })
        xml = write_response(+"", entry, message.parts, version, header_xml)
        media = version.content_type
        body, type = message.any? ? message.package(xml, media[/\A[^;]*/]) : [xml, media]
        [200, { "content-type" => type, "content-length" => body.bytesize.to_s }, [body]]
      end

      def fault(fault, version, status: nil)
        body = Envelope.write_fault(+"", fault, version: version)
        status ||= version.fault_status(fault.code)
        [status, { "content-type" => version.content_type, "content-length" => body.bytesize.to_s }, [body]]
      end

      def internal_error(env, error, version)
        if (hook = self.class.on_error)
          begin
            hook.call(error, env)
          rescue StandardError => e
            env["rack.errors"]&.puts("#{self.class.name || 'Wirebind::SOAP::Service'}: on_error raised #{e.class}: #{e.message}")
          end
        else
          env["rack.errors"]&.puts("#{self.class.name || 'Wirebind::SOAP::Service'}: #{error.class}: #{error.message}")
        end
        fault(Fault.new(code: "Server", reason: "internal server error"), version)
      end

      def text(status, message)
        [status, { "content-type" => "text/plain; charset=utf-8", "content-length" => message.bytesize.to_s }, [message]]
      end

      def default_version
        version = self.class.version
        version == :both ? SOAP11 : Version.fetch(version)
      end

      # @return [Version, nil] the version the Content-Type says, if served
      def request_version(content_type)
        content_type = MTOM.root_type(content_type) if MTOM.package?(content_type)
        media = content_type.to_s[/\A[^;]*/].strip.downcase
        version = Version.by_media_type(media)
        served = self.class.version
        version if version && (served == :both || served == version.number)
      end

      def soap_action(env, version)
        action = version.request_action(env)
        return nil if action.nil?

        action = action.strip
        action = action[1...-1] if action.length >= 2 && action.start_with?('"') && action.end_with?('"')
        action.empty? ? nil : action
      end

      def wsdl_query?(query)
        query.to_s.split("&").any? { |pair| pair.casecmp?("wsdl") || pair.downcase.start_with?("wsdl=") }
      end

      def location(env)
        scheme = env["HTTP_X_FORWARDED_PROTO"] || env["rack.url_scheme"] || "http"
        host = env["HTTP_HOST"] || "#{env['SERVER_NAME']}:#{env['SERVER_PORT']}"
        "#{scheme}://#{host}#{env['SCRIPT_NAME']}#{env['PATH_INFO']}"
      end

      # Runs a writer in a Fiber, handing out what it writes in pieces of
      # {PIECE_SIZE} bytes (Chunks::Pieces), each a fresh String.
      # @api private
      class Stream
        def initialize(&writer)
          @fiber = Fiber.new do
            pieces = Chunks::Pieces.new { |piece| Fiber.yield piece }
            writer.call(pieces)
            pieces.rest
          end
        end

        # @return [String] the first piece (the whole response when {#done?})
        def first
          @fiber.resume
        end

        # @return [Boolean] whether the writer has finished
        def done?
          !@fiber.alive?
        end

        # @return [String, nil] the next piece
        def next_piece
          @fiber.resume
        end

        # Stops a writer that has not finished: its +ensure+ clauses run.
        def stop
          @fiber.raise(Closed) if @fiber.alive?
        rescue Closed
          nil
        end
      end

      # The Rack body of a response longer than one piece.
      # @api private
      class Body
        def initialize(stream, first, errors)
          @stream = stream
          @first = first
          @errors = errors
        end

        def each
          first = @first
          @first = nil
          yield first if first
          until @stream.done?
            piece = @stream.next_piece
            yield piece unless piece.nil? || piece.empty?
          end
        rescue Closed
          raise
        rescue StandardError => e
          # The status is sent: the body can only be cut short. Said in the server's log.
          @errors&.puts("Wirebind::SOAP::Service: the response was cut short by #{e.class}: #{e.message}")
          raise
        end

        def close
          @stream.stop
        end
      end
      private_constant :Dispatch, :Stream, :Body
    end
  end
end
