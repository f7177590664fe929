# frozen_string_literal: true

require "openssl"

module Wirebind
  module SOAP
    module WSSE
      # XML Signature's algorithms and the parsing they need, in one place:
      # exclusive C14N from libxml2 (through Nokogiri), digests and signature
      # methods by their URIs, and elements found by their +Id+.
      # @api private
      module Canonical
        DS_NS = "http://www.w3.org/2000/09/xmldsig#"
        EXCLUSIVE = "http://www.w3.org/2001/10/xml-exc-c14n#"
        ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
        DIGESTS = {
          "http://www.w3.org/2001/04/xmlenc#sha256" => "SHA256",
          "http://www.w3.org/2000/09/xmldsig#sha1" => "SHA1"
        }.freeze
        SIGNATURES = {
          "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" => "SHA256",
          "http://www.w3.org/2000/09/xmldsig#rsa-sha1" => "SHA1"
        }.freeze
        NAMESPACES = { "ds" => DS_NS, "wsse" => WSSE_NS, "wsu" => WSU_NS }.freeze

        module_function

        def nokogiri
          require "nokogiri"
          ::Nokogiri
        rescue LoadError
          raise Wirebind::Error, "WS-Security signatures need the nokogiri gem (libxml2's exclusive C14N): add it to your Gemfile"
        end

        # A document, strictly: no DTD (SOAP forbids one), no network, no entities.
        def parse(xml)
          doc = nokogiri::XML(xml) { |config| config.strict.nonet }
          raise SignatureError, "a signed message may not have a DOCTYPE" if doc.internal_subset

          doc
        rescue nokogiri::XML::SyntaxError => e
          raise SignatureError, "the message is not well-formed XML: #{e.message}"
        end

        # Exclusive XML Canonicalization 1.0 (no comments) of +node+ and its descendants.
        def exclusive(node)
          node.canonicalize(nokogiri::XML::XML_C14N_EXCLUSIVE_1_0)
        end

        # The one element whose +wsu:Id+ (or +Id+) is +id+. Two would let an
        # attacker move the signed element and put another where it is read
        # (signature wrapping): that is an error, never a choice.
        def by_id(doc, id)
          found = doc.xpath("//*[@wsu:Id=$id or @Id=$id]", NAMESPACES, { "id" => id })
          raise SignatureError, "no element has the Id #{id.inspect} a signature reference names" if found.empty?
          raise SignatureError, "#{found.size} elements have the Id #{id.inspect}: refused (signature wrapping)" if found.size > 1

          found.first
        end

        def digest(name, bytes)
          [OpenSSL::Digest.new(name).digest(bytes)].pack("m0")
        end
      end
    end
  end
end
