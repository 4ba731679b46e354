"""A new verification check is one catalogue entry (and its runner's result): the
catalogue-built views Datasette serves, the docs, the CLI and the TUI all take it up without a
migration."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from agentdex import checks, formats
from agentdex.cli import app
from agentdex.db import open_db
from agentdex.db.views import sync_views
from agentdex.formats._spec import FormatSpec
from test_tui_support import db_path, net, web  # noqa: F401

NEW = checks.CheckInfo("manifest.etag", "manifest", "The manifest answers with a validator (ETag).")
MADE_UP = FormatSpec("made_up_card", 95, 64 * 1024, well_known="/.well-known/made-up.json", discovery=True)


@pytest.fixture
def one_more_check(monkeypatch):
    monkeypatch.setattr(checks, "CHECKS", {**checks.CHECKS, NEW.name: NEW})


def check_status_columns(db) -> list[str]:
    return [row[1] for row in db.execute("PRAGMA table_info(check_status)").fetchall()]


def test_a_fresh_catalogue_has_a_column_per_check_and_nothing_to_replace(tmp_path):
    db = open_db(tmp_path / "c.db")
    assert [c.column for c in checks.CHECKS.values()] == check_status_columns(db)[7:]
    assert sync_views(db) == []


def test_a_check_added_to_the_catalogue_gets_its_column_when_a_writer_opens_the_file(tmp_path, one_more_check):
    path = tmp_path / "c.db"
    db = open_db(path)
    at = datetime.now(UTC).isoformat()
    db.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.example', 'listed', ?)", [at])
    db.execute(
        "INSERT INTO checks (origin, name, status, checked_at) VALUES ('a.example', ?, 'fail', ?)", [NEW.name, at]
    )
    db.conn.commit()
    reader = open_db(path, readonly=True)
    row = reader.execute("SELECT failing_checks, manifest_etag FROM check_status").fetchone()
    assert row == ("manifest.etag", "fail")


def test_an_existing_file_takes_up_the_new_column_and_a_reader_sees_it(tmp_path, monkeypatch):
    path = tmp_path / "c.db"
    open_db(path).conn.close()
    monkeypatch.setattr(checks, "CHECKS", {**checks.CHECKS, NEW.name: NEW})
    assert "manifest_etag" not in check_status_columns(open_db(path, readonly=True))
    open_db(path).conn.close()  # any crawl, verify or import
    assert "manifest_etag" in check_status_columns(open_db(path, readonly=True))


def test_the_docs_name_a_new_check(one_more_check):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "gen_checks_doc", Path(__file__).resolve().parent.parent / "scripts" / "gen_checks_doc.py"
    )
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert f"| `{NEW.name}` | {NEW.meaning} |" in gen.render()


def test_show_lists_a_new_check_with_its_verdict(tmp_path, one_more_check):
    path = tmp_path / "c.db"
    db = open_db(path)
    at = datetime.now(UTC).isoformat()
    db.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.example', 'listed', ?)", [at])
    db.execute(
        "INSERT INTO checks (origin, name, status, detail, checked_at) VALUES ('a.example', ?, 'pass', 'ETag "
        '"x"\', ?)',
        [NEW.name, at],
    )
    db.conn.commit()
    done = CliRunner().invoke(app, ["show", "a.example", "--db", str(path), "--json"])
    assert done.exit_code == 0, done.output
    assert {"name": NEW.name, "status": "pass"}.items() <= next(
        c for c in json.loads(done.output)["checks"] if c["name"] == NEW.name
    ).items()


async def test_the_tui_lists_a_new_check_with_its_verdict(db_path, net, one_more_check):
    from agentdex.tui.app import make_app
    from test_tui_listing import table_rows
    from test_tui_support import SIZE, open_listing

    db = open_db(db_path)  # a writer: the view takes up the check
    at = datetime.now(UTC).isoformat()
    db.execute(
        "INSERT INTO checks (origin, name, status, detail, checked_at) VALUES ('pantry.test', ?, 'fail', 'no ETag', ?)",
        [NEW.name, at],
    )
    db.conn.commit()
    assert db.execute("SELECT manifest_etag FROM check_status WHERE origin = 'pantry.test'").fetchone() == ("fail",)
    app = make_app(db_path, net)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test", "3")
        rows = {row[1]: row for row in table_rows(screen, "#checks-table")}
    assert rows[NEW.name][0].strip() == "fail" and "no ETag" in rows[NEW.name][2]


def absent(db, origin: str, kind: str, path: str, status: int = 404) -> None:
    """A snapshot of ``origin``'s ``path`` that answered ``status``."""
    at = datetime.now(UTC).isoformat()
    db.execute(
        "INSERT INTO snapshots (origin, url, kind, status_code, fetched_at, response_at) VALUES (?, ?, ?, ?, ?, ?)",
        [origin, f"https://{origin}{path}", kind, status, at, at],
    )


def test_a_discovery_format_added_to_the_registry_is_a_known_absence_without_a_migration(tmp_path, monkeypatch):
    path = tmp_path / "c.db"
    db = open_db(path)
    db.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('a.example', 'listed', ?)", ["2026"])
    absent(db, "a.example", MADE_UP.name, MADE_UP.well_known or "")
    absent(db, "a.example", "a2a_card", "/.well-known/agent-card.json", 410)
    absent(db, "a.example", "agent_app", "/.well-known/agent-app.json")  # a manifest: not a discovery document
    db.conn.commit()
    db.conn.close()
    kinds = "SELECT kind FROM known_absences ORDER BY kind"
    assert open_db(path, readonly=True).execute(kinds).fetchall() == [("a2a_card",)]
    monkeypatch.setattr(formats, "REGISTRY", {**formats.REGISTRY, MADE_UP.name: MADE_UP})
    open_db(path).conn.close()  # any crawl, verify or import
    assert open_db(path, readonly=True).execute(kinds).fetchall() == [("a2a_card",), (MADE_UP.name,)]


def test_datasettes_description_of_known_absences_names_a_new_discovery_format(monkeypatch):
    from tests.conftest import load_script

    monkeypatch.setattr(formats, "REGISTRY", {**formats.REGISTRY, MADE_UP.name: MADE_UP})
    gen = load_script("gen_formats_doc")
    text = (gen.ROOT / "agentdex" / "datasette_metadata.json").read_text("utf-8")
    columns = json.loads(gen.render_metadata(text))["databases"]["agentdex"]["tables"]["known_absences"]["columns"]
    assert f"ai_catalog, {MADE_UP.name})" in columns["kind"]
