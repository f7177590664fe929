# frozen_string_literal: true

require "stringio"
require_relative "../../wirebind"

module Wirebind
  module SOAP
    # Stubs the operations of a {Client} (hand-built or generated from a WSDL) for
    # a user's own tests, Minitest or RSpec alike: nothing goes on the network,
    # each call is answered from what was registered for its operation, and every
    # request is kept for assertions. Loaded by +require "wirebind/soap/test_helper"+.
    #
    # The stub takes the client's transport's place until {#restore} (or the end
    # of {.with}'s block): nothing global is changed, and other clients are not
    # touched. Responses go through the client's own reading, so a test sees what
    # a real answer of that shape would give: a {Fault} raised, models decoded.
    #
    # @example Minitest (RSpec: the same in an +it+ block, with +expect+)
    #   Wirebind::SOAP::Stub.with(client) do |stub|
    #     stub.on(:login, returns: { loginReturn: "tok" })
    #     stub.on(:getIssue, returns: { getIssueReturn: RemoteIssue.new(key: "OPS-1") })
    #     stub.on(:deleteIssue, fault: Wirebind::SOAP::Fault.new(code: "Server", reason: "no"))
    #     stub.on(:getRaw, xml: File.read("test/fixtures/get_raw_response.xml"))
    #     assert_equal "tok", client.call(:login, { in0: "bot", in1: "pw" }, returns: :string)
    #     assert_equal "login", stub.calls.last.operation
    #     assert_equal "bot", stub.calls.last.argument(:in0)
    #   end
    class Stub
      # A request the client sent.
      class Call
        # @return [String] the operation (Body's first element's local name)
        attr_reader :operation
        # @return [Hash{String => String}] the HTTP headers the client gave its transport
        attr_reader :headers
        # @return [String] the envelope, as bytes
        attr_reader :body

        # @api private
        def initialize(operation, headers, body)
          @operation = operation
          @headers = headers
          @body = body
        end

        # @return [String, nil] the SOAPAction (SOAP 1.1's header, or 1.2's Content-Type +action+)
        def soap_action
          @headers["SOAPAction"]&.delete('"') || @headers["Content-Type"].to_s[/action="([^"]*)"/, 1]
        end

        # One argument (a child of the operation element), decoded as +type+.
        # @param name [Symbol, String]
        # @param type [Class, Symbol, Array] what {Wirebind::XML.decode} takes
        # @return [Object, nil]
        def argument(name, type = :string)
          Envelope::Reader.new(@body).decode(type, at: "*/#{name}")
        end

        # Every argument, decoded into +model+ (see {Envelope::Reader#arguments}).
        # @param model [Class]
        # @return [Wirebind::Model, nil]
        def arguments(model)
          Envelope::Reader.new(@body).arguments(model)
        end
      end

      # A call to an operation nothing was registered for.
      class UnexpectedCall < StandardError; end

      # Stubs +client+ for the block, then restores it.
      # @param client [Client]
      # @yieldparam stub [Stub]
      # @return [Object] the block's value
      def self.with(client)
        stub = new(client)
        begin
          yield stub
        ensure
          stub.restore
        end
      end

      # @return [Array<Call>] the requests sent, in order
      attr_reader :calls

      # @param client [Client] stubbed from now until {#restore}
      def initialize(client)
        @client = client
        @settings = client.send(:wire_settings)
        @responses = {}
        @calls = []
        @lock = Mutex.new
        @original = client.send(:swap_transport, self)
      end

      # Registers the answer to +operation+ (the last registration wins). Give one of:
      # @param operation [Symbol, String]
      # @param returns [Hash, #call, nil] the response's parts (values, models, lists),
      #   written by {Envelope.write} in the client's style and version as
      #   the operation's name with "Response" appended; or a proc given the {Call} and returning them
      # @param xml [String, nil] the response envelope itself
      # @param fault [Fault, nil] answered as a fault (HTTP 500)
      # @param status [Integer] the HTTP status of a +returns:+ or +xml:+ answer
      # @return [self]
      def on(operation, returns: nil, xml: nil, fault: nil, status: 200)
        given = [returns, xml, fault].compact.size
        raise ArgumentError, "give one of returns:, xml: or fault:" unless given == 1

        @lock.synchronize { @responses[operation.to_s] = { returns: returns, xml: xml, fault: fault, status: status } }
        self
      end

      # Gives the client its own transport back.
      # @return [void]
      def restore
        @client.send(:swap_transport, @original) if @original
        @original = nil
      end

      # The transport interface (see {Transport}): records the request, answers it.
      # @api private
      def request(_path, headers, body)
        envelope = Envelope::Reader.new(body)
        operation = envelope.operation&.first.to_s
        call = Call.new(operation, headers.dup.freeze, body.b.freeze)
        response = @lock.synchronize do
          @calls << call
          @responses[operation]
        end
        raise UnexpectedCall, "no stubbed answer for #{operation.inspect} (stubbed: #{@responses.keys.join(', ')})" unless response

        status, xml = answer(operation, response, call)
        yield status, { "content-type" => @settings[:version].content_type }, StringIO.new(xml.b)
      end

      # @api private
      def close; end

      private

      def answer(operation, response, call)
        return [500, Envelope.write_fault(+"", response[:fault], version: @settings[:version])] if response[:fault]
        return [response[:status], response[:xml]] if response[:xml]

        parts = response[:returns].respond_to?(:call) ? response[:returns].call(call) : response[:returns]
        xml = Envelope.write(+"", operation: "#{operation}Response", namespace: @settings[:namespace], parts: parts,
                                  style: @settings[:style], version: @settings[:version])
        [response[:status], xml]
      end
    end
  end
end
