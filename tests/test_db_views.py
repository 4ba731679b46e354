"""A new verification check is one catalogue entry (and its runner's result): the
catalogue-built views Datasette serves, the docs, the CLI and the TUI all take it up without a
migration."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from agentdex import checks
from agentdex.cli import app
from agentdex.db import open_db
from agentdex.db.views import sync_views
from test_tui_support import db_path, net, web  # noqa: F401

NEW = checks.CheckInfo("manifest.etag", "manifest", "The manifest answers with a validator (ETag).")


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
