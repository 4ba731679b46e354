"""``agentdex seeds`` against the sample web's MCP registry (``registry.test``, the official API's
shape, four servers a page) over real HTTPS on loopback, and against seed files: the exact
origins, the refusals with their reasons, duplicates collapsed with every source kept, the
incremental run that asks only for what changed, registry statuses as events, and the
catalogue's record of which source named each origin (``show``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.origins import read_seeds
from agentdex.crawler.seedlines import read_seed_file
from agentdex.sampleweb import SampleWeb

REGISTRY = "registry:https://registry.test"
FIRST = [  # in the registry's order
    "castaway.test",
    "mcp.driftwood.test",
    "hopper.test",
    "notmcp.test",
    "mcp.pantry.test",
    "pantry.test",
    "mcp.tidewater.test",
    "tidewater.test",
]
REFUSED = {  # server name: what the reason says
    "test.templated/tenant": "unexpanded URL template",
    "test.plainhttp/insecure": "not an https origin",
    "test.devbox/local": "localhost",
    "test.rawip/ip": "IP address",
}


def invoke(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def queries(requests) -> list[dict[str, list[str]]]:
    return [
        parse_qs(urlsplit(r.path).query)
        for r in requests
        if r.host == "registry.test" and r.path.startswith("/v0.1/servers")
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """castaway.test crawled; then seeds from the registry twice (the second asks only what
    changed: nothing), once more after the registry moved on a month (v2), and with --since."""
    db = str(tmp_path_factory.mktemp("seeds") / "catalogue.db")
    out = {}
    with SampleWeb() as web:
        net = [*web.cli_args(), "--db", db]
        assert invoke("crawl", "castaway.test", "--no-verify", *net).exit_code == 0

        def run(*extra: str):
            start = len(web.requests_log.snapshot())
            result = invoke("seeds", REGISTRY, *net, *extra)
            return result, web.requests_log.snapshot()[start:]

        out["text"] = run()
        out["again"] = run("--json")
        out["again_text"] = run()
        web.set_variant("registry.test", "v2")
        try:
            out["later"] = run("--json")
            out["since"] = run("--json", "--since", "2026-09-02T00:00:00Z")
        finally:
            web.set_variant("registry.test", "")
        out["show"] = invoke("show", "castaway.test", "--json", "--db", db)
        out["show_text"] = invoke("show", "castaway.test", "--db", db)
    return db, out


def test_the_first_run_gives_exactly_the_expected_origins_one_a_line(runs, tmp_path):
    result, _ = runs[1]["text"]
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert list(dict.fromkeys(line.split()[0] for line in lines)) == FIRST
    # An origin a registry remote names carries the endpoint, its path kept; a website alone is a bare origin.
    assert "mcp.tidewater.test mcp=https://mcp.tidewater.test/mcp name=test.tidewater/tides" in result.stdout
    assert "tidewater.test" in lines
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(result.stdout)
    read = read_seed_file(seeds)  # what crawl --seeds reads
    assert list(dict.fromkeys(read.origins)) == FIRST
    assert {e["url"] for e in read.endpoints} >= {"https://mcp.tidewater.test/mcp", "https://mcp.driftwood.test/v0/mcp"}
    assert all(e["origin"] == urlsplit(e["url"]).hostname for e in read.endpoints)
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(FIRST) + "\n")
    assert read_seeds(plain) == read_seed_file(plain).origins == FIRST  # origin-per-line files read as before


def test_refused_entries_say_why_on_stderr(runs):
    result, _ = runs[1]["text"]
    for name, reason in REFUSED.items():
        line = next(ln for ln in result.stderr.splitlines() if name in ln)
        assert reason in line, line


def test_the_registry_is_paged_at_limit_100_with_deleted_servers_included(runs):
    _, requests = runs[1]["text"]
    asked = queries(requests)
    assert len(asked) == 3  # eleven servers, four a page
    assert all(q["limit"] == ["100"] and q["include_deleted"] == ["true"] for q in asked)
    assert "cursor" not in asked[0] and asked[1]["cursor"] and asked[2]["cursor"]
    assert not any("updated_since" in q for q in asked)


def test_an_incremental_run_asks_only_for_what_changed(runs):
    again, requests = runs[1]["again"]
    assert json.loads(again.stdout) == []  # nothing changed since the first run
    assert [q["updated_since"] for q in queries(requests)] == [["2026-09-03T00:00:00Z"]]
    later, requests = runs[1]["later"]
    assert [q["updated_since"] for q in queries(requests)] == [["2026-09-03T00:00:00Z"]]
    found = {s["origin"]: s["sources"] for s in json.loads(later.stdout)}
    assert set(found) == {"castaway.test", "mcp.wayfarer.test", "wayfarer.test"}  # only the two servers that changed
    assert found["castaway.test"] == [
        {
            "source": REGISTRY,
            "name": "test.castaway/castaway",
            "status": "deleted",
            "via": "websiteUrl",
            "url": "https://castaway.test/",
        }
    ]


def test_an_incremental_run_that_finds_nothing_says_so_on_stderr(runs):
    """Issue 40: an empty stdout alone, with exit 0, read as a failure or a run still to come."""
    result, _ = runs[1]["again_text"]
    assert result.exit_code == 0 and result.stdout == ""
    assert "no origin to crawl: the sources named none that is new" in result.stderr


def test_since_overrides_where_the_last_run_stopped(runs):
    result, requests = runs[1]["since"]
    assert {q["updated_since"][0] for q in queries(requests)} == {"2026-09-02T00:00:00Z"}  # two pages of five
    assert "pantry.test" in {s["origin"] for s in json.loads(result.stdout) if s["origin"]}


@pytest.mark.slow
def test_json_keeps_every_source_of_a_duplicate_and_reports_refusals(tmp_path):
    with SampleWeb() as web:
        result = invoke("seeds", REGISTRY, "--json", "--db", str(tmp_path / "c.db"), *web.cli_args())
    data = json.loads(result.stdout)
    by_origin = {d["origin"]: d for d in data if d["origin"]}
    assert [s["name"] for s in by_origin["mcp.pantry.test"]["sources"]] == [
        "test.pantry/pantry",
        "test.pantry/pantry-mirror",
    ]
    assert by_origin["castaway.test"]["sources"][0]["status"] == "deprecated"
    assert by_origin["hopper.test"]["sources"][0]["status"] == "deleted"  # kept, never dropped
    refused = {d["sources"][0]["name"]: d for d in data if d["origin"] is None}
    assert set(refused) == set(REFUSED)
    assert refused["test.templated/tenant"]["refused"] == "https://{tenant}.templated.test/mcp"


def test_registry_statuses_become_events_on_a_listed_origin(runs):
    db, _ = runs
    with sqlite3.connect(db) as conn:
        events = conn.execute(
            "SELECT kind, subject, json_extract(new, '$.status') FROM events "
            "WHERE origin = 'castaway.test' AND kind LIKE 'registry_%' ORDER BY id"
        ).fetchall()
    assert events == [
        ("registry_deprecated", "test.castaway/castaway", "deprecated"),
        ("registry_deleted", "test.castaway/castaway", "deleted"),
    ]


def test_show_names_the_sources_of_an_origin(runs):
    shown = json.loads(runs[1]["show"].stdout)
    sources = shown["seed_sources"]
    assert {(s["source"], s["name"], s["via"], s["status"]) for s in sources} == {
        (REGISTRY, "test.castaway/castaway", "websiteUrl", "deleted")
    }
    assert sources[0]["status_message"] == "Removed after its deprecation period"
    text = runs[1]["show_text"].stdout
    assert "Seed sources:" in text and "test.castaway/castaway" in text and "deleted" in text


def test_the_catalogue_records_the_cursor_and_every_naming(runs):
    db, _ = runs
    with sqlite3.connect(db) as conn:
        cursor = conn.execute("SELECT source, updated_since FROM seed_cursors").fetchall()
        refused = conn.execute("SELECT count(*) FROM seed_sources WHERE origin IS NULL").fetchone()[0]
    assert cursor == [(REGISTRY, "2026-10-01T00:00:00Z")]
    assert refused == len(REFUSED)


# -- files -----------------------------------------------------------------------------------------
def sample_entries() -> list[dict]:
    from agentdex.sampleweb.server import WEB_ROOT

    return json.loads((WEB_ROOT / "registry.test" / "_servers.json").read_text("utf-8"))


def seeds_of(tmp_path: Path, name: str, text: str) -> tuple[list[dict], str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = invoke("seeds", str(path), "--json", "--db", str(tmp_path / "c.db"))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def origins(data: list[dict]) -> list[str]:
    return [d["origin"] for d in data if d["origin"]]


@pytest.mark.parametrize("shape", ["page", "pages", "ndjson"])
def test_a_saved_dump_gives_the_same_origins_as_the_registry(tmp_path, shape):
    entries = sample_entries()
    text = {
        "page": json.dumps({"servers": entries, "metadata": {"count": len(entries)}}),
        "pages": json.dumps([{"servers": entries[:4]}, {"servers": entries[4:]}]),
        "ndjson": "\n".join(json.dumps(e) for e in entries),
    }[shape]
    data, _ = seeds_of(tmp_path, f"dump.{shape}", text)
    assert sorted(origins(data)) == sorted(FIRST)  # the same origins (in the dump's own order)
    assert {d["sources"][0]["source"] for d in data} == {f"dump.{shape}"}


def test_a_csv_domain_list_and_plain_text(tmp_path):
    data, _ = seeds_of(tmp_path, "top.csv", "1,Example.COM\n2,https://pantry.test/x\n3,not a host!\n4,localhost\n")
    assert origins(data) == ["example.com", "pantry.test"]
    assert {d["sources"][0]["name"]: d["reason"] for d in data if d["origin"] is None}.keys() == {"3", "4"}
    text, _ = seeds_of(tmp_path, "list.txt", "# mine\npantry.test\nhttps://pantry.test/again  # same\n10.0.0.1\n")
    assert origins(text) == ["pantry.test"]
    assert [s["name"] for s in text[0]["sources"]] == ["line 2", "line 3"]


def test_a_top_list_keeps_its_rank_order_and_several_sources_their_given_order(tmp_path):
    top = tmp_path / "top.csv"  # ranks neither alphabetical nor in file order; 3 twice (file order breaks the tie)
    top.write_text("rank,domain\n10,alpha.test\n2,zulu.test\n3,mike.test\n1,yankee.test\n3,bravo.test\n")
    more = tmp_path / "more.txt"  # a plain list after it: its own order; an origin seen already keeps its place
    more.write_text("delta.test\nzulu.test\ncharlie.test\n")
    db = str(tmp_path / "c.db")
    result = invoke("seeds", str(top), str(more), "--db", db)
    assert result.exit_code == 0, result.output
    ranked = ["yankee.test", "zulu.test", "mike.test", "bravo.test", "alpha.test"]
    assert result.stdout.splitlines() == [*ranked, "delta.test", "charlie.test"]
    data = json.loads(invoke("seeds", str(more), str(top), "--json", "--db", db).stdout)
    assert origins(data) == [
        "delta.test",
        "zulu.test",
        "charlie.test",
        "yankee.test",
        "mike.test",
        "bravo.test",
        "alpha.test",
    ]
    assert [s["source"] for s in data[1]["sources"]] == ["more.txt", "top.csv"]  # zulu.test keeps both sources


def test_an_a2a_registry_listing(tmp_path):
    cards = Path(__file__).resolve().parent / "ecosystem" / "a2a"
    listing = {
        "agents": [
            json.loads((cards / "ANAMASGARD__Stitch__.well-known__agent-card.json").read_text("utf-8")),
            json.loads((cards / "a2aproject__A2A__pr1323__cli__testdata__valid__full.json").read_text("utf-8")),
            {"name": "nowhere"},
        ]
    }
    data, _ = seeds_of(tmp_path, "a2a.json", json.dumps(listing))
    assert "recipes.example.com" in origins(data)
    assert any(d["origin"] is None and d["reason"] == "names no URL" for d in data)


def test_an_unusable_source_is_one_sentence_and_exit_2(tmp_path):
    result = invoke("seeds", str(tmp_path / "missing.txt"), "--db", str(tmp_path / "c.db"))
    assert result.exit_code == 2 and "neither registry:BASE nor a file" in result.stderr
    bad = invoke("seeds", "registry:http://registry.test", "--db", str(tmp_path / "c.db"))
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    since = invoke("seeds", REGISTRY, "--since", "last week", "--db", str(tmp_path / "c.db"))
    assert since.exit_code == 2 and "not an RFC 3339 date-time" in since.stderr
    assert not (tmp_path / "c.db").exists()  # nothing was created for a refused command
