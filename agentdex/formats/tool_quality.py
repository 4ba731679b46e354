"""Tool-definition quality: Glama's TDQS lint, the deterministic stages, no model. Pure.

The Tool Definition Quality Score (TDQS, specification 1.2, github.com/glama-ai/
tool-definition-quality-score) scores how well an MCP tool definition tells an agent what
it does. Its lint needs no model and no key: the context signals of each tool (parameter
counts, schema description coverage, annotation values, invocation cost, the definition's
hash and size), the hard gates (no description, a description that restates the name or
title), the shadow prefilter across a server's tools, and the checklist the specification
ranks highest. This module computes exactly what the reference implementation's ``lint``
does (``tdqs`` 0.1.0 on PyPI, Apache-2.0; the findings' wording is the reference's, so a
finding here reads as it does on Glama), with the same ``inputHash``, so a hash matches the
one Glama publishes for the same definition. ``tests/test_tool_quality_reference.py`` runs
both on the same inputs. Where the reference stalls or fails (schemas whose ``$ref``s fan
out, nesting past its recursion limit) this stays bounded: see :mod:`._tdqs_stages`.

The scored rubric (six dimensions judged by a model) is not here: agentdex never calls a
model by itself.

Public API::

    SPEC_VERSION                          "1.2", stored with every result
    parse_tools(data) -> list[dict]       a tools/list result, a list of tools or one tool,
                                          as the reference reads them; raises RefusedTools
    definitions(items) -> list[dict]      the items of a tools/list, the same way
    lint(definitions) -> ServerLint       the lint of one server's tool set
    lint_tools(tools) -> ServerLint | str the lint of the Tools a probe listed, or why not
    RULES                                 {rule: (severity, summary)}
"""

from __future__ import annotations

import bisect
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentdex.formats._tdqs_stages import Subtree, TooDeep, canonical_json, required_subtree
from agentdex.models import Tool

SPEC_VERSION = "1.2"
REFERENCE = "tdqs 0.1.0"
# The reference refuses a set of more tools than this (its coherence prompt lists them all).
MAX_TOOLS = 500
SEVERITIES = ("error", "warning", "info")
# Where a Tool listed by tools/list keeps the scoring inputs as the server sent them (the
# hash tells an absent description from an empty one; agentdex's Tool does not).
DEFINITION = "tdqs_definition"

RULES: dict[str, tuple[str, str]] = {
    "no-description": ("error", "The tool has no description: every dimension scores 1."),
    "tautological-description": ("error", "The description restates the tool's name or title."),
    "missing-annotations": ("warning", "No MCP annotations: the description carries all behavioral disclosure."),
    "undocumented-parameters": ("warning", "Parameters lack schema descriptions (below 80% coverage)."),
    "no-output-schema": ("info", "No output schema: the description has to explain return values."),
    "shadow-candidate": ("warning", "A much cheaper sibling may answer the same question."),
}

# String.prototype.trim's characters (ECMAScript WhiteSpace and LineTerminator), which the
# hard gates trim by; str.strip() trims another set.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# The six scoring inputs, by the spelling the reference reads first and its snake-case alias.
_FIELDS = (
    ("annotations", "annotations", dict),
    ("description", "description", str),
    ("inputSchema", "input_schema", dict),
    ("name", "name", str),
    ("outputSchema", "output_schema", dict),
    ("title", "title", str),
)

# Every member the reference reads (alias first, as pydantic does, then the field's own name).
INPUT_KEYS = tuple(sorted({key for pair in _FIELDS for key in pair[:2]}))


class RefusedTools(ValueError):
    """The reference refuses this input as a whole (its message says why)."""


@dataclass(frozen=True, slots=True)
class LintFinding:
    """One finding: the rule, its severity and the message naming the fix."""

    rule: str
    severity: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{rule, severity, message}``."""
        return {"rule": self.rule, "severity": self.severity, "message": self.message}


@dataclass(frozen=True, slots=True)
class LintedTool:
    """One tool's lint: its ``inputHash``, hard-gate flags, context signals (the
    specification's names and values) and findings; ``note`` when a budget cut it short."""

    name: str
    input_hash: str
    flags: tuple[str, ...]
    signals: dict[str, Any]
    findings: tuple[LintFinding, ...]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ShadowCandidate:
    """A tool at least twice as costly to call (and 4 more) as a sibling that may do its job."""

    tool: str
    cheaper_sibling: str
    invocation_cost: int
    cheaper_sibling_invocation_cost: int

    def to_dict(self) -> dict[str, Any]:
        """The specification's spelling."""
        return {
            "tool": self.tool,
            "cheaperSibling": self.cheaper_sibling,
            "invocationCost": self.invocation_cost,
            "cheaperSiblingInvocationCost": self.cheaper_sibling_invocation_cost,
        }


@dataclass(frozen=True, slots=True)
class ServerLint:
    """The lint of one server's tool set, with the specification version it follows."""

    tools: tuple[LintedTool, ...]
    shadow_candidates: tuple[ShadowCandidate, ...]
    spec_version: str = SPEC_VERSION
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def with_findings(self) -> int:
        """How many tools have at least one finding."""
        return sum(1 for tool in self.tools if tool.findings)


# --- input ----------------------------------------------------------------------------------


def parse_tools(data: object) -> list[dict[str, Any]]:
    """The tool definitions of ``data`` (``{"tools": [...]}``, a list of tools or one tool),
    each reduced to its six scoring inputs, as the reference accepts them.

    :raises RefusedTools: the reference would refuse it (the message says why)
    """
    if isinstance(data, list):
        candidates = data
    elif isinstance(data, dict) and isinstance(data.get("tools"), list):
        candidates = data["tools"]
    elif isinstance(data, dict) and isinstance(data.get("name"), str):
        candidates = [data]
    else:
        raise RefusedTools('expected a tools/list result ({"tools": [...]}), a list of tools or one tool')
    return definitions(candidates)


def definitions(candidates: Sequence[object]) -> list[dict[str, Any]]:
    """Each of ``candidates`` (the items of a ``tools/list``) as :func:`definition` reads it.

    :raises RefusedTools: none, more than ``MAX_TOOLS``, one invalid or two of one name
    """
    if not candidates:
        raise RefusedTools("no tool definitions were supplied")
    if len(candidates) > MAX_TOOLS:
        raise RefusedTools(f"too many tools: {len(candidates):,} (TDQS lints at most {MAX_TOOLS})")
    found, seen = [], set()
    for index, candidate in enumerate(candidates):
        tool = definition(candidate, index)
        if tool["name"] in seen:
            raise RefusedTools(f"{_which(candidate, index)} repeats an earlier tool's name")
        seen.add(tool["name"])
        found.append(tool)
    return found


def lint_tools(tools: Sequence[Tool]) -> ServerLint | str:
    """The lint of the tools a ``tools/list`` gave (each keeps what the server sent under
    ``detail[DEFINITION]``; one without it is read from its fields), or why TDQS refuses them."""
    try:
        return lint(definitions([_sent(tool) for tool in tools]))
    except RefusedTools as exc:
        return str(exc)


def _sent(tool: Tool) -> object:
    sent = (tool.detail or {}).get(DEFINITION)
    if sent is not None:
        return sent
    return {
        "name": tool.name,
        "description": tool.description or None,
        "inputSchema": tool.input_schema,
        "annotations": tool.annotations or None,
    }


def definition(candidate: object, index: int = 0) -> dict[str, Any]:
    """One tool's six scoring inputs (absent or null: ``None``); unknown members dropped.

    :raises RefusedTools: not an object, no name, or a member of the wrong type
    """
    if not isinstance(candidate, dict):
        raise RefusedTools(f"{_which(candidate, index)} is not an object")
    found: dict[str, Any] = {}
    for key, alias, kind in _FIELDS:
        value = candidate[key] if key in candidate else candidate.get(alias)
        if value is not None and not isinstance(value, kind):
            raise RefusedTools(f"{_which(candidate, index)}: {key} must be {_KIND[kind]}")
        found[key] = value
    if not found["name"]:
        raise RefusedTools(f"{_which(candidate, index)} has no name")
    return found


_KIND = {dict: "an object", str: "a string"}


def _which(candidate: object, index: int) -> str:
    name = candidate.get("name") if isinstance(candidate, dict) else None
    return f"tool #{index + 1}" + (f" ({name[:80]!r})" if isinstance(name, str) else "")


# --- stages 1 and 2 ---------------------------------------------------------------------------


def _hint(annotations: Mapping[str, Any] | None, hint: str) -> bool | None:
    value = annotations.get(hint) if annotations else None
    return value if isinstance(value, bool) else None


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _parameters(schema: Mapping[str, Any] | None) -> dict[str, int]:
    """The top-level parameter counts (``inputSchema.properties`` only)."""
    properties = schema.get("properties") if schema is not None else None
    values = list(properties.values()) if isinstance(properties, dict) else []
    described = enums = nested = 0
    for value in values:
        if not isinstance(value, dict):
            continue
        text = value.get("description")
        described += isinstance(text, str) and len(text) > 0
        enums += isinstance(value.get("enum"), list)
        nested = nested or value.get("type") == "object"
    required = schema.get("required") if schema is not None else None
    return {
        "paramCount": len(values),
        "paramsWithDescriptions": described,
        "paramsWithEnums": enums,
        "hasNestedObjects": bool(nested),
        "requiredParamCount": len(required) if isinstance(required, list) else 0,
    }


def context_signals(tool: Mapping[str, Any], subtree: Subtree) -> dict[str, Any]:
    """Stage 1: the structural facts of one definition, in the specification's spelling."""
    serialized = canonical_json({key: tool.get(key) for key, _, _ in _FIELDS}).encode("utf-8")
    annotations = tool.get("annotations") or None
    counts = _parameters(tool.get("inputSchema"))
    total, described = counts["paramCount"], counts["paramsWithDescriptions"]
    title, name = tool.get("title"), tool["name"]
    return {
        "annotationValues": {
            "destructive": _hint(annotations, "destructiveHint"),
            "idempotent": _hint(annotations, "idempotentHint"),
            "openWorld": _hint(annotations, "openWorldHint"),
            "readOnly": _hint(annotations, "readOnlyHint"),
        },
        "definitionBytes": len(serialized),
        "hasAnnotations": annotations is not None,
        "hasNestedObjects": counts["hasNestedObjects"],
        "hasOutputSchema": bool(tool.get("outputSchema")),
        "inputHash": hashlib.sha256(serialized).hexdigest()[:16],
        "invocationCost": subtree.invocation_cost,
        "paramCount": total,
        "paramsWithDescriptions": described,
        "paramsWithEnums": counts["paramsWithEnums"],
        "requiredFieldCount": subtree.required_field_count,
        "requiredParamCount": counts["requiredParamCount"],
        "schemaDepth": subtree.schema_depth,
        # Math.round (ties up) of the same double the reference computes
        "schemaDescriptionCoverage": math.floor(described / total * 100 + 0.5) if total else 100,
        "titleIsMeaningful": title is not None and title != name and _utf16_length(title) > _utf16_length(name),
        "unionChoiceCount": subtree.union_choice_count,
    }


def hard_gates(tool: Mapping[str, Any]) -> tuple[str, ...]:
    """Stage 2: ``No Description`` or ``Tautological Description`` (compared lowercased and
    trimmed as JavaScript trims), or nothing."""
    description = (tool.get("description") or "").strip(_JS_WHITESPACE)
    if not description:
        return ("No Description",)
    title = tool.get("title")
    names = (
        tool["name"].lower().strip(_JS_WHITESPACE),
        title.lower().strip(_JS_WHITESPACE) if title is not None else None,
    )
    return ("Tautological Description",) if description.lower() in names else ()


# --- the checklist ----------------------------------------------------------------------------
# The messages are the reference's, word for word: a finding reads here as it does on Glama.


def tool_findings(name: str, flags: tuple[str, ...], signals: Mapping[str, Any]) -> list[LintFinding]:
    """The findings of one tool, in the reference's order (the shadow prefilter's come later)."""
    found = []
    if "No Description" in flags:
        found.append(
            _finding(
                "no-description",
                f"{name} has no description. Every dimension scores 1 and the tool is tier D without an LLM call.",
            )
        )
    if "Tautological Description" in flags:
        found.append(
            _finding(
                "tautological-description",
                f"{name}'s description restates its name or title, so Purpose Clarity is capped at 2. "
                "Say what the tool does in one specific sentence: verb, resource, scope.",
            )
        )
    if all(value is None for value in signals["annotationValues"].values()):
        found.append(
            _finding(
                "missing-annotations",
                f"{name} declares no MCP annotations (readOnlyHint, destructiveHint, idempotentHint, "
                "openWorldHint). Without them the description carries the full behavioral disclosure "
                "burden; with them it can spend its words on what annotations cannot express.",
            )
        )
    found.extend(_coverage_findings(name, signals))
    if not signals["hasOutputSchema"]:
        found.append(
            _finding(
                "no-output-schema",
                f"{name} has no output schema, so the description has to explain return values itself. "
                "Providing one lets the description spend those words elsewhere.",
            )
        )
    return found


def _coverage_findings(name: str, signals: Mapping[str, Any]) -> list[LintFinding]:
    count, coverage = signals["paramCount"], signals["schemaDescriptionCoverage"]
    if count == 0 or coverage >= 80:
        return []
    said = (
        f"{name}: {signals['paramsWithDescriptions']} of {count} parameters have a schema description "
        f"({coverage}% coverage)"
    )
    if coverage < 50:
        return [
            _finding(
                "undocumented-parameters",
                f"{said}. Below 50% the description must document the rest itself, or Parameter Semantics "
                "pays for the gap.",
            )
        ]
    return [
        _finding(
            "undocumented-parameters",
            f"{said}. Above 80% the schema does the work and lifts the Parameter Semantics baseline to 3 on its own.",
            "info",
        )
    ]


def _finding(rule: str, message: str, severity: str | None = None) -> LintFinding:
    return LintFinding(rule, severity or RULES[rule][0], message)


def _shadow_finding(candidate: ShadowCandidate) -> LintFinding:
    return _finding(
        "shadow-candidate",
        f"{candidate.tool} (invocation cost {candidate.invocation_cost}) may be shadowed by "
        f"{candidate.cheaper_sibling} (cost {candidate.cheaper_sibling_invocation_cost}): if both can answer "
        "the same question, an agent tends toward the cheaper call. Only the coherence evaluation can "
        "confirm the purposes overlap; if they do, make them disjoint and say so in both descriptions, "
        "or collapse the pair.",
    )


def shadow_candidates(costs: Sequence[tuple[str, int]]) -> list[ShadowCandidate]:
    """The shadow prefilter over ``(name, invocation cost)`` pairs: for each tool, the dearest
    sibling it costs at least twice as much as, and 4 more (equal costs: the name first in
    UTF-16 order). Sorted once, so a set of n tools costs n log n, not n squared."""
    cheapest_name: dict[int, str] = {}
    for name, cost in costs:
        known = cheapest_name.get(cost)
        if known is None or _utf16(name) < _utf16(known):
            cheapest_name[cost] = name
    levels = sorted(cheapest_name)
    found = []
    for name, cost in costs:
        # qualifies: cost >= 2 * sibling and cost - sibling >= 4; a tool never qualifies against itself
        limit = min(cost // 2, cost - 4)
        at = bisect.bisect_right(levels, limit) - 1
        if at >= 0:
            sibling = levels[at]
            found.append(ShadowCandidate(name, cheapest_name[sibling], cost, sibling))
    return found


def _utf16(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


# --- the lint ---------------------------------------------------------------------------------


def lint(definitions: Sequence[Mapping[str, Any]]) -> ServerLint:
    """The TDQS lint of one server's tools (each as :func:`definition` returns it, names
    unique): each tool's signals, flags and findings, the shadow candidates across the set and
    the counts of findings by severity.

    :raises RefusedTools: a definition nests deeper than the serializer's bound
    """
    linted = [_lint_one(tool) for tool in definitions]
    candidates = shadow_candidates([(tool.name, tool.signals["invocationCost"]) for tool in linted])
    shadowed = {candidate.tool: _shadow_finding(candidate) for candidate in candidates}
    tools = tuple(tool if tool.name not in shadowed else _with(tool, shadowed[tool.name]) for tool in linted)
    counts = dict.fromkeys(SEVERITIES, 0)
    for tool in tools:
        for found in tool.findings:
            counts[found.severity] += 1
    return ServerLint(tools, tuple(candidates), SPEC_VERSION, counts)


def _lint_one(tool: Mapping[str, Any]) -> LintedTool:
    subtree = required_subtree(tool.get("inputSchema"))
    try:
        signals = context_signals(tool, subtree)
    except TooDeep as exc:
        raise RefusedTools(f"{str(tool['name'])[:80]!r}: {exc}") from None
    flags = hard_gates(tool)
    note = (
        "its input schema's required subtree was too large to walk in full; the invocation cost counts what was reached"
        if subtree.cut_short
        else None
    )
    return LintedTool(
        tool["name"], signals["inputHash"], flags, signals, tuple(tool_findings(tool["name"], flags, signals)), note
    )


def _with(tool: LintedTool, extra: LintFinding) -> LintedTool:
    return LintedTool(tool.name, tool.input_hash, tool.flags, tool.signals, (*tool.findings, extra), tool.note)
