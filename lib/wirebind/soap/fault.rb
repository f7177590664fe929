# frozen_string_literal: true

module Wirebind
  module SOAP
    # A SOAP fault: read from a response body (whatever the HTTP status), or raised
    # by a service operation to answer with one.
    #
    # SOAP 1.1 faults carry +faultcode+, +faultstring+, +faultactor+ and +detail+;
    # SOAP 1.2 ones +Code/Value+ with nested +Subcode/Value+s, +Reason/Text+, +Role+,
    # +Node+ and +Detail+. Both are read into the same object. Which shape a fault
    # has is told by its children, not by the envelope's namespace: servers mix them.
    #
    # @example
    #   begin
    #     client.call(:login, { in0: user, in1: password }, returns: :string)
    #   rescue Wirebind::SOAP::Fault => e
    #     e.code      # => "soapenv:Server.userException"
    #     e.reason    # => "com.atlassian.jira.rpc.exception.RemoteAuthenticationException: ..."
    #     e.detail_as(RemoteAuthenticationException)
    #   end
    class Fault < Error
      # @return [String, nil] the fault code as written, e.g. +"soapenv:Server"+ or +"env:Receiver"+
      attr_reader :code
      # @return [Array<String>] SOAP 1.2 subcode values, outermost first, as written
      attr_reader :subcodes
      # @return [String, nil] +faultstring+ (1.1) or the first +Reason/Text+ (1.2)
      attr_reader :reason
      # @return [String, nil] +faultactor+ (1.1) or +Role+ (1.2)
      attr_reader :actor
      # @return [String, nil] +Node+ (1.2)
      attr_reader :node
      # @return [Integer, nil] the HTTP status of the response that carried the fault
      attr_reader :http_status

      # @param code [String] a fault code; when writing, +"Client"+/+"Server"+ (or
      #   +"Sender"+/+"Receiver"+) is written with the envelope's prefix in 1.1 and as
      #   +Sender+/+Receiver+ in 1.2
      # @param reason [String]
      # @param detail [String, Wirebind::Model, nil] XML (the content of the detail
      #   element, or the whole +<detail>+ element as {#detail} returns it), or a model
      #   instance written as the detail's child
      # @param subcodes [Array<String>]
      # @param actor [String, nil]
      # @param node [String, nil]
      # @param http_status [Integer, nil]
      def initialize(code: "Server", reason: "", detail: nil, subcodes: [], actor: nil, node: nil, http_status: nil)
        @code = code
        @reason = reason
        @detail_value = detail
        @subcodes = subcodes.freeze
        @actor = actor
        @node = node
        @http_status = http_status
        super("#{code}: #{reason}")
      end

      alias role actor

      # @return [String, nil] the detail element's XML, +<detail>...</detail>+, with
      #   the namespace declarations in scope where it was read carried onto it, so it
      #   is well-formed on its own
      def detail
        value = @detail_value
        case value
        when nil then nil
        when String then value.match?(DETAIL_ELEMENT) ? value : "<detail>#{value}</detail>"
        else "<detail>#{XML.encode(value)}</detail>"
        end
      end

      # Decodes the detail's first child element into +type+.
      #
      # @param type [Class, Symbol] as {Wirebind::XML.decode} takes it
      # @param options [Hash] more options of {Wirebind::XML.decode}
      # @return [Object, nil] nil when there is no detail
      # @raise [DecodeError, ParseError]
      def detail_as(type, **options)
        xml = detail
        xml && XML.decode(xml, type, at: "*/*", **options)
      end

      # @return [Wirebind::Model, nil] the detail decoded into the fault model the
      #   service's WSDL declares for it (clients generated from a WSDL set it; see
      #   {Wirebind::WSDL}); nil otherwise
      attr_reader :detail_object

      # @api private
      # @return [Fault] this fault, with its decoded detail
      def with_detail_object(object)
        @detail_object = object
        self
      end

      # @api private
      # @return [String, Wirebind::Model, nil] what {#initialize} was given
      attr_reader :detail_value

      # @api private
      # @return [Fault] this fault, told the HTTP status that carried it
      def with_http_status(status)
        @http_status = status
        self
      end

      DETAIL_ELEMENT = %r{\A\s*<(?:[A-Za-z_][\w.-]*:)?[dD]etail[\s>/]}
      private_constant :DETAIL_ELEMENT
    end
  end
end
