"""How long a crawl spends on an Anchor origin whose MCP endpoint never answers HEAD.

Run from the repository root, after ``npm ci`` in ``tests/npm``:

    .venv/bin/python benchmarks/bench_head_fallback.py [--repeat 3] [--deadline 15]

The endpoint is the MCP SDK's reference server, ``server-everything`` in its ``sse`` mode
(express runs the GET handler for a HEAD, which opens an event stream and never sends a
status line), behind a TLS proxy on loopback; the Anchor manifest declaring it
(``"transport": "sse"``) comes from the suite's fault server, and DNS TXT questions get an
immediate NXDOMAIN (the sample web's DNS server with no records), so the time measured is
the HTTP proof's and the MCP probe's. Printed:
the median wall seconds of one crawl with verification, and the ``anchor.verify.http`` and
``mcp.initialize`` checks it stored. Run it with another checkout's ``agentdex`` on
``PYTHONPATH`` (``PYTHONPATH=../other-checkout``) to compare two versions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trustme

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "tests"))  # the suite's fault server and TLS proxy
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # run from a checkout without installing (PYTHONPATH wins)

from agentdex.crawler.crawl import NetworkOptions, crawl  # noqa: E402
from agentdex.db import list_checks, open_db  # noqa: E402
from agentdex.sampleweb.dns import SampleDNS  # noqa: E402
from netfixtures import CERT_NAMES, TLSServer, json_reply  # noqa: E402
from reference_servers import TLSProxy, everything, node_skip_reason  # noqa: E402

ORIGIN, MCP_HOST = "everything.sample.test", "sse.sample.test"
MANIFEST = {
    "anchor": "0.1",
    "updated": "2026-12-01",
    "publisher": {"name": "Everything", "url": f"https://{ORIGIN}", "contact": f"agents@{ORIGIN}"},
    "tools": [
        {
            "id": "test.everything/all",
            "kind": "mcp",
            "name": "Everything",
            "description": "The MCP SDK's reference server.",
            "endpoint": f"https://{MCP_HOST}/sse",
            "transport": "sse",
            "auth": ["none"],
        }
    ],
}


async def _manifest(request):
    return json_reply(MANIFEST)


def one_crawl(net: NetworkOptions) -> tuple[float, dict]:
    """The wall seconds of one crawl into a fresh catalogue, and the checks it stored."""
    with tempfile.TemporaryDirectory() as folder:
        db = open_db(Path(folder) / "catalogue.db")
        started = time.perf_counter()
        asyncio.run(crawl(db, [ORIGIN], net))
        elapsed = time.perf_counter() - started
        return elapsed, {c["name"]: c for c in list_checks(db, ORIGIN)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=15.0)
    args = parser.parse_args()
    if node_skip_reason():
        sys.exit(node_skip_reason())
    ca = trustme.CA()
    with tempfile.TemporaryDirectory() as folder, everything("sse") as port, SampleDNS({}) as dns:
        ca_path = Path(folder) / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_path))
        server = TLSServer(ca, ca_path).start()
        server.routes["/.well-known/anchor.json"] = _manifest
        try:
            with TLSProxy(ca.issue_cert(*CERT_NAMES), port) as proxy:
                net = NetworkOptions(
                    connect_to=[
                        (ORIGIN, "127.0.0.1", server.port),
                        ("registry.sample.test", "127.0.0.1", server.port),
                        *proxy.connect_to(MCP_HOST),
                    ],
                    ca_bundle=ca_path,
                    dns_server=dns.address,
                    registry="https://registry.sample.test",
                    deadline=args.deadline,
                )
                runs = [one_crawl(net) for _ in range(args.repeat)]
        finally:
            server.stop()
    checks = runs[-1][1]
    print(
        f"crawl of one Anchor origin whose MCP endpoint never answers HEAD (deadline {args.deadline:g} s): "
        f"median {statistics.median(r[0] for r in runs):.2f} s over {args.repeat} "
        f"(each: {', '.join(f'{r[0]:.2f}' for r in runs)})"
    )
    for name in ("anchor.verify.http", "mcp.initialize", "mcp.tools"):
        print(f"  {name}: {checks[name]['status']}: {checks[name]['detail'][:150]}")


if __name__ == "__main__":
    main()
