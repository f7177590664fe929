# frozen_string_literal: true

require_relative "http2/errors"
require_relative "http2/hpack"

module Wirebind
  # HTTP/2 (RFC 9113) on {Wirebind::Buffer}: frames ({HTTP2::Frame}), an
  # incremental reader and a writer, connection and stream state, and HPACK
  # ({HTTP2::HPACK}). Loaded with +require "wirebind/http2"+.
  module HTTP2
  end
end
