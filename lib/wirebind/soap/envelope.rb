# frozen_string_literal: true

require "bigdecimal"
require "date"

module Wirebind
  module SOAP
    # SOAP envelopes, written and read: the layer the client and the service share.
    #
    # Writing ({.write}, {.write_fault}) appends to anything that answers +<<+ (a
    # String, or a buffer that flushes in pieces): scalars through {Types}, models
    # through {Wirebind::XML.encode} in the literal styles and through the plan
    # (+xsi:type+ on every value, +soapenc:Array+, optionally +multiRef+s) in
    # +:rpc_encoded+.
    #
    # Reading ({Reader}) makes one pass over the body: a short look at its start
    # (the envelope, the headers and the first element of Body, in the pure
    # tokenizer), which either reads a fault whole and raises it, or hands the
    # body, replayed from its start, to {Wirebind::XML.decode} or {Wirebind::XML.each}.
    #
    # @example A request, then its response
    #   xml = Wirebind::SOAP::Envelope.write(+"", operation: "getIssue", namespace: NS,
    #                                        style: :rpc_encoded, parts: { in0: token, in1: "OPS-1" })
    #   reader = Wirebind::SOAP::Envelope::Reader.new(response_io)
    #   issue = reader.decode(RemoteIssue)   # or raises Wirebind::SOAP::Fault
    module Envelope
      # The prefix of the envelope namespace in what wirebind writes.
      ENV_PREFIX = "soapenv"
      # The prefix of the operation's namespace in rpc styles.
      OPERATION_PREFIX = "ns1"
      # How a Ruby value's XML Schema type is named in +xsi:type+, by scalar type.
      XSD_TYPES = Types::XSD::NAMES.transform_values { |name| "xsd:#{name}".freeze }.freeze
      # Integers in this range are written as xsd:int (what most rpc services declare), others as xsd:long.
      INT_RANGE = (-2**31...2**31)
      # Nesting of models deeper than this (a cycle of objects, in practice) is an {EncodeError}.
      MAX_DEPTH = 1024
      # What every envelope starts and ends with, written by {.write} (one String each, not one per call).
      ENVELOPE_OPEN = %(<?xml version="1.0" encoding="UTF-8"?><#{ENV_PREFIX}:Envelope xmlns:#{ENV_PREFIX}=").freeze
      SCHEMA_DECLARATIONS = %(" xmlns:xsd="#{XSD_NS}" xmlns:xsi="#{XSI_NS}").freeze
      BODY_OPEN = "<#{ENV_PREFIX}:Body>".freeze
      ENVELOPE_CLOSE = "</#{ENV_PREFIX}:Body></#{ENV_PREFIX}:Envelope>".freeze
      private_constant :ENVELOPE_OPEN, :SCHEMA_DECLARATIONS, :BODY_OPEN, :ENVELOPE_CLOSE

      class << self
        # Writes a whole envelope: headers, then the operation element with its parts.
        #
        # @param out [#<<] where the XML goes (a String, or a buffer flushing in pieces)
        # @param operation [String, Symbol] the operation element's local name, as written
        #   (a request: the operation; a response: e.g. +"getIssueResponse"+)
        # @param namespace [String, nil] the operation element's namespace
        # @param parts [Hash{Symbol, String => Object}] part names to values, in order:
        #   nil, String (a binary one is written as base64), Integer, Float, BigDecimal,
        #   true/false, Time, Date, model instances and Arrays (or Enumerators) of them
        # @param types [Hash{Symbol, String => Object}] declared types of parts, by name
        #   (a scalar Symbol, a model class, or a one-element Array); a part without one
        #   is typed by its Ruby class
        # @param version [String] +"1.1"+ or +"1.2"+
        # @param style [Symbol] +:document+ (document/literal wrapped: the parts are
        #   children of the operation element, in its namespace), +:rpc+ (rpc/literal:
        #   unqualified parts, lists wrapped with +item+ elements) or +:rpc_encoded+
        #   (SOAP encoding: +xsi:type+ on every value, lists as SOAP 1.1's +soapenc:Array+
        #   with +soapenc:arrayType+, or over SOAP 1.2 as +enc:Array+ with +enc:itemType+
        #   and +enc:arraySize+)
        # @param headers [Array<Wirebind::Model, Array(String, Object)>] written into
        #   +Header+ with {Wirebind::XML.encode}: a model under its +xml_root+, a pair under
        #   the name given (the header part's element, WSDL 1.1 §3.7, WS-I BP R2205); a
        #   pair's value may be a scalar (String, Integer, Float, BigDecimal, true, false,
        #   Time, Date), written as its text, and its name +"{namespace}local"+
        # @param header_xml [String, nil] XML written into +Header+ after +headers+ (WS-Security)
        # @param body_id [String, nil] a +wsu:Id+ for +Body+ (what a WS-Security signature references)
        # @param multi_ref [Boolean, :breadth_first] in +:rpc_encoded+, write each model value as
        #   +href="#idN"+ and the record as a +multiRef+ after the operation element (Axis 1 style):
        #   depth first (each multiRef followed by the ones it introduces, which a streaming
        #   reader completes one record at a time), or +:breadth_first+ level by level, in
        #   the order Axis 1 writes them (for tests and benchmarks of readers)
        # @param wrap_lists [Boolean] in +:document+, write a list part as one element
        #   holding an +item+ element per value (as a service's list result, which
        #   +returns: [T]+ reads), instead of one element per value
        # @return [#<<] +out+
        # @raise [EncodeError] a value does not fit its declared type, or cannot be written
        def write(out, operation:, namespace: nil, parts: {}, types: {}, version: "1.1", style: :document,
                  headers: [], header_xml: nil, multi_ref: false, wrap_lists: false, rpc_result: nil, body_id: nil)
          version = Version.fetch(version)
          check_style(style)
          encoded = style == :rpc_encoded
          # Closed enumerations and string formats, as XML.encode checks them for the
          # literal styles; the encoded writer walks models itself. Before any byte.
          parts.each_value { |value| Model.check_enums(value) } if encoded && Model.enums?
          out << ENVELOPE_OPEN << version.envelope_namespace << SCHEMA_DECLARATIONS
          # SOAP 1.1's soapenc:Array and soapenc:root, or 1.2's enc:Array, enc:ref and enc:id
          out << version.encoding_declaration if encoded
          out << ">"
          write_header(out, headers, header_xml)
          out << (body_id ? %(<#{ENV_PREFIX}:Body xmlns:wsu="#{WSSE::WSU_NS}" wsu:Id="#{body_id}">) : BODY_OPEN)
          writer = encoded ? EncodedWriter.new(out, multi_ref, version) : LiteralWriter.new(out, style, wrap_lists: wrap_lists)
          result = rpc_result && version.rpc_result? && style != :document ? rpc_result_xml(rpc_result) : nil
          writer.operation(operation.to_s, namespace, parts, types, result)
          out << ENVELOPE_CLOSE
        end

        # Writes an envelope whose body is +fault+.
        #
        # @param out [#<<]
        # @param fault [Fault]
        # @param version [String] +"1.1"+ or +"1.2"+
        # @return [#<<] +out+
        def write_fault(out, fault, version: "1.1")
          version = Version.fetch(version)
          p = ENV_PREFIX
          code = fault_code(fault.code.to_s, version)
          # A code or subcode in WS-Security's namespace (its faults, WSS 1.1 §12) carries its declaration.
          wsse = [code, *fault.subcodes].any? { |name| name.to_s.start_with?("wsse:") } ? %( xmlns:wsse="#{WSSE::WSSE_NS}") : ""
          out << %(<?xml version="1.0" encoding="UTF-8"?><#{p}:Envelope xmlns:#{p}="#{version.envelope_namespace}"><#{p}:Body><#{p}:Fault#{wsse}>)
          version.write_fault(out, fault, code, self)
          out << "</#{p}:Fault></#{p}:Body></#{p}:Envelope>"
        end

        # Builds, for a service, the model class its request decodes into: one
        # attribute per argument, in order (+a0+, +a1+, ... named +xml:+ after the
        # arguments, so any part name works). Lists are repeated elements in
        # +:document+ and wrapped (+name/*+) in the rpc styles. Build it once per operation.
        #
        # @param args [Hash{Symbol, String => Object}] argument names to types
        # @param style [Symbol]
        # @return [Class] an anonymous {Wirebind::Model} class
        def arguments_model(args, style)
          check_style(style)
          Class.new do
            include Wirebind::Model
            args.each_with_index do |(name, type), index|
              path = type.is_a?(Array) && style != :document ? "#{name}/*" : name.to_s
              attribute :"a#{index}", type, xml: path
            end
          end
        end

        # @api private
        # @return [String] the envelope namespace of +version+
        def envelope_namespace(version)
          Version.fetch(version).envelope_namespace
        end

        # @api private
        # @param names [Array<String>] header block names, +"\{namespace}local"+ or +"local"+ (any namespace)
        # @return [Array<Array(String, String)>] frozen pairs of local name and namespace (nil: any)
        def header_names(names)
          Array(names).map do |name|
            match = /\A(?:\{([^}]*)\})?([^{}\s]+)\z/.match(name.to_s) or
              raise ArgumentError, "a header name is \"{namespace}local\" or \"local\", not #{name.inspect}"
            [match[2].freeze, match[1]&.freeze].freeze
          end.freeze
        end

        # @api private
        # @return [Array<Array(String, String)>] the blocks of +blocks+ no name of +names+ ({header_names}) covers
        def not_understood(blocks, names)
          blocks.reject { |local, uri| names.any? { |known, known_uri| known == local && (known_uri.nil? || known_uri == uri) } }
        end

        # @api private
        def check_style(style)
          raise ArgumentError, "style: must be one of #{STYLES.inspect}, not #{style.inspect}" unless STYLES.include?(style)
        end

        # @api private
        # @return [String] +value+ escaped for element content
        def text(value)
          XML::Escape.text(value.to_s)
        rescue Types::InvalidValue => e
          raise EncodeError, e.message
        end

        # @api private
        # @return [String] +value+ escaped for an attribute value
        def attribute(value)
          XML::Escape.attribute(value.to_s)
        rescue Types::InvalidValue => e
          raise EncodeError, e.message
        end

        # @api private
        # @return [Symbol, nil] the scalar type a Ruby value is written as, nil for none
        def scalar_type(value)
          case value
          when String then value.encoding == Encoding::BINARY && !value.empty? ? :base64 : :string
          when Integer then :integer
          when Float then :float
          when BigDecimal then :decimal
          when true, false then :boolean
          when Time then :time
          when Date then :date
          end
        end

        # @api private
        # @return [String] the xsi:type of a scalar value
        def xsd_type(type, value)
          return "xsd:int" if type == :integer && INT_RANGE.cover?(value)

          XSD_TYPES.fetch(type)
        end

        # @api private
        # Writes a fault's detail (what +Version#write_fault+ ends with) as the element +name+.
        def write_detail(out, name, detail)
          case detail
          when nil then nil
          when String
            if (whole = DETAIL_WHOLE.match(detail))
              # A whole <detail> element, as Fault#detail gives it: renamed, its declarations kept.
              declarations = whole[1].scan(/\sxmlns(?::[\w.-]+)?\s*=\s*(?:"[^"]*"|'[^']*')/).join
              out << "<#{name}#{declarations}>" << whole[2] << "</#{name}>"
            else
              out << "<#{name}>" << detail << "</#{name}>"
            end
          else
            raise ArgumentError, "a fault's detail is nil, a String of XML or a model instance, not #{detail.class}" unless detail.class.include?(Wirebind::Model)

            out << "<#{name}>" << XML.encode(detail) << "</#{name}>"
          end
        end

        DETAIL_WHOLE = %r{\A\s*<(?:[A-Za-z_][\w.-]*:)?[dD]etail(\s[^>]*)?>(.*)</(?:[A-Za-z_][\w.-]*:)?[dD]etail\s*>\s*\z}m
        private_constant :DETAIL_WHOLE

        private

        # The part's name is unqualified (rpc styles), so the QName needs no prefix.
        def rpc_result_xml(part)
          %(<rpc:result xmlns:rpc="#{RPC_NS}">#{Writing.check_name(part.to_s, 'part')}</rpc:result>)
        end

        def write_header(out, headers, header_xml)
          return if headers.empty? && header_xml.nil?

          out << "<#{ENV_PREFIX}:Header>"
          headers.each do |header|
            # [element name, model]: the header part's element (WSDL 1.1 §3.7), when its type's name differs.
            name, header = header if header.is_a?(Array) && header.size == 2 && header[0].is_a?(String)
            namespace, name = split_header_name(name) if name
            if name && (type = scalar_type(header))
              write_scalar_header(out, name, namespace, header, type)
              next
            end
            unless header.class.include?(Wirebind::Model)
              raise ArgumentError, "SOAP headers are model instances, [element name, model instance] pairs or " \
                                   "[element name, scalar] pairs, not #{header.class}"
            end

            out << XML.encode(header, root: name && Writing.check_name(name, "header"))
          end
          out << header_xml if header_xml
          out << "</#{ENV_PREFIX}:Header>"
        end

        # [namespace, local name] of a header's element name, +"{namespace}local"+ or +"local"+.
        def split_header_name(name)
          return [nil, name] unless name.start_with?("{")

          namespace, local = name[1..].split("}", 2)
          raise ArgumentError, "a header's element name {namespace}local lacks its closing brace: #{name.inspect}" unless local

          [namespace.empty? ? nil : namespace, local]
        end

        # A header element of a simple type (WCF's string headers: Bing Ads'
        # AuthenticationToken), its value written as its scalar type's text.
        def write_scalar_header(out, name, namespace, value, type)
          Writing.check_name(name, "header")
          out << "<" << name
          out << %( xmlns="#{attribute(namespace)}") if namespace
          out << ">"
          Writing.append_text(out, type, value)
          out << "</" << name << ">"
        end

        # The standard codes are written with the envelope's prefix; any other as given.
        def fault_code(code, version)
          known = version.fault_code(code)
          known ? "#{ENV_PREFIX}:#{known}" : code
        end
      end
    end
  end
end

require_relative "envelope/literal_writer"
require_relative "envelope/encoded_writer"
require_relative "envelope/encoded_record_writer"
require_relative "envelope/reader"
