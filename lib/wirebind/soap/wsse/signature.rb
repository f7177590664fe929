# frozen_string_literal: true

require "openssl"

module Wirebind
  module SOAP
    module WSSE
      # An X.509 signature (WS-Security X.509 Token Profile 1.1, XML Signature):
      # the certificate goes in a +BinarySecurityToken+, and a +ds:Signature+
      # over the Body and the {Timestamp} (when there is one), each digested
      # after exclusive C14N, signed with RSA-SHA256 (+digest: :sha1+ for old
      # servers: RSA-SHA1 and SHA-1 digests).
      #
      # With +verify:+, responses must be signed too: see {Verifier} for what is
      # checked. A response that fails is an error, never delivered.
      class Signature
        ALGORITHMS = Shareable.make(
          sha256: ["http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", "http://www.w3.org/2001/04/xmlenc#sha256", "SHA256"],
          sha1: ["http://www.w3.org/2000/09/xmldsig#rsa-sha1", "http://www.w3.org/2000/09/xmldsig#sha1", "SHA1"]
        )
        X509V3 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
        BASE64 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
        private_constant :ALGORITHMS, :X509V3, :BASE64

        # @param key [OpenSSL::PKey::RSA, String, nil] the private key, or the path of its PEM file
        # @param certificate [OpenSSL::X509::Certificate, String, nil] the certificate, or its PEM path
        # @param key_password [String, nil] the passphrase of an encrypted key file
        # @param pkcs12 [OpenSSL::PKCS12, String, nil] key and certificate from a PKCS#12 bundle (or its path)
        # @param pkcs12_password [String, nil]
        # @param digest [Symbol] +:sha256+ or +:sha1+
        # @param verify [OpenSSL::X509::Store, OpenSSL::X509::Certificate, String, nil] whom a
        #   response's signing certificate must be trusted by (a store, a CA or the
        #   server's own certificate, or the path of a PEM file of them); nil: responses are not verified
        # @param max_skew [Numeric] seconds a response's Timestamp may be off the local clock
        def initialize(key: nil, certificate: nil, key_password: nil, pkcs12: nil, pkcs12_password: nil, digest: :sha256,
                       verify: nil, max_skew: 300)
          @key, @certificate = credentials(key, certificate, key_password, pkcs12, pkcs12_password)
          @signature_method, @digest_method, @digest = ALGORITHMS.fetch(digest) do
            raise ArgumentError, "digest: must be :sha256 or :sha1, not #{digest.inspect}"
          end
          @verifier = verify && Verifier.new(verify, max_skew: max_skew)
        end

        # @api private
        # @return [Verifier, nil]
        attr_reader :verifier

        # @api private
        def security_xml(request)
          request.token_id = WSSE.id("X509")
          %(<wsse:BinarySecurityToken EncodingType="#{BASE64}" ValueType="#{X509V3}" wsu:Id="#{request.token_id}">) +
            [@certificate.to_der].pack("m0") + "</wsse:BinarySecurityToken>"
        end

        # @api private
        # @param envelope [String] as written, with +header+ (the +wsse:Security+ element) in it
        # @return [String] the envelope with the +ds:Signature+ added at the end of +header+
        def sign(envelope, header, body_id:, timestamp_id:, token_id:)
          doc = Canonical.parse(envelope)
          references = [body_id, timestamp_id].compact.map do |id|
            digest = Canonical.digest(@digest, Canonical.exclusive(Canonical.by_id(doc, id)))
            %(<ds:Reference URI="##{id}"><ds:Transforms><ds:Transform Algorithm="#{Canonical::EXCLUSIVE}"/></ds:Transforms>) +
              %(<ds:DigestMethod Algorithm="#{@digest_method}"/><ds:DigestValue>#{digest}</ds:DigestValue></ds:Reference>)
          end
          # Declaring ds on SignedInfo itself makes its exclusive C14N the same
          # alone as inside the Signature: what is signed here is what a verifier sees.
          signed_info = %(<ds:SignedInfo xmlns:ds="#{Canonical::DS_NS}"><ds:CanonicalizationMethod Algorithm="#{Canonical::EXCLUSIVE}"/>) +
                        %(<ds:SignatureMethod Algorithm="#{@signature_method}"/>#{references.join}</ds:SignedInfo>)
          canonical = Canonical.exclusive(Canonical.parse(signed_info).root)
          value = [@key.sign(OpenSSL::Digest.new(@digest), canonical)].pack("m0")
          signature = %(<ds:Signature xmlns:ds="#{Canonical::DS_NS}" Id="#{WSSE.id('SIG')}">#{signed_info}) +
                      %(<ds:SignatureValue>#{value}</ds:SignatureValue><ds:KeyInfo><wsse:SecurityTokenReference>) +
                      %(<wsse:Reference URI="##{token_id}" ValueType="#{X509V3}"/></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>)
          at = envelope.index(header) or raise ArgumentError, "the envelope does not hold its Security header"
          envelope.dup.insert(at + header.length - "</wsse:Security>".length, signature)
        end

        # No key material in logs or error messages.
        def inspect
          "#<#{self.class.name} certificate=#{@certificate.subject} digest=#{@digest}#{' verify' if @verifier}>"
        end

        private

        def credentials(key, certificate, key_password, pkcs12, pkcs12_password)
          if pkcs12
            params = Transport.ssl_params(pkcs12: pkcs12, pkcs12_password: pkcs12_password)
            return [params.fetch(:key), params.fetch(:cert)]
          end
          raise ArgumentError, "WSSE::Signature needs key: and certificate: (or pkcs12:)" unless key && certificate

          params = Transport.ssl_params(key: key, key_password: key_password, cert: certificate)
          [params.fetch(:key), params.fetch(:cert)]
        end
      end
    end
  end
end
