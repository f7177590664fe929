"""Calls a wirebind service that answers with MTOM/XOP packages, with zeep
(Debian's python3-zeep), which reads multipart/related responses.

Usage: /usr/bin/python3 zeep_mtom_client.py URL SIZE...   (URL of the endpoint; its ?wsdl is read)
Prints one JSON object: for each SIZE, the length and SHA-256 of what download(size) returned.
"""
import hashlib
import json
import sys

import zeep

url = sys.argv[1]
client = zeep.Client(url + "?wsdl", transport=zeep.Transport(timeout=10, operation_timeout=10))
result = {}
for size in sys.argv[2:]:
    data = client.service.download(int(size))
    result[size] = [len(data), hashlib.sha256(data).hexdigest()]
print(json.dumps(result))
