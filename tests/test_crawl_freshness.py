"""HTTP freshness on real crawls over TLS (the sample web serving per-host Cache-Control
and Expires from _site.json): a stored answer still fresh is not asked again — the sample
web's request log proves it — and its snapshot says so; a stale one is asked; no-cache,
no-store and must-revalidate are obeyed; agentdex's ceiling caps a long lifetime;
``--revalidate`` asks everything; a change behind freshness is found by the first crawl
after the answer goes stale, with that crawl's time on the event.

Each host serves an agent-app manifest, a guide and an answer for anchor.json (a 404 with
the host's headers, so a definite absence can be fresh too). "Later" crawls pass ``now``
(the moment freshness is judged at) rather than sleeping.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from agentdex.crawler.crawl import crawl
from agentdex.crawler.freshness import Policy
from agentdex.db import get_listing, list_checks, list_events
from agentdex.sampleweb.server import SampleWeb
from freshweb import DISCOVERY, FOUND, PATHS, db, web  # noqa: F401 (fixtures)

HOUR = 3600.0


def run(
    db, web: SampleWeb, hosts: list[str], *, later: float = 0.0, verify: bool = False, kind: str = "crawl", **policy
):
    """One crawl of ``hosts``; ``later``: judge freshness that many seconds from now."""
    web.requests_log.clear()
    now = time.time() + later if later else None
    return asyncio.run(
        crawl(db, hosts, web.network_options(), verify=verify, policy=Policy(**policy), now=now, kind=kind)
    )


def asked(web: SampleWeb, host: str) -> list[str]:
    """The paths of ``host`` the last crawl requested."""
    return [r.path for r in web.requests_log if r.host == host]


def obtained(db, crawl_id: int) -> dict[str, str]:
    """How the run ``crawl_id`` got each URL's answer (the latest run to get it)."""
    rows = db.execute("SELECT url, last_obtained FROM snapshots WHERE last_crawl_id = ?", [crawl_id]).fetchall()
    return {url.split("/", 3)[3]: how for url, how in rows}


# --- fresh, stale -------------------------------------------------------------------------------


def test_a_fresh_answer_is_not_asked_again_and_the_snapshot_says_so(db, web):
    first = run(db, web, ["fresh.test"])
    assert sorted(asked(web, "fresh.test")) == sorted([*PATHS, "/robots.txt"])
    again = run(db, web, ["fresh.test"])
    assert asked(web, "fresh.test") == [] and again.requests == 0
    assert set(obtained(db, again.crawl_id).values()) == {"fresh"}
    # The fresh answers extend the first run's rows, which were fetched.
    assert db.execute("SELECT DISTINCT crawl_id, obtained, seen FROM snapshots").fetchall() == [
        (first.crawl_id, "fetched", 2)
    ]
    # Nothing is skipped silently: every document has its snapshot, the 404 included.
    rows = db.execute(
        "SELECT url, status_code, fresh_until IS NOT NULL FROM snapshots WHERE last_crawl_id = ? ORDER BY url",
        [again.crawl_id],
    ).fetchall()
    assert [(u.split("/", 3)[3], s, f) for u, s, f in rows] == sorted(
        (p.lstrip("/"), 200 if p in FOUND else 404, 1) for p in PATHS
    )


def test_a_stale_answer_is_asked_conditionally(db, web):
    run(db, web, ["fresh.test"])
    stale = run(db, web, ["fresh.test"], later=HOUR + 1)
    # robots.txt (a 404 with the host's max-age=3600) went stale with the rest: asked too.
    assert sorted(asked(web, "fresh.test")) == sorted([*PATHS, "/robots.txt"])
    # A 404 has no validators to revalidate with: it is fetched again.
    assert obtained(db, stale.crawl_id) == {p.lstrip("/"): "revalidated" if p in FOUND else "fetched" for p in PATHS}
    # The 304s renewed the freshness: asked again only an hour after them.
    assert run(db, web, ["fresh.test"]).requests == 0


def test_a_fresh_robots_txt_is_not_asked_again_by_verification_either(db, web):
    run(db, web, ["fresh.test"], verify=True)
    run(db, web, ["fresh.test"], verify=True)
    # The documents and the checks' answers are fresh: nothing is asked.
    assert asked(web, "fresh.test") == []
    # --revalidate asks the checks' URLs again (conditionally), under the robots.txt the
    # first crawl stored.
    run(db, web, ["fresh.test"], verify=True, revalidate=True)
    assert {"/", "/v1"} <= set(asked(web, "fresh.test")) and "/robots.txt" not in asked(web, "fresh.test")


def test_an_answer_about_to_go_stale_is_asked_now(db, web):
    run(db, web, ["fresh.test"])
    assert run(db, web, ["fresh.test"], later=HOUR - 120).requests == 0
    run(db, web, ["fresh.test"], later=HOUR - 30)  # less than the 60 s floor left
    assert sorted(asked(web, "fresh.test")) == sorted(PATHS)
    run(db, web, ["fresh.test"])
    assert run(db, web, ["fresh.test"], later=HOUR - 30, floor=0).requests == 0


def test_revalidate_asks_every_document_even_when_fresh(db, web):
    run(db, web, ["fresh.test"])
    again = run(db, web, ["fresh.test"], revalidate=True)
    # Every document, but the known absences (the discovery paths' 404s) before their schedule.
    assert sorted(asked(web, "fresh.test")) == sorted(set(PATHS) - set(DISCOVERY))
    assert set(obtained(db, again.crawl_id).values()) == {"revalidated", "fetched", "known_absent"}


# --- what the origin says -------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["nocache.test", "nostore.test", "plain.test"])
def test_no_cache_no_store_and_no_lifetime_mean_asked_every_time(db, web, host):
    run(db, web, [host])
    again = run(db, web, [host])
    # (robots.txt follows its own reuse rules, RFC 9309: see test_crawl_recrawl.py.)
    assert sorted(p for p in asked(web, host) if p != "/robots.txt") == sorted(PATHS)
    assert "fresh" not in obtained(db, again.crawl_id).values()


def test_must_revalidate_is_used_while_fresh_and_asked_once_stale(db, web):
    run(db, web, ["mustrevalidate.test"])
    assert run(db, web, ["mustrevalidate.test"]).requests == 0
    assert run(db, web, ["mustrevalidate.test"], later=HOUR + 1).requests == len(PATHS) + 1  # robots.txt too


def test_the_ceiling_caps_a_year_long_lifetime(db, web):
    for host in ("longlived.test", "expires.test"):
        run(db, web, [host])
        assert run(db, web, [host], later=23 * HOUR).requests == 0
        assert sorted(asked(web, host)) == []
        # robots.txt as well: RFC 9309 (2.4) reuses it for a day at most, whatever its lifetime.
        assert run(db, web, [host], later=24 * HOUR + 1).requests == len(PATHS) + 1
        # --max-fresh lowers the ceiling (and 0 asks every time).
        assert run(db, web, [host], later=601, ceiling=600).requests == len(PATHS)
        assert run(db, web, [host], ceiling=0).requests == len(PATHS)


# --- changes behind freshness -------------------------------------------------------------------


def test_a_change_behind_freshness_is_found_by_the_first_crawl_after_it_goes_stale(db, web):
    run(db, web, ["fresh.test"])
    web.set_variant("fresh.test", "v2")  # the guide changes on the server
    try:
        hidden = run(db, web, ["fresh.test"])
        assert asked(web, "fresh.test") == [] and hidden.events == 0
        before = time.time()
        stale = run(db, web, ["fresh.test"], later=HOUR + 1)
    finally:
        web.set_variant("fresh.test", None)
    assert stale.events == 1
    [event] = [e for e in list_events(db, origin="fresh.test") if e["kind"] == "guide_changed"]
    assert event["crawl_id"] == stale.crawl_id
    assert event["at"] >= time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(before))
    # The stored guide is the new one.
    guide = next(d for d in get_listing(db, "fresh.test")["documents"] if d["kind"] == "guide")
    assert (
        db.execute("SELECT content FROM blobs WHERE sha256 = ?", [guide["sha256"]])
        .fetchone()[0]
        .endswith(b"and a board.\n")
    )


def test_show_says_how_each_fact_was_obtained_and_how_old_it_is(db, web):
    started = time.time()
    run(db, web, ["fresh.test"])
    run(db, web, ["fresh.test"])
    facts = {f["url"].split("/", 3)[3]: f for f in get_listing(db, "fresh.test")["facts"]}
    assert set(facts) == {p.lstrip("/") for p in PATHS}
    guide = facts["agent.md"]
    assert guide["obtained"] == "fresh" and guide["fresh"] is True
    assert 0 <= guide["age_seconds"] <= time.time() - started + 1  # however long the crawls took
    # The age counts from the answer the fact stands on (the first crawl's), not the latest crawl.
    first = db.execute(
        "SELECT response_at FROM snapshots WHERE url = ? ORDER BY id LIMIT 1", [guide["url"]]
    ).fetchone()[0]
    assert guide["response_at"] == first and guide["checked_at"] >= first[:19]


# --- verification facts obey freshness ----------------------------------------------------------

VERIFIED = ("/", "/v1")  # the homepage and the API base the manifest declares


def test_a_fresh_recrawl_keeps_each_verdict_without_asking_and_says_how_old_it_is(db, web):
    run(db, web, ["fresh.test"], verify=True)
    assert set(VERIFIED) <= set(asked(web, "fresh.test"))
    first = {c["name"]: c for c in list_checks(db, "fresh.test")}
    again = run(db, web, ["fresh.test"], verify=True)
    assert asked(web, "fresh.test") == [] and again.requests == 0
    checks = {c["name"]: c for c in list_checks(db, "fresh.test")}
    # Every answer fresh and the origin not due: each verdict stands as stored, with the
    # time of the answer it stands on (how old it is), and each answer's fact says fresh.
    assert checks == first
    facts = {f["url"].split("/", 3)[3]: f for f in get_listing(db, "fresh.test")["facts"]}
    for name, path in (("homepage.reachable", ""), ("http.base", "v1")):
        assert first[name]["data"]["obtained"] == "fetched"
        assert facts[path]["obtained"] == "fresh" and facts[path]["response_at"] == first[name]["data"]["answer_at"]
    # Half an hour on (answers still fresh, the origin due): verified again, each verdict from
    # its fresh stored answer, and said so.
    with db.conn:
        db.execute("UPDATE listings SET next_due_at = '2000-01-01T00:00:00.000Z'")
    assert run(db, web, ["fresh.test"], verify=True, later=HOUR / 2).requests == 0
    checks = {c["name"]: c for c in list_checks(db, "fresh.test")}
    for name in ("homepage.reachable", "http.base"):
        assert checks[name]["status"] == first[name]["status"] and checks[name]["data"]["obtained"] == "fresh"
        assert checks[name]["data"]["answer_at"] == first[name]["data"]["answer_at"]
    # fresh.test has no page at either URL: the homepage's kept 404 says it is a fresh stored answer.
    assert checks["homepage.reachable"]["status"] == "fail"
    assert "that answer is still fresh" in checks["homepage.reachable"]["detail"]
    assert checks["http.base"]["status"] == "warn" and checks["http.base"]["detail"] == first["http.base"]["detail"]
    # A fresh answer is no probe: endpoint health gained no row.
    probes = db.execute("SELECT count(*) FROM endpoint_probes WHERE origin = 'fresh.test'").fetchone()[0]
    assert probes == db.execute("SELECT count(*) FROM endpoint_probes WHERE crawl_id = 1").fetchone()[0]


def test_stale_verification_answers_are_asked_and_revalidate_and_verify_ask_everything(db, web):
    run(db, web, ["fresh.test"], verify=True)
    run(db, web, ["fresh.test"], verify=True, later=HOUR + 1)
    assert set(VERIFIED) <= set(asked(web, "fresh.test"))
    checks = {c["name"]: c for c in list_checks(db, "fresh.test")}
    assert checks["homepage.reachable"]["data"]["obtained"] != "fresh"
    for options in ({"revalidate": True}, {"kind": "verify"}):
        run(db, web, ["fresh.test"], verify=True)  # renewed: everything fresh again
        run(db, web, ["fresh.test"], verify=True, **options)
        assert set(VERIFIED) <= set(asked(web, "fresh.test")), options


# --- the schedule of known absences --------------------------------------------------------------


def test_revalidate_asks_known_absences_on_their_schedule_and_says_so(db, web):
    discovery = set(DISCOVERY)  # each a 404 on plain.test, which sends no Cache-Control
    run(db, web, ["plain.test"])
    assert discovery <= set(asked(web, "plain.test"))
    run(db, web, ["plain.test"], revalidate=True)
    # Everything else is asked (the manifests' 404 included); the known absences are not.
    assert sorted(asked(web, "plain.test")) == sorted(set(PATHS) - discovery)
    facts = {f["url"].split("/", 3)[3]: f for f in get_listing(db, "plain.test")["facts"]}
    for path in discovery:
        fact = facts[path.lstrip("/")]
        assert fact["obtained"] == "known_absent" and fact["status_code"] == 404
        assert fact["absence_recheck_at"] > fact["response_at"]  # an hour after the first 404
    assert facts[".well-known/anchor.json"]["absence_recheck_at"] is None  # a manifest is no known absence
    view = db.execute("SELECT url, last_obtained, next_asked_at FROM known_absences WHERE origin = 'plain.test'")
    assert {(u.split("/", 3)[3], how, at) for u, how, at in view} == {
        (p.lstrip("/"), "known_absent", facts[p.lstrip("/")]["absence_recheck_at"]) for p in discovery
    }
    # Without --revalidate HTTP freshness alone decides: a 404 without a lifetime is asked.
    run(db, web, ["plain.test"])
    assert discovery <= set(asked(web, "plain.test"))
    # Once the schedule comes (an hour on), --revalidate asks them again.
    run(db, web, ["plain.test"], revalidate=True, later=HOUR + 60)
    assert discovery <= set(asked(web, "plain.test"))
