"""The census of MCP endpoints: a real crawl of sample origins whose MCP endpoints are open,
OAuth-gated, paid, on the old SSE transport, not MCP and behind a private address, seeds from
the sample registry (a URL template, an endpoint not crawled yet), read back by ``agentdex
census`` (text and JSON) and the ``mcp_census`` canned query; a hostile server that accepts
``initialize`` but refuses ``notifications/initialized``; and a host gone from DNS."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler import health
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import Verifier
from agentdex.db import open_db
from agentdex.db.health import save_probes
from agentdex.db.migrations import migrations
from agentdex.db.seeds import CENSUS_ERAS, CENSUS_STATES, census, census_endpoints
from agentdex.sampleweb.server import HOSTILE_ROOT, SampleWeb
from netfixtures import Reply, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401

ORIGINS = ["pantry.test", "notmcp.test", "t-oldsse.test", "t-paidmcp.test", "vault.test", "privateaddr.test"]
EXPECTED = {
    "open": 1,
    "auth_gated": 1,
    "payment_required": 1,
    "wrong_transport": 1,
    "not_mcp": 1,
    "unreachable": 1,
    "template_not_expanded": 1,
    "not_probed": 2,
}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    path = tmp_path_factory.mktemp("census") / "catalogue.db"
    runner = CliRunner()
    with SampleWeb() as web:
        args = [*web.cli_args(), "--db", str(path), "--timeout", "60"]
        assert runner.invoke(app, ["crawl", *ORIGINS, *args]).exit_code == 0
        assert runner.invoke(app, ["seeds", "registry:https://registry.test", *args]).exit_code == 0
    return path


def test_every_state_is_counted_with_its_share(catalogue):
    result = CliRunner().invoke(app, ["census", "--json", "--db", str(catalogue)])
    data = json.loads(result.stdout)
    counts = {s["state"]: s["count"] for s in data["states"]}
    assert [s["state"] for s in data["states"]] == list(CENSUS_STATES)
    assert {k: v for k, v in counts.items() if v} == EXPECTED
    assert data["total"] == sum(EXPECTED.values()) == 9
    assert {s["state"]: s["share"] for s in data["states"]}["not_probed"] == 22.2


def test_every_era_is_counted_with_its_share(catalogue):
    data = json.loads(CliRunner().invoke(app, ["census", "--json", "--db", str(catalogue)]).stdout)
    assert [e["era"] for e in data["eras"]] == list(CENSUS_ERAS)
    # pantry's server (mcp 2.3.0) answers both eras; the old-SSE endpoint only the handshake
    # (it was probed as declared, and wrong_transport tells no era); the rest tell none.
    eras = {e["era"]: (e["count"], e["share"]) for e in data["eras"]}
    assert eras == {"legacy": (0, 0.0), "dual": (1, 11.1), "modern": (0, 0.0), "unknown": (8, 88.9)}
    rows = {r["url"]: r for r in census_endpoints(open_db(catalogue, readonly=True))}
    pantry = rows["https://mcp.pantry.test/mcp"]
    assert (pantry["era"], pantry["versions"], pantry["server_name"]) == (
        "dual",
        ["2026-07-28", "2025-11-25"],
        "Pantry",
    )


def test_the_registry_endpoints_are_counted_once_with_the_crawled_one(catalogue):
    rows = census_endpoints(open_db(catalogue, readonly=True))
    urls = [r["url"] for r in rows]
    assert len(urls) == len(set(urls))
    # The registry also names mcp.pantry.test (twice) and notmcp.test: the crawl probed those.
    assert {r["url"] for r in rows if r["census"] == "not_probed"} == {
        "https://mcp.tidewater.test/mcp",
        "https://mcp.driftwood.test/v0/mcp",
    }


def test_census_state_lists_the_endpoints_in_that_state(catalogue):
    """Issue 40: the analyst's next question after the counts, "which ones?"."""
    result = CliRunner().invoke(app, ["census", "--state", "not_probed", "--db", str(catalogue)])
    assert result.exit_code == 0, result.output
    assert sorted(line.split("\t")[0] for line in result.stdout.splitlines()) == [
        "https://mcp.driftwood.test/v0/mcp",
        "https://mcp.tidewater.test/mcp",
    ]
    assert result.stderr == "2 endpoint(s) in state not_probed\n"
    gated = CliRunner().invoke(app, ["census", "--state", "auth_gated", "--json", "--db", str(catalogue)])
    assert [(r["origin"], r["census"]) for r in json.loads(gated.stdout)] == [("vault.test", "auth_gated")]
    opened = CliRunner().invoke(app, ["census", "--state", "open", "--db", str(catalogue)]).stdout
    assert opened == "https://mcp.pantry.test/mcp\tpantry.test\n"
    wrong = CliRunner().invoke(app, ["census", "--state", "closed", "--db", str(catalogue)])
    assert wrong.exit_code == 2 and "choose one of open, auth_gated" in wrong.stderr


def test_the_text_table_and_the_canned_query_agree(catalogue):
    text = CliRunner().invoke(app, ["census", "--db", str(catalogue)]).stdout.splitlines()
    assert text[0].split() == ["state", "count", "share"]
    assert "wrong_transport             1   11.1%" in text and ["total", "9"] in [line.split() for line in text]
    assert "dual (both eras)                1   11.1%" in text
    query = json.loads((Path(__file__).resolve().parent.parent / "datasette_metadata.json").read_text("utf-8"))[
        "databases"
    ]["agentdex"]["queries"]
    with sqlite3.connect(catalogue) as conn:
        canned = {row[0]: row[1] for row in conn.execute(query["mcp_census_by_state"]["sql"])}
    assert canned == EXPECTED
    with sqlite3.connect(catalogue) as conn:
        no_manifest = conn.execute(query["registry_servers_without_manifest"]["sql"]).fetchall()
    assert no_manifest == []  # every registry origin crawled here publishes a manifest


@pytest.mark.slow
async def test_initialize_accepted_but_initialized_rejected():
    with SampleWeb(HOSTILE_ROOT) as web:
        net = web.network_options(deadline=30.0)  # never binds: the server answers at once
        async with net.fetcher() as fetcher:
            found = await Verifier(fetcher, net).probe("https://mcp.hostile.test/rejects-initialized")
    assert found.state == "ok" and "notifications/initialized rejected (HTTP 400)" in found.detail
    row = health.from_probe("https://mcp.hostile.test/rejects-initialized", found)
    assert (row.detail, row.cause) == (found.detail, "initialized_rejected")


def test_dns_gone_and_initialized_rejected_are_states_of_their_own(tmp_path):
    db = open_db(tmp_path / "c.db")
    with db.conn:
        db.execute(
            "INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.test', 'listed', 'x'), "
            "('b.test', 'listed', 'x')"
        )
        db.execute(
            "INSERT INTO endpoint_probes (origin, role, url, state, detail, cause, at) VALUES "
            "('a.test', 'mcp', 'https://mcp.a.test/mcp', 'dead', 'no answer', 'dns', 'x'), "
            "('b.test', 'mcp', 'https://b.test/mcp', 'ok', '3 tool(s) listed', 'initialized_rejected', 'x')"
        )
    counts = {s["state"]: s["count"] for s in census(db)["states"] if s["count"]}
    assert counts == {"dns_gone": 1, "initialized_rejected": 1}


def test_the_census_counts_the_linted_mcp_tools_with_a_finding(catalogue):
    data = json.loads(CliRunner().invoke(app, ["census", "--json", "--db", str(catalogue)]).stdout)
    with sqlite3.connect(catalogue) as conn:
        rows = conn.execute("SELECT errors + warnings + infos FROM tool_lints").fetchall()
    with_findings = sum(1 for (n,) in rows if n)
    assert rows and data["tools"] == {
        "total": len(rows),
        "with_findings": with_findings,
        "share": round(100.0 * with_findings / len(rows), 1),
    }
    text = CliRunner().invoke(app, ["census", "--db", str(catalogue)]).stdout
    assert f"MCP tools linted (TDQS): {len(rows)}, {with_findings} with at least one finding" in text


async def _says_rejected_in_its_status_line(request):
    """A 2025-era server that lists its tools with a 500 whose reason phrase reads like the
    census's own words."""
    message = json.loads(request.body or b"null") or {}
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "liar"}}
        return json_reply({"jsonrpc": "2.0", "id": message["id"], "result": result})
    if method == "tools/list":
        return Reply(500, b"{}", reason="notifications/initialized rejected")
    return Reply(202 if method == "notifications/initialized" else 404, b"", content_type=None)


async def test_a_server_writing_the_census_words_in_its_status_line_is_not_counted_by_them(tls_server, tmp_path):
    tls_server.routes["/liar-mcp"] = _says_rejected_in_its_status_line
    async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, deadline=5.0) as fetcher:
        found = await Verifier(fetcher, None).probe("https://a.test/liar-mcp")
    assert found.state == "ok" and "notifications/initialized rejected" in found.detail  # as the server wrote it
    db = open_db(tmp_path / "c.db")
    with db.conn:
        db.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.test', 'listed', 'x')")
        save_probes(db, "a.test", [health.from_probe("https://a.test/liar-mcp", found)], None, "x")
    counts = {s["state"]: s["count"] for s in census(db)["states"] if s["count"]}
    assert counts == {"open": 1}


def test_a_paid_mcp_endpoint_answering_402_is_up_in_health_as_its_check_passes(catalogue):
    """Issue 40: Health called it down while Checks passed it."""
    from agentdex.db import list_checks
    from agentdex.db.queries import endpoint_health

    db = open_db(catalogue, readonly=True)
    mcp = next(e for e in endpoint_health(db, "t-paidmcp.test") if e["role"] == "mcp")
    assert mcp["state"] == "payment_required" and all(mcp["up"]) and mcp["recent_ok"] == mcp["recent_probes"]
    assert {c["name"]: c["status"] for c in list_checks(db, "t-paidmcp.test")}["mcp.initialize"] == "pass"


async def test_datasettes_endpoint_health_counts_a_paid_mcp_endpoint_up_as_health_does(catalogue):
    """Issue 40: the endpoint_health view (and the flapping_endpoints query over it) called a
    paid MCP endpoint answering 402 down; it agrees with the CLI's and the TUI's health now."""
    from agentdex.db.queries import endpoint_health
    from agentdex.serve import make_datasette

    ds = make_datasette(catalogue)
    await ds.invoke_startup()
    columns = "_col=state&_col=recent_ok&_col=recent_probes&_col=last_ok_at"
    answer = await ds.client.get(
        f"/catalogue/endpoint_health.json?_shape=array&origin=t-paidmcp.test&role=mcp&{columns}"
    )
    assert answer.status_code == 200, answer.text
    [paid] = answer.json()
    assert paid["state"] == "payment_required" and paid["recent_ok"] == paid["recent_probes"] > 0
    assert paid["last_ok_at"] is not None
    flapping = await ds.client.get("/catalogue/flapping_endpoints.json?_shape=array")
    assert flapping.status_code == 200 and "t-paidmcp.test" not in {r["origin"] for r in flapping.json()}
    db = open_db(catalogue, readonly=True)  # the view and the CLI/TUI's reading agree on every endpoint
    view = db.execute("SELECT origin, role, url, recent_ok, recent_probes, last_ok_at FROM endpoint_health")
    assert sorted(view.fetchall()) == sorted(
        (o, e["role"], e["url"], e["recent_ok"], e["recent_probes"], e["last_ok_at"])
        for (o,) in db.execute("SELECT DISTINCT origin FROM endpoint_probes").fetchall()
        for e in endpoint_health(db, o)
    )


def test_an_older_catalogue_counts_its_paid_mcp_endpoint_up_once_upgraded(tmp_path):
    """m019 replaces the view over the probes a file already has."""
    path = tmp_path / "m018.db"
    old = Database(path)
    migrations.apply(old, stop_before="m019_paid_mcp_up")
    old.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.test', 'listed', 'x')")
    old.execute(
        "INSERT INTO endpoint_probes (origin, role, url, state, at) "
        "VALUES ('a.test', 'mcp', 'https://a.test/mcp', 'payment_required', 'x')"
    )
    old.conn.commit()
    before = "SELECT recent_ok, recent_probes, last_ok_at FROM endpoint_health"
    assert old.execute(before).fetchall() == [(0, 1, None)]
    old.conn.close()
    assert open_db(path).execute(before).fetchall() == [(1, 1, "x")]


def test_a_catalogue_of_the_previous_release_keeps_its_census(tmp_path):
    """m016: the rows an older agentdex wrote get their cause from agentdex's own sentences
    (its fetcher's DNS sentence, its probe's prefix), so the census counts them as before;
    a server's words elsewhere in a detail count for nothing."""
    path = tmp_path / "m015.db"
    old = Database(path)
    migrations.apply(old, stop_before="m016_mcp_eras")
    old.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.test', 'listed', 'x')")
    rows = [
        ("https://gone.test/mcp", "dead", "The host name gone.test could not be resolved (Name or service not known)."),
        (
            "https://rej.test/mcp",
            "ok",
            "initialize accepted but notifications/initialized rejected (HTTP 400); 2 tool(s)",
        ),
        (
            "https://liar.test/mcp",
            "ok",
            "initialize answered but tools/list did not (x answered 500 notifications/initialized rejected.)",
        ),
    ]
    for url, state, detail in rows:
        old.execute(
            "INSERT INTO endpoint_probes (origin, role, url, state, detail, at) VALUES ('a.test', 'mcp', ?, ?, ?, 'x')",
            [url, state, detail],
        )
    old.conn.commit()
    old.close()
    db = open_db(path)
    assert {r["url"]: (r["census"], r["era"]) for r in census_endpoints(db)} == {
        "https://gone.test/mcp": ("dns_gone", "unknown"),
        "https://rej.test/mcp": ("initialized_rejected", "unknown"),
        "https://liar.test/mcp": ("open", "unknown"),
    }
