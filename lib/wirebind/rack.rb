# frozen_string_literal: true

require_relative "rack/body"

module Wirebind
  # Serving wirebind's output from Rack applications (Rails controllers
  # included): a response body that streams the document as it is written.
  # Needs nothing from the rack gem itself.
  module Rack
    # The media type each format is served as.
    CONTENT_TYPES = {
      xml: "application/xml; charset=utf-8",
      json: "application/json",
      hal: "application/hal+json",
      json_api: "application/vnd.api+json",
      siren: "application/vnd.siren+json"
    }.freeze

    # A Rack response: +[status, headers, body]+ with the format's content type
    # and a {Body} that streams the document.
    #
    # @example In a Rack application (or a Rails controller: self.response = ...)
    #   Wirebind::Rack.response(issues, format: :hal, serializer: IssueSerializer, context: { base: "/api" })
    # @param value [Object] a {Serializer} instance, or what +Body.new+ takes
    # @param status [Integer]
    # @param headers [Hash{String => String}] more headers (lowercase names, as Rack 3 wants)
    # @param options [Hash] as +Body.new+ takes them (+format:+, +serializer:+ ...)
    # @return [Array(Integer, Hash, Body)]
    def self.response(value, status: 200, headers: {}, **options)
      body = Body.new(value, **options)
      [status, { "content-type" => body.content_type }.merge!(headers), body]
    end
  end
end
