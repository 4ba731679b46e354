"""Fetch benchmark: the CPU one request costs in agentdex's fetcher, nothing else, with the
crawler's own HTTP/1.1 transport and with httpcore's connection pool in its place.

Run from the repository root (needs nginx, like ``bench_crawl.py``, whose synthetic tree,
certificates and nginx it reuses):

    .venv/bin/python benchmarks/bench_fetch.py [--n 2000] [--concurrency 32] [--repeat 3]
        [--transport own httpcore] [--urls URLS.txt --per-host 1]

One nginx serves the synthetic tree of N origins over TLS. The fetcher
(:class:`agentdex.crawler.fetch.Fetcher`, as a crawl configures it) asks every origin, one
request at a time over its kept-alive connection, each path a crawl asks an origin that
publishes an agent-app manifest and its guide: the two manifests, every discovery path
(404s at the synthetic origins) and the guide; robots.txt is fetched by the fetch policy
before the first path it governs. No parsing, no database: the figure is the HTTP client's
and the fetch policy's own cost.

The transports (``--transport``), each a pool per origin under the same fetch policy, the
same address guard and the same socket backend (:mod:`agentdex.crawler.netstream`):

    own        agentdex.crawler.h1.HostTransport: httptools (llhttp) on the socket, no pool bookkeeping,
               answers handed to the fetch policy as its own Reply (no httpx.Response)
    httpcore   httpcore.AsyncConnectionPool over that backend (what httpx's own transport
               runs), behind the few lines of adapter httpx's AsyncHTTPTransport has

With ``--urls`` (a URL list a ``bench_crawl.py`` run wrote, e.g.
``benchmarks/out/run-100000/urls.txt``, and the same ``--n``), the fetcher asks exactly
those URLs instead, origin by origin as the crawl did, through ``benchmarks/crawl/
agentdex_fetch.py`` (the fetch path of ``bench_crawl.py --fetch-path``, on its own): its
CPU a request is the fetching part of that crawl's CPU. Only the own transport runs then.

Repeats alternate the transports (own, httpcore, own, ...) so that a shared machine's load
falls on both alike. Printed for each run: requests, wall seconds, CPU ms per request
(``time.process_time``, this process only; nginx runs in its own), failed fetches, and what
the web answered (status counts). Every answer is checked against the tree on disk (200
where the file exists, 404 where it does not): the script exits 1 when one differs or a
fetch failed, since its figure would then not be the cost of the answers it meant to measure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from array import array
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "crawl"))

import agentdex_fetch  # noqa: E402
import httpcore  # noqa: E402
import httpx  # noqa: E402
from bench_crawl import DOMAIN, Nginx, ensure_certs, ensure_tree  # noqa: E402

from agentdex import formats  # noqa: E402
from agentdex.crawler.fetch import Fetcher  # noqa: E402
from agentdex.crawler.netpolicy import build_ssl_context  # noqa: E402
from agentdex.crawler.netstream import NetworkBackend  # noqa: E402
from agentdex.crawler.pools import guarded_transport  # noqa: E402
from agentdex.errors import (  # noqa: E402
    ConnectError,
    ConnectTimeout,
    ProtocolError,
    ReadError,
    ReadTimeout,
    WriteError,
    WriteTimeout,
)

GUIDE = "/agent.md"
NOT_ASKED, FAILED = 0, -1  # fetch_list's slots: a URL not asked, a fetch that failed
PER_HOST = 2  # the Fetcher's default: at most 2 requests (and connections) an origin


# httpcore's own errors (its pool's, and h11's as it maps them) as agentdex's, which the fetch
# policy records: what the crawler's transport raises, so both are recorded alike. (The
# socket backend below httpcore's pool raises agentdex's already.)
_CORE_ERRORS: tuple[tuple[type[Exception], type[Exception]], ...] = (
    (httpcore.ConnectTimeout, ConnectTimeout),
    (httpcore.ReadTimeout, ReadTimeout),
    (httpcore.WriteTimeout, WriteTimeout),
    (httpcore.PoolTimeout, ConnectTimeout),
    (httpcore.ConnectError, ConnectError),
    (httpcore.ReadError, ReadError),
    (httpcore.WriteError, WriteError),
    (httpcore.RemoteProtocolError, ProtocolError),
)


@contextlib.contextmanager
def agentdex_errors() -> Iterator[None]:
    """Raise httpcore's errors as the agentdex errors they correspond to."""
    try:
        yield
    except httpcore.HTTPCoreError as exc:
        for theirs, ours in _CORE_ERRORS:
            if isinstance(exc, theirs):
                raise ours(str(exc) or type(exc).__name__) from exc
        raise


class HttpcorePool(httpx.AsyncBaseTransport):
    """Option (a): httpcore's pool over the crawler's socket backend (the address guard).

    What ``httpx.AsyncHTTPTransport`` does around its pool, without the parts a crawler
    refuses (proxies from the environment); it takes no network backend of its own.
    """

    def __init__(self, context, backend: NetworkBackend, keep: int) -> None:
        # The crawler's NetworkBackend has the shape of httpcore's AsyncNetworkBackend (the
        # methods its pool calls), without importing httpcore: the pool takes it as it is.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            network_backend=backend,
            max_connections=keep,
            max_keepalive_connections=keep,
            keepalive_expiry=5.0,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with agentdex_errors():
            response = await self._pool.handle_async_request(core)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_CoreBody(response),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


class _CoreBody(httpx.AsyncByteStream):
    def __init__(self, response: httpcore.Response) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with agentdex_errors():
            async for part in self._response.aiter_stream():
                yield part

    async def aclose(self) -> None:
        await self._response.aclose()


def paths() -> list[str]:
    """What a crawl asks an origin with an agent-app manifest, in its order."""
    discovery = [path for group in formats.DISCOVERY_PATHS.values() for path in group]
    return [*formats.MANIFEST_PATHS.values(), *discovery, GUIDE]


def factory(name: str, fetcher_box: list[Fetcher], ca: Path) -> Callable[[], httpx.AsyncBaseTransport]:
    """The ``transport_factory`` of transport ``name`` (the Fetcher's backend once it exists)."""
    context = build_ssl_context(ca)
    if name == "own":
        return lambda: guarded_transport(context, fetcher_box[0].backend, PER_HOST)
    return lambda: HttpcorePool(context, fetcher_box[0].backend, PER_HOST)


async def fetch_all(
    port: int, ca: Path, hosts: list[str], concurrency: int, transport: str
) -> tuple[int, int, float, float, Counter]:
    """Every path of every host; (requests, failed fetches, wall s, CPU s, answers), where
    answers counts (path, status) pairs."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for host in hosts:
        queue.put_nowait(host)
    wanted, answers, box = paths(), Counter(), []
    async with Fetcher(
        connect_to=[(f"*.{DOMAIN}", "127.0.0.1", port)],
        ca_bundle=ca,
        per_host=PER_HOST,
        concurrency=concurrency,
        transport_factory=factory(transport, box, ca),
    ) as fetcher:
        box.append(fetcher)

        async def worker() -> None:
            while not queue.empty():
                host = queue.get_nowait()
                for path in wanted:
                    record = await fetcher.fetch(
                        f"https://{host}{path}", kind="bench", max_bytes=512 * 1024, same_origin=True, absent_ok=True
                    )
                    answers[host, path, record.status] += 1

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return (
            fetcher.stats.requests,
            fetcher.stats.errors,
            time.perf_counter() - wall,
            time.process_time() - cpu,
            answers,
        )


async def fetch_list(
    port: int, ca: Path, urls: list[str], concurrency: int, per_host: int
) -> tuple[int, int, float, float, Counter]:
    """The URL list, as ``fetch_all`` measures the paths: (requests, failed fetches, wall s,
    CPU s, answers). Each status goes to its URL's slot of an array while the clock runs;
    the answers are counted after it stops, so that a count keyed by URL (2,100,000 keys at
    100,000 origins) is not built, nor held, while the fetch path is measured."""
    codes = array("h", [NOT_ASKED]) * len(urls)

    def answered(index: int, status: int | None) -> None:
        codes[index] = FAILED if status is None else status

    cpu, wall = time.process_time(), time.perf_counter()
    requests, errors = await agentdex_fetch.fetch_all(urls, port, ca, concurrency, per_host, answered)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    answers: Counter = Counter()
    for url, code in zip(urls, codes, strict=True):
        if code != NOT_ASKED:  # robots.txt: the fetch policy asked it, not the list
            parts = urlsplit(url)
            answers[parts.hostname, parts.path, "error" if code == FAILED else code] += 1
    return requests, errors, wall, cpu, answers


def served_file(site: Path, path: str) -> bool:
    """Whether nginx answers ``path`` of ``site`` with a file: its ``try_files`` (``$uri
    $uri.html $uri.json $uri/index.html $uri/index.json``, benchmarks/crawl/nginx.conf.template);
    paths under ``/_`` are the benchmark's own and answer 404."""
    if path.startswith("/_"):
        return False
    base = site / path.strip("/")
    candidates = (base, Path(f"{base}.html"), Path(f"{base}.json"), base / "index.html", base / "index.json")
    return any(candidate.is_file() for candidate in candidates)


def unexpected(answers: Counter, tree: Path) -> list[str]:
    """The answers that are not what nginx must give for the tree: 200 where the file is."""
    wrong = []
    for (host, path, status), _count in answers.items():
        expected = 200 if served_file(tree / host, path) else 404
        if status != expected:
            wrong.append(f"https://{host}{path}: {status}, expected {expected}")
    return wrong


def summary(answers: Counter) -> str:
    """Status counts of the answers, e.g. ``200 x 6000, 404 x 18000``."""
    statuses = Counter()
    for (_host, _path, status), count in answers.items():
        statuses[status] += count
    return ", ".join(f"{status} x {count:,}" for status, count in sorted(statuses.items(), key=str))


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--transport", nargs="+", choices=("own", "httpcore"), default=["own", "httpcore"])
    parser.add_argument("--urls", type=Path, help="fetch this URL list (a bench_crawl.py run's urls.txt) instead")
    parser.add_argument("--per-host", type=int, default=PER_HOST, help="requests in flight to one host (--urls only)")
    args = parser.parse_args(argv)
    if args.urls:
        args.transport = ["own"]
    tree, certs = ensure_tree(args.n), ensure_certs()
    hosts = [urlsplit(seed).hostname or "" for seed in (tree / "seeds.txt").read_text("utf-8").split()]
    urls = args.urls.read_text("utf-8").split() if args.urls else []
    if urls:
        print(f"{len(urls):,} URLs from {args.urls}, origin by origin")
    else:
        print(f"{len(paths())} paths an origin: {', '.join(paths())}")
    figures: dict[str, list[float]] = {name: [] for name in args.transport}
    failed = False
    with Nginx(tree, certs, workers=1) as nginx:
        for round_ in range(args.repeat):
            for name in args.transport:
                if urls:
                    work = fetch_list(nginx.port, certs[0], urls, args.concurrency, args.per_host)
                else:
                    work = fetch_all(nginx.port, certs[0], hosts, args.concurrency, name)
                requests, errors, wall, cpu, answers = asyncio.run(work)
                wrong = unexpected(answers, tree)
                figures[name].append(cpu * 1000 / requests)
                print(
                    f"round {round_ + 1} {name:8}  {requests:,} requests  {errors} errors  wall {wall:.1f} s  "
                    f"CPU {cpu * 1000 / requests:.3f} ms/request  answers: {summary(answers)}"
                )
                for line in wrong[:5]:
                    print(f"  unexpected answer {line}")
                # errors: fetches that failed (the discovery 404s are not); a figure from failed
                # fetches or wrong answers would measure failing, so both must read 0
                failed = failed or bool(errors or wrong)
    for name, values in figures.items():
        print(
            f"{name:8}  CPU ms/request: min {min(values):.3f}  median {statistics.median(values):.3f}  "
            f"runs {', '.join(f'{v:.3f}' for v in values)}"
        )
    if failed:
        print("FAILED: some fetches failed or answered other than the tree says; the figures are void")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
