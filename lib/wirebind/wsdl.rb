# frozen_string_literal: true

require_relative "../wirebind" unless defined?(Wirebind::XML)

module Wirebind
  # Reads a WSDL 1.1 description and the XML Schemas it imports, and turns it
  # into typed models and SOAP clients: as Ruby source files (+wirebind generate+,
  # {Description#generate}) or defined in memory ({Description#define}).
  #
  # @example
  #   description = Wirebind::WSDL.load("jirasoapservice-v2.wsdl")
  #   description.define(Jira = Module.new)
  #   client = Jira::Client.new
  #   token = client.login(in0: "bot", in1: secret)
  #
  # Files are read with wirebind's own streaming XML tokenizer under the XML
  # codec's limits (DTDs refused); imports and includes are read once each, from
  # paths relative to the file that names them; imports by URL only with
  # +fetch: true+. Names from the description are never evaluated: generated
  # source is written from checked identifiers and +inspect+ed literals.
  module WSDL
    # The WSDL 1.1 namespace.
    WSDL_NS = Namespaces::WSDL
    # The SOAP 1.1 encoding namespace (rpc/encoded arrays and multiRefs).
    ENCODING_NS = Namespaces::SOAP11_ENCODING
    # The XML Schema namespaces read as XSD: 2001, and the drafts of 2000 and 1999 older services use.
    XSD_NAMESPACES = [Namespaces::XSD, Namespaces::XSD_2000, Namespaces::XSD_1999].freeze

    # The description is not one wirebind can read: a missing definition, an
    # undeclared prefix, an import it may not follow. Says which file and element.
    class InvalidError < Error; end

    # Reads a WSDL and what it imports.
    #
    # @param input [String, IO] a path, a URL (with +fetch: true+), or an IO holding the WSDL
    # @param base [String, nil] the directory relative imports start from; default:
    #   the WSDL's own directory (for an IO, the current directory)
    # @param fetch [Boolean] whether imports by URL (and +input+ as a URL) are
    #   fetched, once each, within +fetch_deadline+ and 64 MiB each, redirects refused
    # @param fetch_deadline [Numeric] seconds fetching one URL may take, all of it
    # @param root [String, nil] the directory local imports must stay in (symlinks
    #   resolved); default: the WSDL's own directory (+base+ when given)
    # @param limits [Hash] the XML tokenizer's limits (see {Wirebind::XML::DEFAULT_LIMITS})
    # @return [Description]
    # @raise [InvalidError, ParseError, LimitError]
    def self.load(input, base: nil, fetch: false, fetch_deadline: Loader::FETCH_DEADLINE, root: nil, **limits)
      unknown = limits.keys - XML::DEFAULT_LIMITS.keys
      raise ArgumentError, "unknown option#{'s' if unknown.size > 1} #{unknown.join(', ')}" unless unknown.empty?

      Description.new(Loader.new(fetch: fetch, limits: limits, root: root, fetch_deadline: fetch_deadline).run(input, base))
    end
  end
end

require_relative "wsdl/document"
require_relative "wsdl/loader"
require_relative "wsdl/schema"
require_relative "wsdl/addressing"
require_relative "wsdl/description"
require_relative "wsdl/writer"
require_relative "wsdl/naming"
require_relative "wsdl/generator"
require_relative "wsdl/fault_details"
