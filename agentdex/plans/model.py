"""The shape of an install plan, and the context every host template reads."""

from __future__ import annotations

import re
import shlex
from dataclasses import asdict, dataclass, field
from typing import Any

from agentdex.models import Listing

NOT_STATED = "not stated"


@dataclass(slots=True)
class Step:
    """One thing the user does: run a command, write a config file, click through a UI,
    or read a note. ``content`` is exact: copy it as it is."""

    kind: str  # command | config | ui | note
    title: str
    content: str
    path: str | None = None  # the file a config step writes into
    language: str | None = None  # sh | json | toml | yaml | markdown | text


@dataclass(slots=True)
class Plan:
    """How to install one listing on one AI host."""

    host: str
    host_name: str
    listing_origin: str
    server_name: str
    kind: str  # mcp | http_api | none
    auth: str  # oauth | bearer | none | n/a
    supported: bool
    host_status: str  # the listing's hosts[] status: tested | untested | unsupported | not stated
    host_notes: str | None
    confidence: str  # H | M | L: how well the host's way is documented (install-hosts.md)
    steps: list[Step] = field(default_factory=list)
    instruction: str | None = None  # the publisher's line, verbatim, for the user's consent
    instruction_target: str | None = None
    skill_url: str | None = None
    skill_steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    guide_says: dict[str, list[str]] = field(default_factory=dict)  # what the guide names instead

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Context:
    """What the templates substitute: derived once from the listing."""

    name: str  # origin host, dots -> hyphens
    url: str | None  # the MCP endpoint
    token_env: str
    auth: str
    listing: Listing

    @property
    def q_url(self) -> str:
        """The URL quoted for a POSIX shell (untrusted text never runs as shell)."""
        return shlex.quote(self.url or "")

    @property
    def q_name(self) -> str:
        """The server name quoted for a POSIX shell."""
        return shlex.quote(self.name)


def server_name(origin: str) -> str:
    """The MCP server name hosts use: the origin host with dots (and a port colon)
    replaced by hyphens: ``pantry.example.com`` -> ``pantry-example-com``."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", origin.replace(".", "-").replace(":", "-"))


def token_env(name: str) -> str:
    """The environment variable a bearer token is read from: ``PANTRY_EXAMPLE_COM_TOKEN``."""
    env = re.sub(r"[^A-Z0-9]", "_", name.upper())
    return ("MCP_" + env if env[:1].isdigit() else env) + "_TOKEN"


def choose_auth(mcp_auth: list[str]) -> str:
    """The auth a plan uses: OAuth when offered (hosts run the flow themselves), then no
    auth, then a bearer token from an environment variable."""
    for kind in ("oauth", "none", "bearer"):
        if kind in mcp_auth:
            return kind
    return "none"
