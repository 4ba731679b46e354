"""``agentdex census``'s output: its counts, the endpoints behind them (``--state``,
``--endpoints``), and ``--confirm``, a second opinion on every endpoint that is not open
(:mod:`agentdex.crawler.second_opinion`), printed per state with the disagreements."""

from __future__ import annotations

import asyncio
from typing import Any

import typer

from agentdex.cli_support import echo_json, open_catalogue
from agentdex.text import plain


def print_census(db: Any, as_json: bool) -> None:
    """The probe state, era and auth kind of every MCP endpoint, counted with shares: JSON, or
    the lines of :func:`agentdex.render.census_lines`."""
    from agentdex.db.seeds import census
    from agentdex.render import census_lines

    data = census(open_catalogue(db, readonly=True))
    if as_json:
        echo_json(data)
        return
    typer.echo("\n".join(census_lines(data)))


def list_endpoints(db: Any, state: str | None, as_json: bool) -> None:
    """The endpoints in ``state`` (every one when None): JSON rows, or tab-separated lines,
    ``URL  ORIGIN  DETAIL`` (no detail for open ones) in one state, and for all ``URL  ORIGIN
    CENSUS  ERA  AUTH  UP_24H  UP_7D  UP_30D  P95  LAST_VERIFIED`` (:func:`health_cells`); a
    count on stderr."""
    from agentdex.db.seeds import census_endpoints

    rows = census_endpoints(open_catalogue(db, readonly=True), state)
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        where = [plain(row["url"], 300), plain(row.get("origin"), 120)]
        if state is None:
            typer.echo("\t".join([*where, row["census"], row["era"], *health_cells(row)]))
        else:
            detail = "" if state == "open" else plain(row.get("detail"), 160)
            typer.echo("\t".join([*where, detail]).rstrip("\t"))
    typer.echo(f"{len(rows)} endpoint(s)" + (f" in state {state}" if state else ""), err=True)


def health_cells(row: dict[str, Any]) -> list[str]:
    """An endpoint's auth kind, uptime over 24 h, 7 and 30 days (``97.5%``), p95 latency
    (``120ms``) and when it was last verified, as text cells; ``-`` for what it has not."""
    cells = [row.get("auth_kind") or "unknown"]
    cells += ["-" if row.get(k) is None else f"{row[k]:.1f}%" for k in ("uptime_24h", "uptime_7d", "uptime_30d")]
    cells.append("-" if row.get("p95_ms") is None else f"{row['p95_ms']:.0f}ms")
    return [*cells, plain(row.get("last_verified"), 40) or "-"]


def confirm_census(db: Any, net: Any, as_json: bool) -> None:
    """Count the census, probe every endpoint that is not open again through the second HTTP
    stack, and print both: JSON (the census with ``confirm``) or the tables and a line a
    state (``auth_gated  12 checked, 12 agreed``), each disagreement with both answers."""
    from agentdex.crawler.second_opinion import SecondStack, confirm
    from agentdex.db.seeds import census, census_endpoints, declared_transports

    catalogue = open_catalogue(db, readonly=True)
    data, rows = census(catalogue), census_endpoints(catalogue)
    transports = declared_transports(catalogue)
    for row in rows:
        row["transport"] = transports.get(row["url"])

    async def run() -> dict[str, Any]:
        async with SecondStack(net.connect_to, net.ca_bundle, net.deadline, net.allow_private, net.dns_server) as stack:
            return await confirm(rows, stack)

    data["confirm"] = asyncio.run(run())
    if as_json:
        echo_json(data)
        return
    from agentdex.render import census_lines

    typer.echo("\n".join([*census_lines(data), "", *confirm_lines(data["confirm"])]))


def confirm_lines(found: dict[str, Any]) -> list[str]:
    """The second opinion as a table a state, then one line a disagreement."""
    out = [f"second opinion (another HTTP stack) on {found['checked']} endpoint(s) not open:"]
    out += [f"{row['state']:<22} {row['checked']:>6} checked {row['agreed']:>6} agreed" for row in found["states"]]
    out.append(f"{'total':<22} {found['checked']:>6} checked {found['agreed']:>6} agreed")
    for d in found["disagreements"]:
        first, second = d["first"], d["second"]
        out.append(
            f"disagrees: {plain(d['url'], 300)}: first {first['census']} ({plain(first['detail'], 120)}), "
            f"second {second['census']} ({plain(second['detail'], 120)})"
        )
    return out
