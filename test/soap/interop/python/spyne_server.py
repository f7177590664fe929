"""A spyne service (Debian's python3-spyne): document/literal wrapped, SOAP 1.1 and 1.2.

Usage: /usr/bin/python3 spyne_server.py PORT   (serves /soap11 and /soap12, with ?wsdl, on 127.0.0.1)
What test/soap/interop/spyne_test.rb calls: a header, a list, a nil, a fault,
non-ASCII text.
"""
import logging
import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

from spyne import Application, ComplexModel, Fault, Integer, Iterable, ServiceBase, Unicode, rpc
from spyne.protocol.soap import Soap11, Soap12
from spyne.server.wsgi import WsgiApplication
from spyne.util.wsgi_wrapper import WsgiMounter

NS = "urn:wirebind:spyne"


class AuthHeader(ComplexModel):
    __namespace__ = NS
    user = Unicode
    password = Unicode


class Person(ComplexModel):
    __namespace__ = NS
    name = Unicode
    age = Integer
    # written even when None, as xsi:nil (spyne leaves out an optional None)
    nickname = Unicode(min_occurs=1, nillable=True)


class Interop(ServiceBase):
    __in_header__ = AuthHeader

    @rpc(Unicode, _returns=Unicode)
    def whoAmI(ctx, greeting):
        auth = ctx.in_header
        user = auth.user if auth is not None and auth.password == "secret" else "stranger"
        return "%s, %s" % (greeting, user)

    @rpc(Unicode, Integer, _returns=Iterable(Person))
    def people(ctx, name, count):
        # nickname is left None: spyne writes it as xsi:nil (nillable by default)
        return [Person(name="%s %d" % (name, n), age=n) for n in range(1, count + 1)]

    @rpc(Person, _returns=Person)
    def older(ctx, person):
        # echoes the nickname it got (None for a nil) with age + 1
        return Person(name=person.name, age=person.age + 1, nickname=person.nickname)

    @rpc(Unicode, _returns=Unicode)
    def greet(ctx, name):
        return "Grüße, %s" % name

    @rpc(Unicode, _returns=Unicode)
    def refuse(ctx, reason):
        raise Fault(faultcode="Client.Refused", faultstring=reason)


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


logging.disable(logging.CRITICAL)
# SOAP 1.1 under /soap11, SOAP 1.2 under /soap12 (each with its ?wsdl)
soap11 = Application([Interop], tns=NS, in_protocol=Soap11(validator="lxml"), out_protocol=Soap11())
soap12 = Application([Interop], tns=NS, in_protocol=Soap12(validator="lxml"), out_protocol=Soap12())
mounter = WsgiMounter({"soap11": soap11, "soap12": soap12})
make_server("127.0.0.1", int(sys.argv[1]), mounter, handler_class=QuietHandler).serve_forever()
