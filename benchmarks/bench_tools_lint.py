"""Linting 100,000 MCP tool definitions: agentdex's TDQS lint beside the reference library (issue 38).

    .venv/bin/python benchmarks/bench_tools_lint.py [--tools N] [--per-server N]

The tools are the real definitions of tests/ecosystem/tools (the corpus the equality test
runs), each renamed per server so every server's list is valid, in servers of
``--per-server`` tools (default 50); ``N`` tools in all (default 100,000). Both sides get the
same parsed JSON and run on one core, one after the other: agentdex's
``tool_quality.lint(tool_quality.parse_tools(server))`` and tdqs's
``lint_server(tools=parse_tool_definitions(server).tools)``, the same work ``tdqs lint --file``
does after reading its file. It prints tools a second for each and fails when the two do not
give the same findings and inputHash for every tool of the first 20 servers, or when the
corpus is missing (then there is nothing real to measure).

    .venv/bin/python benchmarks/bench_tools_lint.py --fan-out 20

times instead one hostile tool on both: an input schema whose N ``$defs`` each reference the
next one twice (2^N paths through the required subtree), and checks the two agree.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "ecosystem" / "tools"


def corpus_tools() -> list[dict]:
    from agentdex.formats import tool_quality

    tools = []
    for path in sorted(CORPUS.rglob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        tools += tool_quality.parse_tools(data)
    return tools


def servers(templates: list[dict], total: int, per_server: int) -> list[list[dict]]:
    """``total`` tools in servers of ``per_server``: the templates in turn, renamed per server."""
    out, made = [], 0
    while made < total:
        size = min(per_server, total - made)
        server = []
        for i in range(size):
            tool = dict(templates[(made + i) % len(templates)])
            tool["name"] = f"{tool['name']}_{i}"
            server.append({k: v for k, v in tool.items() if v is not None})
        out.append(server)
        made += size
    return out


def run_agentdex(batch: list[list[dict]]) -> list:
    from agentdex.formats import tool_quality

    return [tool_quality.lint(tool_quality.parse_tools(server)) for server in batch]


def run_tdqs(batch: list[list[dict]]) -> list:
    import tdqs

    return [tdqs.lint_server(server_name="bench", tools=tdqs.parse_tool_definitions(s).tools) for s in batch]


def timed(fn, batch) -> tuple[float, list]:
    start = time.process_time()
    result = fn(batch)
    return time.process_time() - start, result


def same(ours: list, theirs: list) -> bool:
    for mine, ref in zip(ours, theirs, strict=True):
        a = [(t.name, t.input_hash, [(f.rule, f.severity, f.message) for f in t.findings]) for t in mine.tools]
        b = [
            (t.name, t.context_signals.input_hash, [(f.rule, f.severity, f.message) for f in t.findings])
            for t in ref.tools
        ]
        if a != b:
            return False
    return True


def fan_out(levels: int) -> int:
    """Both implementations on one tool whose schema fans out ``levels`` times."""
    defs: dict = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(levels)}
    defs[f"d{levels}"] = {"type": "object", "properties": {"x": {}}, "required": ["x"]}
    schema = {"type": "object", "properties": {"q": {"$ref": "#/$defs/d0"}}, "required": ["q"], "$defs": defs}
    server = [[{"name": "fan", "description": "Fans out.", "inputSchema": schema}]]
    results = []
    for name, fn in (("agentdex tool_quality", run_agentdex), ("tdqs 0.1.0 (reference)", run_tdqs)):
        seconds, result = timed(fn, server)
        results.append(result)
        print(f"{name:<24} {seconds:8.3f} CPU s  for a schema fanning out {levels} times")
    return 0 if same(*results) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=100_000)
    parser.add_argument("--per-server", type=int, default=50)
    parser.add_argument("--fan-out", type=int, default=0, metavar="N", help="time one fanning-out schema instead")
    args = parser.parse_args()
    if args.fan_out:
        return fan_out(args.fan_out)
    templates = corpus_tools()
    if len(templates) < 200:
        print(f"the corpus in {CORPUS} holds {len(templates)} tools; expected at least 200", file=sys.stderr)
        return 1
    batch = servers(templates, args.tools, args.per_server)
    sample = batch[:20]
    if not same(run_agentdex(sample), run_tdqs(sample)):
        print("agentdex and tdqs disagree on the first 20 servers: nothing comparable to time", file=sys.stderr)
        return 1
    print(f"{args.tools:,} tools from {len(templates)} real definitions, {len(batch):,} servers of {args.per_server}")
    for name, fn in (("agentdex tool_quality", run_agentdex), ("tdqs 0.1.0 (reference)", run_tdqs)):
        seconds, result = timed(fn, batch)
        linted = sum(len(r.tools) for r in result)
        assert linted == args.tools, (name, linted)
        print(f"{name:<24} {seconds:8.1f} CPU s  {linted / seconds:9,.0f} tools/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
