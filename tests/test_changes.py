"""Change events between two states of one origin (pure: plain dicts in, events out)."""

from __future__ import annotations

import copy

import pytest

from agentdex.changes import UNREACHABLE_LIMIT, diff, next_status
from agentdex.models import Event, Listing

LISTING = Listing(
    format="agent_app",
    origin="pantry.example.com",
    name="Pantry",
    instructions="Pantry tracks groceries.",
    mcp_url="https://mcp.pantry.example.com/mcp",
    http_base="https://api.pantry.example.com/v1",
).to_dict()
SEARCH = {"description": "Search the pantry", "annotations": {"readOnlyHint": True}}
ADD = {"description": "Add an item", "annotations": {}}
ANCHOR_TOOL = {
    "id": "com.example/search",
    "endpoint": "https://mcp.example.com/mcp",
    "payments": [{"protocol": "x402", "priceUsd": 0.005, "unit": "call"}],
    "deprecations": [],
    "readOnlyVariant": "https://mcp.example.com/mcp/readonly",
    "scopedVariants": {"search-only": "https://mcp.example.com/mcp/search"},
}


def state(
    status: str = "listed",
    *,
    was_listed: bool | None = None,
    guide: str | None = "g1",
    tools: dict | None = None,
    checks: dict | None = None,
    **listing_changes,
) -> dict:
    listing = {**copy.deepcopy(LISTING), **listing_changes}
    result = {"status": status, "listing": listing, "guide_sha256": guide, "tools": tools, "checks": checks or {}}
    if was_listed is not None:
        result["was_listed"] = was_listed
    return result


def anchor(**changes) -> dict:
    return state(format="anchor", extra={"anchor_tools": [{**copy.deepcopy(ANCHOR_TOOL), **changes}]})


# (case, old, new, expected events)
CASES = [
    ("first crawl, listed", None, state(), [Event("listed", None, "listed")]),
    ("first crawl, invalid", None, state("invalid"), []),
    ("first crawl, no manifest", None, state("no_manifest", guide=None), []),
    (
        "never listed, now listed",
        state("no_manifest", was_listed=False),
        state(),
        [Event("listed", "no_manifest", "listed")],
    ),
    (
        "nothing changed",
        state(tools={"search": SEARCH}, checks={"anchor.verify.dns": "pass"}),
        state(tools={"search": SEARCH}, checks={"anchor.verify.dns": "pass"}),
        [],
    ),
    (
        "no manifest any more",
        state(),
        {**state("delisted"), "observed": "no_manifest"},
        [Event("delisted", "listed", "no_manifest")],
    ),
    ("invalid now", state(), state("invalid"), [Event("delisted", "listed", "invalid")]),
    ("listed again", state("delisted", was_listed=True), state(), [Event("relisted", "delisted", "listed")]),
    ("valid again after invalid", state("invalid", was_listed=True), state(), [Event("relisted", "invalid", "listed")]),
    ("still delisted", state("delisted", was_listed=True), state("delisted"), []),
    ("renamed", state(), state(name="Larder"), [Event("name_changed", "Pantry", "Larder")]),
    ("format changed", state(), state(format="anchor"), [Event("format_changed", "agent_app", "anchor")]),
    ("guide text changed", state(), state(guide="g2"), [Event("guide_changed", "g1", "g2")]),
    ("guide removed", state(), state(guide=None), [Event("guide_changed", "g1", None)]),
    (
        "instructions changed",
        state(),
        state(instructions="Pantry plans meals."),
        [Event("instructions_changed", "Pantry tracks groceries.", "Pantry plans meals.")],
    ),
    (
        "mcp url changed",
        state(),
        state(mcp_url="https://pantry.example.com/mcp"),
        [Event("mcp_url_changed", "https://mcp.pantry.example.com/mcp", "https://pantry.example.com/mcp")],
    ),
    (
        "http base removed",
        state(),
        state(http_base=None),
        [Event("http_base_changed", "https://api.pantry.example.com/v1", None)],
    ),
    (
        "several at once, stable order",
        state(),
        state(name="Larder", guide="g2", mcp_url=None),
        [
            Event("name_changed", "Pantry", "Larder"),
            Event("guide_changed", "g1", "g2"),
            Event("mcp_url_changed", "https://mcp.pantry.example.com/mcp", None),
        ],
    ),
    (
        "tool added",
        state(tools={"search": SEARCH}),
        state(tools={"search": SEARCH, "add": ADD}),
        [
            Event(
                "tools_changed",
                {"names": ["search"], "tools": {}},
                {"names": ["add", "search"], "tools": {"add": ADD}},
                "add",
            )
        ],
    ),
    (
        "tool removed",
        state(tools={"search": SEARCH, "add": ADD}),
        state(tools={"search": SEARCH}),
        [
            Event(
                "tools_changed",
                {"names": ["add", "search"], "tools": {"add": ADD}},
                {"names": ["search"], "tools": {}},
                "add",
            )
        ],
    ),
    (
        "tool annotations changed",
        state(tools={"search": SEARCH}),
        state(tools={"search": {**SEARCH, "annotations": {"readOnlyHint": False}}}),
        [
            Event(
                "tools_changed",
                {"names": ["search"], "tools": {"search": SEARCH}},
                {"names": ["search"], "tools": {"search": {**SEARCH, "annotations": {"readOnlyHint": False}}}},
                "search",
            )
        ],
    ),
    ("tools probed the first time", state(tools=None), state(tools={"search": SEARCH}), []),
    ("tools not probed this time", state(tools={"search": SEARCH}), state(tools=None), []),
    (
        "anchor endpoint moved",
        anchor(),
        anchor(endpoint="https://mcp2.example.com/mcp"),
        [
            Event(
                "endpoint_changed", "https://mcp.example.com/mcp", "https://mcp2.example.com/mcp", "com.example/search"
            )
        ],
    ),
    (
        "anchor price changed",
        anchor(),
        anchor(payments=[{"protocol": "x402", "priceUsd": 0.01, "unit": "call"}]),
        [
            Event(
                "price_changed",
                [{"protocol": "x402", "priceUsd": 0.005, "unit": "call"}],
                [{"protocol": "x402", "priceUsd": 0.01, "unit": "call"}],
                "com.example/search",
            )
        ],
    ),
    (
        "anchor deprecation declared",
        anchor(),
        anchor(
            deprecations=[
                {"what": "/sse endpoint", "sunset": "2026-12-31", "replacement": "https://mcp.example.com/mcp"}
            ]
        ),
        [
            Event(
                "deprecation_declared",
                None,
                {"what": "/sse endpoint", "sunset": "2026-12-31", "replacement": "https://mcp.example.com/mcp"},
                "com.example/search",
            )
        ],
    ),
    (
        "anchor sunset moved",
        anchor(deprecations=[{"what": "/sse", "sunset": "2026-06-30"}]),
        anchor(deprecations=[{"what": "/sse", "sunset": "2026-12-31"}]),
        [
            Event(
                "deprecation_declared",
                {"what": "/sse", "sunset": "2026-06-30"},
                {"what": "/sse", "sunset": "2026-12-31"},
                "com.example/search",
            )
        ],
    ),
    ("anchor deprecation withdrawn", anchor(deprecations=[{"what": "/sse", "sunset": "2026-06-30"}]), anchor(), []),
    (
        "anchor read-only variant dropped",
        anchor(),
        anchor(readOnlyVariant=None),
        [
            Event(
                "variant_changed",
                {
                    "readOnlyVariant": "https://mcp.example.com/mcp/readonly",
                    "scopedVariants": ANCHOR_TOOL["scopedVariants"],
                },
                {"readOnlyVariant": None, "scopedVariants": ANCHOR_TOOL["scopedVariants"]},
                "com.example/search",
            )
        ],
    ),
    (
        "anchor tool added",
        state(format="anchor", extra={"anchor_tools": []}),
        anchor(),
        [Event("anchor_tool_added", None, ANCHOR_TOOL, "com.example/search")],
    ),
    (
        "proof lost",
        state(checks={"anchor.verify.dns": "pass", "anchor.verify.http": "pass", "mcp.tools": "pass"}),
        state(checks={"anchor.verify.dns": "fail", "anchor.verify.http": "pass", "mcp.tools": "fail"}),
        [Event("proof_lost", "pass", "fail", "anchor.verify.dns")],
    ),
    ("proof never held", state(checks={"anchor.verify.dns": "fail"}), state(checks={"anchor.verify.dns": "fail"}), []),
    (
        "proof warned, not lost",
        state(checks={"anchor.verify.dns": "pass"}),
        state(checks={"anchor.verify.dns": "warn"}),
        [],
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_diff(old, new, expected):
    assert diff(old, new) == expected


def test_delisting_reports_only_the_status():
    # Leaving the catalogue is one event, whatever else changed on the way out.
    assert diff(state(), state("invalid", name="Broken")) == [Event("delisted", "listed", "invalid")]


# (case, old state, what the crawl saw, expected stored status and unreachable streak)
STATUS_CASES = [
    ("new origin listed", None, "listed", ("listed", 0)),
    ("new origin unreachable", None, "unreachable", ("unreachable", 1)),
    ("new origin without manifest", None, "no_manifest", ("no_manifest", 0)),
    ("listed origin without manifest", {"status": "listed", "was_listed": True}, "no_manifest", ("delisted", 0)),
    ("listed origin invalid", {"status": "listed", "was_listed": True}, "invalid", ("invalid", 0)),
    (
        "one blip keeps it listed",
        {"status": "listed", "was_listed": True, "unreachable_streak": 0},
        "unreachable",
        ("listed", 1),
    ),
    (
        "still under the limit",
        {"status": "listed", "was_listed": True, "unreachable_streak": UNREACHABLE_LIMIT - 2},
        "unreachable",
        ("listed", UNREACHABLE_LIMIT - 1),
    ),
    (
        "limit reached",
        {"status": "listed", "was_listed": True, "unreachable_streak": UNREACHABLE_LIMIT - 1},
        "unreachable",
        ("delisted", UNREACHABLE_LIMIT),
    ),
    (
        "back before the limit",
        {"status": "listed", "was_listed": True, "unreachable_streak": 2},
        "listed",
        ("listed", 0),
    ),
    (
        "delisted stays delisted when unreachable",
        {"status": "delisted", "was_listed": True, "unreachable_streak": 0},
        "unreachable",
        ("delisted", 1),
    ),
    ("never listed, no manifest", {"status": "invalid", "was_listed": False}, "no_manifest", ("no_manifest", 0)),
]


@pytest.mark.parametrize(
    ("old", "observed", "expected"), [c[1:] for c in STATUS_CASES], ids=[c[0] for c in STATUS_CASES]
)
def test_next_status(old, observed, expected):
    assert next_status(old, observed) == expected


def test_unreachable_origin_is_delisted_only_after_the_limit():
    stored = {"status": "listed", "was_listed": True, "unreachable_streak": 0, **state()}
    events = []
    for _ in range(UNREACHABLE_LIMIT):
        status, streak = next_status(stored, "unreachable")
        new = {**stored, "status": status, "unreachable_streak": streak, "observed": "unreachable"}
        events.append(diff(stored, new))
        stored = new
    assert events == [[]] * (UNREACHABLE_LIMIT - 1) + [[Event("delisted", "listed", "unreachable")]]
