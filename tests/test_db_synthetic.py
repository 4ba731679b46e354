"""The synthetic catalogue used by the TUI and Datasette benchmarks."""

from __future__ import annotations

from agentdex.db import count_listings, get_listing, list_events, list_listings, load_listing, stats
from agentdex.db.synthetic import fill_synthetic
from agentdex.models import STATUSES
from db_records import new_catalogue


def test_fill_synthetic_builds_a_varied_consistent_catalogue(tmp_path):
    db = new_catalogue(tmp_path / "synthetic.db")
    assert fill_synthetic(db, 500) == 500
    counts = stats(db)
    assert counts["listings"] == 500
    assert set(counts["by_status"]) == set(STATUSES)
    assert {"agent_app", "anchor", "findagent", "adapp", "inferred"} <= set(counts["by_format"])
    assert 0 < counts["failing_checks"] < counts["listings"] and counts["events"] >= counts["by_status"]["listed"]
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    # Searchable, filterable, and every stored listing rebuilds as a model.
    assert 0 < count_listings(db, search="invoices") < 500
    assert count_listings(db, category="finance", status="listed") > 0
    listed = list_listings(db, status="listed", limit=1000)
    assert all(load_listing(db, row["origin"]).name == row["name"] for row in listed)
    full = get_listing(db, listed[0]["origin"])
    assert full["checks"] and full["events"][0]["kind"] == "listed"
    assert list_events(db, limit=1)


def test_search_index_stays_live_after_a_fill(tmp_path):
    db = new_catalogue(tmp_path / "synthetic.db")
    fill_synthetic(db, 50)
    origin = list_listings(db, status="listed", limit=1)[0]["origin"]
    db.execute("UPDATE listings SET description = 'zeppelin mooring' WHERE origin = ?", [origin])
    assert [r["origin"] for r in list_listings(db, search="zeppelin")] == [origin]


def test_same_seed_same_rows_other_seed_other_origins(tmp_path):
    first, second = new_catalogue(tmp_path / "a.db"), new_catalogue(tmp_path / "b.db")
    fill_synthetic(first, 100, seed=7)
    fill_synthetic(second, 100, seed=7)
    dump = "SELECT * FROM listings ORDER BY origin"
    assert list(first.query(dump)) == list(second.query(dump))
    fill_synthetic(first, 100, seed=8)  # a new seed adds, never collides
    assert count_listings(first) == 200
