"""Property tests for the discovery formats: arbitrary bytes, arbitrary JSON and mutated copies
of the real documents under shared/realworld/ never make a parser raise, and every finding is
well-formed and documented (the same properties as tests/test_fuzz_validators.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdex.formats import a2a_card, ai_catalog, api_catalog, server_card, server_json, x402_discovery
from test_fuzz_validators import FUZZ, JSON_VALUES, check_result, mutated

# Hundreds of generated documents a test: the full lane's, not the quick one's.
pytestmark = pytest.mark.slow

MODULES = {m.NAME: m for m in (a2a_card, server_card, server_json, api_catalog, x402_discovery, ai_catalog)}
SEEDS = {
    "a2a_card": ["agent_card"],
    "server_card": ["server_cards"],
    "server_json": ["server_json"],
    "x402_discovery": ["x402"],
    "api_catalog": [],
    "ai_catalog": [],
}
HAND_MADE = {
    "api_catalog": {
        "linkset": [
            {"anchor": "https://a.test/api", "service-desc": [{"href": "/openapi.json"}]},
            {"item": [{"href": "https://a.test/v2"}]},
        ]
    },
    "ai_catalog": {
        "specVersion": "1.0",
        "host": {"displayName": "A"},
        "entries": [
            {
                "identifier": "urn:air:a.test:mcp:x",
                "displayName": "X",
                "type": "application/mcp-server-card+json",
                "data": {"name": "test.a/x", "version": "1", "remotes": [{"type": "sse", "url": "https://a.test/sse"}]},
                "capabilities": ["t"],
                "representativeQueries": ["a", "b"],
            }
        ],
    },
    "x402_discovery": {
        "x402Version": 2,
        "items": [
            {
                "resource": {"url": "/p"},
                "type": "mcp",
                "input": {"toolName": "t"},
                "accepts": [{"asset": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "amount": "10"}],
            }
        ],
    },
}


def seeds(shared: Path, name: str) -> list[Any]:
    docs = [HAND_MADE[name]] if name in HAND_MADE else []
    for folder in SEEDS[name]:
        for path in sorted((shared / "realworld" / folder).iterdir()):
            try:
                docs.append(json.loads(path.read_bytes()))
            except ValueError:
                continue
    return docs


def check(name: str, data: bytes) -> None:
    result = MODULES[name].parse(data, origin="example.com")
    check_result(result)
    prices = (result.listing.extra.get("prices") or {}) if result.listing else {}
    assert all(isinstance(p, float) and math.isfinite(p) and p >= 0 for p in prices.values()), prices


@pytest.mark.parametrize("name", sorted(MODULES))
def test_arbitrary_bytes_and_json_never_raise(name):
    @FUZZ
    @given(st.binary(max_size=2048) | JSON_VALUES.map(lambda v: json.dumps(v).encode()))
    def run(data: bytes) -> None:
        check(name, data)

    run()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_mutated_real_documents_never_raise(shared, name):
    docs = seeds(shared, name)
    assert docs

    @FUZZ
    @given(st.sampled_from(docs).flatmap(mutated))
    def run(doc: Any) -> None:
        check(name, json.dumps(doc).encode())

    run()
