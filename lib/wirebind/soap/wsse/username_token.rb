# frozen_string_literal: true

require "digest/sha1"

module Wirebind
  module SOAP
    module WSSE
      # A UsernameToken (WS-Security UsernameToken Profile 1.1): the password as
      # text, or as its digest with a fresh nonce and creation time per call.
      class UsernameToken
        PROFILE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0"
        BASE64 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
        private_constant :PROFILE, :BASE64

        # @param username [String]
        # @param password [String]
        # @param digest [Boolean] send +PasswordDigest+ (Base64(SHA-1(nonce + created + password)))
        def initialize(username:, password:, digest: false)
          @username = username.to_s.freeze
          @password = password.to_s.freeze
          @digest = digest
        end

        # @api private
        # @return [String] the +wsse:UsernameToken+ element for one request
        def security_xml(_request)
          xml = +%(<wsse:UsernameToken wsu:Id="#{WSSE.id('UsernameToken')}"><wsse:Username>#{Envelope.text(@username)}</wsse:Username>)
          if @digest
            nonce = SecureRandom.random_bytes(16)
            created = Time.now.utc.iso8601(3)
            hashed = [Digest::SHA1.digest(nonce + created + @password)].pack("m0")
            xml << %(<wsse:Password Type="#{PROFILE}#PasswordDigest">) << hashed << "</wsse:Password>"
            xml << %(<wsse:Nonce EncodingType="#{BASE64}">) << [nonce].pack("m0") << "</wsse:Nonce>"
            xml << "<wsu:Created>" << created << "</wsu:Created>"
          else
            xml << %(<wsse:Password Type="#{PROFILE}#PasswordText">) << Envelope.text(@password) << "</wsse:Password>"
          end
          xml << "</wsse:UsernameToken>"
        end

        # No password in logs or error messages.
        def inspect
          "#<#{self.class.name} username=#{@username.inspect} digest=#{@digest}>"
        end
      end
    end
  end
end
