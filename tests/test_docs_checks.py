"""The check catalogue (agentdex/checks.py) is the one source of every check's name, group
and meaning: docs/checks.md and the Datasette descriptions are generated from it, the names
are DESIGN.md's, and the verifier runs one runner per catalogued group."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from sqlite_utils import Database

from agentdex.checks import CHECKS, GROUPS, in_group
from agentdex.crawler.verify import RUNNERS, Verifier
from agentdex.db.migrations import migrate
from agentdex.models import FetchRecord, Listing, OriginCrawl
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "python scripts/gen_checks_doc.py"


def _generator():
    return load_script("gen_checks_doc")


def test_checks_doc_is_generated_from_the_catalogue():
    gen = _generator()
    assert gen.DOC.read_text("utf-8") == gen.render(), f"docs/checks.md is out of date; run {REGENERATE}"
    rows = [line for line in gen.render().splitlines() if line.startswith("| `") and "." in line.split("`")[1]]
    assert len(rows) == len(CHECKS)


def test_datasette_describes_each_check_column_with_its_catalogue_meaning():
    gen = _generator()
    for path in gen.METADATA_FILES:
        text = path.read_text("utf-8")
        assert text == gen.render_metadata(text), f"{path.name} is out of date; run {REGENERATE}"


def test_the_catalogue_names_every_check_of_design_md(shared):
    design = (shared / "DESIGN.md").read_text("utf-8")
    section = design.split("Verification check names", 1)[1].split("Add more as needed", 1)[0]
    named = set(re.findall(r"`([a-z_]+(?:\.[a-z_]+)+)`", section))
    assert len(named) == 21 and named <= set(CHECKS), f"renamed or missing: {sorted(named - set(CHECKS))}"


def test_every_check_has_a_group_and_a_check_status_column():
    assert all(info.group in GROUPS and info.meaning.endswith(".") for info in CHECKS.values())
    db = Database(memory=True)
    migrate(db)
    columns = {row[1] for row in db.execute("PRAGMA table_xinfo(check_status)")}
    missing = [info.name for info in CHECKS.values() if info.column not in columns]
    assert not missing, f"check_status has no column for {missing}: add a migration that recreates the view"


def test_the_verifier_runs_one_runner_per_group_in_catalogue_order():
    assert list(RUNNERS) == list(GROUPS)


def test_each_runner_emits_only_the_checks_of_its_group():
    # A listing that declares nothing: every runner answers without a request.
    listing = Listing(format="agent_app", origin="a.test")
    manifest = FetchRecord(url="https://a.test/.well-known/agent-app.json", kind="agent_app", status=200, body=b"{}")
    crawl = OriginCrawl("a.test", "listed", fetches=[manifest])
    verifier = Verifier(fetcher=None, net=None)
    for group, runner in RUNNERS.items():
        found, _ = asyncio.run(runner(verifier, crawl, listing))
        names = [c.name for c in found]
        assert set(names) <= set(in_group(group)), (group, names)
        if group != "anchor":  # Anchor's run only for Anchor listings: test_verify_checks.py
            assert sorted(names) == sorted(in_group(group)), group
