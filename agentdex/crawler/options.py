"""The network settings of a crawl (``crawl`` and ``verify`` share them): what the fetcher
is built with, which MCP registry is asked, and how long one origin may take.

Plain settings and their checks, below the stage (:mod:`agentdex.crawler.stage`) and the
run (:mod:`agentdex.crawler.crawl`) that use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.netpolicy import dns_server_resolver
from agentdex.errors import InputError

DEFAULT_REGISTRY = "https://registry.modelcontextprotocol.io"
# The most one origin may take, fetches and verification together (``crawl --origin-budget``):
# an origin that answers each request just inside its deadline cannot hold a worker for long.
ORIGIN_BUDGET = 120.0


@dataclass
class NetworkOptions:
    """The network options shared by ``crawl`` and ``verify``."""

    connect_to: list[tuple[str, str, int]] = field(default_factory=list)
    ca_bundle: Path | None = None
    dns_server: str | None = None  # "ADDR:PORT" for every DNS lookup: host addresses and TXT checks
    concurrency: int = 16
    allow_private: bool = False
    registry: str = DEFAULT_REGISTRY  # the MCP registry API asked for Anchor's registry proof
    deadline: float = 15.0
    connect_timeout: float = 5.0  # for a connection and its TLS handshake, within the deadline
    # Also ask ``registry`` what it lists for each origin's namespace (off unless asked:
    # ``crawl --registry-lookup``); see agentdex.crawler.discovery.
    registry_lookup: bool = False
    origin_budget: float = ORIGIN_BUDGET  # seconds one origin may take, all its requests together
    per_host: int = 1  # requests in flight to one host name at once (see agentdex.crawler.fetch)

    def __post_init__(self) -> None:
        self.registry = registry_base(self.registry)

    def fetcher(self) -> Fetcher:
        """A :class:`Fetcher` configured with these options."""
        return Fetcher(
            connect_to=self.connect_to,
            ca_bundle=self.ca_bundle,
            allow_private=self.allow_private,
            concurrency=self.concurrency,
            deadline=self.deadline,
            connect_timeout=self.connect_timeout,
            per_host=self.per_host,
            resolver=dns_server_resolver(self.dns_server, min(5.0, self.deadline)) if self.dns_server else None,
        )


def registry_base(value: str | None) -> str:
    """The registry API base: the official registry when none is given, else an https URL
    without a trailing slash (``/v0.1/servers/...`` is appended to it).

    :raises InputError: not an https URL with a host, or one with credentials, a query or a
        fragment
    """
    text = (value or "").strip() or DEFAULT_REGISTRY
    parts = _split(text)
    if parts is None or parts.scheme != "https" or not parts.hostname or parts.query or parts.fragment:
        raise InputError(f"--registry must be an https URL such as {DEFAULT_REGISTRY}, not {text!r}")
    if parts.username is not None or parts.password is not None:
        raise InputError("--registry must not carry credentials (user:password@): agentdex sends none to a registry")
    return text.rstrip("/")


def _split(url: str) -> SplitResult | None:
    """The parts of ``url``, or ``None`` when it cannot be one (a port that is no number)."""
    try:
        parts = urlsplit(url)
        return parts if parts.port is None or parts.port > 0 else None
    except ValueError:
        return None
