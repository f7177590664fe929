# frozen_string_literal: true

module Wirebind
  # SOAP on the wire, from the same models as {Wirebind::XML}: envelopes written
  # and read in one streaming pass ({SOAP::Envelope}), faults as exceptions
  # ({SOAP::Fault}), a client with persistent connections ({SOAP::Client}), and a
  # Rack application serving operations and their WSDL ({SOAP::Service}).
  #
  # @example
  #   client = Wirebind::SOAP::Client.new(endpoint: url, namespace: "http://soap.rpc.jira.atlassian.com",
  #                                       style: :rpc_encoded)
  #   issues = client.call(:getIssuesFromJqlSearch, { in0: token, in1: jql, in2: 1000 }, returns: [RemoteIssue])
  module SOAP
    # The SOAP 1.1 envelope namespace.
    NS_11 = Namespaces::SOAP11_ENVELOPE
    # The SOAP 1.2 envelope namespace.
    NS_12 = Namespaces::SOAP12_ENVELOPE
    # SOAP 1.1 encoding (rpc/encoded): +soapenc:Array+, +soapenc:arrayType+, +soapenc:root+.
    ENCODING_NS = Namespaces::SOAP11_ENCODING
    # SOAP 1.2 encoding (Part 2 §3): the +encodingStyle+ of rpc/encoded over SOAP 1.2.
    ENCODING_NS_12 = Namespaces::SOAP12_ENCODING
    # The encoding namespace (+encodingStyle+) of each version.
    ENCODINGS = { "1.1" => ENCODING_NS, "1.2" => ENCODING_NS_12 }.freeze
    # SOAP 1.2 RPC (Part 2 §4.2.2): +rpc:result+ names the return value's element.
    RPC_NS = Namespaces::SOAP12_RPC
    # XML Schema's namespace, for +xsi:type+ values such as +xsd:string+.
    XSD_NS = Namespaces::XSD
    # XML Schema instance: +xsi:type+, +xsi:nil+.
    XSI_NS = Namespaces::XSI
    # The envelope namespace of each version.
    VERSIONS = { "1.1" => NS_11, "1.2" => NS_12 }.freeze
    # The message styles: document/literal wrapped, rpc/literal, rpc/encoded (SOAP 1.1 encoding).
    STYLES = %i[document rpc rpc_encoded].freeze
    # The most a message read whole may hold (a response to verify, an MTOM
    # package, a request a WS-Security policy checks) unless +max_size+ says less.
    WHOLE_MESSAGE_LIMIT = 64 * 1024 * 1024

    # @api private
    # Reads +reader+ (+read(size)+, nil at the end) into one binary String; the
    # block is called (and must raise) once it holds more than +limit+ bytes.
    def self.read_whole(reader, limit)
      whole = +"".b
      while (piece = reader.read(Chunks::SIZE))
        whole << piece
        yield if whole.bytesize > limit
      end
      whole
    end
  end
end

require_relative "soap/errors"
require_relative "soap/fault"
require_relative "soap/envelope"
require_relative "soap/version"
require_relative "soap/wsse"
require_relative "soap/addressing"
require_relative "soap/mtom"
require_relative "soap/operation"
require_relative "soap/client"
require_relative "soap/wsdl_writer"
require_relative "soap/service"
