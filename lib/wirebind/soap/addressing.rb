# frozen_string_literal: true

require "securerandom"

module Wirebind
  module SOAP
    # WS-Addressing 1.0 (W3C, 2006) for the client and the service
    # (+addressing: true+ and {Service.addressing}): a request carries
    # +wsa:Action+ (its SOAPAction, or the WSDL's +wsam:Action+), a fresh
    # +wsa:MessageID+, +wsa:To+ (the endpoint) and +wsa:ReplyTo+ (anonymous: the
    # same connection); the reply carries +wsa:RelatesTo+ naming that
    # MessageID. A client that sent a MessageID refuses a reply that relates to
    # another one ({AddressingError}): it would be another call's answer.
    module Addressing
      # The WS-Addressing 1.0 namespace.
      NS = "http://www.w3.org/2005/08/addressing"
      # The address meaning "answer on this connection".
      ANONYMOUS = "#{NS}/anonymous".freeze

      class << self
        # @api private
        # @return [String] a fresh MessageID
        def message_id
          "urn:uuid:#{SecureRandom.uuid}"
        end

        # @api private
        # @return [String] the request's addressing header blocks
        def request_xml(action:, to:, message_id:)
          %(<wsa:Action xmlns:wsa="#{NS}">#{Envelope.text(action)}</wsa:Action>) +
            %(<wsa:MessageID xmlns:wsa="#{NS}">#{Envelope.text(message_id)}</wsa:MessageID>) +
            %(<wsa:To xmlns:wsa="#{NS}">#{Envelope.text(to)}</wsa:To>) +
            %(<wsa:ReplyTo xmlns:wsa="#{NS}"><wsa:Address>#{ANONYMOUS}</wsa:Address></wsa:ReplyTo>)
        end

        # @api private
        # @return [String] the reply's addressing header blocks
        def reply_xml(action:, relates_to:)
          xml = %(<wsa:Action xmlns:wsa="#{NS}">#{Envelope.text(action)}</wsa:Action>)
          xml += %(<wsa:RelatesTo xmlns:wsa="#{NS}">#{Envelope.text(relates_to)}</wsa:RelatesTo>) if relates_to
          xml
        end

        # @api private
        # @param blocks [Array<Array(String, String, String)>] header blocks ({Envelope::Reader#headers})
        # @param local [String] +"MessageID"+, +"RelatesTo"+, +"Action"+...
        # @return [String, nil] the text of the first addressing block named +local+
        def value(blocks, local)
          block = blocks.find { |name, uri| name == local && uri == NS } or return nil
          XML.decode(block[2], :string).strip
        end

        # @api private
        # @param action [String, nil] the action the reply must carry, when it carries one (nil: any)
        # @raise [AddressingError] the reply relates to another message, or carries another action
        def check_reply(blocks, message_id, action = nil)
          relates_to = value(blocks, "RelatesTo")
          if relates_to && relates_to != message_id
            raise AddressingError, "the response relates to message #{relates_to}, not to this call's #{message_id}: refused (another call's answer?)"
          end

          replied = action && value(blocks, "Action")
          return if replied.nil? || replied == action

          raise AddressingError, "the response's action #{replied} is not this operation's #{action} (the WSDL's output action): refused"
        end
      end
    end
  end
end
