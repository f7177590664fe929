# frozen_string_literal: true

module Wirebind
  module SOAP
    module Transport
      # NTLM (NTLMv2) authentication, as IIS-hosted services (Exchange,
      # SharePoint, Dynamics, WCF with Windows authentication) ask for it, with
      # the messages made by the rubyntlm gem. NTLM authenticates a connection,
      # not a request: the first request on each new connection carries the
      # Negotiate message, the server's 401 the challenge, the same request again
      # the Authenticate message; later requests on that connection go as they
      # are. {Socket} does this per pooled connection (the client's +ntlm_auth:+).
      # @api private
      class NTLM
        # @param user [String]
        # @param password [String]
        # @param domain [String]
        def initialize(user, password, domain = "")
          begin
            require "rubyntlm"
          rescue LoadError
            raise ArgumentError, "ntlm_auth: needs the rubyntlm gem: add it to your Gemfile"
          end
          @credentials = { user: user.to_s, password: password.to_s, domain: domain.to_s }.freeze
        end

        # @return [String] the Authorization header of the Negotiate message
        def negotiate
          "NTLM #{Net::NTLM::Message::Type1.new.encode64}"
        end

        # @param header [String] a 401's WWW-Authenticate (several challenges may be joined)
        # @return [String, nil] the server's NTLM challenge (base64), when it sent one
        def challenge(header)
          header.to_s[%r{(?:\A|,\s*)NTLM\s+([A-Za-z0-9+/]+=*)}, 1]
        end

        # @param challenge [String] base64, from {#challenge}
        # @return [String] the Authorization header of the Authenticate message
        def authenticate(challenge)
          type2 = Net::NTLM::Message.decode64(challenge)
          raise ConnectionError, "the server's NTLM challenge is not a challenge message" unless type2.is_a?(Net::NTLM::Message::Type2)

          "NTLM #{type2.response(@credentials, ntlmv2: true).encode64}"
        rescue ArgumentError, NoMethodError, IndexError => e
          raise ConnectionError, "the server's NTLM challenge cannot be read: #{e.message}"
        end

        # No password in logs or error messages.
        def inspect
          "#<#{self.class.name} #{@credentials[:domain]}\\#{@credentials[:user]}>"
        end
      end
    end
  end
end
