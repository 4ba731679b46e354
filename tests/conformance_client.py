"""agentdex's MCP probe as the client command of the MCP conformance kit.

``conformance client --command "python tests/conformance_client.py" --scenario S`` starts
the kit's server for scenario ``S`` and runs this script with the server's URL (plain HTTP
on localhost) as its last argument. agentdex fetches only over HTTPS, so the script puts a
TLS proxy (a throwaway trustme CA) in front of that URL and probes it through the proxy,
exactly as a crawl would (``--connect-to`` and ``--ca-bundle``). It prints the probe as JSON
and exits 0 when the probe ended ``ok``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import trustme

sys.path.insert(0, str(Path(__file__).parent))
from agentdex.crawler.fetch import Fetcher  # noqa: E402
from agentdex.crawler.verify import Verifier  # noqa: E402
from reference_servers import TLSProxy  # noqa: E402

HOST = "conformance.test"


async def probe(url: str, proxy: TLSProxy, ca_path: Path) -> dict:
    # A deadline that never binds (the kit answers at once), however busy the machine.
    async with Fetcher(connect_to=proxy.connect_to(HOST), ca_bundle=ca_path, deadline=60.0) as fetcher:
        return (await Verifier(fetcher, None).probe(url)).to_dict()


def main(url: str) -> int:
    parts = urlsplit(url)
    ca = trustme.CA()
    with tempfile.TemporaryDirectory() as folder, TLSProxy(ca.issue_cert(HOST), parts.port or 80) as proxy:
        ca_path = Path(folder) / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_path))
        found = asyncio.run(probe(f"https://{HOST}{parts.path or '/'}", proxy, ca_path))
    print(json.dumps(found))
    return 0 if found["state"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
