# frozen_string_literal: true

module Wirebind
  module SOAP
    module WSSE
      # A +wsu:Timestamp+: when the request was made and when it expires. Signed
      # with the Body when a {Signature} is among the tokens.
      class Timestamp
        # @param ttl [Numeric] seconds from creation to expiry
        def initialize(ttl: 300)
          raise ArgumentError, "ttl: must be a positive number of seconds, not #{ttl.inspect}" unless ttl.is_a?(Numeric) && ttl.positive?

          @ttl = ttl
        end

        # @api private
        def security_xml(request)
          id = WSSE.id("TS")
          request.timestamp_id = id
          now = Time.now.utc
          %(<wsu:Timestamp wsu:Id="#{id}"><wsu:Created>#{now.iso8601(3)}</wsu:Created>) +
            %(<wsu:Expires>#{(now + @ttl).iso8601(3)}</wsu:Expires></wsu:Timestamp>)
        end
      end
    end
  end
end
