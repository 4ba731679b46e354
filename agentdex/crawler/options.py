"""The network settings of a crawl (``crawl`` and ``verify`` share them): what the fetcher
is built with, which MCP registry is asked, and how long one origin may take.

Plain settings and their checks, below the stage (:mod:`agentdex.crawler.stage`) and the
run (:mod:`agentdex.crawler.crawl`) that use them.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.netpolicy import dns_server_resolver
from agentdex.crawler.origins import normalise_origin
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


# Where a scheduler puts a worker's index: a Kubernetes Indexed Job, then a Slurm job array.
SHARD_INDEX_VARIABLES = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")
MAX_SHARDS = 1_000_000
_SHARD = re.compile(r"(auto|[0-9]{1,7})/([0-9]{1,7})")  # ASCII digits only, never int()'s wider set


@dataclass(frozen=True)
class Shard:
    """One of ``count`` parts of a sweep (``crawl --shard INDEX/COUNT``): the origins whose
    :func:`shard_of` is ``index``."""

    index: int
    count: int

    def owns(self, origin: str) -> bool:
        """Whether ``origin`` (as typed or stored) belongs to this shard."""
        return shard_of(origin, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(origin: str, count: int) -> int:
    """The shard of ``count`` an origin belongs to: the first 8 bytes of the SHA-256 of its
    normalised form (:func:`~agentdex.crawler.origins.normalise_origin`), modulo ``count``.
    The same on every machine, Python and run (never :func:`hash`, which is salted per
    process), whatever order or repeats the seeds come in."""
    digest = hashlib.sha256(normalise_origin(origin).encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") % count


def parse_shard(text: str, environ: Mapping[str, str] | None = None) -> Shard:
    """``INDEX/COUNT`` (INDEX from 0) or ``auto/COUNT`` (the index from the first of
    :data:`SHARD_INDEX_VARIABLES` set in ``environ``, by default the process's).

    :raises InputError: not of that form, a count of 0 or over :data:`MAX_SHARDS`, an index
        out of range, or ``auto`` with no index variable set
    """
    found = _SHARD.fullmatch(text.strip())
    if found is None:
        raise InputError(f"--shard takes INDEX/COUNT (from 0/N to N-1/N, e.g. 0/4) or auto/COUNT, not {text[:40]!r}")
    count = int(found[2])
    if not 0 < count <= MAX_SHARDS:
        raise InputError(f"--shard {text.strip()}: the count must be from 1 to {MAX_SHARDS:,}")
    if found[1] != "auto":
        return _in_range(int(found[1]), count, f"--shard {text.strip()}: the index")
    return _from_environment(count, os.environ if environ is None else environ)


def _from_environment(count: int, environ: Mapping[str, str]) -> Shard:
    for name in SHARD_INDEX_VARIABLES:
        if name in environ:
            value = environ[name].strip()
            if not re.fullmatch(r"[0-9]{1,7}", value):
                raise InputError(f"--shard auto/{count}: {name} is {value[:20]!r}, not an index from 0 to {count - 1}")
            return _in_range(int(value), count, f"--shard auto/{count}: {name}")
    raise InputError(
        f"--shard auto/{count} reads its index from {' or '.join(SHARD_INDEX_VARIABLES)} "
        "(a Kubernetes Indexed Job, a Slurm job array); neither is set: give the index, e.g. --shard 0/"
        f"{count}"
    )


def _in_range(index: int, count: int, what: str) -> Shard:
    if index >= count:
        raise InputError(f"{what} is {index}, not an index from 0 to {count - 1} (shards count from 0)")
    return Shard(index, count)
