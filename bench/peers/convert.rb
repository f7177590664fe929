# frozen_string_literal: true

require "bigdecimal"
require "date"
require "time"

module Bench
  module Peers
    # The wire-text-to-Ruby conversions a user of a DOM or SAX library writes
    # once and calls for every value: the same rules wirebind applies (trim
    # non-strings, empty means nil, xs:dateTime keeps its offset), so that the
    # peers are held to the same output and differ only in how they get there.
    module Convert
      XSI = "http://www.w3.org/2001/XMLSchema-instance"

      module_function

      # Time.xmlschema keeps the offset and reads the fraction as a Rational,
      # which is what an exact comparison needs.
      def time(text)
        return nil if text.nil? || (text = text.strip).empty?

        Time.xmlschema(text)
      end

      def date(text)
        return nil if text.nil? || (text = text.strip).empty?

        Date.iso8601(text)
      end

      # Base 10 always: Integer("08") would read octal and fail.
      def integer(text)
        return nil if text.nil? || (text = text.strip).empty?

        Integer(text, 10)
      end

      def decimal(text)
        return nil if text.nil? || (text = text.strip).empty?

        BigDecimal(text)
      end

      def boolean(text)
        return nil if text.nil?

        case text.strip
        when "true", "1" then true
        when "false", "0" then false
        end
      end

      # A Nokogiri element's text, or nil for xsi:nil="true" (and for no element).
      def node_string(node)
        return nil if node.nil?
        return nil if node.attribute_with_ns("nil", XSI)&.value == "true"

        node.content
      end
    end
  end
end
