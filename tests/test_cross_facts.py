"""Cross-format facts, typed (:class:`agentdex.models.CrossFacts`): the verifier, the
cross-check, the change events and the crawl's discovery read what a format states through
``Listing.facts``; the facts stay stored inside ``Listing.extra`` in the shape they always had,
so a catalogue the previous release wrote reads the same."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from agentdex import formats
from agentdex.crawler import discovered
from agentdex.db import load_listing, save_origin, start_crawl
from agentdex.formats import adapp, inferred
from agentdex.models import CrossFacts, Event, Listing, StatedFacts
from agentdex.showing import load_show
from db_records import AT, anchor_listing, listing_crawl, new_catalogue

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "examples"
ECOSYSTEM = ROOT / "tests" / "ecosystem"
SAMPLE_WEBS = (ROOT / "agentdex" / "sampleweb" / "web", ROOT / "agentdex" / "sampleweb" / "crosscheck")
FACTS = frozenset(f.name for f in fields(CrossFacts))

ORIGIN = "anchor.example.com"
TOOL = {
    "id": "com.example/search",
    "kind": "mcp",
    "endpoint": "https://mcp.example.com/mcp",
    "transport": "streamable-http",
    "payments": [{"protocol": "x402", "priceUsd": 0.005, "unit": "call"}],
}
# An Anchor listing's ``extra`` as the previous release stored it (in the extra column and in
# listing_json alike), with one tool entry a hand edit broke: the facts leave it out.
PREVIOUS_EXTRA = {
    "anchor_tools": [TOOL, "not a tool entry"],
    "verify": {"dnsTxt": "_anchor.example.com", "http": None},
    "updated": "2026-09-25",
}


def _previous_release_row(db) -> None:
    listing = Listing(format="anchor", origin=ORIGIN, name="Search", mcp_url=TOOL["endpoint"], extra=PREVIOUS_EXTRA)
    db.execute(
        "INSERT INTO listings (origin, status, format, name, mcp_url, has_mcp, extra, listing_json, first_seen_at,"
        " first_listed_at) VALUES (?, 'listed', 'anchor', 'Search', ?, 1, ?, ?, ?, ?)",
        [ORIGIN, TOOL["endpoint"], json.dumps(PREVIOUS_EXTRA), json.dumps(listing.to_dict()), AT, AT],
    )
    db.conn.commit()


def test_a_catalogue_the_previous_release_wrote_reads_its_facts(tmp_path):
    db = new_catalogue(tmp_path / "previous.db")
    _previous_release_row(db)
    facts = load_listing(db, ORIGIN).facts
    assert facts.anchor_tools == (TOOL,) and facts.verify == PREVIOUS_EXTRA["verify"]
    shown = load_show(db, ORIGIN)  # show --json: both places keep the stored shape, broken entry too
    assert shown["extra"] == PREVIOUS_EXTRA and shown["listing"]["extra"] == PREVIOUS_EXTRA
    assert "facts" not in shown["listing"]
    # The next crawl's change events read the old row's Anchor tools through the facts.
    cheaper = {**TOOL, "payments": [{**TOOL["payments"][0], "priceUsd": 0.001}]}
    events = save_origin(db, listing_crawl(anchor_listing([cheaper]), origin=ORIGIN), start_crawl(db, "crawl", 1))
    assert Event("price_changed", TOOL["payments"], cheaper["payments"], TOOL["id"]) in events


def test_the_facts_stated_and_the_facts_read_have_the_same_names():
    assert set(get_type_hints(StatedFacts)) == FACTS


def test_a_fact_of_the_wrong_type_reads_as_empty():
    facts = CrossFacts.of({"mcp_urls": "https://one.test/mcp", "prices": {"a": "0.5", "b": 1, "c": True}, "verify": []})
    assert (facts.mcp_urls, dict(facts.prices), dict(facts.verify)) == ((), {"b": 1.0}, {})
    assert CrossFacts.of(None) == CrossFacts() == Listing(format="anchor").facts


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _discovery_documents() -> Iterator[tuple[str, Listing]]:
    """Every discovery document of the sample webs, as the crawl describes it, and the real ones."""
    for site in sorted(s for web in SAMPLE_WEBS for s in web.iterdir() if s.is_dir()):
        for name, paths in formats.DISCOVERY_PATHS.items():
            for path in paths:
                if (site / path.lstrip("/")).is_file():
                    result = formats.get(name).parse((site / path.lstrip("/")).read_bytes(), origin=site.name)
                    described = discovered.describe(result, f"https://{site.name}{path}")
                    yield f"{site.name}{path}", described.listing
    for folder, name in (("a2a", "a2a_card"), ("ai_catalog", "ai_catalog"), ("server_card", "server_card")):
        for file in sorted((ECOSYSTEM / folder).rglob("*.json")):
            yield str(file), formats.get(name).parse(file.read_bytes()).listing
    for file in sorted((ECOSYSTEM / "server_json" / "valid").rglob("*.json")):
        yield str(file), formats.get("server_json").parse(file.read_bytes()).listing


def _stated() -> Iterator[tuple[str, Listing]]:
    """A listing of every example of every format agentdex reads."""
    for fmt in ("agent_app", "anchor", "findagent"):
        for file in sorted((EXAMPLES / "valid" / fmt).glob("*.json")):
            if not file.name.endswith(".expect.json"):
                yield str(file), formats.get(fmt).parse(file.read_bytes()).listing
    for folder in sorted((EXAMPLES / "adapp").iterdir()):
        yield str(folder), adapp.parse_package(adapp.pack(_files(folder))).listing
    for folder in sorted((EXAMPLES / "valid" / "inferred").iterdir()):
        yield str(folder), inferred.infer(_files(folder), origin="example.com").listing
    yield from _discovery_documents()


def test_every_fact_a_format_states_reads_back_whole_and_typed():
    """What the writers store and what the typed reader reads agree (nothing is left out as
    the wrong type), and every fact is stated by some format under its declared name (a
    writer that misspelt one would leave it stated by none)."""
    stated: set[str] = set()
    for where, listing in _stated():
        if listing is None:
            continue
        facts = listing.facts
        for name in FACTS & listing.extra.keys():
            assert _plain(getattr(facts, name)) == _plain(listing.extra[name]), f"{where}: {name}"
            stated |= {name} if listing.extra[name] else set()
    assert stated == FACTS


_READS = ("get", "setdefault", "pop", "keys", "items", "values")


def _reads_of_extra(tree: ast.AST) -> list[int]:
    """Lines reading a ``.extra`` attribute by key (``x.extra[k]``, ``x.extra.get(k)``, ``k in x.extra``)."""

    def is_extra(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "extra"

    found = []
    for node in ast.walk(tree):
        keyed = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and is_extra(node.value)
        called = isinstance(node, ast.Attribute) and node.attr in _READS and is_extra(node.value)
        tested = isinstance(node, ast.Compare) and any(is_extra(c) for c in node.comparators)
        if keyed or called or tested:
            found.append(node.lineno)
    return found


def test_only_the_facts_model_reads_a_listings_extra_by_key():
    """A module that needs a fact another format states reads ``listing.facts``; a new
    ``listing.extra.get("...")`` would bring back the silent miss of a misspelt key."""
    reads = {
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "agentdex").rglob("*.py"))
        if path.name != "models.py"
        for line in _reads_of_extra(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert reads == set()


@pytest.mark.slow  # runs mypy over the models module
def test_a_misspelt_fact_is_a_type_error(tmp_path):
    from mypy import api

    snippet = tmp_path / "reader.py"
    snippet.write_text(
        "from agentdex.models import Listing, StatedFacts\n\n\n"
        "def endpoints(listing: Listing) -> tuple[str, ...]:\n"
        "    return listing.facts.mcp_url\n\n\n"
        "def state(listing: Listing) -> None:\n"
        '    listing.extra = {**StatedFacts(mcp_url=["https://a.test/mcp"])}\n'
    )
    out, _, status = api.run([str(snippet), "--cache-dir", str(tmp_path / "cache"), "--follow-imports=silent"])
    assert status == 1 and '"CrossFacts" has no attribute "mcp_url"' in out
    assert 'key "mcp_url" for TypedDict "StatedFacts"' in out
