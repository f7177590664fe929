# frozen_string_literal: true

require "zlib"
require_relative "../namespaces"
require_relative "syntax"

module Wirebind
  module XML
    # How text becomes markup, for every writer of XML in the gem: the pure
    # encoder, the C encoder (through NativeHooks::XML_ENCODER), SOAP
    # envelopes, captured and open content. Escapes text and attribute values,
    # refuses what XML 1.0 cannot carry, and writes namespace declarations
    # with the prefixes wirebind chooses.
    #
    # @api private
    module Escape
      XSI_DECLARATION = %( xmlns:xsi="#{Namespaces::XSI}").freeze

      TEXT_ESCAPES = { "&" => "&amp;", "<" => "&lt;", ">" => "&gt;", "\r" => "&#13;" }.freeze
      ATTRIBUTE_ESCAPES = TEXT_ESCAPES.merge('"' => "&quot;", "\t" => "&#9;", "\n" => "&#10;").freeze
      TEXT_SPECIAL = /[&<>\r]/
      ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/
      # What XML 1.0 cannot carry at all, even as a character reference.
      UNWRITABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\u{FFFE}\u{FFFF}]/

      class << self
        # @return [String] the prefix wirebind writes for +uri+ when the schema
        #   names none: "wb" and a checksum of the URI, the same in every process
        #   and Ractor, with no registry to share; "xml" for the XML namespace,
        #   the one prefix bound without a declaration (and that may not have one)
        def automatic_prefix(uri)
          return "xml" if uri == Namespaces::XML

          "wb#{Zlib.crc32(uri).to_s(36)}"
        end

        # @return [String] the declaration of +prefix+ for +uri+: %( xmlns:p="uri"),
        #   or "" for the XML namespace, which Namespaces in XML forbids declaring
        #   with any prefix but its own and needs no declaration with that one
        def declaration(prefix, uri)
          return "" if uri == Namespaces::XML

          %( xmlns:#{prefix}="#{attribute(uri)}")
        end

        # @return [String] +text+ escaped for element content
        def text(text)
          text = utf8(text)
          text.match?(TEXT_SPECIAL) ? text.gsub(TEXT_SPECIAL, TEXT_ESCAPES) : text
        end

        # @return [String] +text+ escaped for a double-quoted attribute value
        def attribute(text)
          text = utf8(text)
          text.match?(ATTRIBUTE_SPECIAL) ? text.gsub(ATTRIBUTE_SPECIAL, ATTRIBUTE_ESCAPES) : text
        end

        private

        def utf8(text)
          if text.encoding == Encoding::BINARY
            # Bytes taken for UTF-8, as JSON takes them: valid UTF-8 is written,
            # anything else refused (binary data belongs in :base64).
            copy = text.dup.force_encoding(Encoding::UTF_8)
            raise Types::InvalidValue, "invalid UTF-8 in #{Types.excerpt(text)} (binary data belongs in a :base64 attribute)" unless copy.valid_encoding?

            text = copy
          elsif text.encoding != Encoding::UTF_8
            begin
              text = text.encode(Encoding::UTF_8)
            rescue EncodingError
              raise Types::InvalidValue, "a #{text.encoding} string cannot be converted to UTF-8: #{Types.excerpt(text.dup.force_encoding(Encoding::BINARY))}"
            end
          end
          raise Types::InvalidValue, "invalid UTF-8 in #{Types.excerpt(text.scrub)}" unless text.valid_encoding?
          if (bad = text.index(UNWRITABLE))
            raise Types::InvalidValue, format("character U+%04X cannot be written in XML 1.0", text[bad].ord)
          end

          text
        end
      end
    end
  end
end
