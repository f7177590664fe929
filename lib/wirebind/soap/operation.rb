# frozen_string_literal: true

module Wirebind
  module SOAP
    # One operation of a SOAP service, the same value wherever an operation is
    # described: what a {Service} declares (+operation :login, ...+), what a
    # client generated from a WSDL holds for each of its methods and calls with
    # {Client#invoke}, and what the WSDL generator plans each method from (there
    # with the types as Ruby source, as they are written into the client).
    #
    # @!attribute [r] name
    #   @return [String] the operation element's local name
    # @!attribute [r] args
    #   @return [Hash{Symbol, String => Object}] argument (part, or wrapper child) names to types, in order
    # @!attribute [r] returns
    #   @return [Object, nil] the result's type (nil: none)
    # @!attribute [r] soap_action
    #   @return [String, nil] the SOAPAction it is called with (nil: the default)
    # @!attribute [r] at
    #   @return [String, nil] where the result is, below Body (nil: the response
    #     element's first child, or its items for a list)
    # @!attribute [r] action
    #   @return [String, nil] the +wsa:Action+ a client with +addressing: true+
    #     sends (the WSDL's +wsam:Action+ or +wsaw:Action+, else the default
    #     WS-Addressing gives it; nil: the SOAPAction)
    # @!attribute [r] reply_action
    #   @return [String, nil] the +wsa:Action+ a reply must carry (nil: any)
    Operation = Struct.new(:name, :args, :returns, :soap_action, :at, :action, :reply_action, keyword_init: true)
  end
end
