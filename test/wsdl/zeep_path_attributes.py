"""Calls the path-attributes service of test/wsdl/path_attributes_test.rb with zeep.

Usage: /usr/bin/python3 zeep_path_attributes.py URL   (URL of the endpoint; its ?wsdl is read)
Sends one Payment whose XML attributes sit on child elements (Amt/@Ccy,
address/@zip) and prints what came back as one JSON object.
"""
import decimal
import json
import sys

import zeep
from zeep.helpers import serialize_object

# As in test/soap/interop/zeep_client.py: the SOAP encoding schema an
# rpc/encoded WSDL imports is answered locally (the suite has no outside network).
SOAP_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
SOAP_ENCODING_SCHEMA = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:tns="http://schemas.xmlsoap.org/soap/encoding/" targetNamespace="http://schemas.xmlsoap.org/soap/encoding/">
  <xs:attribute name="root" type="xs:boolean"/>
  <xs:attribute name="arrayType" type="xs:string"/>
  <xs:complexType name="Array">
    <xs:sequence><xs:any namespace="##any" minOccurs="0" maxOccurs="unbounded" processContents="lax"/></xs:sequence>
    <xs:attribute ref="tns:arrayType"/>
  </xs:complexType>
</xs:schema>"""


class LoopbackTransport(zeep.Transport):
    def load(self, url):
        if url.rstrip("/") == SOAP_ENCODING.rstrip("/"):
            return SOAP_ENCODING_SCHEMA
        return super().load(url)


url = sys.argv[1]
client = zeep.Client(url + "?wsdl", transport=LoopbackTransport(timeout=10, operation_timeout=10))
payment_type = client.get_type("{urn:pay:beans}Payment") if "encoded" in url else client.get_type("{urn:pay}Payment")
payment = payment_type(
    Amt={"_value_1": decimal.Decimal("12.50"), "Ccy": "EUR"},
    address={"city": "Oslo", "zip": "0150", "script": "Latn"},
    number="p-1",
    lang="nb",
)
result = serialize_object(client.service.pay(payment))
print(json.dumps(result, default=str))
