"""Calls a wirebind service with WS-Addressing from zeep (Debian's python3-zeep).

zeep turns WS-Addressing on by itself (its WsAddressingPlugin) for an operation
whose ?wsdl input names a wsam:Action, as the service's does: the plugin is not
passed again (it would write every header twice).

Usage: /usr/bin/python3 zeep_addressing_client.py URL
Prints one JSON object: the result, the MessageID zeep sent and the RelatesTo it received.
"""
import json
import sys

import zeep
from zeep.plugins import HistoryPlugin

WSA = "{http://www.w3.org/2005/08/addressing}"
history = HistoryPlugin()
client = zeep.Client(sys.argv[1] + "?wsdl", plugins=[history],
                     transport=zeep.Transport(timeout=10, operation_timeout=10))
result = client.service.echo("zeep")
sent = history.last_sent["envelope"]
received = history.last_received["envelope"]
print(json.dumps({
    "result": result,
    "message_id": sent.find(".//" + WSA + "MessageID").text,
    "relates_to": received.find(".//" + WSA + "RelatesTo").text,
    "action": received.find(".//" + WSA + "Action").text,
}))
