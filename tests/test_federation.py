"""The federation API: the catalogue in the official MCP registry's API shape, served by a real
``agentdex serve`` process on 127.0.0.1 over a 10,000-listing synthetic catalogue. Every answer
is validated against the registry's server.json schema shipped in the package and against the
registry OpenAPI's ServerList / ServerResponse envelope; paging visits every listing once."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from jsonschema import Draft7Validator

from agentdex import federation
from agentdex.db import open_db
from agentdex.db.synthetic import fill_synthetic
from agentdex.federation import (
    AGENTDEX_META,
    OFFICIAL,
    BadRequest,
    decode_cursor,
    encode_cursor,
    origin_of,
    parse_limit,
    parse_since,
    server_name,
    server_response,
    version_of,
)
from agentdex.formats import server_json

N = 10_000
START_TIMEOUT = 120.0  # only fails the test: a server starting on a loaded machine takes long
# The envelope, as docs/reference/api/openapi.yaml of modelcontextprotocol/registry defines
# ServerList and ServerResponse (the server itself is checked with the shipped server.json schema).
OFFICIAL_META = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "status": {"enum": ["active", "deprecated", "deleted"]},
        "statusMessage": {"type": "string", "maxLength": 500},
        "statusChangedAt": {"type": "string"},
        "publishedAt": {"type": "string"},
        "updatedAt": {"type": "string"},
        "isLatest": {"type": "boolean"},
    },
}
SERVER_RESPONSE = {
    "type": "object",
    "required": ["server"],
    "properties": {"server": {"type": "object"}, "_meta": {"type": "object", "properties": {OFFICIAL: OFFICIAL_META}}},
}
SERVER_LIST = {
    "type": "object",
    "required": ["servers"],
    "properties": {
        "servers": {"type": "array", "items": SERVER_RESPONSE},
        "metadata": {"type": "object", "properties": {"nextCursor": {"type": "string"}, "count": {"type": "integer"}}},
    },
}
ENVELOPE = Draft7Validator(SERVER_LIST)
ONE = Draft7Validator(SERVER_RESPONSE)
HAND_MADE = [  # origin, name, status, one_liner, mcp_url, mcp_transport, last_changed_at
    (
        "pantry.test",
        "Pantry",
        "listed",
        "Plans meals. " * 20,
        "https://pantry.test/mcp",
        "streamable-http",
        "2026-03-04T05:06:07.089Z",
    ),
    (
        "old-sse.test",
        "Old <SSE> app",
        "listed",
        "Streams.",
        "https://old-sse.test/sse",
        "sse",
        "2026-03-05T00:00:00.000Z",
    ),
    ("gone.test", "Gone", "delisted", "Was here.", None, None, "2026-03-06T00:00:00.000Z"),
    ("local.test", "Local", "listed", "", "https://local.test/mcp", "stdio", "2026-03-07T00:00:00.000Z"),
]


def validate(answer: dict, envelope: Draft7Validator = ENVELOPE) -> None:
    """The answer's envelope and every server in it are what the registry API promises."""
    assert not list(envelope.iter_errors(answer)), [e.message for e in envelope.iter_errors(answer)]
    for item in answer.get("servers", [answer] if "server" in answer else []):
        problems = [f"{e.json_path}: {e.message}" for e in server_json.validator().iter_errors(item["server"])]
        assert not problems, (item["server"]["name"], problems)


# -- the mapping, pure ----------------------------------------------------------------------------
def row(**values) -> dict:
    base = dict.fromkeys(federation.COLUMNS)
    base.update(
        origin="pantry.test",
        status="listed",
        name="Pantry",
        error_count=0,
        warning_count=0,
        checks_passed=0,
        checks_failed=0,
        first_seen_at="2026-01-02T03:04:05.000Z",
        mcp_auth='["oauth"]',
        categories='["lifestyle"]',
    )
    base.update(values)
    return base


def test_names_and_versions():
    assert server_name("pantry.test", "Pantry") == "test.pantry/pantry"
    assert server_name("api.shop.example.com", "Shop: the API!") == "com.example.shop.api/shop-the-api"
    assert server_name("x.test", None) == server_name("x.test", "???") == "test.x/app"
    assert origin_of("com.example.shop.api/shop-the-api") == "api.shop.example.com"
    assert origin_of("no-slash") is None
    assert version_of("2026-03-04T05:06:07.089Z") == "0.20260304.50607"
    assert version_of(None, "2026-01-02T00:00:00Z") == "0.20260102.0"


def test_a_row_becomes_a_server_response_the_schema_accepts():
    answer = server_response(
        row(
            one_liner="x" * 300,
            homepage="https://pantry.test/",
            mcp_url="https://pantry.test/mcp",
            mcp_transport="streamable-http",
            last_changed_at="2026-03-04T05:06:07.089Z",
        )
    )
    validate(answer, ONE)
    server = answer["server"]
    assert len(server["description"]) == 100 and server["description"].endswith("…")
    assert server["remotes"] == [{"type": "streamable-http", "url": "https://pantry.test/mcp"}]
    assert answer["_meta"][OFFICIAL] == {
        "status": "active",
        "publishedAt": "2026-01-02T03:04:05.000Z",
        "statusChangedAt": "2026-03-04T05:06:07.089Z",
        "updatedAt": "2026-03-04T05:06:07.089Z",
        "isLatest": True,
    }
    facts = answer["_meta"][AGENTDEX_META]
    assert (facts["origin"], facts["mcpAuth"], facts["categories"], facts["valid"]) == (
        "pantry.test",
        ["oauth"],
        ["lifestyle"],
        True,
    )
    stdio = server_response(
        row(mcp_url="https://pantry.test/mcp", mcp_transport="stdio", homepage="http://pantry.test/")
    )
    assert "remotes" not in stdio["server"] and "websiteUrl" not in stdio["server"]
    assert server_response(row(status="delisted"))["_meta"][OFFICIAL]["status"] == "deleted"
    invalid = server_response(row(status="invalid", error_count=3))["_meta"][OFFICIAL]
    assert invalid["status"] == "deprecated" and "3 error(s)" in invalid["statusMessage"]  # only valid ones are active
    validate(server_response(row(status="invalid", error_count=3)), ONE)


def test_parameters_are_checked():
    assert decode_cursor(encode_cursor("pantry.test")) == "pantry.test"
    for bad in ("%%%", "bm90IGpzb24", encode_cursor("x")[:-3]):
        with pytest.raises(BadRequest):
            decode_cursor(bad)
    assert parse_since("2026-03-04T05:06:07.5+02:00") == "2026-03-04T03:06:07.500Z"
    for bad in ("yesterday", "2026-03-04T05:06:07"):
        with pytest.raises(BadRequest):
            parse_since(bad)
    assert (parse_limit(None), parse_limit("100")) == (30, 100)
    # The OpenAPI document allows any integer: out of range is clamped, only a non-integer refused.
    assert [parse_limit(v) for v in ("0", "-1", "101", "99999999999999999999")] == [1, 1, 100, 100]
    for bad in ("ten", "1.5", "²", "1e3"):
        with pytest.raises(BadRequest):
            parse_limit(bad)
    assert parse_since("0001-01-01T00:00:00+01:00") < parse_since("1970-01-01T00:00:00Z")
    assert parse_since("9999-12-31T23:59:00-01:00") > parse_since("9999-01-01T00:00:00Z")
    with pytest.raises(BadRequest):
        decode_cursor(encode_cursor("\ud800"))


# -- over HTTP ------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    """10,000 synthetic listings plus a few made by hand for the edge cases."""
    path = tmp_path_factory.mktemp("federation") / "agentdex.db"
    db = open_db(path)
    fill_synthetic(db, N)
    columns = ("origin", "name", "status", "one_liner", "mcp_url", "mcp_transport", "last_changed_at")
    with db.conn:
        for values in HAND_MADE:
            db.execute(
                f"INSERT INTO listings ({', '.join(columns)}, first_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [*values, "2026-01-01T00:00:00.000Z"],
            )
    db.close()
    return path


@pytest.fixture(scope="module")
def base(catalogue: Path) -> Iterator[str]:
    """``agentdex serve`` on the catalogue, a real process on 127.0.0.1."""
    with served(catalogue) as url:
        yield url


@contextmanager
def served(catalogue: Path) -> Iterator[str]:
    """``agentdex serve`` on ``catalogue`` as a real process on 127.0.0.1: its base URL."""
    port, log = free_port(), catalogue.parent / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentdex", "serve", "--db", str(catalogue), "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, "agentdex serve did not answer in time"
            try:
                if httpx.get(url + "/-/versions.json", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def rows(path: Path, sql: str, params=()) -> list[str]:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute(sql, params)]
    finally:
        conn.close()


def pages(client: httpx.Client, **params) -> Iterator[dict]:
    cursor = None
    while True:
        answer = client.get("/v0.1/servers", params={**params, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/json"), answer.text
        body = answer.json()
        validate(body)
        yield body
        cursor = body["metadata"].get("nextCursor")
        if not cursor:
            return


def origins(body: dict) -> list[str]:
    return [s["_meta"][AGENTDEX_META]["origin"] for s in body["servers"]]


def test_paging_visits_every_active_listing_once_in_order(base, catalogue):
    expected = rows(catalogue, "SELECT origin FROM listings WHERE status IN ('listed', 'invalid') ORDER BY origin")
    assert len(expected) > 7_000
    seen, counts = [], []
    with httpx.Client(base_url=base, timeout=30) as client:
        for body in pages(client, limit=100):
            seen += origins(body)
            counts.append(body["metadata"]["count"])
    assert seen == expected
    assert counts[:-1] == [100] * (len(counts) - 1) and counts[-1] == len(expected) - 100 * (len(counts) - 1)


def test_the_default_page_and_include_deleted(base):
    first = httpx.get(base + "/v0.1/servers", timeout=30).json()
    assert first["metadata"]["count"] == 30 and first["metadata"]["nextCursor"]
    hidden = httpx.get(base + "/v0.1/servers", params={"search": "gone"}, timeout=30).json()
    shown = httpx.get(base + "/v0.1/servers", params={"search": "gone", "include_deleted": "true"}, timeout=30).json()
    validate(shown)
    assert (origins(hidden), origins(shown)) == ([], ["gone.test"])


def test_search_matches_the_server_name_or_title(base, catalogue):
    with httpx.Client(base_url=base, timeout=30) as client:
        found = [o for body in pages(client, search="COM.AMBER", limit=100) for o in origins(body)]
        by_title = [o for body in pages(client, search="old <sse>") for o in origins(body)]
    expected = rows(
        catalogue,
        "SELECT origin FROM listings WHERE status IN ('listed', 'invalid') "
        "AND origin LIKE 'amber-%.com' ORDER BY origin",
    )
    assert found == expected and len(found) > 10
    assert by_title == ["old-sse.test"]


def test_updated_since_includes_deleted_servers(base, catalogue):
    body = httpx.get(
        base + "/v0.1/servers", params={"updated_since": "2026-03-04T05:06:07Z", "limit": 100}, timeout=30
    ).json()
    validate(body)
    assert origins(body) == ["gone.test", "local.test", "old-sse.test", "pantry.test"]
    assert [s["_meta"][OFFICIAL]["status"] for s in body["servers"]] == ["deleted", "active", "active", "active"]
    later = httpx.get(base + "/v0.1/servers", params={"updated_since": "2026-03-05T00:00:00+00:00"}, timeout=30).json()
    assert origins(later) == ["gone.test", "local.test"]


def test_a_server_by_name_latest_and_exact_version(base):
    latest = httpx.get(base + "/v0.1/servers/test.pantry%2Fpantry/versions/latest", timeout=30)
    assert latest.status_code == 200
    answer = latest.json()
    validate(answer, ONE)
    assert answer["server"]["version"] == "0.20260304.50607"
    assert answer["server"]["remotes"] == [{"type": "streamable-http", "url": "https://pantry.test/mcp"}]
    assert len(answer["server"]["description"]) == 100
    exact = httpx.get(base + "/v0.1/servers/test.pantry/pantry/versions/0.20260304.50607", timeout=30)
    assert exact.json() == answer
    versions = httpx.get(base + "/v0.1/servers/test.pantry%2Fpantry/versions", timeout=30).json()
    validate(versions)
    assert versions["servers"] == [answer]
    sse = httpx.get(base + "/v0.1/servers/test.old-sse%2Fold-sse-app/versions/latest", timeout=30).json()
    assert sse["server"]["remotes"] == [{"type": "sse", "url": "https://old-sse.test/sse"}]
    assert sse["server"]["title"] == "Old <SSE> app"  # JSON data, never markup


def test_unknown_servers_versions_and_deleted_ones(base):
    for path in (
        "/v0.1/servers/test.pantry%2Fnot-pantry/versions/latest",
        "/v0.1/servers/nope/versions/latest",
        "/v0.1/servers/test.pantry%2Fpantry/versions/9.9.9",
        "/v0.1/servers/test.gone%2Fgone/versions/latest",
    ):
        answer = httpx.get(base + path, timeout=30)
        assert answer.status_code == 404 and set(answer.json()) == {"error"}, path
    deleted = httpx.get(
        base + "/v0.1/servers/test.gone%2Fgone/versions/latest", params={"include_deleted": "true"}, timeout=30
    )
    assert deleted.json()["_meta"][OFFICIAL]["status"] == "deleted"


def test_bad_parameters_answer_400_and_writes_405(base):
    for params in (
        {"limit": "ten"},
        {"limit": "1.5"},
        {"limit": ""},
        {"updated_since": "last week"},
        {"updated_since": ""},
        {"include_deleted": "maybe"},
        {"include_deleted": ""},
    ):
        answer = httpx.get(base + "/v0.1/servers", params=params, timeout=30)
        assert answer.status_code == 400 and answer.json()["error"], params
    # The document types cursor as any string: a foreign one is a position in origin order.
    foreign = httpx.get(base + "/v0.1/servers", params={"cursor": "garbage!", "limit": "100"}, timeout=30).json()
    assert foreign["servers"] and all(
        s["_meta"]["agentdex/catalogue"]["origin"] > "garbage!" for s in foreign["servers"]
    )
    assert httpx.post(base + "/v0.1/servers", json={"name": "x"}, timeout=30).status_code == 405
    assert (
        httpx.request("PUT", base + "/v0.1/servers/test.pantry%2Fpantry/versions/latest", timeout=30).status_code == 405
    )


def test_version_filter(base):
    exact = httpx.get(base + "/v0.1/servers", params={"version": "0.20260305.0"}, timeout=30).json()
    assert origins(exact) == ["old-sse.test"]
    assert httpx.get(base + "/v0.1/servers", params={"version": "latest"}, timeout=30).json()["metadata"]["count"] == 30
    assert json.loads(httpx.get(base + "/v0.1/servers", params={"version": "1.0.0"}, timeout=30).text) == {
        "servers": [],
        "metadata": {"count": 0},
    }
