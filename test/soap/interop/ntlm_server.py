"""An HTTP/1.1 server that requires NTLM (NTLMv2) authentication, per connection, as IIS does.

Built on Debian's python3-ntlm-auth (its NTLM message structures and NTOWFv2), not on
wirebind. Answers every authenticated POST with a SOAP envelope naming the user and how
many requests its connection carried.

Usage: /usr/bin/python3 ntlm_server.py PORT USER:PASSWORD [USER:PASSWORD...]
Domain: TESTDOMAIN. Listens on 127.0.0.1 only.
"""
import base64
import hmac
import hashlib
import os
import struct
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ntlm_auth.compute_hash import _ntowfv2
from ntlm_auth.compute_response import get_windows_timestamp
from ntlm_auth.constants import AvId, MessageTypes, NegotiateFlags, NTLM_SIGNATURE
from ntlm_auth.messages import TargetInfo

DOMAIN = "TESTDOMAIN"
USERS = dict(arg.split(":", 1) for arg in sys.argv[2:])
FLAGS = (NegotiateFlags.NTLMSSP_NEGOTIATE_UNICODE | NegotiateFlags.NTLMSSP_REQUEST_TARGET
         | NegotiateFlags.NTLMSSP_NEGOTIATE_NTLM | NegotiateFlags.NTLMSSP_NEGOTIATE_ALWAYS_SIGN
         | NegotiateFlags.NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY
         | NegotiateFlags.NTLMSSP_NEGOTIATE_TARGET_INFO)


def challenge_message(server_challenge):
    target = DOMAIN.encode("utf-16-le")
    info = TargetInfo()
    info[AvId.MSV_AV_NB_DOMAIN_NAME] = target
    info[AvId.MSV_AV_NB_COMPUTER_NAME] = "SOAPSERVER".encode("utf-16-le")
    info[AvId.MSV_AV_TIMESTAMP] = get_windows_timestamp()
    info_bytes = info.pack()
    header = 48
    return (NTLM_SIGNATURE + struct.pack("<I", MessageTypes.NTLM_CHALLENGE)
            + struct.pack("<HHI", len(target), len(target), header) + struct.pack("<I", FLAGS)
            + server_challenge + b"\0" * 8
            + struct.pack("<HHI", len(info_bytes), len(info_bytes), header + len(target))
            + target + info_bytes)


def field(message, at):
    length, _, offset = struct.unpack("<HHI", message[at:at + 8])
    return message[offset:offset + length]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.server_challenge = None
        self.user = None
        self.requests = 0

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", challenge=None, close=False):
        self.send_response(status)
        if challenge is not None:
            self.send_header("WWW-Authenticate", "NTLM" + (" " + challenge if challenge else ""))
        self.send_header("Content-Type", "text/xml; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.requests += 1
        if self.user:
            return self.ok()
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("NTLM "):
            return self.answer(401, challenge="")
        message = base64.b64decode(auth[5:])
        if message[:8] != NTLM_SIGNATURE:
            return self.answer(400, close=True)
        kind = struct.unpack("<I", message[8:12])[0]
        if kind == MessageTypes.NTLM_NEGOTIATE:
            self.server_challenge = os.urandom(8)
            return self.answer(401, challenge=base64.b64encode(challenge_message(self.server_challenge)).decode())
        if kind == MessageTypes.NTLM_AUTHENTICATE and self.server_challenge:
            nt = field(message, 20)
            domain = field(message, 28).decode("utf-16-le")
            user = field(message, 36).decode("utf-16-le")
            password = USERS.get(user)
            if password is not None and len(nt) > 16:
                key = _ntowfv2(user, password, domain)
                proof = hmac.new(key, self.server_challenge + nt[16:], digestmod=hashlib.md5).digest()
                if hmac.compare_digest(proof, nt[:16]):
                    self.user = domain + "\\" + user
                    return self.ok()
        return self.answer(401, challenge="", close=True)

    def ok(self):
        text = "%s, request %d on this connection" % (self.user, self.requests)
        body = ('<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv='
                '"http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><ns1:whoResponse xmlns:ns1="urn:ntlm">'
                '<r>%s</r></ns1:whoResponse></soapenv:Body></soapenv:Envelope>' % text).encode()
        self.answer(200, body)


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
