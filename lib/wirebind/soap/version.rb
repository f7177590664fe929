# frozen_string_literal: true

module Wirebind
  module SOAP
    # One SOAP version, everything in which 1.1 and 1.2 differ, so that the
    # envelope writers and reader, the client, the service and the WSDL writer
    # ask it instead of comparing version strings: the envelope and encoding
    # namespaces, the Content-Type and where the action goes, how a fault is
    # written, whether +rpc:result+ exists, SOAP encoding's references and
    # arrays, and the WSDL binding's namespace, prefix and name suffixes.
    # {SOAP11} and {SOAP12} are the two; {Version.fetch} looks one up by the
    # +"1.1"+/+"1.2"+ the public options take.
    #
    # @api private
    class Version
      attr_reader :number, :envelope_namespace, :encoding_namespace, :encoding_declaration, :encoding_style,
                  :content_type, :media_type, :fault_codes, :reference, :referent, :array, :unknown_size,
                  :binding_namespace, :prefix, :binding_suffix, :port_suffix

      # @param encoding [Hash] SOAP encoding: +namespace+, +prefix+, +reference+, +referent+, +array+, +unknown_size+
      # @param binding [Hash] the WSDL binding: +namespace+, +prefix+, +suffix+, +port_suffix+
      def initialize(number:, envelope_namespace:, media_type:, fault_codes:, encoding:, binding:)
        @number = number
        @envelope_namespace = envelope_namespace
        @media_type = media_type
        @content_type = "#{media_type}; charset=utf-8"
        @fault_codes = fault_codes
        @encoding_namespace = encoding.fetch(:namespace)
        @encoding_declaration = %( xmlns:#{encoding.fetch(:prefix)}="#{@encoding_namespace}")
        @encoding_style = %( #{Envelope::ENV_PREFIX}:encodingStyle="#{@encoding_namespace}")
        @reference, @referent, @array, @unknown_size = encoding.values_at(:reference, :referent, :array, :unknown_size)
        @binding_namespace, @prefix, @binding_suffix, @port_suffix = binding.values_at(:namespace, :prefix, :suffix, :port_suffix)
        freeze
      end

      def to_s = @number

      # @param version [String, Version] +"1.1"+, +"1.2"+ or a version
      # @return [Version]
      # @raise [ArgumentError] neither
      def self.fetch(version)
        return version if version.is_a?(Version)

        BY_NUMBER.fetch(version.to_s) { raise ArgumentError, "version: must be \"1.1\" or \"1.2\", not #{version.inspect}" }
      end

      # @return [Version, nil] the version whose envelope namespace is +uri+
      def self.by_envelope(uri) = BY_ENVELOPE[uri]

      # @return [Version, nil] the version whose WSDL 1.1 binding namespace is +uri+ (+soap:+ or +soap12:+)
      def self.by_binding(uri) = BY_BINDING[uri]

      # @return [Version, nil] the version whose media type is +media+ (lower case, no parameters)
      def self.by_media_type(media) = BY_MEDIA_TYPE[media]

      # The standard fault code +code+ (local name, or prefixed) as this version
      # names it, or nil for a code of the application's own.
      def fault_code(code)
        @fault_codes[code] || @fault_codes[code.sub(/\A[^:]*:/, "")]
      end
    end

    # SOAP 1.1: +text/xml+ with a SOAPAction header, faultcode/faultstring
    # faults, +soapenc:+ encoding, no +rpc:result+.
    #
    # @api private
    class Version11 < Version
      # Sets the request's Content-Type and SOAPAction header.
      def request_headers(headers, action)
        headers["Content-Type"] = @content_type
        headers["SOAPAction"] = %("#{action}")
        headers
      end

      # @return [String, nil] the action a Rack request names (its SOAPAction header)
      def request_action(env) = env["HTTP_SOAPACTION"]

      # The Content-Type of an MTOM package's root part (XOP §5: the version's own media type).
      def mtom_root_type(_content_type) = "text/xml"

      # SOAP 1.1 has no rpc:result.
      def rpc_result? = false

      # A fault is a 500 in SOAP 1.1's HTTP binding, whatever its code.
      def fault_status(_code) = 500

      # WS-Security 1.1 §12: the code itself.
      def wsse_fault(code, reason) = Fault.new(code: "wsse:#{code}", reason: reason)

      # Writes a fault's children: faultcode, faultstring, faultactor, detail.
      def write_fault(out, fault, code, writer)
        out << "<faultcode>" << writer.text(code) << "</faultcode><faultstring>" << writer.text(fault.reason.to_s) << "</faultstring>"
        out << "<faultactor>" << writer.text(fault.actor) << "</faultactor>" if fault.actor
        writer.write_detail(out, "detail", fault.detail_value)
      end
    end

    # SOAP 1.2: +application/soap+xml+ with an +action+ parameter, Code/Subcode/Reason
    # faults, +enc:+ encoding, +rpc:result+.
    #
    # @api private
    class Version12 < Version
      # Sets the request's Content-Type, the action its +action+ parameter.
      def request_headers(headers, action)
        headers["Content-Type"] = %(#{@content_type}; action="#{action}")
        headers
      end

      # @return [String, nil] the action a Rack request names (its Content-Type's +action+ parameter)
      def request_action(env) = env["CONTENT_TYPE"].to_s[/;\s*action\s*=\s*("[^"]*"|[^;\s]*)/i, 1]

      # The Content-Type of an MTOM package's root part: the request's, without its charset.
      def mtom_root_type(content_type) = content_type.sub(/;\s*charset=[^;]*/, "")

      # SOAP 1.2 RPC (Part 2 §4.2.2) names the return value with rpc:result.
      def rpc_result? = true

      # SOAP 1.2 Part 2 §7.5.1.2: a Sender fault is a 400, any other a 500.
      def fault_status(code) = %w[Client Sender].include?(code.to_s.sub(/\A[^:]*:/, "")) ? 400 : 500

      # WS-Security 1.1 §12: a subcode of Sender.
      def wsse_fault(code, reason) = Fault.new(code: "Sender", subcodes: ["wsse:#{code}"], reason: reason)

      # Writes a fault's children: Code (with Subcodes), Reason, Node, Role, Detail.
      def write_fault(out, fault, code, writer)
        p = Envelope::ENV_PREFIX
        out << "<#{p}:Code><#{p}:Value>" << writer.text(code) << "</#{p}:Value>"
        fault.subcodes.each { |sub| out << "<#{p}:Subcode><#{p}:Value>" << writer.text(sub) << "</#{p}:Value>" }
        fault.subcodes.size.times { out << "</#{p}:Subcode>" }
        out << "</#{p}:Code><#{p}:Reason><#{p}:Text xml:lang=\"en\">" << writer.text(fault.reason.to_s) << "</#{p}:Text></#{p}:Reason>"
        out << "<#{p}:Node>" << writer.text(fault.node) << "</#{p}:Node>" if fault.node
        out << "<#{p}:Role>" << writer.text(fault.actor) << "</#{p}:Role>" if fault.actor
        writer.write_detail(out, "#{p}:Detail", fault.detail_value)
      end
    end

    # SOAP 1.1 (and WSDL 1.1's +soap:+ binding).
    SOAP11 = Version11.new(
      number: "1.1", envelope_namespace: Namespaces::SOAP11_ENVELOPE, media_type: "text/xml",
      fault_codes: { "Client" => "Client", "Server" => "Server", "Sender" => "Client", "Receiver" => "Server",
                     "VersionMismatch" => "VersionMismatch", "MustUnderstand" => "MustUnderstand" }.freeze,
      encoding: {
        namespace: Namespaces::SOAP11_ENCODING, prefix: "soapenc",
        # href="#x" / id="x" soapenc:root="0"; each is [before the id, after it].
        reference: [' href="#', '"'].freeze, referent: [' id="', '" soapenc:root="0"'].freeze,
        # An array's start tag: [before the item type, between it and the size, after the size];
        # the size when the length is not known up front (an Enumerator).
        array: [' xsi:type="soapenc:Array" soapenc:arrayType="', "[", ']"'].freeze, unknown_size: ""
      },
      binding: { namespace: Namespaces::WSDL_SOAP11_BINDING, prefix: "soap", suffix: "SoapBinding", port_suffix: "Port" }
    )
    # SOAP 1.2 (and WSDL 1.1's +soap12:+ binding).
    SOAP12 = Version12.new(
      number: "1.2", envelope_namespace: Namespaces::SOAP12_ENVELOPE, media_type: "application/soap+xml",
      fault_codes: { "Client" => "Sender", "Server" => "Receiver", "Sender" => "Sender", "Receiver" => "Receiver",
                     "VersionMismatch" => "VersionMismatch", "MustUnderstand" => "MustUnderstand",
                     "DataEncodingUnknown" => "DataEncodingUnknown" }.freeze,
      encoding: {
        namespace: Namespaces::SOAP12_ENCODING, prefix: "enc",
        # Part 2 §3.1.5: enc:ref="x" / enc:id="x" (1.2 has no root).
        reference: [' enc:ref="', '"'].freeze, referent: [' enc:id="', '"'].freeze,
        array: [' xsi:type="enc:Array" enc:itemType="', '" enc:arraySize="', '"'].freeze, unknown_size: "*"
      },
      binding: { namespace: Namespaces::WSDL_SOAP12_BINDING, prefix: "soap12", suffix: "Soap12Binding", port_suffix: "Soap12Port" }
    )

    class Version
      BY_NUMBER = Shareable.make({ "1.1" => SOAP11, "1.2" => SOAP12 })
      BY_ENVELOPE = Shareable.make({ SOAP11.envelope_namespace => SOAP11, SOAP12.envelope_namespace => SOAP12 })
      BY_MEDIA_TYPE = Shareable.make({ SOAP11.media_type => SOAP11, SOAP12.media_type => SOAP12 })
      BY_BINDING = Shareable.make({ SOAP11.binding_namespace => SOAP11, SOAP12.binding_namespace => SOAP12 })
      private_constant :BY_NUMBER, :BY_ENVELOPE, :BY_MEDIA_TYPE, :BY_BINDING
    end
  end
end
