"""agentdex's TDQS lint against the reference implementation, ``tdqs`` (PyPI, Apache-2.0, the
version pinned in the test extra), on the same inputs: every tool's findings (rule, severity,
message), ``inputHash``, hard-gate flags and context signals, and the shadow candidates.

Inputs: the MCP TypeScript SDK's ``server-everything`` (npm, tests/npm) crawled by agentdex
over HTTPS and linted by ``tdqs lint --url`` over its own MCP client; the sample web's MCP
SDK servers; the corpus of real ``tools/list`` outputs in tests/ecosystem/tools (sources in
its SOURCES.md); generated definitions (Hypothesis); and hostile ones (1 MB descriptions,
10,000 parameters, deep schemas, ``$ref`` cycles), where agentdex must stay bounded and give
the reference's findings wherever the reference itself finishes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tdqs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.crawl import crawl
from agentdex.crawler.options import NetworkOptions
from agentdex.db import open_db
from agentdex.formats import tool_quality
from netfixtures import json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401
from reference_servers import TLSProxy, everything, node_skip_reason

CORPUS = Path(__file__).parent / "ecosystem" / "tools"


def reference(data: object) -> dict:
    """What tdqs's library reports for ``data``: per tool, and the shadow candidates."""
    parsed = tdqs.parse_tool_definitions(data)
    report = tdqs.lint_server(server_name="x", tools=parsed.tools).model_dump(mode="json")
    return {
        "tools": [
            {
                "name": t["name"],
                "signals": t["contextSignals"],
                "flags": t["flags"],
                "findings": [[f["rule"], f["severity"], f["message"]] for f in t["findings"]],
            }
            for t in report["tools"]
        ],
        "shadow": report["shadowCandidates"],
    }


def ours(data: object) -> dict:
    result = tool_quality.lint(tool_quality.parse_tools(data))
    return {
        "tools": [
            {
                "name": t.name,
                "signals": t.signals,
                "flags": list(t.flags),
                "findings": [[f.rule, f.severity, f.message] for f in t.findings],
            }
            for t in result.tools
        ],
        "shadow": [c.to_dict() for c in result.shadow_candidates],
    }


def cli_lint(path: Path) -> tuple[int, list]:
    result = CliRunner().invoke(app, ["tools", "lint", str(path), "--json"])
    return result.exit_code, json.loads(result.output)


def tdqs_cli(*args: str) -> tuple[int, dict]:
    done = subprocess.run(
        [sys.executable, "-m", "tdqs", "lint", *args, "--format", "json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def as_rows(report: dict) -> list[dict]:
    """tdqs's JSON report in the shape of `agentdex tools lint --json`."""
    return [
        {
            "tool": t["name"],
            "input_hash": t["contextSignals"]["inputHash"],
            "findings": [
                {"rule": f["rule"], "severity": f["severity"], "message": f["message"]} for f in t["findings"]
            ],
        }
        for t in report["tools"]
    ]


# --- the corpus of real tool lists ------------------------------------------------------------


def corpus_files() -> list[Path]:
    return sorted(CORPUS.rglob("*.json"))


def test_the_corpus_holds_at_least_200_real_tool_definitions():
    count = sum(len(tool_quality.parse_tools(json.loads(f.read_text("utf-8")))) for f in corpus_files())
    assert count >= 200, count


def test_the_corpus_as_one_server_lints_as_the_reference_lints_it():
    """Every tool of the corpus in one list (names made unique), so the shadow prefilter runs
    across all of them at once."""
    tools = []
    for index, path in enumerate(corpus_files()):
        for tool in tool_quality.parse_tools(json.loads(path.read_text("utf-8"))):
            tools.append({**{k: v for k, v in tool.items() if v is not None}, "name": f"{tool['name']}_{index}"})
    assert len(tools) >= 200 and ours(tools) == reference(tools)


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_each_corpus_file_lints_as_the_reference_lints_it(path):
    data = json.loads(path.read_text("utf-8"))
    assert ours(data) == reference(data)


@pytest.mark.slow  # runs the tdqs CLI as a process
@pytest.mark.parametrize("path", corpus_files()[::25], ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_command_prints_what_tdqs_lint_prints(path):
    code, rows = cli_lint(path)
    expected_code, report = tdqs_cli("--file", str(path))
    assert (code, rows) == (expected_code, as_rows(report))


# --- edge cases the specification pins down ---------------------------------------------------

EDGES = [
    # numbers as JavaScript writes them, keys sorted by UTF-16 code unit, escapes, lone surrogates
    {
        "name": "numbers",
        "description": "Numbers \u2028 and \ud800 and 😀 and \x00\x1f\x7f.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number", "default": 1.5e-7, "maximum": 1e21, "minimum": -0.0}},
            "$defs": {"😀": 1, "\uffff": 2, "b": 2**60, "c": 123.456, "d": 1e-6, "e": 100.0, "f": 0.1},
        },
    },
    # whitespace as JavaScript trims it: U+FEFF is trimmed, U+001C is not
    {"name": "trim_me", "description": "\ufeff TRIM_ME \u3000"},
    {"name": "keep", "description": "\x1ckeep"},
    {"name": "titled", "title": "Say Hello", "description": "say hello"},
    {"name": "no_desc", "description": "   "},
    {"name": "empty_annotations", "description": "Has empty annotations.", "annotations": {}},
    {"name": "hint_not_bool", "description": "A string hint.", "annotations": {"readOnlyHint": "true"}},
    {"name": "snake", "description": "Snake-case members.", "input_schema": {"type": "object"}, "output_schema": {}},
    # coverage on both sides of 50 and 80 (Math.round, ties up)
    *[
        {
            "name": f"coverage_{described}_of_{total}",
            "description": "Coverage.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    f"p{i}": ({"type": "string", "description": "d"} if i < described else {"type": "string"})
                    for i in range(total)
                },
            },
        }
        for described, total in ((1, 2), (49, 100), (79, 100), (4, 5), (7, 9), (1, 8), (5, 8))
    ],
    # the required subtree: refs, cycles, nullable unions, arrays of objects, allOf, not
    {
        "name": "subtree",
        "description": "A deep schema.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "c": {
                    "oneOf": [
                        {"$ref": "#/definitions/C"},
                        {"type": "object", "properties": {"x": {}}},
                        {"type": ["null"]},
                    ]
                },
                "d": {"type": "array", "items": {"type": "object", "properties": {"q": {}}, "required": ["q", "r"]}},
                "e": {
                    "allOf": [{"properties": {"y": {}}, "required": ["y"]}],
                    "not": {"properties": {"z": {}}, "required": ["z"]},
                },
            },
            "required": ["a", "b", "c", "d", "e", "missing"],
            "$defs": {
                "A": {
                    "type": "object",
                    "properties": {"self": {"$ref": "#/$defs/A"}, "n": {}},
                    "required": ["self", "n"],
                }
            },
            "definitions": {
                "C": {"type": "object", "properties": {"k": {"$ref": "#/definitions/C%20x"}}, "required": ["k"]}
            },
        },
    },
    # shadowing: costs 0, 3, 8, 9, 20, with a tie broken by UTF-16 order
    *[
        {
            "name": name,
            "description": f"Tool {name}.",
            "inputSchema": {
                "type": "object",
                "properties": {f"p{i}": {"type": "string"} for i in range(cost)},
                "required": [f"p{i}" for i in range(cost)],
            },
        }
        for name, cost in (
            ("zero", 0),
            ("three", 3),
            ("eight", 8),
            ("nine", 9),
            ("twenty", 20),
            ("\uff41", 9),
            ("😀", 9),
        )
    ],
]


def test_the_edge_cases_lint_as_the_reference_lints_them():
    assert ours({"tools": EDGES}) == reference({"tools": EDGES})


# --- generated definitions ------------------------------------------------------------------

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=False), st.text(max_size=8)
)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
_keywords = st.sampled_from(
    ["type", "properties", "required", "description", "enum", "items", "anyOf", "oneOf", "allOf", "not", "$ref"]
)
_schema = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["object", "string", "null", ["null"]])}),
    lambda inner: (
        st.dictionaries(_keywords, inner | _json, max_size=5)
        | st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.sampled_from("abcd"), inner, max_size=4),
                "required": st.lists(st.sampled_from("abcde"), max_size=5),
            }
        )
        | st.fixed_dictionaries({"$ref": st.sampled_from(["#/$defs/a", "#/definitions/b", "#/$defs/zz", "x"])})
        | st.lists(inner, max_size=3)
    ),
    max_leaves=25,
)
_tool = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=6)},
    optional={
        "description": st.one_of(st.none(), st.text(max_size=12)),
        "title": st.one_of(st.none(), st.text(max_size=6)),
        "annotations": st.dictionaries(
            st.sampled_from(["readOnlyHint", "destructiveHint", "title", "x"]), _scalars, max_size=3
        ),
        "inputSchema": st.builds(
            lambda schema, defs: {**schema, "$defs": {"a": defs}, "definitions": {"b": schema}},
            _schema.filter(lambda s: isinstance(s, dict)),
            _schema,
        ),
        "outputSchema": st.dictionaries(st.text(max_size=4), _json, max_size=2),
    },
)


@pytest.mark.slow  # 300 generated tool lists, each linted twice
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_tool, min_size=1, max_size=6, unique_by=lambda t: t["name"]))
def test_generated_definitions_lint_as_the_reference_lints_them(tools):
    assert ours(tools) == reference(tools)


# --- hostile definitions ----------------------------------------------------------------------


def _hostile() -> dict[str, dict]:
    deep: dict = {"type": "object", "properties": {"leaf": {"type": "string"}}, "required": ["leaf"]}
    for _ in range(150):
        deep = {"type": "object", "properties": {"next": deep}, "required": ["next"], "allOf": [{"description": "x"}]}
    return {
        "megabyte_description": {"name": "big", "description": "x" * 1_000_000},
        "ten_thousand_parameters": {
            "name": "wide",
            "description": "Wide.",
            "inputSchema": {
                "type": "object",
                "properties": {f"p{i}": {"type": "string"} for i in range(10_000)},
                "required": [f"p{i}" for i in range(10_000)],
            },
        },
        "deep_schema": {
            "name": "deep",
            "description": "Deep.",
            "inputSchema": {"type": "object", "properties": {"d": deep}, "required": ["d"]},
        },
        "ref_cycle": {
            "name": "cycle",
            "description": "Cycles.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "required": ["a"],
                "$defs": {
                    "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "required": ["b"]},
                    "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"type": "null"}]},
                },
            },
        },
    }


@pytest.mark.parametrize("case", list(_hostile()), ids=str)
def test_a_hostile_definition_the_reference_can_lint_is_linted_the_same(case):
    tools = [_hostile()[case], {"name": "ping", "description": "Answer pong."}]
    assert ours(tools) == reference(tools)


def _fan_out(levels: int) -> dict:
    defs = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(levels)}
    defs[f"d{levels}"] = {"type": "object", "properties": {"x": {}}, "required": ["x"]}
    return {"type": "object", "properties": {"q": {"$ref": "#/$defs/d0"}}, "required": ["q"], "$defs": defs}


def test_refs_that_fan_out_stay_linear_and_agree_where_the_reference_finishes():
    small = [{"name": "fan", "description": "Fans out.", "inputSchema": _fan_out(12)}]
    assert ours(small) == reference(small)  # 4,096 paths: the reference takes a moment here
    huge = [{"name": "fan", "description": "Fans out.", "inputSchema": _fan_out(200)}]  # 2**200 paths
    result = tool_quality.lint(tool_quality.parse_tools(huge))
    assert result.tools[0].signals["unionChoiceCount"] == 200 and result.tools[0].note is None


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf", "allOf", "not", "items"])
def test_a_chain_of_refs_deeper_than_any_stack_is_cut_short_and_says_so(keyword):
    """5,000 definitions each nesting the next through ``keyword``: the reference ends in
    RecursionError; agentdex stops at its nesting budget and says so in the tool's note."""
    leaf = {"type": "object", "properties": {"z": {}}, "required": ["z"]}
    if keyword in ("anyOf", "oneOf", "allOf"):
        chain = {f"d{i}": {keyword: [{"$ref": f"#/$defs/d{i + 1}"}, leaf]} for i in range(5000)}
    else:
        chain = {f"d{i}": {keyword: {"$ref": f"#/$defs/d{i + 1}"}} for i in range(5000)}
    schema = {"type": "object", "properties": {"q": {"$ref": "#/$defs/d0"}}, "required": ["q"], "$defs": chain}
    result = tool_quality.lint(
        tool_quality.parse_tools([{"name": "chain", "description": "Chains.", "inputSchema": schema}])
    )
    assert result.tools[0].note and "too large to walk" in result.tools[0].note
    assert [f.rule for f in result.tools[0].findings] == [
        "missing-annotations",
        "undocumented-parameters",
        "no-output-schema",
    ]


def test_json_nested_past_the_bound_is_refused_in_one_line(tmp_path):
    nested: object = "leaf"
    for _ in range(600):
        nested = [nested]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"tools": [{"name": "t", "description": "d", "inputSchema": {"x": nested}}]}))
    result = CliRunner().invoke(app, ["tools", "lint", str(path)])
    assert result.exit_code == 2 and "nests more than" in result.output and "Traceback" not in result.output


# --- the reference servers ----------------------------------------------------------------------


def test_the_sample_webs_mcp_sdk_servers_lint_as_the_reference_lints_them():
    from mcp import Client

    from agentdex.sampleweb.apps import AppContext, mcp_servers

    async def listed(profile: str) -> list[dict]:
        server = mcp_servers.make_server(AppContext("mcp.sample.test", "/mcp"), profile)
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
        return [t.model_dump(by_alias=True, exclude_unset=True) for t in tools]

    for profile in mcp_servers.PROFILES:
        tools = asyncio.run(listed(profile))
        assert tools and ours(tools) == reference(tools)


@pytest.mark.slow  # node, a TLS proxy and a crawl
@pytest.mark.skipif(node_skip_reason() is not None, reason=node_skip_reason() or "")
def test_server_everything_crawled_by_agentdex_lints_as_tdqs_lint_url_lints_it(tls_ca, tls_server, tmp_path):
    """agentdex crawls the MCP TypeScript SDK's reference server over HTTPS (an Anchor manifest
    declares it) and stores the lint; ``tdqs lint --url`` lists the same server through the
    MCP SDK's own client. The two reports agree tool for tool."""
    _, _, cert = tls_ca
    with everything("streamableHttp") as port, TLSProxy(cert, port) as proxy:
        tls_server.routes["/.well-known/anchor.json"] = lambda request: _reply(_anchor("https://mcp.sample.test/mcp"))
        net = NetworkOptions(
            connect_to=[
                ("everything.sample.test", "127.0.0.1", tls_server.port),
                ("registry.sample.test", "127.0.0.1", tls_server.port),
                *proxy.connect_to("mcp.sample.test"),
            ],
            ca_bundle=tls_ca[1],
            registry="https://registry.sample.test",
            dns_server="127.0.0.1:9",
        )
        db_file = tmp_path / "catalogue.db"
        asyncio.run(crawl(open_db(db_file), ["everything.sample.test"], net))
        expected_code, report = tdqs_cli("--url", f"http://127.0.0.1:{port}/mcp")
    result = CliRunner().invoke(app, ["tools", "lint", "everything.sample.test", "--db", str(db_file), "--json"])
    rows = json.loads(result.stdout)
    assert len(rows) > 5 and (result.exit_code, rows) == (expected_code, as_rows(report))


def _anchor(endpoint: str) -> dict:
    return {
        "anchor": "0.1",
        "updated": "2026-12-01",
        "publisher": {
            "name": "Everything",
            "url": "https://everything.sample.test",
            "contact": "a@everything.sample.test",
        },
        "tools": [
            {
                "id": "test.everything/all",
                "kind": "mcp",
                "name": "Everything",
                "description": "The MCP SDK's reference server.",
                "endpoint": endpoint,
                "transport": "streamable-http",
                "auth": ["none"],
            }
        ],
    }


async def _reply(doc: dict):
    return json_reply(doc)
