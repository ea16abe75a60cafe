"""A real SMTP relay for ciam-mail's tests: aiosmtpd with TLS (STARTTLS or implicit), AUTH
PLAIN/LOGIN against one user, and a certificate made here (a throw-away CA and a leaf for
127.0.0.1) whose CA the Rust side trusts as its extra root.

Usage: smtp_relay.py --mode starttls|implicit|plain --dir DIR --user U --password P [--login-only]
Writes DIR/ca.pem, prints "READY <port>" when it listens, and appends one JSON line per accepted
message to DIR/received.jsonl: the envelope, the auth used, whether TLS was on, and the message
parsed by Python's email package (decoded subject, sender, body) beside its raw headers.
Recipients starting with "refused" get 550, with "busy" 451 (the error tests).
"""

import argparse
import asyncio
import datetime
import email
import email.policy
import ipaddress
import json
import logging
import os
import signal
import socket
import ssl
import threading
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def make_certificates(folder):
    """A CA (written to ca.pem) and a leaf for 127.0.0.1 signed by it (server.pem, server.key)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ciam-mail test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    with open(os.path.join(folder, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(os.path.join(folder, "server.pem"), "wb") as f:
        f.write(leaf.public_bytes(pem))
    with open(os.path.join(folder, "server.key"), "wb") as f:
        f.write(
            key.private_bytes(
                pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(os.path.join(folder, "server.pem"), os.path.join(folder, "server.key"))
    return ctx


class Handler:
    def __init__(self, folder):
        self.out = os.path.join(folder, "received.jsonl")
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("refused"):
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        if address.startswith("busy"):
            return "451 4.3.0 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        head, _, _ = raw.partition(b"\r\n\r\n")
        # The transport in use: TLS from the first byte, or after STARTTLS (session.ssl is set
        # only then).
        tls = server.transport.get_extra_info("ssl_object")
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "auth_login": session.auth_data.login.decode() if session.auth_data else None,
            "auth_mechanism": getattr(session, "ciam_mechanism", None),
            "tls": tls is not None,
            "tls_version": tls.version() if tls is not None else None,
            "starttls": session.ssl is not None,
            "raw_headers": head.decode("ascii", "replace"),
            "raw_is_ascii": raw.isascii(),
            "subject": str(msg["subject"]),
            "from": str(msg["from"]),
            "from_name": msg["from"].addresses[0].display_name,
            "to": str(msg["to"]),
            "content_type": msg.get_content_type(),
            "charset": msg.get_content_charset(),
            "transfer_encoding": msg.get("content-transfer-encoding"),
            "auto_submitted": msg.get("auto-submitted"),
            "message_id": msg.get("message-id"),
            "date": msg.get("date"),
            "body": msg.get_content(),
        }
        with self.lock, open(self.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
        return "250 2.0.0 Ok: queued"


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        ok = auth_data.login == user.encode() and auth_data.password == password.encode()
        if ok:
            session.ciam_mechanism = mechanism
        # handled=False: aiosmtpd answers the failure itself (535).
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    return check


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    # The refused handshakes and logins are the tests' own doing: no tracebacks in their output.
    logging.getLogger("mail.log").setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", message="Session.login_data")
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["starttls", "implicit", "plain"], required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--login-only", action="store_true")
    a = p.parse_args()
    ctx = make_certificates(a.dir)
    port = free_port()
    kw = dict(
        hostname="127.0.0.1",
        port=port,
        server_hostname="relay.test",
        authenticator=authenticator(a.user, a.password),
        # aiosmtpd counts only STARTTLS as TLS; with implicit TLS every byte is encrypted already
        # (the record's "tls" says so), and "plain" is the relay that offers no TLS at all.
        auth_require_tls=a.mode == "starttls",
        auth_exclude_mechanism=["PLAIN"] if a.login_only else None,
    )
    if a.mode == "starttls":
        kw.update(tls_context=ctx, require_starttls=True)
    elif a.mode == "implicit":
        kw.update(ssl_context=ctx)
    controller = Controller(Handler(a.dir), **kw)
    controller.start()
    print(f"READY {port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    # Ends with the test: on a signal, or when the test process goes (stdin closes).
    threading.Thread(target=lambda: (os.read(0, 1), stop.set()), daemon=True).start()
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
