"""Calls the wirebind interop service with suds (Debian's python3-suds).

Usage: /usr/bin/python3 suds_client.py URL   (URL of the endpoint; its ?wsdl is read)
Prints one JSON object with what each call returned, for the Ruby test to check.
"""
import json
import sys

from suds import WebFault
from suds.client import Client

url = sys.argv[1]
client = Client(url + "?wsdl", timeout=10, cache=None)
service = client.service
out = {}

out["login"] = service.login("ann", "secret")

issues = service.getIssues("token-ann", "project = OPS", 2)
# document/literal: a wrapper holding the items; rpc/encoded: a soapenc:Array, a list
items = issues if isinstance(issues, list) else issues.item


def version_names(versions):
    return [v.name for v in (versions if isinstance(versions, list) else versions.Version)]


out["issues"] = [
    {"key": i.key, "summary": i.summary, "votes": i.votes, "created": i.created.isoformat(), "versions": version_names(i.versions)}
    for i in items
]

issue = client.factory.create("ns1:Issue" if "encoded" in url else "ns0:Issue")
issue.summary = "From suds"
issue.votes = 5
issue.created = "2024-05-06T07:08:09Z"
created = service.createIssue("t", issue)
out["created"] = {"key": created.key, "summary": created.summary, "votes": created.votes}

try:
    service.login("bob", "nope")
    out["fault"] = None
except WebFault as error:
    out["fault"] = {"code": error.fault.faultcode, "message": error.fault.faultstring}

print(json.dumps(out))
