"""Parser bombs: peak memory and time of each, through the same entry points the crawler
and ``validate`` use. Run from the repository root:

    .venv/bin/python benchmarks/bench_parser_bombs.py

Prints one line per bomb: its size, the finding it gave, the time and the peak memory
Python allocated while parsing it (``tracemalloc``), which is what "memory bounded" means
here: a few times the input at most, never the expanded size.
"""

from __future__ import annotations

import json
import time
import tracemalloc

from agentdex.formats import findagent, inferred, parse_json

GUIDE = b"# Guide\n"
ALIASES = (
    "---\nname: bomb\ndescription: d\n"
    + "\n".join(f"l{i}: &l{i} [{', '.join(['*l' + str(i - 1)] * 9)}]" for i in range(1, 10)).replace("*l0", "lol")
    + "\n---\n"
)
BOMBS = {
    "JSON nested 100,000 deep": lambda: parse_json(b"[" * 100_000 + b"]" * 100_000),
    "a million-digit number": lambda: parse_json(b'{"n": ' + b"7" * 1_000_000 + b"}"),
    "NaN / Infinity": lambda: parse_json(b'{"a": NaN, "b": -Infinity}'),
    "50,000 tags (FindAgent, 1 MB)": lambda: findagent.parse(
        json.dumps(
            {"schema_version": "1.1", "name": "t", "system_prompt": "x", "tags": [f"t{i}" for i in range(50_000)]}
        ).encode()
    ),
    "8 MB of JSON (the cap)": lambda: parse_json(b'{"a": "' + b"x" * (8 * 1024 * 1024 - 16) + b'"}'),
    "YAML alias bomb (9^9 nodes)": lambda: inferred.infer({"SKILL.md": ALIASES.encode(), "agent.md": GUIDE}),
    "SKILL.md of 1 MB": lambda: inferred.infer(
        {"SKILL.md": b"---\nname: x\ndescription: " + b"y" * 1_000_000 + b"\n---\n", "agent.md": GUIDE}
    ),
}


def main() -> None:
    print(f"{'bomb':<32} {'finding':<18} {'ms':>8} {'peak MB':>8}")
    for name, run in BOMBS.items():
        tracemalloc.start()
        started = time.perf_counter()
        result = run()
        took = (time.perf_counter() - started) * 1000
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        codes = sorted({f.code for f in result.findings if f.severity == "error"} or {"(none)"})
        print(f"{name:<32} {','.join(codes)[:18]:<18} {took:>8.1f} {peak:>8.1f}")


if __name__ == "__main__":
    main()
