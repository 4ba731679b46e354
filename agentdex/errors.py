"""agentdex's exceptions. The library raises these and never exits; the CLI and the TUI
translate them into a message at the edge.

    AgentdexError
    ├── InputError        a path or argument that cannot be used at all (exit 2)
    ├── FetchError        a request that failed under the fetch policy (carries .code, .url)
    │   └── BlockedAddress  the address guard refused a connection
    ├── TransportError    a connection that failed below HTTP's meaning (the crawler's transport)
    │   ├── ConnectError    no connection: refused, unreachable, or TLS failed (its ssl error the cause)
    │   ├── ReadError, WriteError   the connection broke while reading or writing
    │   ├── ProtocolError   the server broke HTTP/1.1's framing, or closed before answering
    │   └── TransportTimeout        no progress within a timeout
    │       └── ConnectTimeout, ReadTimeout, WriteTimeout
    ├── DatabaseError     the catalogue file is missing, unreadable or of a newer schema
    └── PackageError      an .adapp package that cannot be opened or packed

The crawler's sockets, TLS and HTTP/1.1 (agentdex/crawler/netstream.py, netpolicy.py, h1.py)
raise only TransportError and FetchError, from the socket up; one function turns each into
a fetch's code and sentence (agentdex/crawler/fetch_errors.py).
"""

from __future__ import annotations


class AgentdexError(Exception):
    """Base of every error agentdex raises on purpose."""


class InputError(AgentdexError):
    """A path or argument agentdex cannot use at all."""


class FetchError(AgentdexError):
    """A fetch that failed; ``code`` is a stable word (``timeout``, ``tls``, ``dns`` …)."""

    def __init__(self, code: str, message: str, url: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.url = url


class BlockedAddress(FetchError):
    """The private/loopback/link-local address guard refused a connection."""

    def __init__(self, message: str, url: str = "") -> None:
        super().__init__("blocked_address", message, url)


class TransportError(AgentdexError):
    """A connection that failed below HTTP's meaning: the socket, TLS or HTTP/1.1's framing."""


class ConnectError(TransportError):
    """No connection: refused, unreachable, reset, or a TLS handshake that failed (then the
    ``ssl.SSLError`` is the cause)."""


class ReadError(TransportError):
    """The connection broke while an answer was read."""


class WriteError(TransportError):
    """The connection broke while a request was written."""


class ProtocolError(TransportError):
    """The server broke HTTP/1.1's framing (the parser's error is the cause), or closed
    the connection before its answer's head ended."""


class TransportTimeout(TransportError):
    """No progress within a timeout."""


class ConnectTimeout(TransportTimeout):
    """No connection, or no TLS handshake, within the connect timeout."""


class ReadTimeout(TransportTimeout):
    """Nothing to read within the read timeout."""


class WriteTimeout(TransportTimeout):
    """The socket took nothing within the write timeout."""


class DatabaseError(AgentdexError):
    """The catalogue database cannot be opened or is not one agentdex can read."""


class PackageError(AgentdexError):
    """An .adapp package that cannot be opened, read or packed."""


def pydantic_words(message: str) -> str:
    """A pydantic error message without its prefix for errors raised in a validator
    (``Value error, …``, ``Assertion failed, …``): the sentence a person reads."""
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message
