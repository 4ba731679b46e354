"""datasette_metadata.json and the views it describes, without a server: the file covers the
schema, uses only Datasette 0.65's metadata vocabulary, its queries run, and the views
flatten the JSON columns row for row. The live behaviour is in test_datasette_live.py."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database

from agentdex.datasette_plugin import prepare_connection
from agentdex.db import open_db
from agentdex.db.listing_query import FILTERS
from agentdex.db.migrations import CHECK_COLUMNS, migrate
from agentdex.errors import DatabaseError
from agentdex.serve import DATABASE_KEY, SETTINGS, datasette_command, load_metadata, make_datasette, metadata_text

ROOT = Path(__file__).resolve().parent.parent
METADATA_FILE = ROOT / "datasette_metadata.json"
SHIPPED_FILE = ROOT / "agentdex" / "datasette_metadata.json"
METADATA = json.loads(METADATA_FILE.read_text(encoding="utf-8"))
DATABASE = METADATA["databases"][DATABASE_KEY]
TABLES = DATABASE["tables"]
QUERIES = DATABASE["queries"]

# Datasette 0.65's metadata vocabulary, minus what would let HTML through (description_html)
# or write (a query's "write", "on_success_*").
TOP_KEYS = {"title", "description", "license", "license_url", "source", "source_url", "about", "about_url", "databases"}
TABLE_KEYS = {
    "description",
    "columns",
    "units",
    "facets",
    "sort",
    "sort_desc",
    "hidden",
    "label_column",
    "fts_table",
    "fts_pk",
    "size",
    "facet_size",
    "title",
}
QUERY_KEYS = {"title", "description", "sql", "hide_sql", "fragment"}
UNITS = {"byte", "millisecond"}


@pytest.fixture(scope="module")
def schema_db() -> Database:
    db = Database(memory=True)
    migrate(db)
    prepare_connection(db.conn)  # the SQL functions agentdex's plugin gives every Datasette connection
    return db


def columns_of(db: Database, name: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_xinfo([{name}])")]


def relations(db: Database) -> list[str]:
    return db.table_names() + db.view_names()


# --- the file ------------------------------------------------------------------------------------------


def test_the_shipped_copy_is_the_root_file():
    assert SHIPPED_FILE.read_bytes() == METADATA_FILE.read_bytes(), (
        "agentdex/datasette_metadata.json differs from datasette_metadata.json: "
        "copy the root file over it (cp datasette_metadata.json agentdex/)"
    )
    assert metadata_text() == METADATA_FILE.read_text(encoding="utf-8")


def test_every_table_view_and_column_is_described(schema_db):
    missing = []
    for name in relations(schema_db):
        meta = TABLES.get(name)
        if meta is None:
            missing.append(f"{name} (table or view: describe it, or mark it hidden)")
        elif not meta.get("hidden"):
            if not meta.get("description"):
                missing.append(f"{name}: description")
            missing += [f"{name}.{c}" for c in columns_of(schema_db, name) if not meta.get("columns", {}).get(c)]
    assert missing == [], "datasette_metadata.json does not describe: " + ", ".join(missing)


def test_the_metadata_names_no_table_or_column_the_schema_lacks(schema_db):
    unknown = [name for name in TABLES if name not in relations(schema_db)]
    for name, meta in TABLES.items():
        if name in relations(schema_db):
            unknown += [f"{name}.{c}" for c in meta.get("columns", {}) if c not in columns_of(schema_db, name)]
    assert unknown == []


def test_only_metadata_keys_datasette_065_knows_and_none_that_write_or_render_html():
    assert set(METADATA) <= TOP_KEYS
    assert set(DATABASE) <= {"description", "tables", "queries"}
    for name, meta in TABLES.items():
        assert set(meta) <= TABLE_KEYS, name
    for name, spec in QUERIES.items():
        assert set(spec) <= QUERY_KEYS, name
    assert "description_html" not in json.dumps(METADATA) and '"write"' not in json.dumps(METADATA)


def test_the_catalogue_is_titled_licensed_and_sourced():
    for key in ("title", "description", "license", "license_url", "source"):
        assert METADATA[key].strip(), key


def test_sorts_facets_labels_units_and_search_name_real_columns(schema_db):
    for name, meta in TABLES.items():
        cols = set(columns_of(schema_db, name))
        named = [meta.get("sort"), meta.get("sort_desc"), meta.get("label_column"), *meta.get("units", {})]
        for facet in meta.get("facets", []):
            named.append(facet if isinstance(facet, str) else facet["array"])
        assert {c for c in named if c} <= cols, name
        assert set(meta.get("units", {}).values()) <= UNITS, name
    listings = TABLES["listings"]
    assert listings["fts_table"] in schema_db.table_names() and listings["fts_pk"] == "rowid"
    # No facet on the categories array: over every listing it times out (listing_categories counts them).
    assert listings["facets"] == ["format", "status", "pricing"]
    assert set(TABLES["checks"]["facets"]) == {"name", "status"}


# --- canned queries ------------------------------------------------------------------------------------


def parameters(sql: str) -> set[str]:
    """The named parameters of a canned query (Datasette's form fields)."""
    return set(re.findall(r"(?<!:):(\w+)", sql))


def test_every_canned_query_has_a_title_and_a_description_and_reads_only(schema_db):
    for name, spec in QUERIES.items():
        assert spec["title"].strip() and len(spec["description"]) > 40, name
        assert re.match(r"\s*(SELECT|WITH)\b", spec["sql"], re.I), name
        # Prepares with every parameter empty (Datasette's empty form): every name resolves.
        schema_db.execute("EXPLAIN " + spec["sql"], dict.fromkeys(parameters(spec["sql"]), ""))


def test_only_the_failing_check_and_the_listing_queries_take_parameters():
    """failing_check takes a check name; find_listings (generated from the listing filters)
    takes exactly the declared filters, the same set as ``agentdex list``."""
    params = {name: parameters(spec["sql"]) for name, spec in QUERIES.items()}
    assert {name: p for name, p in params.items() if p} == {"failing_check": {"check"}, "find_listings": set(FILTERS)}


def test_no_canned_query_shadows_a_table_or_view():
    """Datasette routes /db/NAME to a canned query before a table: a query named as a view
    hid it (issue 40: the mcp_census view was unreachable behind the census query)."""
    assert set(QUERIES) & set(TABLES) == set()


def test_the_queries_an_analyst_reaches_for_first_are_all_there():
    assert set(QUERIES) == {
        "find_listings",
        "newest_changes",
        "open_mcp_servers",
        "working_mcp",
        "failing_check",
        "read_only_variants_with_writes",
        "declared_vs_live_prices",
        "destructive_tools",
        "same_name_several_origins",
        "lost_ownership_proofs",
        "listings_per_format_and_category",
        "inconsistent_listings",
        "tool_changes",
        "flapping_endpoints",
        "mcp_census_by_state",
        "mcp_eras",
        "registry_servers_without_manifest",
        "registry_servers_with_dead_endpoint",
        "servers_by_tool_findings",
        "tools_with_undocumented_parameters",
    }


# --- the views flatten JSON columns -----------------------------------------------------------------------


def _listing(db: Database, origin: str, **columns) -> None:
    row = {
        "origin": origin,
        "status": "listed",
        "first_seen_at": "2026-01-01T00:00:00.000Z",
        "name": origin.title(),
        "format": "agent_app",
        **columns,
    }
    db["listings"].insert(row)


@pytest.fixture
def flat_db() -> Database:
    db = Database(memory=True)
    migrate(db)
    _listing(
        db,
        "a.test",
        categories='["home", "lifestyle"]',
        tags='["kitchen"]',
        formats_found='["agent_app", "anchor"]',
        auth_methods='["email_code"]',
        hosts='[{"host": "codex", "status": "tested", "notes": null}]',
    )
    _listing(db, "b.test", categories="[]", tags=None, formats_found="[]", auth_methods=None, hosts="[]")
    checks = [
        (
            "a.test",
            "anchor.payments",
            "fail",
            json.dumps({"t/paid": {"declared_usd": 0.01, "live_usd": 0.03}, "t/free": {}}),
        ),
        (
            "a.test",
            "anchor.read_only_variant",
            "fail",
            json.dumps(
                {
                    "t/liar": {"url": "https://mcp.a.test/ro", "state": "ok", "write_tools": ["delete", "create"]},
                    "t/honest": {"url": "https://mcp.a.test/ro2", "state": "ok", "write_tools": []},
                }
            ),
        ),
        ("a.test", "mcp.initialize", "pass", "{}"),
        ("a.test", "manifest.cors", "fail", "{}"),
    ]
    db["checks"].insert_all(
        [
            {"origin": o, "name": n, "status": s, "data": d, "checked_at": "2026-01-02T00:00:00.000Z"}
            for o, n, s, d in checks
        ]
    )
    db["tools"].insert_all(
        [
            {
                "origin": "a.test",
                "source": "mcp",
                "name": "delete",
                "read_only": 0,
                "destructive": 1,
                "seen_at": "x",
                "annotations": json.dumps({"destructiveHint": True, "readOnlyHint": False, "title": "Delete"}),
            },
            {
                "origin": "a.test",
                "source": "mcp",
                "name": "read",
                "read_only": 1,
                "destructive": 0,
                "seen_at": "x",
                "annotations": json.dumps({"readOnlyHint": True}),
            },
        ]
    )
    return db


def test_array_views_have_one_row_per_item_and_none_for_an_empty_or_missing_array(flat_db):
    assert [(r["origin"], r["category"]) for r in flat_db["listing_categories"].rows] == [
        ("a.test", "home"),
        ("a.test", "lifestyle"),
    ]
    assert [(r["origin"], r["tag"]) for r in flat_db["listing_tags"].rows] == [("a.test", "kitchen")]
    assert [r["found_format"] for r in flat_db["listing_formats"].rows] == ["agent_app", "anchor"]
    assert [r["auth_method"] for r in flat_db["listing_auth_methods"].rows] == ["email_code"]
    assert list(flat_db["listing_hosts"].rows) == [
        {"origin": "a.test", "host": "codex", "status": "tested", "notes": None, "name": "A.Test"}
    ]


def test_tool_annotations_are_columns_and_an_unstated_hint_stays_empty(flat_db):
    hints = {r["tool"]: r for r in flat_db["tool_annotations"].rows}
    assert (hints["delete"]["destructive_hint"], hints["delete"]["read_only_hint"], hints["delete"]["title"]) == (
        1,
        0,
        "Delete",
    )
    read = hints["read"]
    assert (read["read_only_hint"], read["destructive_hint"], read["title"]) == (1, None, None)


def test_check_status_has_one_row_per_listing_with_a_column_per_check(flat_db):
    status = {r["origin"]: r for r in flat_db["check_status"].rows}
    assert set(status) == {"a.test", "b.test"}
    assert (status["a.test"]["mcp_initialize"], status["a.test"]["manifest_cors"], status["a.test"]["http_base"]) == (
        "pass",
        "fail",
        None,
    )
    assert sorted(status["a.test"]["failing_checks"].split(", ")) == [
        "anchor.payments",
        "anchor.read_only_variant",
        "manifest.cors",
    ]
    assert all(status["b.test"][name.replace(".", "_")] is None for name in CHECK_COLUMNS)


def test_anchor_prices_show_declared_and_live_and_an_unread_price_stays_empty(flat_db):
    prices = {r["tool_id"]: r for r in flat_db["anchor_prices"].rows}
    assert (prices["t/paid"]["declared_usd"], prices["t/paid"]["live_usd"], prices["t/paid"]["difference_usd"]) == (
        0.01,
        0.03,
        0.02,
    )
    assert (prices["t/free"]["live_usd"], prices["t/free"]["difference_usd"]) == (None, None)


def test_read_only_variant_writes_list_each_write_tool_of_a_lying_variant_only(flat_db):
    writes = [(r["tool_id"], r["write_tool"]) for r in flat_db["read_only_variant_writes"].rows]
    assert sorted(writes) == [("t/liar", "create"), ("t/liar", "delete")]


# --- serve's helpers ---------------------------------------------------------------------------------------


def test_the_metadata_follows_the_database_name_of_the_served_file():
    assert set(load_metadata()["databases"]) == {"agentdex"}
    renamed = load_metadata("catalogue")
    assert set(renamed["databases"]) == {"catalogue"} and renamed["databases"]["catalogue"] == DATABASE


@pytest.mark.slow
def test_the_equivalent_datasette_command_gets_the_same_settings(tmp_path):
    open_db(tmp_path / "agentdex.db").close()
    command = datasette_command(Path("agentdex.db"), METADATA_FILE)
    assert command[:5] == ["datasette", "serve", "agentdex.db", "--metadata", str(METADATA_FILE)]
    script = Path(sys.executable).with_name("datasette")
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "datasette"]
    without_server = [a for a in command[1:] if a not in ("--host", "127.0.0.1", "--port", "8001")]
    result = subprocess.run(
        [*exe, *without_server, "--get", "/-/settings.json"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    settings = json.loads(result.stdout)
    assert {name: settings[name] for name in SETTINGS} == SETTINGS


def test_serve_refuses_what_is_not_a_current_catalogue(tmp_path):
    with pytest.raises(DatabaseError, match="no catalogue"):
        make_datasette(tmp_path / "missing.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(DatabaseError, match="not an agentdex catalogue"):
        make_datasette(other)


def test_a_catalogue_under_another_file_name_gets_its_metadata(tmp_path):
    path = tmp_path / "my catalogue.db"
    open_db(path).close()

    async def fetch() -> tuple[dict, dict]:
        ds = make_datasette(path)
        await ds.invoke_startup()
        table = (await ds.client.get("/my~20catalogue/listings.json")).json()
        query = (await ds.client.get("/my~20catalogue/newest_changes.json")).json()
        return table, query

    table, query = asyncio.run(fetch())
    assert table["human_description_en"] == "sorted by last_changed_at descending"
    assert {"format", "status", "pricing"} <= set(table["facet_results"])
    assert query["ok"] is True and query["rows"] == []


def _datasette_get(folder: Path, db: str, metadata: Path, path: str) -> dict:
    script = Path(sys.executable).with_name("datasette")
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "datasette"]
    result = subprocess.run(
        [*exe, db, "--metadata", str(metadata), "--get", path], cwd=folder, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_agentdex_metadata_gives_datasettes_own_command_the_catalogue_under_any_file_name(tmp_path):
    open_db(tmp_path / "demo catalogue.db").close()
    # The shipped file is keyed for agentdex.db: on another name every canned query is gone.
    shipped = _datasette_get(tmp_path, "demo catalogue.db", METADATA_FILE, "/demo~20catalogue.json")
    assert shipped["queries"] == []
    run = subprocess.run(
        [sys.executable, "-m", "agentdex", "metadata", "demo catalogue.db", "-o", "meta.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert "datasette demo catalogue.db --metadata meta.json" in run.stdout
    data = _datasette_get(tmp_path, "demo catalogue.db", tmp_path / "meta.json", "/demo~20catalogue.json")
    assert [q["name"] for q in data["queries"]] == list(QUERIES)
    table = _datasette_get(tmp_path, "demo catalogue.db", tmp_path / "meta.json", "/demo~20catalogue/listings.json")
    assert table["human_description_en"] == "sorted by last_changed_at descending"


@pytest.mark.slow
def test_agentdex_metadata_refuses_what_is_not_a_catalogue_in_one_sentence(tmp_path):
    (tmp_path / "notes.db").write_text("not a database", encoding="utf-8")
    for target in ("notes.db", "missing.db"):
        run = subprocess.run(
            [sys.executable, "-m", "agentdex", "metadata", target],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2 and run.stdout == "", target
        assert run.stderr.startswith("agentdex: ") and len(run.stderr.strip().splitlines()) == 1, run.stderr
