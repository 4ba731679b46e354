"""Google's robots.txt test suite (robots_test.cc, ported to data in robots_google_cases.py)
decided by agentdex's robots decision, plus RFC 9309 points that suite does not cover.

A case with a ``deviation`` is one where agentdex answers the other way on purpose; the
reason is listed in docs/robots.md, which this module checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentdex.crawler.robots import ROBOTS_MAX_BYTES, RobotsRules
from robots_google_cases import CASES, Case

DOC = Path(__file__).resolve().parents[1] / "docs" / "robots.md"


def decide(robotstxt: str, agent: str, url: str) -> bool:
    return RobotsRules.parse(robotstxt, agent).allows(url)


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c.test}" for i, c in enumerate(CASES)])
def test_google_decision_case(case: Case) -> None:
    expected = case.allowed if case.deviation is None else not case.allowed
    assert decide(case.robotstxt, case.agent, case.url) is expected


def test_every_deviation_is_listed_in_docs_robots_md() -> None:
    text = DOC.read_text(encoding="utf-8")
    reasons = {c.deviation for c in CASES if c.deviation}
    assert reasons and all(reason in text for reason in reasons)
    counted = sum(1 for c in CASES if c.deviation)
    assert f"{len(CASES) - counted} of {len(CASES)}" in text and f"{counted} listed deviations" in text


# --- RFC 9309 points beyond Google's suite ------------------------------------------------------


def test_a_group_is_chosen_by_the_whole_product_token() -> None:
    rules = "User-agent: agent\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"
    assert decide(rules, "agentdex", "https://a.test/page") is True  # "agent" is another crawler
    assert decide(rules, "agentdex", "https://a.test/private/x") is False
    assert decide(rules, "agent", "https://a.test/page") is False
    # The token is read up to the first character a token cannot hold; "*bot" is no "*".
    assert decide("User-agent: AgentDex/1.0\nDisallow: /\n", "agentdex", "https://a.test/page") is False
    assert decide("User-agent: *bot\nDisallow: /\n", "agentdex", "https://a.test/page") is True


def test_groups_of_the_same_agent_are_merged() -> None:
    rules = "User-agent: agentdex\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: AgentDex\nDisallow: /b\n"
    assert [decide(rules, "agentdex", f"https://a.test{p}") for p in ("/a", "/b", "/c")] == [False, False, True]


def test_wildcards_and_end_anchors_match_as_written() -> None:
    rules = "User-agent: *\nDisallow: /*.md$\nDisallow: /llms*\n"
    asked = {
        p: decide(rules, "agentdex", f"https://a.test{p}")
        for p in ("/guide.md", "/docs/agent.md", "/guide.md?v=2", "/llms.txt", "/llms-full.txt", "/SKILL.txt")
    }
    assert asked == {
        "/guide.md": False,
        "/docs/agent.md": False,
        "/guide.md?v=2": True,
        "/llms.txt": False,
        "/llms-full.txt": False,
        "/SKILL.txt": True,
    }


def test_the_longest_match_lets_well_known_through_a_disallow_all() -> None:
    rules = "User-agent: *\nDisallow: /\nAllow: /.well-known/\n"
    assert decide(rules, "agentdex", "https://a.test/.well-known/x402") is True
    assert decide(rules, "agentdex", "https://a.test/llms.txt") is False


def _padded(rules_before: str, rules_after: str, size: int) -> bytes:
    """``rules_before``, comment lines up to ``size`` bytes, then ``rules_after``."""
    body = rules_before.encode()
    filler = b"# " + b"x" * 97 + b"\n"
    while len(body) + len(filler) <= size:
        body += filler
    return body + rules_after.encode()


def test_rules_in_the_first_500_kib_are_obeyed_and_size_allows_nothing() -> None:
    body = _padded("User-agent: *\nDisallow: /early\n", "Disallow: /late\n", 2 * ROBOTS_MAX_BYTES)
    rules = RobotsRules.parse(body, "agentdex")
    assert rules.truncated and not rules.allows("https://a.test/early")
    assert rules.allows("https://a.test/late")  # past the prefix: not read
    whole = RobotsRules.parse(_padded("User-agent: *\n", "Disallow: /late\n", ROBOTS_MAX_BYTES - 100), "agentdex")
    assert not whole.truncated and not whole.allows("https://a.test/late")


def test_a_line_cut_at_the_prefix_end_is_dropped_not_read_wider() -> None:
    head = _padded("User-agent: *\nDisallow: /\n", "", ROBOTS_MAX_BYTES - 200)
    head += b"#" * (ROBOTS_MAX_BYTES - 8 - len(head) - 1) + b"\n"
    body = head + b"Allow: /public/only/this\n"  # the prefix ends 8 bytes in: "Allow: /"
    rules = RobotsRules.parse(body, "agentdex")
    assert rules.truncated and not rules.allows("https://a.test/anything")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("0.5", 0.5), ("2", 2.0), ("\u0661\u0662", 0.0), ("1e308", 0.0), ("inf", 0.0), ("-3", 0.0), ("nan", 0.0)],
)
def test_a_crawl_delay_is_ascii_decimal_seconds_or_none(value, seconds):
    # Protego reads the value with float(), which takes Unicode digits, exponents and inf.
    rules = RobotsRules.parse(f"User-agent: *\nCrawl-delay: {value}\nDisallow: /private\n", "agentdex")
    assert rules.crawl_delay() == seconds
    assert not rules.allows("https://a.example/private")
