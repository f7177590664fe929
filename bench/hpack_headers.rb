# frozen_string_literal: true

module Bench
  # A realistic browser request's header set: the HPACK rows of bench/binary.rb
  # and of the instruction-count guard (bench/instructions.rb) encode and decode it.
  HPACK_HEADERS = [
    [":method", "GET"], [":scheme", "https"], [":authority", "www.example.com"], [":path", "/api/v1/issues?project=WB&limit=50"],
    ["accept", "application/json, text/plain, */*"], ["accept-encoding", "gzip, deflate, br"],
    ["accept-language", "en-US,en;q=0.9,fr;q=0.8"], ["cache-control", "no-cache"],
    ["cookie", "session=7f3c2a9b1e4d4f0a8c6b; theme=dark; _ga=GA1.2.1234567890.1600000000"],
    ["user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"],
    ["x-request-id", "b7e4c1d2-8f3a-4e5b-9c6d-0a1b2c3d4e5f"], ["referer", "https://www.example.com/issues"]
  ].map { |name, value| [name.b.freeze, value.b.freeze].freeze }.freeze
end
