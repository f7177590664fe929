"""Calls a wirebind service with zeep's WS-Addressing plugin (Debian's python3-zeep).

Usage: /usr/bin/python3 zeep_addressing_client.py URL
Prints one JSON object: the result, the MessageID zeep sent and the RelatesTo it received.
"""
import json
import sys

import zeep
from zeep.plugins import HistoryPlugin
from zeep.wsa import WsAddressingPlugin

WSA = "{http://www.w3.org/2005/08/addressing}"
history = HistoryPlugin()
client = zeep.Client(sys.argv[1] + "?wsdl", plugins=[WsAddressingPlugin(), history],
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
