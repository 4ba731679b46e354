"""Opening the catalogue: WAL writer, read-only readers, migrations, refusing files it
cannot use, and the schema itself (compared with tests/schema.sql)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from agentdex.db import list_listings, open_db, save_origin, schema_version, start_crawl
from agentdex.db.migrations import known_names, migrations, run_script
from agentdex.errors import DatabaseError
from db_records import ORIGIN, pantry_crawl

SCHEMA_SQL = Path(__file__).resolve().parent / "schema.sql"


def test_schema_matches_tests_schema_sql(tmp_path):
    db = open_db(tmp_path / "fresh.db")
    assert db.schema + "\n" == SCHEMA_SQL.read_text(encoding="utf-8"), (
        "the migrated schema differs from tests/schema.sql; if the change is intended, run "
        "`python scripts/dump_schema.py` and commit tests/schema.sql"
    )


def test_writer_uses_wal_and_foreign_keys(tmp_path):
    db = open_db(tmp_path / "a.db")
    assert db.journal_mode == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        db.execute(
            "INSERT INTO findings (origin, format, severity, path, code, message) "
            "VALUES ('nowhere.example', 'agent_app', 'error', '', 'x', 'y')"
        )


def test_a_new_file_gets_every_migration(tmp_path):
    db = open_db(tmp_path / "a.db")
    assert schema_version(db) == len(known_names()) >= 3
    assert {"listings", "snapshots", "blobs", "checks", "tools", "feedback_receipts", "listings_fts"} <= set(
        db.table_names()
    )


def test_the_known_migrations_are_every_step_of_the_module_in_order():
    from agentdex.db import migrations as module

    steps = [name for name in vars(module) if name[0] == "m" and name[1:4].isdigit()]
    assert known_names() == sorted(steps) and len(steps) >= 13


def _version_one_file(path: Path) -> None:
    """A catalogue written by the first schema version, with some data in it."""
    db = Database(path)
    migrations.apply(db, stop_before="m002_verification")
    db.execute("INSERT INTO crawls (id, kind, started_at) VALUES (1, 'crawl', '2025-01-01T00:00:00.000Z')")
    db.execute(
        "INSERT INTO listings (origin, status, name, description, first_seen_at, first_listed_at, last_crawl_id) "
        "VALUES ('old.example', 'listed', 'Old Timer', 'A listing from schema one about sourdough.', "
        "'2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 1)"
    )
    db.execute(
        "INSERT INTO events (origin, kind, at, new) "
        "VALUES ('old.example', 'listed', '2025-01-01T00:00:00.000Z', '\"listed\"')"
    )
    db.close()


def test_an_older_file_is_upgraded_in_place_with_its_data(tmp_path):
    path = tmp_path / "old.db"
    _version_one_file(path)
    db = open_db(path)
    assert schema_version(db) == len(known_names())
    row = db.execute("SELECT name, status, checks_passed, checks_failed FROM listings").fetchone()
    assert row == ("Old Timer", "listed", 0, 0)
    assert db.execute("SELECT kind FROM events").fetchall() == [("listed",)]
    # The full-text index added later covers the rows the file already had.
    assert [r["origin"] for r in list_listings(db, search="sourdough")] == ["old.example"]
    # And the upgraded file takes new crawls.
    save_origin(db, pantry_crawl(), start_crawl(db))
    assert db.execute("SELECT count(*) FROM listings").fetchone()[0] == 2


def test_a_file_of_the_previous_release_keeps_its_checks_and_probes_through_the_rebuilt_views(tmp_path):
    # m010 drops and rebuilds check_status and endpoint_health over the tables a file already has.
    path, at = tmp_path / "m009.db", "2025-06-01T00:00:00.000Z"
    old = Database(path)
    migrations.apply(old, stop_before="m010_x402_live")
    old.execute("INSERT INTO listings (origin, status, first_seen_at) VALUES ('old.example', 'listed', ?)", [at])
    old.execute(
        "INSERT INTO checks (origin, name, status, checked_at) VALUES ('old.example', 'mcp.tools', 'fail', ?)", [at]
    )
    for role, state in [("mcp", "ok"), ("mcp", "payment_required"), ("x402", "payment_required"), ("x402", "ok")]:
        old.execute(
            "INSERT INTO endpoint_probes (origin, role, url, state, at) VALUES ('old.example', ?, ?, ?, ?)",
            [role, f"https://old.example/{role}", state, at],
        )
    old.conn.commit()
    old.close()
    db = open_db(path)
    assert schema_version(db) == len(known_names())
    assert db.execute("SELECT origin, failing_checks, mcp_tools, x402_live_price FROM check_status").fetchall() == [
        ("old.example", "mcp.tools", "fail", None)
    ]
    # A stored 402 counts as up for a paid x402 resource (m010) and a paid MCP endpoint (m019).
    assert db.execute("SELECT role, state, probes, recent_ok FROM endpoint_health ORDER BY role").fetchall() == [
        ("mcp", "payment_required", 2, 2),
        ("x402", "ok", 2, 2),
    ]


def test_a_reader_never_upgrades_an_older_file(tmp_path):
    path = tmp_path / "old.db"
    _version_one_file(path)
    with pytest.raises(DatabaseError, match="older than this agentdex.*agentdex crawl"):
        open_db(path, readonly=True)
    assert schema_version(Database(path)) == 1


def test_a_newer_file_is_refused(tmp_path):
    path = tmp_path / "new.db"
    open_db(path).execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('agentdex', 'm999_future', 'now')"
    )
    for readonly in (False, True):
        with pytest.raises(DatabaseError, match="newer than this agentdex.*upgrade agentdex"):
            open_db(path, readonly=readonly)


def test_a_missing_file_read_only_says_how_to_create_one(tmp_path):
    path = tmp_path / "missing.db"
    with pytest.raises(DatabaseError, match=r"run `agentdex crawl ORIGIN` or `agentdex demo`"):
        open_db(path, readonly=True)
    assert not path.exists()


def test_a_missing_file_is_created_by_the_writer(tmp_path):
    path = tmp_path / "new.db"
    open_db(path).close()
    assert path.is_file()


@pytest.mark.parametrize("readonly", [False, True])
def test_a_file_that_is_not_sqlite_is_refused(tmp_path, readonly):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(DatabaseError, match="SQLite"):
        open_db(path, readonly=readonly)
    assert path.read_text().startswith("these are my notes")


def test_another_apps_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    Database(path)["people"].insert({"name": "Ada"})
    with pytest.raises(DatabaseError, match="not an agentdex catalogue"):
        open_db(path)
    assert Database(path).table_names() == ["people"]


def test_read_only_connection_cannot_write(tmp_path):
    path = tmp_path / "a.db"
    save_origin(writer := open_db(path), pantry_crawl(), start_crawl(writer))
    writer.close()
    reader = open_db(path, readonly=True)
    assert [r["origin"] for r in list_listings(reader)] == [ORIGIN]
    with pytest.raises(sqlite3.OperationalError, match="readonly|read-only"):
        reader.execute("DELETE FROM listings")
    assert reader.execute("SELECT count(*) FROM listings").fetchone()[0] == 1


def test_a_reader_sees_what_an_open_writer_commits(tmp_path):
    path = tmp_path / "a.db"
    writer = open_db(path)
    reader = open_db(path, readonly=True)
    assert list_listings(reader) == []
    save_origin(writer, pantry_crawl(), start_crawl(writer))
    assert [r["origin"] for r in list_listings(reader)] == [ORIGIN]


def test_paths_with_uri_characters_open_read_only(tmp_path):
    folder = tmp_path / "my catalogue #1?%"
    folder.mkdir()
    path = folder / "a b.db"
    save_origin(writer := open_db(path), pantry_crawl(), start_crawl(writer))
    assert [r["origin"] for r in list_listings(open_db(path, readonly=True))] == [ORIGIN]
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["a b.db"]


def test_run_script_splits_where_sqlite_says_a_statement_ends_as_executescript_does(tmp_path):
    script = """
    CREATE TABLE t (a TEXT DEFAULT 'x;y', b TEXT);  -- a ';' inside a string
    CREATE TABLE log (msg TEXT);
    CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN
      INSERT INTO log VALUES ('one;'); INSERT INTO log VALUES (new.b);
    END;
    INSERT INTO t (b) VALUES ('z')
    """
    ours = Database(sqlite3.connect(tmp_path / "ours.db"))
    ours.conn.execute("BEGIN")
    run_script(ours, script)  # inside a transaction, as migrations run
    ours.conn.execute("COMMIT")
    theirs = sqlite3.connect(tmp_path / "theirs.db")
    theirs.executescript(script)
    for query in ("SELECT type, name, sql FROM sqlite_master ORDER BY name", "SELECT * FROM t", "SELECT * FROM log"):
        assert ours.conn.execute(query).fetchall() == theirs.execute(query).fetchall()
    assert ours.conn.execute("SELECT * FROM log").fetchall() == [("one;",), ("z",)]


def test_run_script_refuses_a_statement_left_unfinished(tmp_path):
    db = Database(sqlite3.connect(tmp_path / "c.db"))
    with pytest.raises(sqlite3.OperationalError, match="incomplete"):
        run_script(db, "CREATE TABLE t (a); CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1;")
