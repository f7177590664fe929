# frozen_string_literal: true

module Wirebind
  module SOAP
    # One operation of a SOAP service, the same value wherever an operation is
    # described: what a {Service} declares (+operation :login, ...+), what the
    # WSDL reader reads from each operation of a SOAP binding (there with the
    # types as the schema's +WSDL::TypeSpec+s and scalar Symbols), what a client
    # generated from it holds for each of its methods and calls with
    # {Client#invoke}, and what a service's +?wsdl+ is written from.
    #
    # The WSDL members (+wsdl_name+ to +faults+) say how a WSDL binding
    # describes it; nil where no WSDL is involved (a service's declaration, a
    # generated client's).
    #
    # @!attribute [r] name
    #   @return [String] the operation element's local name
    # @!attribute [r] args
    #   @return [Hash{Symbol, String => Object}] argument (part, or wrapper child) names to types, in order
    #     (a list type as a one-item Array)
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
    # @!attribute [r] wsdl_name
    #   @return [String, nil] the +wsdl:operation+'s name (nil: +name+; document/literal
    #     operations are named apart from their element)
    # @!attribute [r] style
    #   @return [Symbol, nil] +:document+, +:rpc+ or +:rpc_encoded+, as the binding says
    # @!attribute [r] namespace
    #   @return [String, nil] the binding's +soap:body+ namespace
    # @!attribute [r] input
    #   @return [WSDL::Message, nil] the request message
    # @!attribute [r] output
    #   @return [WSDL::Message, nil] the response message
    # @!attribute [r] input_parts
    #   @return [Array<WSDL::Part>, nil] the request's parts in the body
    # @!attribute [r] output_parts
    #   @return [Array<WSDL::Part>, nil] the response's parts in the body
    # @!attribute [r] headers
    #   @return [Array<Array(WSDL::Message, String)>, nil] the request's SOAP headers: message and part name
    # @!attribute [r] faults
    #   @return [Array<WSDL::Message>, nil] the fault messages
    Operation = Struct.new(:name, :args, :returns, :soap_action, :at, :action, :reply_action, :wsdl_name, :style,
                           :namespace, :input, :output, :input_parts, :output_parts, :headers, :faults, keyword_init: true)
  end
end
