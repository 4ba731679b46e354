"""Describing a failed fetch: any exception becomes an error code and a readable sentence.

What the transport raises is agentdex's own (:class:`agentdex.errors.TransportError` and
:class:`agentdex.errors.FetchError`, from the socket up); httpx's vocabulary is left only
for the URL a request names (``httpx.InvalidURL``).

Public API::

    describe_error(exc, record, deadline) -> (error_code, sentence)
    tls_error(exc) -> ssl.SSLError | None   the TLS failure behind a connection error, if any
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterator

import httpx

from agentdex.errors import ConnectError, FetchError, ProtocolError, ReadError, TransportTimeout, WriteError
from agentdex.models import FetchRecord


def describe_error(exc: Exception, record: FetchRecord, deadline: float) -> tuple[str, str]:
    """``(error_code, sentence)`` for any exception a fetch can meet."""
    if isinstance(exc, FetchError):
        return exc.code, str(exc)
    where = record.final_url or record.url
    if isinstance(exc, TimeoutError):
        return "timeout", f"{where} gave no complete answer within the {deadline:g} s deadline."
    if isinstance(exc, TransportTimeout):
        return "timeout", f"{where} did not answer in time ({type(exc).__name__})."
    if isinstance(exc, ConnectError):
        return _connect_error(exc, where)
    if isinstance(exc, (ReadError, ProtocolError, WriteError)):
        code = "incomplete" if record.status is not None else "protocol"
        return code, f"The connection to {where} failed {_phase(record)} ({exc or type(exc).__name__})."
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return "invalid_url", f"{where} cannot be requested ({exc})."
    return "internal", f"Fetching {where} failed unexpectedly ({type(exc).__name__}: {exc})."


def _phase(record: FetchRecord) -> str:
    return "in the middle of the body" if record.status is not None else "before a complete answer"


def _connect_error(exc: ConnectError, where: str) -> tuple[str, str]:
    tls = tls_error(exc)
    if isinstance(tls, ssl.SSLCertVerificationError):
        return "tls", f"The TLS certificate of {where} was not accepted ({tls.verify_message or tls.reason})."
    if tls is not None:
        return "tls", f"The TLS handshake with {where} failed ({tls.reason or tls})."
    return "refused", f"No connection to {where} could be made ({_os_reason(exc)})."


def _os_reason(exc: BaseException) -> str:
    """The operating system's words for the first errno in the chain ("Connection refused")."""
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno is not None:
            return os.strerror(link.errno)
    return str(exc) or "connection failed"


def tls_error(exc: BaseException) -> ssl.SSLError | None:
    """The ssl error behind a connection failure, if TLS is what failed."""
    return next((link for link in _chain(exc) if isinstance(link, ssl.SSLError)), None)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and its causes/contexts, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        yield current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
