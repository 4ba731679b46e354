"""Every verification check agentdex runs: its name, its group and what it means.

This catalogue is the single source of ``docs/checks.md`` and of the Datasette descriptions
of the ``check_status`` columns (``python scripts/gen_checks_doc.py`` writes both; tests keep
them equal). The verifier (:mod:`agentdex.crawler.verify`) runs one runner per group, in the
order of :data:`GROUPS`, and a runner emits only the checks of its group.

A check is stored as ``{name, status, detail}``; ``status`` is one of :data:`STATUSES`.
The names are a stable contract (DESIGN.md): add checks, never rename one. A new check is
one entry here and its runner's result: the ``check_status`` view gets its column when a
writer next opens the catalogue (:mod:`agentdex.db.views`).

Plain data, importing nothing of agentdex, so the docs and Datasette read it without the
crawler.
"""

from __future__ import annotations

from dataclasses import dataclass

STATUSES: dict[str, str] = {
    "pass": "the claim holds",
    "fail": "the claim does not hold",
    "warn": "it holds only in part, or could not be decided (a resolver or registry that did not answer)",
    "skip": "the listing makes no such claim, or the check needs something agentdex never does",
}

GROUPS: dict[str, str] = {
    "manifest": "The answer at the manifest's well-known path (agent-app and Anchor manifests).",
    "documents": "The documents the listing declares, as the crawl fetched them.",
    "links": "The pages the listing links to.",
    "mcp": "The MCP endpoint, asked only for server/discover, initialize and tools/list, in both eras of the "
    "protocol (no tool is ever called).",
    "http": "The HTTP API the listing declares.",
    "feedback": "The feedback route (read with a safe GET; nothing is ever submitted).",
    "anchor": "Anchor ownership proofs, read-only variants and live x402 prices (Anchor listings only).",
    "x402": "The paid resources an origin's /.well-known/x402 document declares on its own origin, each asked "
    "once without paying (at most 5 an origin).",
}


@dataclass(frozen=True, slots=True)
class CheckInfo:
    """One check: its stable name, its group (a key of :data:`GROUPS`) and what passing means."""

    name: str
    group: str
    meaning: str

    @property
    def column(self) -> str:
        """Its column in the ``check_status`` view (dots become underscores)."""
        return self.name.replace(".", "_")


CHECKS: dict[str, CheckInfo] = {
    c.name: c
    for c in (
        CheckInfo(
            "manifest.location", "manifest", "The manifest is served at its well-known location, without redirects."
        ),
        CheckInfo("manifest.content_type", "manifest", "The manifest is served as application/json."),
        CheckInfo("manifest.cors", "manifest", "The manifest carries Access-Control-Allow-Origin: *."),
        CheckInfo("manifest.size", "manifest", "The manifest is within its size limit (32 KB for agent-app)."),
        CheckInfo("guide.reachable", "documents", "The agent guide answers, as text."),
        CheckInfo("llms_txt.reachable", "documents", "llms.txt answers, as text."),
        CheckInfo("skill.reachable", "documents", "SKILL.md answers with its frontmatter."),
        CheckInfo("homepage.reachable", "links", "The homepage answers."),
        CheckInfo("policies.privacy", "links", "The privacy policy answers."),
        CheckInfo("policies.terms", "links", "The terms answer."),
        CheckInfo(
            "mcp.initialize",
            "mcp",
            "The MCP endpoint answers server/discover (revision 2026-07-28) or initialize (or asks for the "
            "auth it declares).",
        ),
        CheckInfo("mcp.tools", "mcp", "The MCP server lists its tools."),
        CheckInfo(
            "mcp.eras",
            "mcp",
            "An MCP endpoint that answers both eras of the protocol (2026-07-28 and the initialize handshake) "
            "lists the same tools in each.",
        ),
        CheckInfo("http.base", "http", "The HTTP API base answers."),
        CheckInfo("http.openapi", "http", "The OpenAPI document is OpenAPI 3.x."),
        CheckInfo("http.capabilities", "http", "The capabilities document is JSON."),
        CheckInfo("feedback.descriptor", "feedback", "The feedback descriptor is consistent and its endpoint exists."),
        CheckInfo("anchor.verify.dns", "anchor", "Anchor ownership proof: the DNS TXT record carries anchor-verify."),
        CheckInfo(
            "anchor.verify.http",
            "anchor",
            "Anchor ownership proof: endpoints share the origin's registrable domain and respond.",
        ),
        CheckInfo(
            "anchor.verify.registry", "anchor", "Anchor ownership proof: the MCP registry lists the same endpoint."
        ),
        CheckInfo(
            "anchor.read_only_variant", "anchor", "Every declared read-only variant exposes only read-only tools."
        ),
        CheckInfo("anchor.payments", "anchor", "The live x402 price matches the declared one."),
        CheckInfo(
            "x402.live_price",
            "x402",
            "Each paid resource of the x402 discovery document answers an unpaid request with 402, "
            "offering the declared terms (network, asset, scheme, payee, price).",
        ),
    )
}


def in_group(group: str) -> tuple[str, ...]:
    """The names of the checks of ``group``, in catalogue order."""
    return tuple(name for name, info in CHECKS.items() if info.group == group)
