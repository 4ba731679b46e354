"""The crawler's sockets (agentdex/crawler/netstream.py) over real TLS connections to the
loopback test server.

OpenSSL answers a read with "want write" when TLS must send something before it can read on
(a TLS 1.2 renegotiation, a TLS 1.3 key update the peer asked to be answered) and the send
buffer is full. Python's ``ssl`` module can start neither from the server side, so the TLS
socket here is OpenSSL's own, made to say so once through ``SSLContext.sslsocket_class``, the
hook the standard library gives for that: every other byte goes through the real handshake
and the real record layer.
"""

from __future__ import annotations

import ssl

import pytest

from agentdex.crawler.netstream import open_stream
from netfixtures import TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401

pytestmark = pytest.mark.anyio


class WantsWriteFirst(ssl.SSLSocket):
    """A TLS socket whose first read finds that TLS must write first (as OpenSSL reports it:
    ``SSLWantWriteError``), then reads as usual."""

    wanted = 0

    def recv(self, buflen: int = 1024, flags: int = 0) -> bytes:
        if not WantsWriteFirst.wanted:
            WantsWriteFirst.wanted += 1
            raise ssl.SSLWantWriteError(ssl.SSL_ERROR_WANT_WRITE, "The operation did not complete (write)")
        return super().recv(buflen, flags)


async def test_a_read_that_must_write_first_waits_then_reads_the_answer(tls_server: TLSServer) -> None:  # noqa: F811
    context = ssl.create_default_context(cafile=str(tls_server.ca_path))
    context.sslsocket_class = WantsWriteFirst
    WantsWriteFirst.wanted = 0
    plain = await open_stream("127.0.0.1", tls_server.port)
    stream = await plain.start_tls(context, server_hostname="a.test", timeout=5)
    try:
        await stream.write(b"GET /json HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n", timeout=5)
        answer = b""
        while chunk := await stream.read(65536, timeout=5):  # an UnboundLocalError here, once
            answer += chunk
    finally:
        await stream.aclose()
    assert WantsWriteFirst.wanted == 1  # the read did meet "want write"
    assert answer.startswith(b"HTTP/1.1 200 ") and b'"path": "/json"' in answer
