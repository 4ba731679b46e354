"""One template per AI host, from the researched facts in ``shared/install-hosts.md``.

Each host says how to add a remote (Streamable HTTP) MCP server for each auth kind, where
the instruction line goes and where a skill is installed. Where a host documents no way
(a bearer token on a web host, or a host with no documentation at all) the template says so
instead of guessing. Every URL and name that reaches a shell command is shell-quoted and
every config value is JSON/TOML-encoded: a listing's URL is untrusted text.
"""

from __future__ import annotations

import base64
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from agentdex.plans.model import Context, Step

McpSteps = Callable[[Context], tuple[list[Step], bool, list[str]]]


@dataclass(frozen=True, slots=True)
class Host:
    """What agentdex knows about one AI host."""

    id: str
    name: str
    confidence: str
    mcp: McpSteps
    instruction_target: str | None
    skill_dir: str | None  # "{skill}" is replaced by the skill's folder name
    skill_note: str = ""


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _bearer_header(ctx: Context, template: str) -> dict[str, str]:
    return {"Authorization": "Bearer " + template.format(env=ctx.token_env)}


def _unsupported_bearer(host_name: str, alternative: str) -> tuple[list[Step], bool, list[str]]:
    note = (
        f"{host_name} documents OAuth or no authentication only: it has no field for a static "
        f"bearer token. {alternative}"
    )
    return [Step("note", "Bearer tokens are not supported here", note, language="text")], False, [note]


# -- CLI and IDE hosts ---------------------------------------------------------------------


def claude_code(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    cmd = f"claude mcp add --transport http --scope user {ctx.q_name} {ctx.q_url}"
    if ctx.auth == "bearer":
        config = {
            "mcpServers": {ctx.name: {"type": "http", "url": ctx.url, "headers": _bearer_header(ctx, "${{{env}}}")}}
        }
        notes = [
            f"Put the token in the environment variable {ctx.token_env}; .mcp.json expands "
            "${VAR} so the secret stays out of the file. (A --header flag on the command "
            "line would store the literal token; it must come after the name and URL.)"
        ]
        return (
            [Step("config", "Add the server to the project's .mcp.json", _json(config), ".mcp.json", "json")],
            True,
            notes,
        )
    steps = [Step("command", "Add the server", cmd, language="sh")]
    if ctx.auth == "oauth":
        steps.append(
            Step("note", "Sign in", "Run /mcp in a Claude Code session and authenticate the server.", language="text")
        )
    return steps, True, []


def codex(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    cmd = f"codex mcp add {ctx.q_name} --url {ctx.q_url}"
    if ctx.auth == "bearer":
        cmd += f" --bearer-token-env-var {ctx.token_env}"
    toml = f"[mcp_servers.{ctx.name}]\nurl = {_toml_string(ctx.url or '')}\n"
    if ctx.auth == "bearer":
        toml += f"bearer_token_env_var = {_toml_string(ctx.token_env)}\n"
    steps = [
        Step("command", "Add the server", cmd, language="sh"),
        Step("config", "Or write it into Codex's config", toml, "~/.codex/config.toml", "toml"),
    ]
    if ctx.auth == "oauth":
        steps.append(Step("command", "Sign in", f"codex mcp login {ctx.q_name}", language="sh"))
    notes = (
        [f"Codex reads the token from {ctx.token_env}; an inline token is rejected."] if ctx.auth == "bearer" else []
    )
    return steps, True, notes


def gemini_cli(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    if ctx.auth == "bearer":
        config = {"mcpServers": {ctx.name: {"httpUrl": ctx.url, "headers": _bearer_header(ctx, "${{{env}}}")}}}
        notes = [f"Gemini CLI expands ${ctx.token_env} in settings.json, so the token stays in the environment."]
        return (
            [
                Step(
                    "config",
                    "Add the server to ~/.gemini/settings.json",
                    _json(config),
                    "~/.gemini/settings.json",
                    "json",
                )
            ],
            True,
            notes,
        )
    steps = [
        Step(
            "command",
            "Add the server",
            f"gemini mcp add --scope user --transport http {ctx.q_name} {ctx.q_url}",
            language="sh",
        )
    ]
    if ctx.auth == "oauth":
        steps.append(
            Step(
                "note",
                "Sign in",
                f"Gemini CLI starts the browser sign-in on the first 401; or run /mcp auth {ctx.name}.",
                language="text",
            )
        )
    return steps, True, []


def cursor(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    entry: dict = {"url": ctx.url}
    if ctx.auth == "bearer":
        entry["headers"] = _bearer_header(ctx, "${{env:{env}}}")
    config = {"mcpServers": {ctx.name: entry}}
    link = (
        "cursor://anysphere.cursor-deeplink/mcp/install?name="
        + ctx.name
        + "&config="
        + base64.b64encode(json.dumps(entry, separators=(",", ":")).encode()).decode()
    )
    steps = [
        Step("config", "Add the server to ~/.cursor/mcp.json", _json(config), "~/.cursor/mcp.json", "json"),
        Step("note", "Or open this install link", link, language="text"),
    ]
    notes = ["Cursor runs the OAuth sign-in when the server asks for it."] if ctx.auth == "oauth" else []
    return steps, True, notes


def vscode(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    key = ctx.name if ctx.name[:1].isalpha() else "mcp-" + ctx.name  # keys must start with a letter
    if ctx.auth == "bearer":
        config = {
            "inputs": [{"type": "promptString", "id": f"{key}-token", "description": f"{key} token", "password": True}],
            "servers": {
                key: {"type": "http", "url": ctx.url, "headers": {"Authorization": f"Bearer ${{input:{key}-token}}"}}
            },
        }
        notes = [
            "VS Code asks for the token once and stores it as a secret "
            "(${env:…} is not reliably substituted in headers)."
        ]
        return (
            [Step("config", "Add the server to .vscode/mcp.json", _json(config), ".vscode/mcp.json", "json")],
            True,
            notes,
        )
    arg = json.dumps({"name": key, "type": "http", "url": ctx.url}, separators=(",", ":"))
    steps = [Step("command", "Add the server", f"code --add-mcp {shlex.quote(arg)}", language="sh")]
    return steps, True, (["VS Code handles the OAuth sign-in itself."] if ctx.auth == "oauth" else [])


def windsurf(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    entry: dict = {"serverUrl": ctx.url}
    if ctx.auth == "bearer":
        entry["headers"] = _bearer_header(ctx, "${{env:{env}}}")
    config = {"mcpServers": {ctx.name: entry}}
    steps = [
        Step(
            "config",
            "Add the server to Windsurf's MCP config",
            _json(config),
            "~/.codeium/windsurf/mcp_config.json",
            "json",
        ),
        Step("note", "Reload", "Press refresh in Cascade's MCP panel after editing.", language="text"),
    ]
    return steps, True, []


def grok(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    cmd = f"grok mcp add --transport http {ctx.q_name} {ctx.q_url}"
    if ctx.auth == "bearer":
        cmd += f" --header 'Authorization: Bearer ${{{ctx.token_env}}}'"
    notes = ["This is the Grok Build CLI; on grok.com custom connectors use OAuth only (sparsely documented)."]
    if ctx.auth == "oauth":
        notes.append("Grok Build runs the OAuth sign-in automatically.")
    return [Step("command", "Add the server (Grok Build CLI)", cmd, language="sh")], True, notes


def openclaw(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    entry: dict = {"url": ctx.url, "transport": "streamable-http"}  # OpenClaw's default is sse
    if ctx.auth == "bearer":
        entry["headers"] = _bearer_header(ctx, "${{{env}}}")
    steps = [
        Step(
            "command",
            "Add the server",
            f"openclaw mcp set {ctx.q_name} {shlex.quote(json.dumps(entry, separators=(',', ':')))}",
            language="sh",
        )
    ]
    if ctx.auth == "oauth":
        steps.append(Step("command", "Sign in", f"openclaw mcp login {ctx.q_name}", language="sh"))
    return steps, True, []


# -- web hosts -----------------------------------------------------------------------------


def claude(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    if ctx.auth == "bearer":
        return _unsupported_bearer("claude.ai", "Use Claude Code, or Claude Desktop with the mcp-remote bridge.")
    ui = (
        "Settings → Connectors → Add custom connector\n"
        f"Name: {ctx.name}\nRemote MCP server URL: {ctx.url}\nAdd, then Connect"
        + (" and sign in." if ctx.auth == "oauth" else ".")
    )
    notes = [
        "The server must be reachable from the public internet: claude.ai connects from Anthropic's cloud.",
        "On Team and Enterprise plans an Owner adds the connector first.",
    ]
    return [Step("ui", "Add a custom connector", ui, language="text")], True, notes


def chatgpt(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    if ctx.auth == "bearer":
        return _unsupported_bearer("ChatGPT", "Use an MCP client that takes a token, such as Codex.")
    ui = (
        "Settings → Apps → Advanced settings → turn on Developer mode\n"
        f"Settings → Apps → Create app\nName: {ctx.name}\nMCP Server URL: {ctx.url}\n"
        f"Authentication: {'OAuth' if ctx.auth == 'oauth' else 'No authentication'}\nCreate"
    )
    notes = [
        "Developer mode is for Pro, Plus, Business, Enterprise and Edu on the web; workspace admins must allow it.",
        "The server must be reachable from the public internet.",
    ]
    return [Step("ui", "Create a developer-mode app", ui, language="text")], True, notes


def undocumented(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    note = (
        "agentdex found no documentation of how this host adds an MCP server, so it does not "
        "guess. The generic configuration under 'other' may work; it is unverified here."
    )
    return [Step("note", "No documented way", note, language="text")], False, [note]


def other(ctx: Context) -> tuple[list[Step], bool, list[str]]:
    entry: dict = {"url": ctx.url}
    if ctx.auth == "bearer":
        entry["headers"] = {"Authorization": "Bearer <your token>"}
    config = {"mcpServers": {ctx.name: entry}}
    notes = ["Most JSON-configured hosts accept this shape; stdio-only hosts need the mcp-remote bridge."]
    if ctx.auth == "bearer":
        notes.append(
            "Replace <your token> with the token, or use your host's environment-variable syntax if it has one."
        )
    return [Step("config", "Generic MCP configuration", _json(config), "mcp.json", "json")], True, notes


HOSTS: dict[str, Host] = {
    h.id: h
    for h in (
        Host(
            "openclaw", "OpenClaw", "M", openclaw, "AGENTS.md in your OpenClaw workspace", "~/.openclaw/skills/{skill}"
        ),
        Host(
            "chatgpt",
            "ChatGPT",
            "M",
            chatgpt,
            "Settings → Personalization → Custom instructions",
            None,
            "ChatGPT's skills upload is not verified; add the skill by hand if your plan offers it.",
        ),
        Host(
            "claude",
            "Claude (claude.ai and Desktop connectors)",
            "M",
            claude,
            "Settings → Instructions for Claude",
            None,
            "Upload the skill folder as a ZIP in Settings → Capabilities (paid plans, code execution on).",
        ),
        Host("claude_code", "Claude Code", "H", claude_code, "~/.claude/CLAUDE.md", "~/.claude/skills/{skill}"),
        Host("codex", "OpenAI Codex", "H", codex, "~/.codex/AGENTS.md", "~/.agents/skills/{skill}"),
        Host("openai_dots", "OpenAI Dots", "L", undocumented, None, None),
        Host("muse", "Muse", "L", undocumented, None, None),
        Host("grok", "Grok", "M", grok, "AGENTS.md (Grok Build reads it)", "~/.grok/skills/{skill}"),
        Host("instinct", "Instinct", "L", undocumented, None, None),
        Host("other", "Other MCP hosts", "M", other, "AGENTS.md at the repository root", ".agents/skills/{skill}"),
        Host("cursor", "Cursor", "H", cursor, "AGENTS.md (or a .cursor/rules/*.mdc rule)", "~/.cursor/skills/{skill}"),
        Host(
            "vscode",
            "VS Code (GitHub Copilot)",
            "H",
            vscode,
            ".github/copilot-instructions.md",
            "~/.copilot/skills/{skill}",
        ),
        Host(
            "windsurf",
            "Windsurf",
            "H",
            windsurf,
            "~/.codeium/windsurf/memories/global_rules.md",
            "~/.codeium/windsurf/skills/{skill}",
        ),
        Host("gemini_cli", "Gemini CLI", "H", gemini_cli, "~/.gemini/GEMINI.md", "~/.gemini/skills/{skill}"),
    )
}
# Other names people type for a host (the display names and ids are accepted anyway).
ALIASES = {
    "claude_code": ("claude code cli",),
    "codex": ("codex cli", "openai codex"),
    "claude": ("claude.ai", "claude desktop"),
    "vscode": ("vs code", "visual studio code", "copilot", "github copilot"),
    "gemini_cli": ("gemini",),
    "other": ("generic",),
}
SPEC_HOSTS = (
    "openclaw",
    "chatgpt",
    "claude",
    "claude_code",
    "codex",
    "openai_dots",
    "muse",
    "grok",
    "instinct",
    "other",
)
