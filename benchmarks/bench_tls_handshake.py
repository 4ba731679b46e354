"""The client's CPU for one TLS handshake, with the crawler's own TLS context: the part of an
empty origin's cost (issue 39) that no change to agentdex's Python can move.

A sweep pays one handshake an origin: each origin is its own host, so no TLS session can be
resumed. This runs ``--handshakes`` full handshakes against a server on loopback (a throwaway
CA from trustme, the server in a thread of this process), each on a new TCP connection, and
prints the client thread's CPU time (``time.thread_time``: the server's work is in another
thread) a handshake, with the OpenSSL this Python links, for an ECDSA P-256 certificate
(trustme's default, as the sample web serves) and an RSA-2048 one. The connect and close
are counted too, as a crawl pays them. It fails when a handshake fails.

    python benchmarks/bench_tls_handshake.py [--handshakes 500]
"""

from __future__ import annotations

import argparse
import socket
import ssl
import sys
import tempfile
import threading
import time
from pathlib import Path

import trustme

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agentdex.crawler.netpolicy import build_ssl_context  # noqa: E402


def serve(context: ssl.SSLContext, listener: socket.socket, failures: list[str]) -> None:
    """Accept and finish handshakes until the listener closes."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        try:
            with context.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1)
        except (OSError, ssl.SSLError) as exc:
            failures.append(str(exc))


def measure(key_type: trustme.KeyType, handshakes: int, folder: Path) -> float:
    """Client CPU milliseconds a handshake for a certificate of ``key_type``."""
    ca = trustme.CA(key_type=key_type)
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("bench.test", key_type=key_type).configure_cert(server_context)
    bundle = folder / f"ca-{key_type.name}.pem"
    ca.cert_pem.write_to_path(str(bundle))
    client_context = build_ssl_context(bundle)  # the crawler's context, as with --ca-bundle
    failures: list[str] = []
    with socket.create_server(("127.0.0.1", 0)) as listener:
        threading.Thread(target=serve, args=(server_context, listener, failures), daemon=True).start()
        started = time.thread_time()
        for _ in range(handshakes):
            with socket.create_connection(listener.getsockname()) as raw:
                with client_context.wrap_socket(raw, server_hostname="bench.test") as tls:
                    tls.sendall(b"x")
        spent = time.thread_time() - started
    if failures:
        sys.exit(f"{len(failures)} handshakes failed on the server's side: {failures[0]}")
    return spent * 1000 / handshakes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--handshakes", type=int, default=500, help="handshakes for each key type")
    args = parser.parse_args()
    print(f"{ssl.OPENSSL_VERSION}; Python {sys.version.split()[0]}; {args.handshakes} handshakes each")
    with tempfile.TemporaryDirectory() as tmp:
        for key_type in (trustme.KeyType.ECDSA, trustme.KeyType.RSA):
            spent = measure(key_type, args.handshakes, Path(tmp))
            print(f"  {key_type.name:5}  client CPU a handshake (connect and close included): {spent:.3f} ms")


if __name__ == "__main__":
    main()
