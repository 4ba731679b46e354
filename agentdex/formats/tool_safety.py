"""Flags for tool descriptions that carry instructions aimed at the agent reading them. Pure.

A tool's name, description, annotations and input schema are written by the server's
author and read by an AI model as if they were trusted. "Tool poisoning" hides orders in
them: an ``<IMPORTANT>`` block the user never sees, "ignore previous instructions", a
request to read ``~/.ssh/id_rsa`` or the conversation and pass it along, a URL to send it
to, or text made invisible with bidi overrides, zero-width or tag characters.

agentdex stores such tools verbatim and flags them; it never acts on what they say (it
never calls a tool at all). The flags are heuristics meant for a human reviewer: each one
names the field, the exact character span and why it was flagged.

The scan is bounded: it reads the first ``SCAN_CHARS`` characters of each text (a longer
text is flagged ``tool_text_too_long``: nobody reviews megabytes, and orders may hide past
what is read), at most ``MAX_STRINGS`` strings and ``TOOL_SCAN_CHARS`` characters of a tool.
Its cost is still linear in what it reads, with a large constant for hostile text (several
microseconds a character), so the crawler runs it in a worker thread (:func:`check_tools`
there, before the store asks :func:`check_tool` again): results are kept in a small cache
keyed by the texts.

Public API::

    check_tool(name, description="", input_schema=None, annotations=None) -> list[ToolFlag]
    check_tools(tools) -> None     scan a list of Tool objects ahead (fills the cache)
    ToolFlag(code, reason, field, start, end, excerpt)   .to_finding(tool_name) -> Finding

The codes (``tool_*``) and their meaning are in :mod:`agentdex.formats.codes`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agentdex.models import Finding
from agentdex.text import invisible_spans, plain

MAX_STRINGS = 500  # strings read from one tool's schema and annotations, at most
MAX_FLAGS = 20  # flags kept per tool: enough to act on, bounded for a hostile server
EXCERPT_CHARS = 120
SCAN_CHARS = 65_536  # characters of one text read for instructions
TOOL_SCAN_CHARS = 4 * SCAN_CHARS  # characters of all of one tool's texts together


_VERB = (
    r"(?:read|open|cat|load|include|attach|pass|send|provide|copy|extract|collect|upload|paste|share|print"
    r"|output|return)"
)
_LOCAL = (
    r"(?:~/|\$HOME/|%USERPROFILE%)[\w./-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.ssh\b|\.aws/credentials"
    r"|\.npmrc\b|\.netrc\b|(?<![\w.])\.env\b|/etc/(?:passwd|shadow)\b|\bprivate[ _-]?keys?\b|\bapi[ _-]?keys?\b"
    r"|\bsecret[ _-]?keys?\b"
    r"|\baccess[ _-]?tokens?\b|\bcredentials?\b|\bpasswords?\b|\bconversation(?: history)?\b|\bchat history\b"
    r"|\b(?:previous|prior|earlier) messages\b|\bsystem prompt\b|\bmcp\.json\b|claude_desktop_config"
)
_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "tool_hidden_block",
        "a tag-delimited block of orders for the model",
        re.compile(
            r"<\s*(important|system|instructions?|secret|hidden|admin|assistant|prompt|context)\b[^>]{0,80}>"
            r"(?:[\s\S]{0,5000}?<\s*/\s*\1\s*>)?"
            r"|<!--[\s\S]{0,2000}?-->",
            re.I,
        ),
    ),
    (
        "tool_override",
        "it tells the model to set aside its instructions or to hide something from the user",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|other|system)\b"
            r"[^.\n]{0,20}?\b(?:instructions?|prompts?|messages?|rules|guidelines)\b"
            r"|\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify)\b[^\n]{0,80}?\buser\b"
            r"|\byou are now\b|\bnew instructions\b",
            re.I,
        ),
    ),
    (
        "tool_reads_local",
        "it asks the model to read local files, keys, credentials or the conversation",
        re.compile(rf"\b{_VERB}\b[^.\n]{{0,80}}?(?:{_LOCAL})", re.I),
    ),
    (
        "tool_sends_elsewhere",
        "it asks the model to send data to a URL or address",
        re.compile(
            r"\b(?:send|post|forward|upload|transmit|exfiltrate|e-?mail|leak|report)\b[^.\n]{0,80}?"
            r"(?:https?://[^\s\"'<>]+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
            re.I,
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class ToolFlag:
    """One reason to distrust a tool text: the code, why, the field and the exact span."""

    code: str
    reason: str
    field: str  # "description", "name", "annotations.title", "inputSchema.properties.q.description"
    start: int
    end: int
    excerpt: str  # the flagged characters, exactly as the server sent them

    def to_finding(self, tool_name: str) -> Finding:
        """A warning located at ``tools[<name>].<field>``; the excerpt shown inert."""
        shown = plain(self.excerpt, EXCERPT_CHARS, single_line=True)
        message = (
            f"tool {plain(tool_name, 80)!r}: {self.reason} (characters {self.start}-{self.end} "
            f"of {self.field}: {shown!r}); stored as sent, never acted on"
        )
        return Finding("warning", f"tools[{plain(tool_name, 80)}].{self.field}", self.code, message)


def check_tool(name: str, description: str = "", input_schema: Any = None, annotations: Any = None) -> list[ToolFlag]:
    """Every flag raised by a tool's texts (name, description, annotations, schema), at
    most ``MAX_FLAGS``; an empty list when nothing looks like an instruction."""
    return list(_check_texts(tuple(_texts(name, description, input_schema, annotations))))


def check_tools(tools: Iterable[Any]) -> None:
    """Scan every tool (objects with ``name``, ``description``, ``input_schema`` and
    ``annotations``) ahead of :func:`check_tool`, whose answers for them are then cached:
    the crawler calls this in a worker thread, off its event loop."""
    for tool in tools:
        check_tool(tool.name, tool.description, tool.input_schema, tool.annotations)


@functools.lru_cache(maxsize=1024)
def _check_texts(texts: tuple[tuple[str, str], ...]) -> tuple[ToolFlag, ...]:
    flags: list[ToolFlag] = []
    left = TOOL_SCAN_CHARS
    for field, text in texts:
        if left <= 0 or len(flags) >= MAX_FLAGS:
            break
        flags.extend(check_text(text, field, min(SCAN_CHARS, left)))
        left -= len(text)
    return tuple(flags[:MAX_FLAGS])


def check_text(text: str, field: str, limit: int = SCAN_CHARS) -> list[ToolFlag]:
    """The flags one string raises (its first ``limit`` characters are read)."""
    flags = []
    if len(text) > limit:
        flags.append(
            ToolFlag(
                "tool_text_too_long",
                f"it is {len(text)} characters long; only the first {limit} were read for instructions",
                field,
                limit,
                len(text),
                text[limit : limit + 40],
            )
        )
        text = text[:limit]
    flags += [
        ToolFlag(code, reason, field, m.start(), m.end(), m.group())
        for code, reason, pattern in _PATTERNS
        for m in pattern.finditer(text)
    ]
    flags += [
        ToolFlag("tool_invisible_text", f"it holds invisible {kind} characters", field, start, end, text[start:end])
        for start, end, kind in invisible_spans(text)
    ]
    return sorted(flags, key=lambda f: (f.start, f.code))


def _texts(name: str, description: str, input_schema: Any, annotations: Any) -> Iterator[tuple[str, str]]:
    yield "name", str(name or "")
    yield "description", str(description or "")
    budget = [MAX_STRINGS]
    yield from _strings(annotations, "annotations", budget)
    yield from _strings(input_schema, "inputSchema", budget)


def _strings(value: Any, path: str, budget: list[int], depth: int = 0) -> Iterator[tuple[str, str]]:
    """Every string (keys included) inside a JSON value, bounded in count and depth."""
    if budget[0] <= 0 or depth > 32:
        return
    if isinstance(value, str):
        budget[0] -= 1
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            budget[0] -= 1
            yield f"{path} key", str(key)
            yield from _strings(item, f"{path}.{key}", budget, depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]", budget, depth + 1)
