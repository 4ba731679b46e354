"""How many manifests each format validates per second, on one core.

Run from the repository root:

    .venv/bin/python benchmarks/bench_validate.py [--seconds 1.0] [--repeat 3]

The inputs are the valid examples under ``tests/examples``: ``valid/agent_app/*.json``,
``valid/anchor/*.json``, ``valid/findagent/*.json`` (and repository folders there),
the package source trees under ``adapp/`` (packed once, then each ``.adapp`` opened and
validated with its checksum), and the bootstrap folders under ``valid/inferred/``. A format
whose examples are missing is skipped. Input bytes are read before timing; each round
cycles through a format's examples for ``--seconds`` and the best of ``--repeat`` rounds is
printed. The process is pinned to one CPU where the OS allows it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "examples"
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from agentdex.formats import get  # noqa: E402

Case = Callable[[], Any]


def json_files(folder: Path) -> list[bytes]:
    """The manifests of one examples folder (``*.expect.json`` hold expected findings)."""
    if not folder.is_dir():
        return []
    return [p.read_bytes() for p in sorted(folder.glob("*.json")) if not p.name.endswith(".expect.json")]


def json_cases(fmt: str) -> list[Case]:
    """One call per JSON example of a format."""
    parse = get(fmt).parse
    return [lambda data=data: parse(data) for data in json_files(EXAMPLES / "valid" / fmt)]


def findagent_cases() -> list[Case]:
    """FindAgent manifests, plus repository folders read through ``parse_repo``."""
    module, cases = get("findagent"), json_cases("findagent")
    folder = EXAMPLES / "valid" / "findagent"
    for repo in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else ():
        files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*") if p.is_file()}
        cases.append(lambda files=files: module.parse_repo(files))
    return cases


def adapp_cases() -> list[Case]:
    """Each package source tree under ``tests/examples/adapp/``, packed once."""
    adapp, cases = get("adapp"), []
    folder = EXAMPLES / "adapp"
    for tree in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else ():
        files = {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}
        package = adapp.pack(files)
        cases.append(lambda package=package: adapp.parse_package(package))
    return cases


def inferred_cases() -> list[Case]:
    """Each bootstrap folder under ``tests/examples/valid/inferred/``."""
    module, cases = get("inferred"), []
    folder = EXAMPLES / "valid" / "inferred"
    for site in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else ():
        files = {p.name: p.read_bytes() for p in site.iterdir() if p.name in module.FILES}
        cases.append(lambda files=files, origin=f"{site.name}.example.com": module.infer(files, origin=origin))
    return cases


FORMATS: dict[str, Callable[[], list[Case]]] = {
    "agent_app": lambda: json_cases("agent_app"),
    "anchor": lambda: json_cases("anchor"),
    "findagent": findagent_cases,
    "adapp (packages)": adapp_cases,
    "inferred": inferred_cases,
}


def rate(cases: list[Case], seconds: float) -> float:
    """Manifests validated per second while cycling through ``cases`` for ``seconds``."""
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for case in cases:
            case()
        count += len(cases)
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def pin_to_one_core() -> str:
    """Pin this process to one CPU (Linux); say which."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per round and format")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per format (the best is shown)")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {pin_to_one_core()}, best of {args.repeat} x {args.seconds:g} s")
    print(f"{'format':<18} {'examples':>8} {'manifests/s':>12} {'µs/manifest':>12}")
    for name, build in FORMATS.items():
        try:
            cases = build()
        except Exception as exc:  # noqa: BLE001 -- a format being written must not stop the table
            print(f"{name:<18} {'':>8} skipped: {type(exc).__name__}: {exc}")
            continue
        if not cases:
            print(f"{name:<18} {0:>8} skipped: no examples")
            continue
        best = max(rate(cases, args.seconds) for _ in range(args.repeat))
        print(f"{name:<18} {len(cases):>8} {best:>12,.0f} {1e6 / best:>12.1f}")


if __name__ == "__main__":
    main()
