# frozen_string_literal: true

module Wirebind
  module WSDL
    # Included by generated clients: a {SOAP::Fault} raised by an operation gets
    # its detail decoded into the fault model the WSDL declares
    # ({SOAP::Fault#detail_object}). The client class lists those models in
    # +FAULT_TYPES+; the one chosen is the one whose +xml_type+ is the detail's
    # +xsi:type+, else one of which that type is a subclass (vSphere's
    # <NotAuthenticatedFault xsi:type="NotAuthenticated"> where RuntimeFault is
    # declared: the detail decodes to NotAuthenticated), else whose +xml_root+
    # is the detail's element name, else the only one. A detail that does not
    # decode leaves +detail_object+ nil: the fault itself is what the caller needs.
    module FaultDetails
      XSI_TYPE = "{#{XML::Syntax::XSI_NS}}type"
      private_constant :XSI_TYPE

      # @see SOAP::Client#call
      def call(...)
        super
      rescue SOAP::Fault => e
        raise FaultDetails.decode(e, self.class::FAULT_TYPES)
      end

      # @see SOAP::Client#each
      def each(...)
        super
      rescue SOAP::Fault => e
        raise FaultDetails.decode(e, self.class::FAULT_TYPES)
      end

      # @api private
      # @return [SOAP::Fault] +fault+, its detail decoded where a type fits
      def self.decode(fault, types)
        return fault if types.empty? || fault.detail_object || (xml = fault.detail).nil?

        root = DocumentReader.read(xml, "fault detail")
        first = root.children.first or return fault
        type = detail_type(first, types)
        type ? fault.with_detail_object(fault.detail_as(type)) : fault
      rescue Wirebind::Error
        fault
      end

      # @api private
      # @param element [Node] the detail's first element
      # @return [Class, nil] the one of +types+ it decodes as
      def self.detail_type(element, types)
        if (xsi_type = element.attrs[XSI_TYPE])
          # Matched by local name as before even where the prefix is not declared.
          prefix, _, local = xsi_type.strip.rpartition(":")
          uri = element.ns[prefix]
          uri = nil if uri == ""
          found = types.find { |klass| klass.xml_type&.first == local } ||
                  types.find { |klass| Model.xml_subtype(klass, local, uri) }
          return found if found
        end
        types.find { |klass| klass.xml_root == element.local } || (types.size == 1 ? types.first : nil)
      end
    end
  end
end
