"""agentdex's exceptions. The library raises these and never exits; the CLI and the TUI
translate them into a message at the edge.

    AgentdexError
    ├── InputError        a path or argument that cannot be used at all (exit 2)
    ├── FetchError        a request that failed under the fetch policy (carries .code, .url)
    │   └── BlockedAddress  the address guard refused a connection
    ├── DatabaseError     the catalogue file is missing, unreadable or of a newer schema
    └── PackageError      an .adapp package that cannot be opened or packed
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


class DatabaseError(AgentdexError):
    """The catalogue database cannot be opened or is not one agentdex can read."""


class PackageError(AgentdexError):
    """An .adapp package that cannot be opened, read or packed."""
