"""The network options that ``crawl``, ``verify``, ``seeds``, ``census`` and ``tui`` share:
their typer options and the :class:`~agentdex.crawler.options.NetworkOptions` built from them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentdex.cli_support import fail
from agentdex.errors import InputError

# Each network option is read from its flag, else its environment variable, else the
# config file (agentdex/config.py), else its default: None here means "not given".
_CONFIGURED = "; else config key {key}"
ConnectToOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--connect-to",
        metavar="PATTERN:ADDR:PORT",
        envvar="AGENTDEX_CONNECT_TO",
        help="Send connections for hosts matching PATTERN (* wildcards) to ADDR:PORT; TLS still verifies the host "
        "name. Repeatable; the variable holds several, separated by spaces or commas"
        + _CONFIGURED.format(key="connect_to")
        + ".",
    ),
]
CaOpt = Annotated[
    Path | None,
    typer.Option(
        "--ca-bundle",
        metavar="PEM",
        envvar="AGENTDEX_CA_BUNDLE",
        help="An extra trusted CA certificate (PEM file)" + _CONFIGURED.format(key="ca_bundle") + ".",
    ),
]
DnsOpt = Annotated[
    str | None,
    typer.Option(
        "--dns-server",
        metavar="ADDR:PORT",
        envvar="AGENTDEX_DNS_SERVER",
        help="The DNS server for every lookup, host addresses and DNS TXT proofs"
        + _CONFIGURED.format(key="dns_server")
        + "; default the system's resolver.",
    ),
]
CONCURRENCY = 16  # the default of every command's --concurrency (and of NetworkOptions)
ConcOpt = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        metavar="N",
        min=1,
        max=512,
        envvar="AGENTDEX_CONCURRENCY",
        help="Requests in flight at once (1-512)" + _CONFIGURED.format(key="concurrency") + f"; default {CONCURRENCY}.",
    ),
]
PrivOpt = Annotated[
    bool | None,
    typer.Option(
        "--allow-private/--no-allow-private",
        envvar="AGENTDEX_ALLOW_PRIVATE",
        help="Allow private, loopback and link-local addresses"
        + _CONFIGURED.format(key="allow_private")
        + "; default no.",
    ),
]
RegOpt = Annotated[
    str | None,
    typer.Option(
        "--registry",
        metavar="URL",
        envvar="AGENTDEX_REGISTRY",
        help="MCP registry API base for registry proofs and crawl --registry-lookup"
        + _CONFIGURED.format(key="registry")
        + "; default https://registry.modelcontextprotocol.io.",
    ),
]
DeadlineOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=0.5,
        max=600,
        envvar="AGENTDEX_TIMEOUT",
        help="Total seconds one request may take (connect, TLS, redirects, body)"
        + _CONFIGURED.format(key="timeout")
        + "; default 15.",
    ),
]
CONFIG_HELP = (
    "Network options not given as flags are read from AGENTDEX_* environment variables, then from "
    "the TOML file $AGENTDEX_CONFIG (default ~/.config/agentdex/config.toml, under $XDG_CONFIG_HOME "
    "when set)."
)


def network_options(
    connect_to,
    ca_bundle,
    dns_server,
    concurrency,
    allow_private,
    registry,
    deadline: float | None = None,
    registry_lookup: bool = False,
):
    """The shared network options as a :class:`NetworkOptions`: each from its flag (or
    environment variable), else the config file, else the default."""
    from agentdex.config import load_config, split_list
    from agentdex.crawler.netpolicy import parse_connect_to
    from agentdex.crawler.options import DEFAULT_REGISTRY, NetworkOptions

    try:
        config = load_config()
        specs = [part for item in connect_to or [] for part in split_list(item)] or config.connect_to
        pairs = [parse_connect_to(item) for item in specs]
    except InputError as exc:
        fail(str(exc), 2)
    ca_bundle = ca_bundle if ca_bundle is not None else config.ca_bundle
    dns_server = dns_server if dns_server is not None else config.dns_server
    if ca_bundle is not None and not ca_bundle.is_file():
        fail(f"--ca-bundle: no such file {ca_bundle}", 2)
    if dns_server is not None and not _is_addr_port(dns_server):
        fail(f"--dns-server {dns_server!r}: expected ADDR:PORT, e.g. 127.0.0.1:5353", 2)
    try:
        return NetworkOptions(
            connect_to=pairs,
            ca_bundle=ca_bundle,
            dns_server=dns_server,
            concurrency=_first(concurrency, config.concurrency, CONCURRENCY),
            allow_private=_first(allow_private, config.allow_private, False),
            registry=registry or config.registry or DEFAULT_REGISTRY,
            deadline=_first(deadline, config.timeout, 15.0),
            registry_lookup=registry_lookup,
        )
    except InputError as exc:
        fail(str(exc), 2)


def _first(*values):
    return next(v for v in values if v is not None)


def network_configured(*given) -> bool:
    """Whether any network option was given, by flag, environment or config file."""
    from agentdex.config import config_path, load_config

    try:
        if any(v not in (None, []) for v in given):
            return True
        return config_path() is not None and bool(load_config().model_dump(exclude_defaults=True))
    except InputError as exc:
        fail(str(exc), 2)


def _is_addr_port(text: str) -> bool:
    from agentdex.headers import port_number

    addr, sep, port = text.rpartition(":")
    return bool(sep and addr and port_number(port) is not None)
