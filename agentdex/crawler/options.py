"""The network settings of a crawl (``crawl``, ``verify``, ``seeds``, ``census`` and the TUI
share them): what the fetcher is built with, which MCP registry is asked, which shard of a
sweep this is, and how long one origin may take.

:class:`NetworkOptions` is the one declaration of each setting: a field annotated with a
:class:`~agentdex.config.Setting` (help, range, how a written value is read and what is
refused). The config file, the environment variables and the CLI's options are read from
those fields (:mod:`agentdex.config`, :mod:`agentdex.cli_network`); a new setting is one more
field. Plain settings and their checks, below the stage (:mod:`agentdex.crawler.stage`) and the
run (:mod:`agentdex.crawler.crawl`) that use them; the fetcher is imported when one is built,
so that the CLI reads these fields without loading the network stack.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import SplitResult, urlsplit

from agentdex.config import Setting, check_settings, split_list
from agentdex.errors import InputError

if TYPE_CHECKING:
    from agentdex.crawler.fetch import Fetcher

DEFAULT_REGISTRY = "https://registry.modelcontextprotocol.io"
# The most one origin may take, fetches and verification together (``crawl --origin-budget``):
# an origin that answers each request just inside its deadline cannot hold a worker for long.
ORIGIN_BUDGET = 120.0


def connect_to_rules(value: Any) -> Any:
    """``PATTERN:ADDR:PORT`` rules as ``(pattern, addr, port)``: from one string or a list of
    them (each may hold several, separated by spaces or commas), rules already split kept."""
    from agentdex.crawler.netpolicy import parse_connect_to

    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        return value  # not a list: the type's own refusal says so
    rules: list[Any] = []
    for item in items:
        rules.extend(map(parse_connect_to, split_list(item)) if isinstance(item, str) else [item])
    return rules


def existing_file(path: Path) -> Path:
    """``path``, when it names a file.

    :raises InputError: no such file
    """
    if not path.is_file():
        raise InputError(f"no such file {path}")
    return path


def addr_port(text: str) -> str:
    """``text``, when it is ``ADDR:PORT`` with a port of ASCII digits.

    :raises InputError: it is not
    """
    from agentdex.headers import port_number  # its email parser is no cost to a start without one

    addr, sep, port = text.rpartition(":")
    if not (sep and addr and port_number(port) is not None):
        raise InputError(f"expected ADDR:PORT (a port of ASCII digits, 1-65535), e.g. 127.0.0.1:5353, not {text!r}")
    return text


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


def shard_setting(value: Any) -> Any:
    """A :class:`Shard` from ``INDEX/COUNT`` or ``auto/COUNT`` (:func:`parse_shard`); any other
    value as it is."""
    return parse_shard(value) if isinstance(value, str) else value


@dataclass
class NetworkOptions:
    """The network options shared by ``crawl``, ``verify``, ``seeds``, ``census`` and the TUI:
    each field with a :class:`~agentdex.config.Setting` is a setting a user gives as a flag, an
    environment variable or a config key; the others are what a command decides for its run."""

    connect_to: Annotated[
        list[tuple[str, str, int]],
        Setting(
            "Send connections for hosts matching PATTERN (* wildcards) to ADDR:PORT; TLS still verifies the host "
            "name. Repeatable; the variable holds several, separated by spaces or commas",
            metavar="PATTERN:ADDR:PORT",
            parse=connect_to_rules,
        ),
    ] = field(default_factory=list)
    ca_bundle: Annotated[
        Path | None, Setting("An extra trusted CA certificate (PEM file)", metavar="PEM", check=existing_file)
    ] = None
    # "ADDR:PORT" for every DNS lookup: host addresses and TXT checks
    dns_server: Annotated[
        str | None,
        Setting(
            "The DNS server for every lookup, host addresses and DNS TXT proofs",
            metavar="ADDR:PORT",
            check=addr_port,
            default_text="the system's resolver",
        ),
    ] = None
    concurrency: Annotated[int, Setting("Requests in flight at once", metavar="N", ge=1, le=512)] = 16
    allow_private: Annotated[bool, Setting("Allow private, loopback and link-local addresses")] = False
    # the MCP registry API asked for Anchor's registry proof (and crawl --registry-lookup)
    registry: Annotated[
        str,
        Setting(
            "MCP registry API base for registry proofs and crawl --registry-lookup", metavar="URL", check=registry_base
        ),
    ] = DEFAULT_REGISTRY
    deadline: Annotated[
        float,
        Setting(
            "Total seconds one request may take (connect, TLS, redirects, body)",
            key="timeout",
            metavar="SECONDS",
            ge=0.5,
            le=600,
        ),
    ] = 15.0
    shard: Annotated[
        Shard | None,
        Setting(
            "Crawl only part I of N of the origins (I from 0), chosen by a stable hash of each origin, into "
            "this --db; auto/N takes I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID. agentdex merge joins "
            "the parts' catalogues (docs/scale.md)",
            metavar="I/N",
            parse=shard_setting,
        ),
    ] = None
    pipelining: Annotated[
        bool,
        Setting(
            "Send an origin's discovery requests pipelined on its HTTP/1.1 connection (RFC 9112); "
            "--no-pipelining sends each after the answer before"
        ),
    ] = True
    connect_timeout: float = 5.0  # for a connection and its TLS handshake, within the deadline
    # Also ask ``registry`` what it lists for each origin's namespace (off unless asked:
    # ``crawl --registry-lookup``); see agentdex.crawler.discovery.
    registry_lookup: bool = False
    origin_budget: float = ORIGIN_BUDGET  # seconds one origin may take, all its requests together
    per_host: int = 1  # requests in flight to one host name at once (see agentdex.crawler.fetch)

    def __post_init__(self) -> None:
        check_settings(self)  # a value from Python is read and refused as one from a flag is

    def fetcher(self) -> Fetcher:
        """A :class:`Fetcher` configured with these options."""
        from agentdex.crawler.fetch import Fetcher
        from agentdex.crawler.netpolicy import dns_server_resolver

        return Fetcher(
            connect_to=self.connect_to,
            ca_bundle=self.ca_bundle,
            allow_private=self.allow_private,
            concurrency=self.concurrency,
            deadline=self.deadline,
            connect_timeout=self.connect_timeout,
            per_host=self.per_host,
            pipelining=self.pipelining,
            resolver=dns_server_resolver(self.dns_server, min(5.0, self.deadline)) if self.dns_server else None,
        )


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
    # Imported here: the CLI reads this module's settings at every start, which need no
    # origin (nor idna) until a shard is asked about one.
    from agentdex.crawler.origins import normalise_origin

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
