"""zeep's Transport for the suite: the SOAP encoding schema answered locally.

Imported by zeep_client.py and test/wsdl/zeep_path_attributes.py.
"""
import zeep

# zeep reads the SOAP encoding schema (soapenc:Array) from schemas.xmlsoap.org
# whenever a WSDL uses it; the suite has no outside network, so that one URL is
# answered with the few declarations an rpc/encoded WSDL refers to, written here.
SOAP_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
SOAP_ENCODING_SCHEMA = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:tns="http://schemas.xmlsoap.org/soap/encoding/" targetNamespace="http://schemas.xmlsoap.org/soap/encoding/">
  <xs:attribute name="root" type="xs:boolean"/>
  <xs:attribute name="arrayType" type="xs:string"/>
  <xs:attribute name="offset" type="xs:string"/>
  <xs:complexType name="Array">
    <xs:sequence><xs:any namespace="##any" minOccurs="0" maxOccurs="unbounded" processContents="lax"/></xs:sequence>
    <xs:attribute name="id" type="xs:ID"/>
    <xs:attribute name="href" type="xs:anyURI"/>
    <xs:attribute ref="tns:arrayType"/>
    <xs:attribute ref="tns:offset"/>
  </xs:complexType>
</xs:schema>"""


class LoopbackTransport(zeep.Transport):
    def load(self, url):
        if url.rstrip("/") == SOAP_ENCODING.rstrip("/"):
            return SOAP_ENCODING_SCHEMA
        return super().load(url)
