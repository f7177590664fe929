# frozen_string_literal: true

require_relative "../namespaces"

module Wirebind
  module XML
    # The lexical grammar of XML 1.0 (fifth edition) and Namespaces in XML 1.0,
    # as regular expressions shared by the tokenizer and the DTD parser.
    # @api private
    module Syntax
      NC_START = "A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF" \
                 "\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}"
      NC_CHAR = "#{NC_START}\\-.0-9\u00B7\u0300-\u036F\u203F-\u2040".freeze

      S = /[ \t\n\r]+/
      # Names, like runs of text (see TEXT), are matched possessively: nothing that
      # may follow a name is a name character, so no match changes, and a long
      # name costs no backtrack stack.
      NAME = /[:#{NC_START}][:#{NC_CHAR}]*+/
      NMTOKEN = /[:#{NC_CHAR}]++/
      NCNAME_SRC = "[#{NC_START}][#{NC_CHAR}]*+".freeze
      QNAME_SRC = "#{NCNAME_SRC}(?::#{NCNAME_SRC})?".freeze
      NCNAME = /#{NCNAME_SRC}/
      QNAME = /#{QNAME_SRC}/
      NAME_ONLY = /\A#{NAME}\z/
      NCNAME_ONLY = /\A#{NCNAME_SRC}\z/
      QNAME_ONLY = /\A#{QNAME_SRC}\z/

      # One attribute whose value needs no processing: no reference, no character
      # that attribute-value normalization would change.
      FAST_ATTR_SRC = %{[ \\t\\n]+#{QNAME_SRC}[ \\t\\n]*=[ \\t\\n]*(?:"[^<&"\\t\\n]*"|'[^<&'\\t\\n]*')}.freeze
      FAST_ATTR = /[ \t\n]+(#{QNAME_SRC})[ \t\n]*=[ \t\n]*(?:"([^<&"\t\n]*)"|'([^<&'\t\n]*)')/

      # A start tag, or a whole element whose content is plain text (the leaf of a
      # record, by far the commonest element in a payload), in one match:
      # 1 the name, 2 the attributes, 3 "/" if empty-element tag, 4 the leaf's text.
      START_OR_LEAF = %r{<(#{QNAME_SRC})((?:#{FAST_ATTR_SRC})++)?[ \t\n]*(?:(/)>|>(?:([^<&\]]*+)</\1[ \t\n]*>)?)}

      # Any tag with an ASCII name, taking the white space before it in the same
      # match: between the elements of a record, where no text is wanted, one
      # match per tag. 1 "/" of an end tag, 2 its name; 3 a start tag's name,
      # 4 its attributes, 5 "/" if empty-element tag, 6 the leaf's text.
      ASCII_NAME_SRC = "[A-Za-z_][A-Za-z0-9_.\\-]*+"
      ASCII_QNAME_SRC = "#{ASCII_NAME_SRC}(?::#{ASCII_NAME_SRC})?".freeze
      SPACED_TAG = %r{[ \t\n]*+<(?:(/)(#{ASCII_QNAME_SRC})[ \t\n]*>|(#{ASCII_QNAME_SRC})((?:[ \t\n]+#{ASCII_QNAME_SRC}[ \t\n]*=[ \t\n]*(?:"[^<&"\t\n]*"|'[^<&'\t\n]*'))++)?[ \t\n]*(?:(/)>|>(?:([^<&\]]*+)</\3[ \t\n]*>)?))}

      # SPACED_TAG for a binary (ASCII-8BIT) view of the buffer. Its classes only
      # exclude ASCII bytes, so multi-byte UTF-8 text passes through unharmed.
      SPACED_TAG_BINARY = Regexp.new(SPACED_TAG.source, Regexp::NOENCODING).freeze

      END_TAG = %r{</(#{NAME.source})[ \t\n]*>}
      # Runs of text are matched possessively (*+, ++): Onigmo keeps a backtrack
      # entry per character of a plain greedy or atomic run, which made a String
      # input holding a 32 MB text node ten times slower than the same bytes read
      # from an IO in 64 KiB pieces.
      TEXT = /[^<&\]]++/
      WS = /[ \t\n]+/
      CHAR_REF = /&#(?:([0-9]+)|x([0-9a-fA-F]+));/
      ENTITY_REF = /&(#{NAME});/

      PREDEFINED = { "lt" => "<", "gt" => ">", "amp" => "&", "apos" => "'", "quot" => '"' }.freeze

      XML_NS = Namespaces::XML
      XMLNS_NS = Namespaces::XMLNS
      XSI_NS = Namespaces::XSI

      module_function

      # @return [Boolean] whether code point +cp+ is an XML 1.0 Char (§2.2)
      def char?(cp)
        (cp >= 0x20 && cp <= 0xD7FF) || cp == 0x9 || cp == 0xA || cp == 0xD ||
          (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF)
      end
    end
  end
end
