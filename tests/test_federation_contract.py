"""The federation API driven from the official registry's own OpenAPI document (a trimmed copy
in tests/ecosystem/, source in its SOURCES.md) by Schemathesis, with every check it has and
negative data too, against a real ``agentdex serve`` process on 127.0.0.1: every generated
request, valid or not, gets an answer of the documented status, content type and schema; a
schema-valid request is served and a schema-violating one refused with a 4xx whose
``{"error": message}`` body says why; never a 5xx. Examples are bounded so the run stays
well under a minute.

Where the document is silent this follows the official server: the document declares no
error status for the three reads, and the official registry answers a parameter it cannot read
(a cursor, an ``updated_since``) with 400 (``huma.Error400BadRequest`` in
``internal/api/handlers/v0/servers.go``). So the document this test loads gets that one
addition, a 400 with the ``{"error": string}`` body the document gives its 404, on each read;
nothing else of it is changed."""

from __future__ import annotations

import base64
import copy
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from agentdex.db import open_db
from tests.test_federation import served

SPEC = Path(__file__).resolve().parent / "ecosystem" / "openapi.registry.yaml"
REFUSED = {  # the official server's answer to a parameter it cannot read, in the document's 404 shape
    "description": "A parameter the registry cannot read (what the official server answers)",
    "content": {"application/json": {"schema": {"type": "object", "properties": {"error": {"type": "string"}}}}},
}


def official_document() -> dict:
    """The official document with the 400 the official server answers on each read (see above)."""
    document = yaml.safe_load(SPEC.read_text("utf-8"))
    for operation in document["paths"].values():
        operation["get"]["responses"].setdefault("400", copy.deepcopy(REFUSED))
    return document


schema = schemathesis.openapi.from_dict(official_document())
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
ROWS = [  # origin, name, status, one_liner, mcp_url, error_count, last_changed_at
    ("pantry.test", "Pantry", "listed", "Plans meals.", "https://pantry.test/mcp", 0, "2026-03-04T05:06:07.089Z"),
    ("broken.test", "Broken", "invalid", "Half a manifest.", None, 2, "2026-03-05T00:00:00.000Z"),
    ("gone.test", "Gone", "delisted", "Was here.", None, 0, "2026-03-06T00:00:00.000Z"),
]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    """``agentdex serve`` on a small catalogue, a real process on 127.0.0.1."""
    path = tmp_path_factory.mktemp("contract") / "agentdex.db"
    db = open_db(path)
    with db.conn:
        for values in ROWS:
            db.execute(
                "INSERT INTO listings (origin, name, status, one_liner, mcp_url, error_count, last_changed_at,"
                " first_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z')",
                list(values),
            )
    db.close()
    with served(path) as url:
        yield url


def refusal_says_why(ctx, response, case) -> None:
    """What the API refuses is a 4xx whose JSON body names the reason (a write method gets the
    read-only server's plain 405, tested in test_federation)."""
    if 400 <= response.status_code < 500 and response.status_code != 405:
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], response.text


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_served_api_keeps_the_registry_contract(case, base):
    response = case.call(base_url=base, timeout=10)
    case.validate_response(response, additional_checks=[refusal_says_why])  # every check Schemathesis has


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "-5"},
        {"limit": "100000000000000000000"},
        {"cursor": "%%%"},
        {"cursor": "eyJhZnRlciI6ICJcdWQ4MDAifQ"},
        {"updated_since": "0001-01-01T00:00:00+14:00"},
        {"updated_since": "9999-12-31T23:59:59-14:00"},
        {"search": "\x00"},
        {"version": "\U0001f600"},
        {"cursor": base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode()},
    ],
)
def test_the_inputs_that_used_to_answer_500(base, params):
    answer = httpx.get(base + "/v0.1/servers", params=params, timeout=10)
    assert answer.status_code in (200, 400), (params, answer.status_code, answer.text[:200])
    if answer.status_code == 400:
        assert answer.json()["error"]


def test_limit_zero_is_served_and_search_reads_descriptions(base):
    zero = httpx.get(base + "/v0.1/servers", params={"limit": "0"}, timeout=10).json()
    assert zero["metadata"]["count"] == 1
    found = httpx.get(base + "/v0.1/servers", params={"search": "MEALS"}, timeout=10).json()
    assert [s["server"]["name"] for s in found["servers"]] == ["test.pantry/pantry"]


def test_only_valid_listings_are_active(base):
    body = httpx.get(base + "/v0.1/servers", params={"include_deleted": "true"}, timeout=10).json()
    status = {s["server"]["name"]: s["_meta"]["io.modelcontextprotocol.registry/official"] for s in body["servers"]}
    assert {name: meta["status"] for name, meta in status.items()} == {
        "test.pantry/pantry": "active",
        "test.broken/broken": "deprecated",
        "test.gone/gone": "deleted",
    }
    assert "2 error(s)" in status["test.broken/broken"]["statusMessage"]
    assert all(meta["statusChangedAt"] for meta in status.values())
    served = httpx.get(base + "/v0.1/servers/test.pantry%2Fpantry/versions/latest", timeout=10).json()
    assert served["server"]["$schema"].endswith("/2025-12-11/server.schema.json")
