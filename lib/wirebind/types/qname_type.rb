# frozen_string_literal: true

require_relative "../xml/syntax"

module Wirebind
  module Types
    # +:qname+: an xs:QName (+prefix:local+ or +local+), its prefix resolved by the
    # decoder against the namespaces in scope where the text appears (an
    # unprefixed name takes the default namespace, as XML Schema says). The
    # decoders call {.split}, look the prefix up themselves, then {.resolve}, so
    # both backends share every message.
    #
    # @api private
    module QNameType
      EXPECTED_TEXT = "a QName (prefix:local or local)"
      EXPECTED_VALUE = "a Wirebind::QName or a String in {uri}local notation"
      QNAME_TEXT = /\A[ \t\r\n]*(?:(#{XML::Syntax::NCNAME_SRC}):)?(#{XML::Syntax::NCNAME_SRC})[ \t\r\n]*\z/

      class << self
        # @param text [String] the element's or attribute's text, not blank
        # @return [Array(String, String)] [prefix ("" for none), local]
        # @raise [InvalidValue] not a QName
        def split(text)
          match = QNAME_TEXT.match(text) or raise Types.invalid_text(EXPECTED_TEXT, text)

          [match[1] || "", match[2]]
        end

        # @param prefix [String] from {.split}
        # @param local [String] from {.split}
        # @param uri [String, nil] what the prefix is bound to where the text appears
        # @param text [String] the text, for the message
        # @return [Wirebind::QName]
        # @raise [InvalidValue] the prefix is not declared
        def resolve(prefix, local, uri, text)
          if uri.nil? && !prefix.empty?
            raise InvalidValue, "the prefix '#{prefix}' of QName #{Types.excerpt(text)} is not declared where it appears"
          end

          QName.new(uri, local, prefix: prefix.empty? ? nil : prefix)
        end

        # @param value [Object]
        # @return [Wirebind::QName, nil] nil when +value+ is neither a QName nor a
        #   String in Clark notation
        def coerce(value)
          case value
          when QName then value
          when String then QName.parse(value)
          end
        rescue ArgumentError
          nil
        end
      end
    end
  end
end
