"""Peak memory and wall time of ``agentdex seeds`` on a hostile registry and on a long list.

Run from the repository root:

    .venv/bin/python benchmarks/bench_seeds.py [--case NAME …] [--limit-mb 2048]

Cases (each ``agentdex seeds`` runs as its own process; its peak RSS comes from ``wait4``):

- ``huge-names``: a registry on loopback HTTPS whose every page holds one good server and a
  new one whose name is 4,000,000 characters (about 4 KB gzipped on the wire), then a fresh
  ``nextCursor``: endless;
- ``slow-huge``: the same, each page answering 1.5 s after it is asked (inside ``--timeout 3``);
- ``million``: a 1,000,000-row ``rank,domain`` CSV file (Tranco's shape).

Printed per case: what the registry served (pages, bytes before and after gzip), the exit code,
the last line ``seeds`` wrote to stderr, wall seconds and peak RSS in MiB. The script fails
when a run is not what it means to measure (the registry served no page, the list gave the
wrong number of origins). Every child runs under an address-space limit (``--limit-mb``) so
that a version that does not stream cannot take the machine down: it then fails at the limit.
Compare another checkout with ``PYTHONPATH=../other-checkout``.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import trustme
from loopback import LoopbackTLS

HUGE = 4_000_000  # a page (with the good server) stays under the 4 MiB page cap
ROWS = 1_000_000


class Registry(LoopbackTLS):
    """An endless MCP registry on 127.0.0.1 (TLS for ``registry.bench``), pages built once."""

    def __init__(self, ca: trustme.CA, delay: float) -> None:
        self.delay = delay
        self.pages = 0
        self.wire = 0
        self.plain = 0
        self._huge = "n" * HUGE
        super().__init__(ca, "registry.bench")

    def page(self, n: int) -> bytes:
        good = json.dumps(server(f"bench.good/g{n}", f"https://g{n}.bench.example/mcp"))
        huge = json.dumps(server(f"x/{n}" + self._huge, f"https://huge{n}.bench.example/mcp"))  # a new one a page
        text = f'{{"servers": [{good}, {huge}], "metadata": {{"nextCursor": "{n + 1}"}}}}'.encode()
        self.plain += len(text)
        return gzip.compress(text, 6)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b" ", 2)[1].decode()
            n = int(parse_qs(urlsplit(target).query).get("cursor", ["0"])[0])
            await asyncio.sleep(self.delay)
            body = self.page(n)
            self.pages += 1
            self.wire += len(body)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except Exception:  # noqa: BLE001 - the client leaving mid-answer is part of the test
            pass
        finally:
            writer.close()


def server(name: str, url: str) -> dict:
    meta = {"status": "active", "updatedAt": "2026-09-01T00:00:00Z"}
    return {
        "server": {"name": name, "version": "1.0.0", "remotes": [{"type": "streamable-http", "url": url}]},
        "_meta": {"io.modelcontextprotocol.registry/official": meta},
    }


def run_seeds(args: list[str], limit_mb: int, out: Path) -> tuple[int, float, float, str]:
    """Exit code, wall seconds, peak RSS in MiB and the last stderr line of one ``seeds`` run."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb * 1024 * 1024, limit_mb * 1024 * 1024))

    started = time.perf_counter()
    with out.open("wb") as stdout, (out.with_suffix(".err")).open("wb") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "agentdex", "seeds", *args], stdout=stdout, stderr=stderr, preexec_fn=limit
        )  # noqa: S603
        _, status, usage = os.wait4(child.pid, 0)
    took = time.perf_counter() - started
    lines = out.with_suffix(".err").read_text("utf-8", "replace").strip().splitlines()
    return os.waitstatus_to_exitcode(status), took, usage.ru_maxrss / 1024, (lines[-1] if lines else "")[:160]


def registry_case(ca: trustme.CA, ca_pem: Path, work: Path, delay: float, limit_mb: int) -> None:
    registry = Registry(ca, delay)
    args = [
        "registry:https://registry.bench",
        *("--connect-to", f"registry.bench:127.0.0.1:{registry.port}", "--ca-bundle", str(ca_pem)),
        *("--timeout", "3", "--db", str(work / f"c{delay}.db")),
    ]
    code, took, peak, last = run_seeds(args, limit_mb, work / "out.txt")
    print(f"  served {registry.pages} pages: {registry.wire:,} bytes gzipped, {registry.plain:,} bytes of JSON")
    print(f"  exit {code}; stderr ends: {last}")
    print(f"  wall {took:.1f} s, peak RSS {peak:.0f} MiB")
    if registry.pages == 0:
        sys.exit("the registry served no page: nothing was measured")


def million_case(work: Path, limit_mb: int) -> None:
    path = work / "top-1m.csv"
    with path.open("w") as fh:
        fh.writelines(f"{i},site{i}.bench.example\n" for i in range(1, ROWS + 1))
    code, took, peak, last = run_seeds([str(path), "--db", str(work / "list.db")], limit_mb, work / "list.txt")
    origins = sum(1 for _ in (work / "list.txt").open())
    print(f"  {ROWS:,} rows ({path.stat().st_size:,} bytes) gave {origins:,} origins; exit {code}; stderr ends: {last}")
    print(f"  wall {took:.1f} s, peak RSS {peak:.0f} MiB")
    if code == 0 and origins != ROWS:
        sys.exit(f"expected {ROWS:,} origins, got {origins:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=["huge-names", "slow-huge", "million"])
    parser.add_argument("--limit-mb", type=int, default=2048, help="address-space limit of each seeds process")
    args = parser.parse_args()
    cases = args.case or ["huge-names", "slow-huge", "million"]
    ca = trustme.CA()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ca.cert_pem.write_to_path(str(work / "ca.pem"))
        for case in cases:
            print(case)
            if case == "million":
                million_case(work, args.limit_mb)
            else:
                registry_case(ca, work / "ca.pem", work, 1.5 if case == "slow-huge" else 0.0, args.limit_mb)


if __name__ == "__main__":
    main()
