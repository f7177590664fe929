"""Calls a wirebind service with zeep's WS-Security (Debian's python3-zeep and python3-xmlsec).

Usage: /usr/bin/python3 zeep_wsse_client.py URL MODE [ARGS...]
  MODE username USER PASSWORD   UsernameToken with a PasswordDigest (zeep.wsse.username)
  MODE signature KEY CERT       an X.509 signature over Body and Timestamp (zeep.wsse.signature)
Prints one JSON object: {"result": ...} or {"fault": {"code": ..., "message": ...}}.
"""
import datetime
import json
import sys

import zeep
from zeep.exceptions import Fault
from zeep.wsse import utils
from zeep.wsse.signature import Signature
from zeep.wsse.username import UsernameToken


class SignOnly(Signature):
    """zeep's Signature, minus the check of the response (the service does not sign its answers)."""

    def verify(self, envelope):
        return envelope


class TimestampedSignature(SignOnly):
    """A wsu:Timestamp, then the signature (zeep signs the Timestamp when there is one)."""

    def apply(self, envelope, headers):
        security = utils.get_security_header(envelope)
        now = datetime.datetime.utcnow()
        created = utils.get_timestamp(now)
        expires = utils.get_timestamp(now + datetime.timedelta(minutes=5))
        timestamp = utils.WSU("Timestamp")
        timestamp.append(utils.WSU("Created", created))
        timestamp.append(utils.WSU("Expires", expires))
        security.append(timestamp)
        return super().apply(envelope, headers)


url, mode = sys.argv[1], sys.argv[2]
if mode == "username":
    wsse = UsernameToken(sys.argv[3], sys.argv[4], use_digest=True)
else:
    wsse = TimestampedSignature(sys.argv[3], sys.argv[4])
client = zeep.Client(url + "?wsdl", wsse=wsse, transport=zeep.Transport(timeout=10, operation_timeout=10))
try:
    print(json.dumps({"result": client.service.whoAmI("zeep")}))
except Fault as fault:
    print(json.dumps({"fault": {"code": str(fault.code), "message": fault.message}}))
