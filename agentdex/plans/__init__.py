"""Install plans: a stored listing in, the exact steps for each AI host out. Pure.

A plan names the MCP server after the origin host (dots become hyphens), uses the auth the
manifest declares, returns the publisher's instruction line verbatim for the user's consent,
says where the skill goes, and carries the listing's ``hosts[]`` status for that host
("not stated" when the listing says nothing). When the app's own guide names another MCP
URL or install command, the plan says the guide wins and shows what it says.
"""

from __future__ import annotations

import difflib
import re
import shlex

from agentdex.models import Listing
from agentdex.plans.hosts import ALIASES, HOSTS, SPEC_HOSTS, Host
from agentdex.plans.model import NOT_STATED, Context, Plan, Step, choose_auth, server_name, token_env

__all__ = [
    "HOST_IDS",
    "SPEC_HOSTS",
    "Plan",
    "Step",
    "plan_for",
    "plans_for",
    "guide_mentions",
    "host_id",
    "host_choices",
    "similar_host",
]

HOST_IDS = tuple(HOSTS)
_URL_RE = re.compile(r"https://[^\s<>\"'`)\]]+")
_INSTALL_RE = re.compile(
    r"^\s*(?:\$\s*)?((?:claude|codex|gemini|grok|openclaw|code)\s+(?:mcp\s+(?:add|set)|--add-mcp)\b.*)$", re.M
)


def _spelling(text: str) -> str:
    """A host name as typed, reduced to what tells hosts apart: case, spaces, hyphens and
    underscores do not matter ("Claude Code", "claude-code" and "claude_code" are one)."""
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


def _spellings() -> dict[str, str]:
    names = {_spelling(h): h for h in HOSTS}
    for host, spec in HOSTS.items():
        names.setdefault(_spelling(spec.name), host)
        names.setdefault(_spelling(re.sub(r"\s*\(.*\)$", "", spec.name)), host)  # "VS Code (GitHub Copilot)"
        for alias in ALIASES.get(host, ()):
            names.setdefault(_spelling(alias), host)
    return names


SPELLINGS = _spellings()


def host_id(text: str) -> str | None:
    """The canonical id of the host ``text`` names (an id, a display name or a common
    spelling of either, in any case, with hyphens or spaces); None when it names none."""
    return SPELLINGS.get(_spelling(text))


def similar_host(text: str) -> str | None:
    """The host id whose spelling is closest to ``text`` (a typo), if any is close."""
    close = difflib.get_close_matches(_spelling(text), SPELLINGS, n=1, cutoff=0.75)
    return SPELLINGS[close[0]] if close else None


def host_choices() -> str:
    """The hosts in words, for a message that lists them: ``claude_code (Claude Code), …``."""
    return ", ".join(f"{h} ({HOSTS[h].name})" for h in HOST_IDS)


def plans_for(listing: Listing, guide_text: str | None = None) -> dict[str, Plan]:
    """A plan for every host agentdex knows, keyed by host id."""
    return {host: plan_for(listing, host, guide_text=guide_text) for host in HOST_IDS}


def plan_for(listing: Listing, host: str, *, guide_text: str | None = None) -> Plan:
    """The plan for one host (``KeyError`` for a host id agentdex does not know)."""
    spec = HOSTS[host]
    origin = listing.origin or "app"
    name = server_name(origin)
    status, notes = _host_status(listing, host)
    plan = Plan(
        host=host,
        host_name=spec.name,
        listing_origin=origin,
        server_name=name,
        kind="none",
        auth="n/a",
        supported=False,
        host_status=status,
        host_notes=notes,
        confidence=spec.confidence,
        instruction=listing.instructions,
        instruction_target=spec.instruction_target,
        skill_url=listing.skill_url,
    )
    if listing.mcp_url:
        _mcp_plan(plan, spec, listing, name)
    elif listing.http_base:
        _http_plan(plan, listing)
    else:
        plan.notes.append("The listing declares neither an MCP endpoint nor an HTTP API: there is nothing to install.")
    _instruction_and_skill(plan, spec, listing, name)
    _guide_wins(plan, listing, guide_text)
    return plan


def _host_status(listing: Listing, host: str) -> tuple[str, str | None]:
    for entry in listing.hosts:
        if entry.get("host") == host:
            return entry.get("status") or NOT_STATED, entry.get("notes")
    return NOT_STATED, None


def _mcp_plan(plan: Plan, spec: Host, listing: Listing, name: str) -> None:
    auth = choose_auth(listing.mcp_auth)
    ctx = Context(name=name, url=listing.mcp_url, token_env=token_env(name), auth=auth, listing=listing)
    steps, supported, notes = spec.mcp(ctx)
    plan.kind, plan.auth, plan.supported = "mcp", auth, supported
    plan.steps.extend(steps)
    plan.notes.extend(notes)
    if auth == "bearer" and supported:
        plan.notes.insert(0, f"The server takes a bearer token: set {ctx.token_env} to the token the app gives you.")


def _http_plan(plan: Plan, listing: Listing) -> None:
    plan.kind, plan.auth, plan.supported = "http_api", "n/a", True
    lines = [
        "This app has an HTTP API and no MCP server. Give your agent the guide and the API base:",
        f"Guide: {listing.guide_url or '(none declared)'}",
        f"API base: {listing.http_base}",
    ]
    if listing.http_openapi:
        lines.append(f"OpenAPI: {listing.http_openapi}")
    plan.steps.append(Step("note", "Use the HTTP API through its guide", "\n".join(lines), language="text"))


def _instruction_and_skill(plan: Plan, spec: Host, listing: Listing, name: str) -> None:
    if listing.instructions and spec.instruction_target:
        plan.steps.append(
            Step(
                "note",
                f"Add the app's instruction line to {spec.instruction_target} (after the user agrees)",
                listing.instructions,
                language="text",
            )
        )
    elif not listing.instructions:
        plan.notes.append("The app publishes no instruction line.")
    if listing.skill_url:
        plan.skill_steps = _skill_steps(spec, listing.skill_url, name)


def _skill_steps(spec: Host, skill_url: str, name: str) -> list[Step]:
    if spec.skill_dir is None:
        text = spec.skill_note or "agentdex knows no documented skills location for this host."
        return [Step("note", "Install the skill", f"{text}\nSkill: {skill_url}", language="text")]
    folder = spec.skill_dir.format(skill=name)
    cmd = (
        f"mkdir -p {_home_quote(folder)} && curl -fsSL {shlex.quote(skill_url)} -o {_home_quote(folder + '/SKILL.md')}"
    )
    return [Step("command", f"Install the skill into {folder}", cmd, language="sh")]


def _home_quote(path: str) -> str:
    """Quote a path for the shell while keeping a leading ``~/`` expandable."""
    if path.startswith("~/"):
        return "~/" + shlex.quote(path[2:])
    return shlex.quote(path)


def guide_mentions(guide_text: str) -> dict[str, list[str]]:
    """MCP URLs and install commands a guide names (pure text scan)."""
    urls = [u.rstrip(".,;:") for u in _URL_RE.findall(guide_text)]
    mcp_urls = [u for u in urls if re.search(r"/mcp(/|$|\?)", u) or "mcp." in u.split("/")[2]]
    commands = [m.strip() for m in _INSTALL_RE.findall(guide_text)]
    return {"mcp_urls": list(dict.fromkeys(mcp_urls)), "install_commands": list(dict.fromkeys(commands))}


def _guide_wins(plan: Plan, listing: Listing, guide_text: str | None) -> None:
    if not guide_text:
        return
    said = guide_mentions(guide_text)
    other_urls = [u for u in said["mcp_urls"] if u != listing.mcp_url]
    if other_urls or said["install_commands"]:
        plan.guide_says = {"mcp_urls": other_urls, "install_commands": said["install_commands"]}
        plan.notes.append(
            "The app's own guide names "
            + _what(other_urls, said["install_commands"])
            + "; where it differs from this plan, the guide wins."
        )


def _what(urls: list[str], commands: list[str]) -> str:
    parts = []
    if urls:
        parts.append("another MCP URL (" + ", ".join(urls[:3]) + ")")
    if commands:
        parts.append("its own install command (" + commands[0] + ")")
    return " and ".join(parts)
