"""The census of a registry the size of the official one: ``agentdex seeds``, ``crawl`` and
``census`` against a synthetic MCP registry of 20,000 names served on loopback.

Run from the repository root (it takes minutes; the machine's other work shows in the figures):

    .venv/bin/python benchmarks/bench_registry_census.py [--names 20000] [--remote-share 0.45]
        [--shared-hosts 5] [--shared-share 0.6] [--concurrency 16] [--processes 1] [--keep DIR]

One asyncio HTTPS server on 127.0.0.1 (a trustme certificate for ``*.bench.test``) is every
host of the synthetic web:

- ``registry.bench.test``: the official registry API's ``GET /v0.1/servers`` in its shape
  (``limit`` at most 100, ``metadata.nextCursor``, ``_meta`` with the official status), over
  ``--names`` servers. ``--remote-share`` of them (45% on the official registry, 2026-08-05)
  have one streamable-http remote: ``--shared-share`` of those on ``--shared-hosts`` shared
  hosts (``shared<k>.bench.test/<name>/mcp``, as a hosting platform serves hundreds), the rest
  on a host of their own (``s<i>.bench.test/mcp``); 1% of the remotes are URL templates
  (``https://{tenant}.bench.test/mcp``, refused by seeds) and a share of the servers are
  ``deprecated`` or ``deleted``;
- every remote answers as the public censuses found the registry's endpoints (registry #1626:
  58.5% open, 25.4% auth, 8.6% not MCP, 6.4% unreachable): an open MCP server (``initialize``
  and ``tools/list``, two tools; ``server/discover`` is not a method it knows), one that wants
  OAuth (401 with RFC 9728 metadata), one that is no MCP server (404), or a host on
  ``*.dead.test`` that refuses connections (``--connect-to`` to a closed port);
- every other path (manifests, discovery documents, robots.txt) is a 404: no origin publishes
  a manifest.

Then, each as its own process (peak RSS from ``wait4``): ``agentdex seeds
registry:https://registry.bench.test`` into a fresh catalogue, its text output piped (as a
file) to ``agentdex crawl --seeds FILE``, and ``agentdex census --json``. Printed: each step's
wall seconds and peak RSS, the requests the server answered by kind, the crawl's own request
count, the catalogue's size (the file and its write-ahead log) and the census. The script
fails when the census is not what the registry means (every remote that is no template
counted, in the state its endpoint was made to answer).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import trustme
from loopback import LoopbackTLS

from agentdex.formats import registry_api
from agentdex.formats.registry_api import OFFICIAL

# The census states the remotes are made to answer in, with their shares (registry #1626).
STATES = (("open", 0.585), ("auth_gated", 0.254), ("not_mcp", 0.086), ("unreachable", 0.064))
DOMAIN, DEAD = "bench.test", "dead.test"
REGISTRY = f"registry.{DOMAIN}"
TOOLS = [
    {"name": "search", "description": "Search the items by keyword.", "inputSchema": {"type": "object"}},
    {"name": "get_item", "description": "Return one item by its id.", "inputSchema": {"type": "object"}},
]


def share(key: str) -> float:
    """A stable number in [0, 1) for ``key``."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64


def state_of(name: str) -> str:
    """The census state the remote of server ``name`` is made to answer in."""
    x, edge = share("state:" + name), 0.0
    for state, part in STATES:
        edge += part
        if x < edge:
            return state
    return STATES[-1][0]


@dataclass
class Layout:
    """The synthetic registry: each server's name, remote URL (or none), status and state."""

    names: int
    remote_share: float
    shared_hosts: int
    shared_share: float
    servers: list[dict] = field(default_factory=list)
    remotes: dict[str, str] = field(default_factory=dict)  # remote URL -> the state it answers in

    def build(self) -> Layout:
        for i in range(self.names):
            self.servers.append(self._server(i))
        return self

    def _server(self, i: int) -> dict:
        name = f"test.bench.s{i}/server"
        meta = {"status": self._status(name), "updatedAt": "2026-08-05T00:00:00Z", "isLatest": True}
        server: dict = {"name": name, "version": "1.0.0", "description": f"Synthetic server {i}."}
        url = self._remote(i, name)
        if url is not None:
            server["remotes"] = [{"type": "streamable-http", "url": url}]
        return {"server": server, "_meta": {OFFICIAL: meta}}

    @staticmethod
    def _status(name: str) -> str:
        x = share("status:" + name)
        return "deleted" if x < 0.02 else "deprecated" if x < 0.05 else "active"

    def _remote(self, i: int, name: str) -> str | None:
        if share("remote:" + name) >= self.remote_share:
            return None
        if share("template:" + name) < 0.01:
            return "https://{tenant}.bench.test/mcp"
        state = state_of(name)
        host = f"s{i}.{DEAD if state == 'unreachable' else DOMAIN}"
        if share("shared:" + name) < self.shared_share and state != "unreachable":
            host = f"shared{int(share('host:' + name) * self.shared_hosts)}.{DOMAIN}"
            url = f"https://{host}/s{i}/mcp"
        else:
            url = f"https://{host}/mcp"
        self.remotes[url] = state
        return url


class Web(LoopbackTLS):
    """Every host of the synthetic web on one HTTPS port of 127.0.0.1 (HTTP/1.1, kept alive)."""

    def __init__(self, layout: Layout, ca: trustme.CA) -> None:
        self.layout = layout
        self.served: Counter[str] = Counter()
        super().__init__(ca, f"*.{DOMAIN}")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, target, headers = _parse_head(head)
                length = int(headers.get("content-length", "0") or 0)
                body = await reader.readexactly(length) if length else b""
                status, extra, answer = self.answer(method, headers.get("host", "").split(":")[0], target, body)
                lines = [f"HTTP/1.1 {status} X", f"Content-Length: {len(answer)}", *extra]
                writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, ValueError):
            pass
        finally:
            writer.close()

    def answer(self, method: str, host: str, target: str, body: bytes) -> tuple[int, list[str], bytes]:
        """The status, headers and body for one request."""
        path = urlsplit(target).path
        if host == REGISTRY and path == registry_api.SERVERS_PATH:
            self.served["registry page"] += 1
            return 200, ["Content-Type: application/json"], self.page(parse_qs(urlsplit(target).query))
        url = f"https://{host}{path}"
        state = self.layout.remotes.get(url)
        if method == "POST" and state is not None:
            self.served[f"MCP POST ({state})"] += 1
            return mcp_answer(state, body, url)
        if path.startswith("/.well-known/oauth-protected-resource"):
            self.served["RFC 9728 metadata"] += 1
            doc = {"resource": f"https://{host}{path.removeprefix('/.well-known/oauth-protected-resource')}"}
            return 200, ["Content-Type: application/json"], json.dumps(doc).encode()
        self.served[f"{method} other (404)"] += 1
        return 404, ["Content-Type: text/plain"], b"not found\n"

    def page(self, query: dict[str, list[str]]) -> bytes:
        """One page of ``GET /v0.1/servers`` (cursor: the index of the page's first server)."""
        start = int(query.get("cursor", ["0"])[0] or 0)
        limit = min(100, int(query.get("limit", ["100"])[0] or 100))
        servers = self.layout.servers[start : start + limit]
        following = start + limit if start + limit < len(self.layout.servers) else None
        meta = {"count": len(servers), **({"nextCursor": str(following)} if following is not None else {})}
        return json.dumps({"servers": servers, "metadata": meta}).encode()


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return method, target, headers


def mcp_answer(state: str, body: bytes, url: str) -> tuple[int, list[str], bytes]:
    """A remote's answer to a JSON-RPC POST, in the state it is made to answer in."""
    if state == "auth_gated":
        parts = urlsplit(url)
        metadata = f"https://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"
        return 401, [f'WWW-Authenticate: Bearer resource_metadata="{metadata}"'], b""
    if state == "not_mcp":
        return 404, ["Content-Type: application/json"], b'{"error": "not_found"}'
    try:
        message = json.loads(body)
    except ValueError:
        return 400, [], b""
    if "id" not in message:
        return 202, [], b""
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    else:  # server/discover (the 2026-07-28 era) included: this server is of the older one
        return _rpc(rid, "error", {"code": -32601, "message": "Method not found"})
    return _rpc(rid, "result", result)


def _rpc(rid: object, key: str, value: dict) -> tuple[int, list[str], bytes]:
    return 200, ["Content-Type: application/json"], json.dumps({"jsonrpc": "2.0", "id": rid, key: value}).encode()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again at once: connections are refused


@dataclass
class Step:
    """One agentdex process: its exit code, wall seconds and peak RSS (MiB)."""

    code: int
    seconds: float
    peak_mib: float


def agentdex(args: list[str], stdout: Path, stdin: Path | None = None) -> Step:
    started = time.perf_counter()
    with stdout.open("wb") as out, stdout.with_suffix(".err").open("wb") as err:
        source = stdin.open("rb") if stdin is not None else subprocess.DEVNULL
        child = subprocess.Popen([sys.executable, "-m", "agentdex", *args], stdin=source, stdout=out, stderr=err)  # noqa: S603
        _, status, usage = os.wait4(child.pid, 0)
        if stdin is not None:
            source.close()  # type: ignore[union-attr]
    return Step(os.waitstatus_to_exitcode(status), time.perf_counter() - started, usage.ru_maxrss / 1024)


def expected_census(layout: Layout) -> Counter[str]:
    """The census the registry means: every remote in its state, the templates as one URL."""
    templated = any("{" in r["url"] for s in layout.servers for r in s["server"].get("remotes", []))
    return Counter(layout.remotes.values()) + Counter({"template_not_expanded": int(templated)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=20_000)
    parser.add_argument("--remote-share", type=float, default=0.45)
    parser.add_argument("--shared-hosts", type=int, default=5)
    parser.add_argument("--shared-share", type=float, default=0.6)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--origin-budget", type=float, default=120.0, help="crawl --origin-budget (its default)")
    parser.add_argument("--keep", type=Path, help="keep the catalogue and outputs in this folder")
    args = parser.parse_args()
    layout = Layout(args.names, args.remote_share, args.shared_hosts, args.shared_share).build()
    ca = trustme.CA()
    web = Web(layout, ca)
    work = Path(tempfile.mkdtemp(prefix="bench-registry-"))
    try:
        run(args, layout, web, ca, work)
    finally:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for item in work.iterdir():
                shutil.move(str(item), args.keep / item.name)
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, layout: Layout, web: Web, ca: trustme.CA, work: Path) -> None:
    ca.cert_pem.write_to_path(str(work / "ca.pem"))
    db = work / "catalogue.db"
    net = [
        *("--connect-to", f"*.{DOMAIN}:127.0.0.1:{web.port}", "--connect-to", f"*.{DEAD}:127.0.0.1:{closed_port()}"),
        *("--ca-bundle", str(work / "ca.pem"), "--db", str(db)),
    ]
    print(f"registry: {len(layout.servers):,} names, {len(layout.remotes):,} remote endpoints (+ templates)")
    seeds = agentdex(["seeds", f"registry:https://{REGISTRY}", *net], work / "seeds.txt")
    lines = (work / "seeds.txt").read_text("utf-8").splitlines()
    print(f"seeds: exit {seeds.code}, {seeds.seconds:.1f} s, peak {seeds.peak_mib:.0f} MiB, {len(lines):,} lines")
    served_seeds = sum(web.served.values())
    crawl_args = ["crawl", "--seeds", "-", "--json", "--quiet", "--concurrency", str(args.concurrency)]
    crawl_args += ["--processes", str(args.processes), "--origin-budget", str(args.origin_budget)]
    crawl = agentdex([*crawl_args, *net], work / "crawl.json", stdin=work / "seeds.txt")
    summary = json.loads((work / "crawl.json").read_text("utf-8") or "{}")
    print(f"crawl: exit {crawl.code}, {crawl.seconds:.1f} s, peak {crawl.peak_mib:.0f} MiB, summary {summary}")
    census = agentdex(["census", "--json", "--db", str(db)], work / "census.json")
    data = json.loads((work / "census.json").read_text("utf-8"))
    print(f"census: exit {census.code}, {census.seconds:.1f} s, peak {census.peak_mib:.0f} MiB")
    print(f"server answered {sum(web.served.values()) - served_seeds:,} requests to the crawl:")
    for kind, count in sorted(web.served.items()):
        print(f"  {kind}: {count:,}")
    size = sum(p.stat().st_size for p in work.glob("catalogue.db*"))
    print(f"catalogue: {size / 2**20:.1f} MiB (file and write-ahead log)")
    found = Counter({s["state"]: s["count"] for s in data["states"] if s["count"]})
    print(f"census: total {data['total']:,}, {dict(found)}")
    if found != expected_census(layout):
        sys.exit(f"the census is not the registry's: expected {dict(expected_census(layout))}")


if __name__ == "__main__":
    main()
