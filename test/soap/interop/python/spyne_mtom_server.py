"""A spyne service (Debian's python3-spyne) that reads MTOM/XOP requests.

Usage: /usr/bin/python3 spyne_mtom_server.py PORT   (serves SOAP 1.1 on 127.0.0.1:PORT/)
upload(name, data) answers "NAME: BYTES SHA256" of the base64Binary it read, for
test/soap/mtom_send_test.rb to check that the attachment arrived byte for byte.
"""
import hashlib
import logging
import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

from spyne import Application, ByteArray, ServiceBase, Unicode, rpc
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

NS = "urn:mtom:send"


class Upload(ServiceBase):
    @rpc(Unicode, ByteArray, _returns=Unicode)
    def upload(ctx, name, data):
        data = b"".join(data)
        return "%s: %d %s" % (name, len(data), hashlib.sha256(data).hexdigest())


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


logging.disable(logging.CRITICAL)
application = Application([Upload], tns=NS, in_protocol=Soap11(), out_protocol=Soap11())
make_server("127.0.0.1", int(sys.argv[1]), WsgiApplication(application), handler_class=QuietHandler).serve_forever()
