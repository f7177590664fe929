# frozen_string_literal: true

require_relative "wirebind/version"
require_relative "wirebind/errors"
require_relative "wirebind/namespaces"
require_relative "wirebind/chunks"
require_relative "wirebind/backend"
require_relative "wirebind/shareable"
require_relative "wirebind/options"
require_relative "wirebind/types"
require_relative "wirebind/qname"
require_relative "wirebind/model"
require_relative "wirebind/xml"
require_relative "wirebind/json"
require_relative "wirebind/serializer"
require_relative "wirebind/binary"

# Declare a schema once on a class ({Wirebind::Model}); read and write XML
# ({Wirebind::XML}) and JSON ({Wirebind::JSON}) from it, in one streaming pass,
# typed and safe; write records as HAL, JSON:API or Siren ({Wirebind::Serializer}).
module Wirebind
  # SOAP envelopes, faults and the client: loaded on first use (net/http, zlib, openssl).
  autoload :SOAP, File.expand_path("wirebind/soap", __dir__)
  # Rack response bodies that stream documents: loaded on first use (needs no rack gem).
  autoload :Rack, File.expand_path("wirebind/rack", __dir__)
  autoload :WSDL, File.expand_path("wirebind/wsdl", __dir__)
  # HTTP/2 frames and HPACK: loaded on first use. The native extension defines
  # HTTP2::HPACK already (its Huffman coder), where autoload cannot apply: there
  # the first constant missing from either module loads the rest.
  if const_defined?(:HTTP2, false)
    # @api private
    module HTTP2Loader
      # @api private
      def const_missing(name)
        require File.expand_path("wirebind/http2", __dir__)
        const_defined?(name, false) ? const_get(name, false) : super
      end
    end
    HTTP2.extend(HTTP2Loader)
    HTTP2::HPACK.extend(HTTP2Loader)
  else
    autoload :HTTP2, File.expand_path("wirebind/http2", __dir__)
  end
end

# The +render wirebind:+ controller renderer, when the application runs Rails.
require_relative "wirebind/railtie" if defined?(Rails::Railtie)
