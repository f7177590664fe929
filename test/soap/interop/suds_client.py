"""Calls the wirebind interop service with suds (Debian's python3-suds).

Usage: /usr/bin/python3 suds_client.py URL   (URL of the endpoint; its ?wsdl is read)
Prints one JSON object with what each call returned, for the Ruby test to check.
"""
import json
import sys

from suds import WebFault
from suds.client import Client
from suds.sax.element import Element

url = sys.argv[1]
client = Client(url + "?wsdl", timeout=10, cache=None)
service = client.service
out = {}

if sys.argv[2:] == ["more"]:
    # A header (built by hand: the WSDL declares none), a nil, non-ASCII text and
    # one object passed twice.
    NS = ("ns", "urn:wirebind:interop")
    auth = Element("AuthHeader", ns=NS)
    auth.append(Element("user", ns=NS).setText("ann"))
    auth.append(Element("password", ns=NS).setText("secret"))
    more = {"whoAmI": [], "echo": []}
    client.set_options(soapheaders=auth)
    more["whoAmI"].append(service.whoAmI("hello"))
    client.set_options(soapheaders=())
    more["whoAmI"].append(service.whoAmI("hello"))
    more["echo"].append(service.echo("Grüße ✓ 日本"))
    more["echo"].append(service.echo(None))
    version = client.factory.create("ns1:Version" if "encoded" in url else "ns0:Version")
    version.name = "1.0"
    version.sequence = 1
    pair = service.pair(version, version)
    pair = pair if isinstance(pair, list) else pair.item
    more["pair"] = [[v.name, str(v.sequence)] for v in pair]
    print(json.dumps({"more": more}))
    sys.exit(0)

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
