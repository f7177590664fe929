# frozen_string_literal: true

require "openssl"

module Wirebind
  module SOAP
    module WSSE
      # Verifies a signed SOAP message (a response, for {Signature}'s +verify:+):
      #
      # - the envelope's +Header+ has one +wsse:Security+ with one +ds:Signature+;
      # - its SignedInfo is canonicalized with exclusive C14N and signed with
      #   RSA-SHA256 or RSA-SHA1; each Reference names one element by Id (two
      #   elements with one Id are refused: signature wrapping), is transformed by
      #   exclusive C14N (after the enveloped-signature transform, when the element
      #   does not hold the signature), and its digest matches;
      # - the envelope's own +Body+ (the one that will be decoded, not a copy
      #   elsewhere) is among the referenced elements, and so is the Timestamp when
      #   there is one; the Timestamp was created no later than now and expires no
      #   earlier than now, each give or take +max_skew+;
      # - the signing certificate (the BinarySecurityToken the KeyInfo references,
      #   or an X509Certificate in it, directly or in a SecurityTokenReference) is trusted by the store given, and its key
      #   verifies the SignatureValue.
      #
      # Each failure is a distinct error: {SignatureError}, {UntrustedCertificateError},
      # {TimestampError}.
      # @api private
      class Verifier
        ENVELOPES = %w[http://schemas.xmlsoap.org/soap/envelope/ http://www.w3.org/2003/05/soap-envelope].freeze

        # @param trust [OpenSSL::X509::Store, OpenSSL::X509::Certificate, String] see {Signature#initialize}
        # @param max_skew [Numeric]
        def initialize(trust, max_skew:)
          @store = store(trust)
          @max_skew = max_skew
        end

        # @param message [String, Nokogiri::XML::Document] the whole message (parsed, or not yet)
        # @return [OpenSSL::X509::Certificate] the certificate that signed it
        # @raise [SignatureError, UntrustedCertificateError, TimestampError]
        def verify(message, now: Time.now)
          doc = message.is_a?(String) ? Canonical.parse(message) : message
          body, security = envelope_parts(doc)
          signature = one(security, "ds:Signature", "a ds:Signature in wsse:Security (the message is not signed)")
          signed_info = one(signature, "ds:SignedInfo", "a ds:SignedInfo")
          algorithm(signed_info, "ds:CanonicalizationMethod", { Canonical::EXCLUSIVE => true })
          hash = algorithm(signed_info, "ds:SignatureMethod", Canonical::SIGNATURES)
          signed = references(doc, signed_info)
          raise SignatureError, "the signature does not cover the envelope's Body" unless signed.include?(body)

          check_timestamp(security, signed, now)
          certificate = signing_certificate(doc, security, signature)
          value = one(signature, "ds:SignatureValue", "a ds:SignatureValue").text.unpack1("m")
          return certificate if certificate.public_key.verify(OpenSSL::Digest.new(hash), value, Canonical.exclusive(signed_info))

          raise SignatureError, "the SignatureValue does not verify with the signing certificate's key"
        rescue OpenSSL::PKey::PKeyError, OpenSSL::X509::CertificateError, ArgumentError => e
          raise SignatureError, "the signature cannot be checked: #{e.message}"
        end

        private

        def store(trust)
          return trust if trust.is_a?(OpenSSL::X509::Store)

          store = OpenSSL::X509::Store.new
          case trust
          when OpenSSL::X509::Certificate then store.add_cert(trust)
          when String then store.add_file(trust)
          else raise ArgumentError, "verify: must be an OpenSSL::X509::Store, a certificate or a PEM file's path, not #{trust.inspect}"
          end
          store
        end

        def envelope_parts(doc)
          root = doc.root
          raise SignatureError, "the message is not a SOAP envelope" unless root&.name == "Envelope" && ENVELOPES.include?(root.namespace&.href)

          children = root.element_children.select { |child| child.namespace&.href == root.namespace.href }
          header = children.find { |child| child.name == "Header" }
          body = children.find { |child| child.name == "Body" }
          raise SignatureError, "the envelope has no Body" unless body

          securities = header ? header.element_children.select { |c| c.name == "Security" && c.namespace&.href == WSSE_NS } : []
          raise SignatureError, "the message has no wsse:Security header (it is not signed)" if securities.empty?
          raise SignatureError, "the message has #{securities.size} wsse:Security headers" if securities.size > 1

          [body, securities.first]
        end

        def one(node, path, what)
          found = node.xpath(path, Canonical::NAMESPACES)
          raise SignatureError, "expected #{what}, found #{found.size}" unless found.size == 1

          found.first
        end

        def algorithm(node, path, known)
          uri = one(node, path, path)["Algorithm"]
          known.fetch(uri) { raise SignatureError, "#{path} #{uri.inspect} is not accepted" }
        end

        # @return [Array<Nokogiri::XML::Element>] the elements whose digests matched
        def references(doc, signed_info)
          references = signed_info.xpath("ds:Reference", Canonical::NAMESPACES)
          raise SignatureError, "the signature has no Reference" if references.empty?

          references.map do |reference|
            uri = reference["URI"].to_s
            raise SignatureError, "a Reference URI must name an element of the message (#id), not #{uri.inspect}" unless uri.start_with?("#")

            transforms = reference.xpath("ds:Transforms/ds:Transform", Canonical::NAMESPACES).map { |t| t["Algorithm"] }
            hash = algorithm(reference, "ds:DigestMethod", Canonical::DIGESTS)
            element = Canonical.by_id(doc, uri[1..])
            check_transforms(uri, transforms, element, signed_info)
            expected = one(reference, "ds:DigestValue", "a ds:DigestValue").text.strip
            actual = Canonical.digest(hash, Canonical.exclusive(element))
            raise SignatureError, "Reference #{uri}: the digest does not match (the element was changed)" unless secure_equal?(expected, actual)

            element
          end
        end

        # Exclusive C14N, after the enveloped-signature transform when the
        # signer names it (node-soap does): that transform removes the
        # Signature from the referenced element, so it changes nothing when the
        # element does not hold the Signature (Body, Timestamp), and anything else
        # is refused rather than implemented.
        def check_transforms(uri, transforms, element, signed_info)
          return if transforms == [Canonical::EXCLUSIVE]
          if transforms == [Canonical::ENVELOPED, Canonical::EXCLUSIVE] && !signed_info.ancestors.include?(element)
            return
          end

          raise SignatureError, "Reference #{uri}: transforms #{transforms.inspect} are not accepted"
        end

        def check_timestamp(security, signed, now)
          timestamp = security.xpath("wsu:Timestamp", Canonical::NAMESPACES)
          return if timestamp.empty?
          raise SignatureError, "the message has #{timestamp.size} Timestamps" if timestamp.size > 1

          timestamp = timestamp.first
          raise SignatureError, "the Timestamp is not signed" unless signed.include?(timestamp)

          created = time(timestamp, "wsu:Created")
          expires = time(timestamp, "wsu:Expires")
          raise TimestampError, "the Timestamp was created in the future (#{created.iso8601})" if created && created > now + @max_skew
          raise TimestampError, "the message expired at #{expires.iso8601}" if expires && expires < now - @max_skew
        end

        def time(node, path)
          text = node.at_xpath(path, Canonical::NAMESPACES)&.text or return nil
          Time.iso8601(text.strip)
        rescue ArgumentError
          raise TimestampError, "#{path} #{text.inspect} is not an xsd:dateTime"
        end

        def signing_certificate(doc, security, signature)
          key_info = one(signature, "ds:KeyInfo", "a ds:KeyInfo")
          der =
            # Inline (X509Data in KeyInfo, or in a SecurityTokenReference, as zeep writes it), or by reference.
            if (inline = key_info.at_xpath("ds:X509Data/ds:X509Certificate | wsse:SecurityTokenReference/ds:X509Data/ds:X509Certificate",
                                           Canonical::NAMESPACES))
              inline.text
            else
              uri = key_info.at_xpath("wsse:SecurityTokenReference/wsse:Reference/@URI", Canonical::NAMESPACES)&.value.to_s
              raise SignatureError, "the KeyInfo names no certificate" unless uri.start_with?("#")

              token = Canonical.by_id(doc, uri[1..])
              raise SignatureError, "the KeyInfo's token is not a BinarySecurityToken of the Security header" unless token.parent == security

              token.text
            end
          certificate = OpenSSL::X509::Certificate.new(der.unpack1("m"))
          return certificate if @store.verify(certificate)

          raise UntrustedCertificateError, "the signing certificate #{certificate.subject} is not trusted (#{@store.error_string})"
        end

        def secure_equal?(left, right)
          left.bytesize == right.bytesize && OpenSSL.fixed_length_secure_compare(left, right)
        end
      end
    end
  end
end
