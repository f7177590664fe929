# frozen_string_literal: true

module Wirebind
  module HTTP2
    module HPACK
      # RFC 7541 Appendix A: the static table (index 1 is its first entry).
      STATIC_TABLE = [
        [":authority", ""], [":method", "GET"], [":method", "POST"], [":path", "/"],
        [":path", "/index.html"], [":scheme", "http"], [":scheme", "https"], [":status", "200"],
        [":status", "204"], [":status", "206"], [":status", "304"], [":status", "400"],
        [":status", "404"], [":status", "500"], ["accept-charset", ""], ["accept-encoding", "gzip, deflate"],
        ["accept-language", ""], ["accept-ranges", ""], ["accept", ""], ["access-control-allow-origin", ""],
        ["age", ""], ["allow", ""], ["authorization", ""], ["cache-control", ""],
        ["content-disposition", ""], ["content-encoding", ""], ["content-language", ""], ["content-length", ""],
        ["content-location", ""], ["content-range", ""], ["content-type", ""], ["cookie", ""],
        ["date", ""], ["etag", ""], ["expect", ""], ["expires", ""],
        ["from", ""], ["host", ""], ["if-match", ""], ["if-modified-since", ""],
        ["if-none-match", ""], ["if-range", ""], ["if-unmodified-since", ""], ["last-modified", ""],
        ["link", ""], ["location", ""], ["max-forwards", ""], ["proxy-authenticate", ""],
        ["proxy-authorization", ""], ["range", ""], ["referer", ""], ["refresh", ""],
        ["retry-after", ""], ["server", ""], ["set-cookie", ""], ["strict-transport-security", ""],
        ["transfer-encoding", ""], ["user-agent", ""], ["vary", ""], ["via", ""],
        ["www-authenticate", ""]
      ].map { |pair| pair.map { |s| s.b.freeze }.freeze }.freeze

      # RFC 7541 Appendix B: the Huffman code's length in bits for each
      # symbol 0..255, then EOS (256). The code is canonical (codes of one
      # length are consecutive, in symbol order), so lengths define it.
      HUFFMAN_LENGTHS = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28,
        28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8,
        11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12,
        10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        8, 7, 8, 13, 19, 13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22,
        22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23,
        21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24,
        21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22,
        23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21,
        26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22,
        21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27,
        27, 28, 27, 27, 27, 27, 27, 26, 30
      ].freeze

      # The canonical codes, derived from the lengths.
      HUFFMAN_CODES = begin
        codes = Array.new(257)
        code = 0
        (1..30).each do |length|
          257.times do |symbol|
            next unless HUFFMAN_LENGTHS[symbol] == length

            codes[symbol] = code
            code += 1
          end
          code <<= 1
        end
        codes.freeze
      end
    end
  end
end
