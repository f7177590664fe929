"""Calls the wirebind interop service with zeep (Debian's python3-zeep).

Usage: /usr/bin/python3 zeep_client.py URL   (URL of the endpoint; its ?wsdl is read)
Prints one JSON object with what each call returned, for the Ruby test to check.
"""
import datetime
import json
import sys

import zeep
from zeep.helpers import serialize_object

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout
from zeep_loopback import LoopbackTransport  # noqa: E402

url = sys.argv[1]
client = zeep.Client(url + "?wsdl", transport=LoopbackTransport(timeout=10, operation_timeout=10))
service = client.service
out = {}

out["login"] = service.login("ann", "secret")

issues = service.getIssues("token-ann", "project = OPS", 2)
issues = serialize_object(issues)
# document/literal: a wrapper with its items; rpc/encoded: a soapenc:Array, a list
items = issues["item"] if isinstance(issues, dict) else issues
out["issues"] = [
    {
        "key": i["key"],
        "summary": i["summary"],
        "votes": i["votes"],
        "created": i["created"].isoformat() if i["created"] else None,
        "versions": [v["name"] for v in (i["versions"]["Version"] if isinstance(i["versions"], dict) else i["versions"])],
    }
    for i in items
]

issue_type = client.get_type("{urn:wirebind:interop:beans}Issue") if "encoded" in url else None
if issue_type is None:
    issue_type = client.get_type("{urn:wirebind:interop}Issue")
created = service.createIssue(
    "t",
    issue_type(key=None, summary="From zeep", votes=5,
               created=datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc), versions=None),
)
out["created"] = {"key": created["key"], "summary": created["summary"], "votes": created["votes"]}

try:
    service.login("bob", "nope")
    out["fault"] = None
except zeep.exceptions.Fault as fault:
    out["fault"] = {"code": str(fault.code), "message": fault.message}

print(json.dumps(out))
