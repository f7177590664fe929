# frozen_string_literal: true

require "securerandom"
require "time"

module Wirebind
  module SOAP
    # WS-Security 1.1 for {Client} (+wsse:+), as objects that each add their
    # part to the request's +wsse:Security+ header: {UsernameToken}, {Timestamp}
    # and {Signature} (X.509, XML Signature over Body and Timestamp, which also
    # verifies signed responses). Give one, or several in an Array:
    #
    #   Client.new(endpoint: url, wsse: [
    #     WSSE::Timestamp.new(ttl: 300),
    #     WSSE::Signature.new(key: "client.key", certificate: "client.pem", verify: "server-ca.pem")
    #   ])
    #
    # Canonicalization is libxml2's exclusive C14N through Nokogiri (add
    # +nokogiri+ to your Gemfile to sign or verify); nothing here writes its own.
    # What is signed is the envelope as the codec wrote it, parsed again: the
    # request is built whole in memory (it always is), and a response to be
    # verified is read whole (bounded by +max_size+) before it is decoded, so
    # verification and streaming do not mix: +each+ with a verifying signature
    # reads the body first.
    module WSSE
      # The WS-Security extension namespace.
      WSSE_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
      # The WS-Security utility namespace (+wsu:Id+, +wsu:Timestamp+).
      WSU_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"

      autoload :UsernameToken, File.expand_path("wsse/username_token", __dir__)
      autoload :Timestamp, File.expand_path("wsse/timestamp", __dir__)
      autoload :Signature, File.expand_path("wsse/signature", __dir__)
      autoload :Verifier, File.expand_path("wsse/verifier", __dir__)
      autoload :Canonical, File.expand_path("wsse/canonical", __dir__)
      autoload :Policy, File.expand_path("wsse/policy", __dir__)

      class << self
        # The client's +wsse:+ option as a list of tokens: a Hash is a
        # {UsernameToken}'s options (the form older versions took).
        # @api private
        def tokens(option)
          list = option.is_a?(Array) ? option : [option]
          list.map do |token|
            next UsernameToken.new(**token) if token.is_a?(Hash)
            next token if token.respond_to?(:security_xml)

            raise ArgumentError, "wsse: takes WSSE::UsernameToken, Timestamp, Signature (or a Hash of UsernameToken options), not #{token.inspect}"
          end.freeze
        end

        # A fresh +wsu:Id+.
        # @api private
        def id(kind)
          "#{kind}-#{SecureRandom.hex(12)}"
        end
      end

      # One request's WS-Security: the header every token writes into (in the
      # order WS-I BSP asks: Timestamp first, the Signature last, after the
      # token it references), and the signing of the written envelope.
      # @api private
      class Request
        attr_reader :body_id

        def initialize(tokens)
          @tokens = tokens.sort_by { |token| token.is_a?(Timestamp) ? 0 : 1 }
          @signature = tokens.find { |token| token.is_a?(Signature) }
          @body_id = @signature && WSSE.id("Body")
          @header = +%(<wsse:Security xmlns:wsse="#{WSSE_NS}" xmlns:wsu="#{WSU_NS}" #{MUST_UNDERSTAND}>)
          @tokens.each { |token| @header << token.security_xml(self) }
          @header << "</wsse:Security>"
        end

        # The +wsu:Id+s of the request's Timestamp and BinarySecurityToken, set by
        # the tokens that write them.
        attr_accessor :timestamp_id, :token_id

        # @return [String] the +wsse:Security+ element
        def header_xml
          @header
        end

        # @param envelope [String] the envelope as written, with {#header_xml} in it
        # @return [String] the envelope to send: signed when a Signature is among the tokens
        def finish(envelope)
          return envelope unless @signature

          @signature.sign(envelope, @header, body_id: @body_id, timestamp_id: @timestamp_id, token_id: @token_id)
        end

        # mustUnderstand on the Security header, as WS-Security 1.1 servers expect.
        MUST_UNDERSTAND = %(soapenv:mustUnderstand="1")
      end
    end
  end
end
