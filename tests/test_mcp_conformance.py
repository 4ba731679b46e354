"""The MCP conformance kit (npm ``@modelcontextprotocol/conformance``, pinned in tests/npm)
plays the server and runs agentdex's probe as its client (tests/conformance_client.py).

Two releases: 0.1.13 (2025-era scenarios) and the newest, 0.2.0-alpha.12 (2026-10-01), the
only release with client scenarios of revision 2026-07-28 (0.1.16, the ``latest`` tag, has
none; every release after 0.1.13 imports ``fs.globSync``, which Node 20 lacks: the tests load
0.2.0-alpha.12 through tests/npm/node20-globsync.mjs, which supplies that one name). Its
2026 scenarios for a client that discovers and lists: ``request-metadata`` (``_meta`` and
``MCP-Protocol-Version`` on every request, a ``-32022`` retried at the mutual revision),
``http-standard-headers`` (``Mcp-Method``), ``json-schema-ref-no-deref`` (no ``$ref``
fetched), and ``tools_call`` at 2026-07-28. The kit grades every POST a client sends; the
probe's ``initialize`` (sent to learn whether a 2026 server also speaks the handshake) is a
2025 request by design, without the 2026 header and ``_meta``, and the checks it fails say so
(each names the handshake's method).

The kit's client scenarios that fit a client which only initializes and lists tools:
``initialize`` (the handshake the kit grades), and ``tools_call`` and ``sse-retry``, whose
servers expect a ``tools/call`` that agentdex never makes: there the kit's record of what it
received shows the probe listed the tools and sent nothing else, and the one failed check
is the tool call that did not happen. The ``auth/*`` scenarios are left out: their server
names plain-http metadata URLs (agentdex fetches only https) and grades an OAuth flow that
agentdex never runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reference_servers import CONFORMANCE, CONFORMANCE_2026, NODE20_GLOBSYNC, NPM_DIR, node_skip_reason

pytestmark = [pytest.mark.slow, pytest.mark.skipif(node_skip_reason() is not None, reason=node_skip_reason() or "")]

CLIENT = Path(__file__).parent / "conformance_client.py"
# server/discover first: these 2025-era kit servers refuse it, so the handshake follows.
LISTING_ONLY = ["server/discover", "initialize", "notifications/initialized", "tools/list"]


def run_scenario(scenario: str, out: Path, revision: str | None = None) -> tuple[list[dict], dict]:
    """The kit's checks for ``scenario`` and the probe's result (the client's stdout); with
    ``revision``, the 2026 kit at that protocol revision."""
    command = f"{sys.executable} {CLIENT}"
    kit = ["--import", str(NODE20_GLOBSYNC), str(CONFORMANCE_2026)] if revision else [str(CONFORMANCE)]
    subprocess.run(
        [
            "node",
            *kit,
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
            "--timeout",  # how long the kit waits for the client (Python, agentdex and a CA to start)
            "300000",
            "-o",
            str(out),
            *(["--spec-version", revision] if revision else []),
        ],
        cwd=NPM_DIR,
        capture_output=True,
        timeout=600,
    )
    (folder,) = out.iterdir()
    checks = json.loads((folder / "checks.json").read_text())
    return checks, json.loads((folder / "stdout.txt").read_text() or "{}")


def received(checks: list[dict]) -> list[str]:
    """The JSON-RPC methods the kit's server received, in order."""
    return [
        c["details"].get("mcpMethod") or c["details"].get("jsonrpcMethod")
        for c in checks
        if c["id"] == "incoming-request"
    ]


def test_the_kit_grades_the_probes_initialize_handshake_a_success(tmp_path):
    checks, found = run_scenario("initialize", tmp_path)
    graded = {c["id"]: c["status"] for c in checks if c["status"] != "INFO"}
    assert graded == {"mcp-client-initialization": "SUCCESS"}
    assert found["state"] == "ok" and found["server_info"]["name"] == "test-server"


@pytest.mark.parametrize(
    ("scenario", "tool", "uncalled"),
    [
        ("tools_call", "add_numbers", "tool-add-numbers"),
        ("sse-retry", "test_reconnection", "client-sse-graceful-reconnect"),
    ],
)
def test_a_kit_server_that_waits_for_a_tool_call_gets_a_listing_and_nothing_else(tmp_path, scenario, tool, uncalled):
    checks, found = run_scenario(scenario, tmp_path)
    assert received(checks) == LISTING_ONLY
    assert (found["state"], found["tools"], found["tools_listed"]) == ("ok", [tool], True)
    # The kit's only complaint is the tool call agentdex never makes.
    assert [c["id"] for c in checks if c["status"] == "FAILURE"] == [uncalled]


# --- revision 2026-07-28 (kit 0.2.0-alpha.12) -------------------------------------------------

HANDSHAKE = ("initialize", "notifications/initialized")


def graded(checks: list[dict]) -> dict[str, list[dict]]:
    """The kit's graded checks by status (SKIPPED and INFO left out)."""
    found: dict[str, list[dict]] = {}
    for c in checks:
        if c["status"] not in ("INFO", "SKIPPED"):
            found.setdefault(c["status"], []).append(c)
    return found


def test_the_2026_kit_sees_meta_and_the_version_header_and_a_retry_at_the_mutual_revision(tmp_path):
    checks, found = run_scenario("request-metadata", tmp_path, "2026-07-28")
    # Its server refused the first request with -32022 naming 2026-07-28: asked again, open.
    assert (found["state"], found["era"], found["versions"]) == ("ok", "modern", ["2026-07-28"])
    by_id = {c["id"]: c for c in checks}
    assert by_id["sep-2575-http-version-header-matches-meta"]["status"] == "SUCCESS"
    assert by_id["sep-2575-http-version-header-matches-meta"]["details"] == {
        "headerVersion": "2026-07-28",
        "metaVersion": "2026-07-28",
    }
    # What it grades lower is the handshake alone, which carries neither by design.
    lower = graded(checks).get("FAILURE", []) + graded(checks).get("WARNING", [])
    assert {c["id"] for c in lower} == {
        "sep-2575-http-client-sends-version-header",
        "sep-2575-client-populates-meta",
        "sep-2575-client-sends-client-info",
        "sep-2575-client-retry-supported-version",  # its last request, the handshake, has no header
    }
    assert all(c["details"].get("method") in (None, *HANDSHAKE) for c in lower)


def test_the_2026_kit_sees_mcp_method_on_every_2026_request(tmp_path):
    checks, found = run_scenario("http-standard-headers", tmp_path, "2026-07-28")
    assert (found["state"], found["era"], found["tools_listed"]) == ("ok", "modern", True)
    statuses = graded(checks)
    assert any(c["id"] == "sep-2243-client-includes-standard-headers" for c in statuses["SUCCESS"])
    assert statuses["FAILURE"] and all(
        any(f"on {method} request" in c["errorMessage"] for method in HANDSHAKE) for c in statuses["FAILURE"]
    )


def test_the_2026_kit_sees_no_ref_fetched(tmp_path):
    checks, found = run_scenario("json-schema-ref-no-deref", tmp_path, "2026-07-28")
    assert found["state"] == "ok" and found["tools"] == ["lookup_user"]
    assert graded(checks) == {"SUCCESS": [c for c in checks if c["id"] == "sep-2106-no-network-ref-deref"]}


def test_a_2026_kit_server_waiting_for_a_tool_call_gets_a_modern_listing_and_nothing_else(tmp_path):
    checks, found = run_scenario("tools_call", tmp_path, "2026-07-28")
    assert (found["state"], found["era"], found["tools"]) == ("ok", "modern", ["add_numbers"])
    assert [c["id"] for c in graded(checks)["FAILURE"]] == ["tool-add-numbers"]  # the call agentdex never makes
