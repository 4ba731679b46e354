"""robots.txt: parse time and time per decision, for a common small file and for one at
RFC 9309's 500 KiB bound (about 30,000 rules). Run from the repository root:

    .venv/bin/python benchmarks/bench_robots.py

A file above ``ROBOTS_HEAVY_BYTES`` is parsed and decided off the event loop (see
agentdex/crawler/robots.py); these figures say why.
"""

from __future__ import annotations

import time

from agentdex.crawler.robots import ROBOTS_MAX_BYTES, RobotsRules

SMALL = (
    b"User-agent: *\nDisallow: /admin/\nDisallow: /*.pdf$\nAllow: /.well-known/\n\n"
    b"User-agent: agentdex\nDisallow: /private\n"
)


def large() -> bytes:
    rules = "".join(f"Disallow: /p{i}/*.html$\nAllow: /p{i}/ok\n" for i in range(40_000))
    return ("User-agent: *\n" + rules).encode()[:ROBOTS_MAX_BYTES]


def main() -> None:
    print(f"{'robots.txt':<22} {'bytes':>9} {'parse ms':>9} {'decision ms':>12}")
    for name, body in (("common (5 rules)", SMALL), ("500 KiB (~30k rules)", large())):
        started = time.perf_counter()
        rules = RobotsRules.parse(body)
        parse = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        for i in range(100):
            rules.allows(f"https://a.test/p{i * 97}/page.html")
        decide = (time.perf_counter() - started) * 1000 / 100
        print(f"{name:<22} {len(body):>9,} {parse:>9.1f} {decide:>12.3f}")


if __name__ == "__main__":
    main()
