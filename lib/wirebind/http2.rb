# frozen_string_literal: true

require_relative "http2/errors"
require_relative "http2/hpack"
require_relative "http2/frame"
require_relative "http2/payloads"
require_relative "http2/reader"
require_relative "http2/writer"
require_relative "http2/window"
require_relative "http2/stream"
require_relative "http2/streams"
require_relative "http2/write_watchdog"
require_relative "http2/connection"

module Wirebind
  # HTTP/2 (RFC 9113) on {Wirebind::Buffer}: frames ({HTTP2::Frame}), an
  # incremental reader and a writer, connection and stream state, and HPACK
  # ({HTTP2::HPACK}). Loaded on first use of +Wirebind::HTTP2+ (or +require "wirebind/http2"+).
  module HTTP2
  end
end
