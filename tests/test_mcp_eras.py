"""The dual-era MCP probe against the real SDKs of each era, behind the suite's TLS.

- TypeScript SDK v2 (``@modelcontextprotocol/server`` 2.4.0) with ``legacy: 'reject'``:
  2026-07-28 only. The probe finds it open (on main before the dual-era probe it was
  ``not_mcp``, "HTTP 400"), era ``modern``, and its tools exactly as the SDK's own client
  (``@modelcontextprotocol/client`` 2.4.0, negotiation ``auto``) lists them.
- The same server in its default mode, and a server of the Python SDK ``mcp`` 2.3.0: both
  eras on one endpoint (``dual``), the tools of the two eras equal, and equal to what each
  SDK's client lists in each era.
- The same server offering one more tool to 2026-07-28 clients (its factory sees the era):
  both eras answer and the difference is the ``mcp.eras`` check's warning.
- The 2025-era ``server-everything`` (legacy only) is in tests/test_mcp_reference.py.

Nothing here is a hard-coded answer: every expected tool list comes from an SDK client.
"""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agentdex.crawler import mcp_probe
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import Verifier, mcp_checks
from agentdex.models import Listing
from netfixtures import tls_ca  # noqa: F401
from reference_servers import TLSProxy, node_skip_reason, py_mcp, ts_v2, ts_v2_client

pytestmark = pytest.mark.skipif(node_skip_reason() is not None, reason=node_skip_reason() or "")

HOST = "mcp.sample.test"
URL = f"https://{HOST}/mcp"


@pytest.fixture(scope="module")
def servers(tls_ca):
    """Each server behind its TLS proxy: ``{"reject", "default", "split", "python"}``."""
    _, _, cert = tls_ca
    with ts_v2("reject") as reject, ts_v2("default") as default, ts_v2("split") as split, py_mcp(HOST) as python:
        with TLSProxy(cert, reject) as a, TLSProxy(cert, default) as b, TLSProxy(cert, split) as c:
            with TLSProxy(cert, python) as d:
                yield {"reject": a, "default": b, "split": c, "python": d}


async def probe(tls_ca, proxy: TLSProxy) -> mcp_probe.Probe:
    async with Fetcher(connect_to=proxy.connect_to(HOST), ca_bundle=tls_ca[1], deadline=15.0) as net:
        return await Verifier(net, None).probe(URL)


def upstream(proxy: TLSProxy) -> str:
    return f"http://127.0.0.1:{proxy.upstream}/mcp"


def wire_tools(tools: list[dict]) -> dict[str, tuple]:
    """name -> (description, annotations, input schema), as a client got them."""
    return {t["name"]: (t.get("description") or "", t.get("annotations") or {}, t.get("inputSchema")) for t in tools}


def probed(found: mcp_probe.Probe) -> dict[str, tuple]:
    return {t.name: (t.description, t.annotations, t.input_schema) for t in found.tools}


async def test_a_modern_only_typescript_server_is_open_with_the_tools_its_own_client_lists(tls_ca, servers):
    proxy = servers["reject"]
    proxy.sent.clear()
    found = await probe(tls_ca, proxy)
    assert (found.state, found.era, found.tools_listed) == ("ok", "modern", True)
    assert found.versions == found.supported_versions == ["2026-07-28"] and found.legacy_version is None
    sdk = ts_v2_client(upstream(proxy), "auto")
    assert sdk["version"] == "2026-07-28" and found.server_info == sdk["serverInfo"]
    assert len(sdk["tools"]) == 3 and probed(found) == wire_tools(sdk["tools"])
    assert found.capabilities.get("tools") is not None and found.cache_scope in ("public", "private")
    # The handshake was asked and refused (that is what makes it modern-only); no tool was called.
    assert proxy.methods() == ["server/discover", "tools/list", "initialize"]


async def test_the_typescript_servers_default_mode_is_dual_with_equal_tools(tls_ca, servers):
    proxy = servers["default"]
    found = await probe(tls_ca, proxy)
    assert (found.state, found.era, found.era_difference) == ("ok", "dual", None)
    assert found.versions == ["2026-07-28", "2025-11-25"]
    modern, legacy = ts_v2_client(upstream(proxy), "auto"), ts_v2_client(upstream(proxy), "legacy")
    assert (modern["version"], legacy["version"]) == ("2026-07-28", "2025-11-25")
    assert probed(found) == wire_tools(modern["tools"]) == wire_tools(legacy["tools"])


async def python_sdk_tools(url: str, mode: str) -> tuple[str | None, dict[str, tuple]]:
    async with Client(streamable_http_client(url), mode=mode) as client:
        tools = (await client.list_tools()).tools
        version = client.protocol_version
    return version, wire_tools([t.model_dump(by_alias=True, exclude_none=True) for t in tools])


async def test_a_python_sdk_server_is_dual_with_equal_tools(tls_ca, servers):
    proxy = servers["python"]
    found = await probe(tls_ca, proxy)
    assert (found.state, found.era, found.era_difference) == ("ok", "dual", None)
    assert found.server_info["name"] == "Example (mcp 2.3.0)"
    (modern_version, modern), (legacy_version, legacy) = [
        await python_sdk_tools(upstream(proxy), mode) for mode in ("auto", "legacy")
    ]
    assert modern_version == "2026-07-28" and legacy_version == found.legacy_version
    assert len(modern) == 2 and probed(found) == modern == legacy


async def test_a_server_offering_other_tools_to_each_era_is_told_apart(tls_ca, servers):
    proxy = servers["split"]
    found = await probe(tls_ca, proxy)
    assert (found.state, found.era) == ("ok", "dual")
    assert found.era_difference == {"only_legacy": [], "only_modern": ["export_report"], "changed": []}
    modern, legacy = ts_v2_client(upstream(proxy), "auto"), ts_v2_client(upstream(proxy), "legacy")
    assert probed(found) == wire_tools(modern["tools"]) != wire_tools(legacy["tools"])
    listing = Listing(format="agent_app", mcp_url=URL, mcp_auth=["none"])
    eras = next(c for c in mcp_checks(found, listing) if c.name == "mcp.eras")
    assert eras.status == "warn" and "only over 2026-07-28: export_report" in eras.detail
