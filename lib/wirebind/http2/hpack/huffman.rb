# frozen_string_literal: true

module Wirebind
  module HTTP2
    module HPACK
      # RFC 7541 section 5.2's Huffman code in Ruby: the reference for the C
      # twin (ext/wirebind/hpack.c), which the codec uses when it is loaded.
      #
      # @api private
      module Huffman
        # [length][code] => symbol, for decoding bit by bit
        DECODE = Array.new(31) { {} }.tap do |table|
          HUFFMAN_CODES.each_with_index { |code, symbol| table[HUFFMAN_LENGTHS[symbol]][code] = symbol }
        end.each(&:freeze).freeze
        private_constant :DECODE

        class << self
          # @return [Integer] the bytes string takes Huffman-coded
          def encoded_length(string)
            bits = 0
            string.each_byte { |byte| bits += HUFFMAN_LENGTHS[byte] }
            (bits + 7) >> 3
          end

          # @return [String] binary
          def encode(string)
            out = String.new(capacity: encoded_length(string), encoding: Encoding::BINARY)
            acc = 0
            bits = 0
            string.each_byte do |byte|
              acc = (acc << HUFFMAN_LENGTHS[byte]) | HUFFMAN_CODES[byte]
              bits += HUFFMAN_LENGTHS[byte]
              while bits >= 8
                bits -= 8
                out << ((acc >> bits) & 0xff)
                acc &= (1 << bits) - 1
              end
            end
            out << (((acc << (8 - bits)) | ((1 << (8 - bits)) - 1)) & 0xff) if bits.positive? # EOS's leading ones
            out
          end

          # Appends string as a string literal (RFC 7541 section 5.2): its
          # length, then its bytes, Huffman-coded if huffman and that is not longer.
          # @return [String] out
          def append_string(out, string, huffman)
            if huffman && (encoded = encode(string)).bytesize <= string.bytesize
              append_integer(out, encoded.bytesize, 7, 0x80)
              out << encoded
            else
              append_integer(out, string.bytesize, 7, 0)
              out << string
            end
          end

          # Appends a literal header field with incremental indexing (section
          # 6.2.1): the name by its index when name_index is not nil, else as a
          # string literal, then the value's literal.
          # @return [String] out
          def append_literal(out, name_index, name, value, huffman)
            if name_index
              append_integer(out, name_index, 6, 0x40)
            else
              out << 0x40
              append_string(out, name, huffman)
            end
            append_string(out, value, huffman)
          end

          # Appends value with a prefix-bit prefix (section 5.1) after the bits of first.
          # @return [String] out
          def append_integer(out, value, prefix, first)
            mask = (1 << prefix) - 1
            return out << (first | value) if value < mask

            out << (first | mask)
            value -= mask
            while value >= 0x80
              out << ((value & 0x7f) | 0x80)
              value >>= 7
            end
            out << value
          end

          # @return [String, Symbol] the decoded bytes, or an error Symbol
          #   (:eos, :padding) the caller turns into a CompressionError
          def decode(string)
            out = String.new(capacity: string.bytesize * 8 / 5, encoding: Encoding::BINARY)
            code = 0
            length = 0
            string.each_byte do |byte|
              7.downto(0) do |shift|
                code = (code << 1) | ((byte >> shift) & 1)
                length += 1
                symbol = DECODE[length][code] if length <= 30
                next unless symbol || length > 30
                return :eos if symbol.nil? || symbol == 256

                out << symbol
                code = 0
                length = 0
              end
            end
            # padding: fewer than 8 bits, all ones (a prefix of EOS)
            return :padding if length > 7 || code != (1 << length) - 1

            out
          end
        end
      end
    end
  end
end
