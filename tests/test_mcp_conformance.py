"""The MCP conformance kit (npm ``@modelcontextprotocol/conformance``, pinned in tests/npm)
plays the server and runs agentdex's probe as its client (tests/conformance_client.py).

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

from reference_servers import CONFORMANCE, NPM_DIR, node_skip_reason

pytestmark = pytest.mark.skipif(node_skip_reason() is not None, reason=node_skip_reason() or "")

CLIENT = Path(__file__).parent / "conformance_client.py"
# server/discover first: these 2025-era kit servers refuse it, so the handshake follows.
LISTING_ONLY = ["server/discover", "initialize", "notifications/initialized", "tools/list"]


def run_scenario(scenario: str, out: Path) -> tuple[list[dict], dict]:
    """The kit's checks for ``scenario`` and the probe's result (the client's stdout)."""
    command = f"{sys.executable} {CLIENT}"
    subprocess.run(
        [
            "node",
            str(CONFORMANCE),
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
            "--timeout",
            "60000",
            "-o",
            str(out),
        ],
        cwd=NPM_DIR,
        capture_output=True,
        timeout=120,
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
