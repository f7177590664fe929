# frozen_string_literal: true

module Wirebind
  # Every namespace URI the gem knows by name, once. The public constants of
  # {SOAP} and {WSDL} (+SOAP::NS_11+, +SOAP::XSD_NS+, ...) are these values.
  #
  # @api private
  module Namespaces
    # Bound to the prefix +xml+ without a declaration (Namespaces in XML §3).
    XML = "http://www.w3.org/XML/1998/namespace"
    # Reserved for namespace declarations themselves; never declared.
    XMLNS = "http://www.w3.org/2000/xmlns/"
    # XML Schema: +xsd:string+ and the other built-in types.
    XSD = "http://www.w3.org/2001/XMLSchema"
    # The drafts of XML Schema that older WSDL still names.
    XSD_1999 = "http://www.w3.org/1999/XMLSchema"
    XSD_2000 = "http://www.w3.org/2000/10/XMLSchema"
    # XML Schema instance: +xsi:type+, +xsi:nil+.
    XSI = "http://www.w3.org/2001/XMLSchema-instance"

    SOAP11_ENVELOPE = "http://schemas.xmlsoap.org/soap/envelope/"
    SOAP12_ENVELOPE = "http://www.w3.org/2003/05/soap-envelope"
    SOAP11_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
    SOAP12_ENCODING = "http://www.w3.org/2003/05/soap-encoding"
    SOAP12_RPC = "http://www.w3.org/2003/05/soap-rpc"
    # The roles a SOAP node always plays (SOAP 1.1 §4.2.2, SOAP 1.2 Part 1 §2.2).
    SOAP11_ACTOR_NEXT = "http://schemas.xmlsoap.org/soap/actor/next"
    SOAP12_ROLE_NEXT = "http://www.w3.org/2003/05/soap-envelope/role/next"
    SOAP12_ROLE_ULTIMATE_RECEIVER = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver"

    WSDL = "http://schemas.xmlsoap.org/wsdl/"
    WSDL_SOAP11_BINDING = "http://schemas.xmlsoap.org/wsdl/soap/"
    WSDL_SOAP12_BINDING = "http://schemas.xmlsoap.org/wsdl/soap12/"
    # The +transport+ of a SOAP binding over HTTP.
    SOAP_HTTP_TRANSPORT = "http://schemas.xmlsoap.org/soap/http"
  end
end
