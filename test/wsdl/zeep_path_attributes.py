"""Calls the path-attributes service of test/wsdl/path_attributes_test.rb with zeep.

Usage: /usr/bin/python3 zeep_path_attributes.py URL   (URL of the endpoint; its ?wsdl is read)
Sends one Payment whose XML attributes sit on child elements (Amt/@Ccy,
address/@zip) and prints what came back as one JSON object.
"""
import decimal
import json
import os
import sys

from zeep.helpers import serialize_object
import zeep

# The suite's zeep Transport (the SOAP encoding schema answered locally).
sys.dont_write_bytecode = True  # no __pycache__ left in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "soap", "interop"))
from zeep_loopback import LoopbackTransport  # noqa: E402

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
