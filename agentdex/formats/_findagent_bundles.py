"""FindAgent skills and code bundles: ``skills``, ``skills_source``, ``router_skill_id`` and
the code-bundle contract (entrypoint, runtime, mcp, serve, egress, build, ui, env).

Part of :mod:`agentdex.formats.findagent`; split out to keep each module small.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentdex.formats._check import Checker, join
from agentdex.formats._findagent_rails import hosts, json_schema, relative_path, strings
from agentdex.models import Tool

MAX_SKILLS = 40
SKILL_NAME_RE = re.compile(r"(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*")
TOOL_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
SKILL_DESCRIPTION_MAX = 1024  # skills-bundle: longer still imports, with a warning
TOOL_DESCRIPTION_MAX = 500  # a code-bundle skill is served as a tool; the tool list cuts there
SCHEMA_MAX_CHARS = 8000
SCHEMA_MAX_DEPTH = 12
BUNDLE_SKILL_KEYS = ("id", "name", "description", "tags", "path")
CODE_SKILL_KEYS = ("id", "name", "description", "tags", "input_schema")
RUNTIME_KINDS = ("node", "python")
SUPPORTED_RUNTIMES = {"node": ("22", "24"), "python": ("3.13",)}
MCP_MODES = ("wrap", "native")
SERVE = ("hosted", "local")
ENV_RE = re.compile(r"[A-Z][A-Z0-9_]*")
SECRET_WORDS = re.compile(r"(^|_)(SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|CREDENTIALS?)(_|$)")
VERSION_RE = re.compile(r"v?(\d+)(?:\.(\d+|x))?(?:\.(\d+|x))?")
CODE_BUNDLE_KEYS = (
    "entrypoint",
    "runtime",
    "mcp",
    "serve",
    "allowed_hosts",
    "build_command",
    "install_cwd",
    "ui",
    "env",
)
SKILLS_BUNDLE_KEYS = ("skills_source", "router_skill_id")


# -- skills -------------------------------------------------------------------------------
def skills(c: Checker, doc: dict, kind: str) -> list[dict[str, Any]]:
    """The ``skills`` array: SKILL.md metadata in a skills-bundle, tool entries otherwise."""
    items = c.array(doc, "skills", "", required=kind == "skills-bundle", max_items=MAX_SKILLS)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, entry in enumerate(items or []):
        where = join("skills", i)
        if not isinstance(entry, dict):
            c.error(where, "type", f"{where} must be an object {{id, name, description, …}}")
            continue
        skill = _bundle_skill(c, entry, where) if kind == "skills-bundle" else _code_skill(c, entry, where)
        key = skill.get("id") or skill.get("name")
        if key is not None and key in seen:
            c.error(
                join(where, "id" if "id" in entry else "name"), "unique", f"skill {key!r} is declared more than once"
            )
        elif key is not None:
            seen.add(key)
            out.append(skill)
    return out


def _bundle_skill(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    skill = {
        "id": c.string(entry, "id", where, min_len=1),
        "name": c.string(
            entry,
            "name",
            where,
            True,
            pattern=SKILL_NAME_RE,
            pattern_text="must be 1-64 lowercase letters, digits and single hyphens",
        ),
        "description": _skill_description(c, entry, where),
        "tags": strings(c, entry, "tags", where),
        "path": c.string(entry, "path", where),
    }
    _folder_matches(c, skill, where)
    c.unknown_keys(entry, where, BUNDLE_SKILL_KEYS)
    return {k: v for k, v in skill.items() if v is not None}


def _skill_description(c: Checker, entry: dict, where: str) -> str | None:
    """A missing or over-long description still imports, with a warning."""
    at = join(where, "description")
    value = entry.get("description")
    if value is None:
        c.warn(at, "required", f"{at} is missing; the skill imports, but agents choose skills by their description")
        return None
    if not isinstance(value, str):
        c.error(at, "type", f"{at} must be a string")
        return None
    if len(value) > SKILL_DESCRIPTION_MAX:
        c.warn(at, "max_length", f"{at} is {len(value)} characters; FindAgent advises at most {SKILL_DESCRIPTION_MAX}")
    return value


def _folder_matches(c: Checker, skill: dict, where: str) -> None:
    path, name = skill.get("path"), skill.get("name")
    if not path or not name:
        return
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    folder = parts[-2] if parts and parts[-1].upper() == "SKILL.MD" and len(parts) > 1 else parts[-1] if parts else ""
    if folder and folder != name:
        c.warn(join(where, "name"), "name_mismatch", f"skill name {name!r} differs from its folder {folder!r}")


def _code_skill(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    text = "must be 1-64 characters of a-z, A-Z, 0-9, _ and - (it is served as an MCP tool name)"
    skill = {
        "id": c.string(entry, "id", where, pattern=TOOL_NAME_RE, pattern_text=text),
        "name": c.string(entry, "name", where, pattern=TOOL_NAME_RE, pattern_text=text),
        "description": c.string(entry, "description", where),
        "tags": strings(c, entry, "tags", where),
        "input_schema": _served_schema(c, entry, where),
    }
    if "id" not in entry and "name" not in entry:
        c.error(join(where, "id"), "required", f"{join(where, 'id')} (or name) is required")
    description = skill["description"]
    if description is not None and len(description) > TOOL_DESCRIPTION_MAX:
        c.warn(
            join(where, "description"),
            "max_length",
            f"{join(where, 'description')} is {len(description)} characters; "
            f"the served tool list cuts at {TOOL_DESCRIPTION_MAX}",
        )
    c.unknown_keys(entry, where, CODE_SKILL_KEYS)
    return {k: v for k, v in skill.items() if v is not None}


def _served_schema(c: Checker, entry: dict, where: str) -> dict | None:
    """A skill's input_schema: over a limit it is left out (with a warning), never clipped."""
    schema = json_schema(c, entry, "input_schema", where)
    if schema is None:
        return None
    at = join(where, "input_schema")
    reason = _schema_limit(schema)
    if reason:
        c.warn(at, "schema_dropped", f"{at} is left out: {reason}")
        return None
    return schema


def _schema_limit(schema: dict) -> str | None:
    if schema.get("type") != "object":
        return 'its type must be "object"'
    if len(json.dumps(schema, ensure_ascii=False)) > SCHEMA_MAX_CHARS:
        return f"it is over {SCHEMA_MAX_CHARS:,} characters"
    if _depth(schema) > SCHEMA_MAX_DEPTH:
        return f"it nests deeper than {SCHEMA_MAX_DEPTH} levels"
    if any(not ref.startswith("#") for ref in _refs(schema)):
        return "only same-document $ref (#/…) is allowed"
    return None


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return own + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def skill_tools(items: list[dict[str, Any]]) -> list[Tool]:
    """A code bundle's skills as the tools its page lists."""
    return [
        Tool(
            name=s.get("name") or s["id"],
            description=s.get("description") or "",
            input_schema=s.get("input_schema"),
            source="manifest",
            detail={"skill_id": s.get("id")},
        )
        for s in items
        if s.get("name") or s.get("id")
    ]


def skills_bundle(c: Checker, doc: dict, items: list[dict[str, Any]]) -> dict[str, Any]:
    """``skills_source`` and ``router_skill_id`` of a skills-bundle."""
    out: dict[str, Any] = {}
    source = c.obj(doc, "skills_source", "")
    if source is not None:
        out["skills_source"] = {
            "kind": c.enum(source, "kind", "skills_source", ("r2",), True),
            "key": c.string(source, "key", "skills_source", True, min_len=1),
        }
        c.unknown_keys(source, "skills_source", ("kind", "key"))
    router = c.string(doc, "router_skill_id", "")
    if router is not None:
        known = {s.get("id") for s in items} | {s.get("name") for s in items}
        if router not in known:
            c.error("router_skill_id", "unknown_skill", f"router_skill_id {router!r} names no skill of this bundle")
        else:
            out["router_skill_id"] = router
    return out


# -- code bundles -------------------------------------------------------------------------
def code_bundle(c: Checker, doc: dict) -> dict[str, Any]:
    """The code-bundle contract; entrypoint, runtime and mcp are required."""
    out = {
        "entrypoint": _entrypoint(c, doc),
        "runtime": _runtime(c, doc),
        "mcp": _mcp(c, doc),
        "serve": c.enum_array(doc, "serve", "", SERVE, min_items=1) or ["hosted"],
        "allowed_hosts": hosts(c, doc, "allowed_hosts", "") or [],
        "build_command": c.string(doc, "build_command", "", min_len=1),
        "install_cwd": _optional_path(c, doc, "install_cwd"),
        "ui": _ui(c, doc),
        "env": _env(c, doc),
    }
    return {k: v for k, v in out.items() if v is not None}


def _optional_path(c: Checker, obj: dict, key: str, path: str = "") -> str | None:
    if obj.get(key) is None:
        return None
    return relative_path(c, obj[key], join(path, key))


def _entrypoint(c: Checker, doc: dict) -> dict[str, Any] | None:
    entry = c.obj(doc, "entrypoint", "", True)
    if entry is None:
        return None
    path = _optional_path(c, entry, "path", "entrypoint")
    if entry.get("path") is None:
        c.error("entrypoint.path", "required", "entrypoint.path is required (e.g. src/agent.ts)")
    export = c.string(entry, "export", "entrypoint", min_len=1) or "handler"
    c.unknown_keys(entry, "entrypoint", ("path", "export"))
    return {"path": path, "export": export}


def _runtime(c: Checker, doc: dict) -> dict[str, Any] | None:
    runtime = c.obj(doc, "runtime", "", True)
    if runtime is None:
        return None
    kind = c.enum(runtime, "kind", "runtime", RUNTIME_KINDS, True)
    version = c.get(runtime, "version", "runtime", (str, int, float))
    version = None if version is None else str(version)
    if kind and version is not None and not _supported(kind, version):
        supported = " or ".join(SUPPORTED_RUNTIMES[kind])
        c.error(
            "runtime.version",
            "unsupported_runtime",
            f"{kind} {version} is not offered; the supported {kind} versions are {supported}",
        )
    c.unknown_keys(runtime, "runtime", ("kind", "version"))
    return {"kind": kind, "version": version}


def _supported(kind: str, version: str) -> bool:
    match = VERSION_RE.fullmatch(version.strip())
    if match is None:
        return False
    major, minor = match.group(1), match.group(2)
    if kind == "node":
        return major in SUPPORTED_RUNTIMES["node"]
    return minor not in (None, "x") and f"{major}.{int(minor)}" in SUPPORTED_RUNTIMES["python"]


def _mcp(c: Checker, doc: dict) -> dict[str, Any] | None:
    mcp = c.obj(doc, "mcp", "", True)
    if mcp is None:
        return None
    mode = c.enum(mcp, "mode", "mcp", MCP_MODES, True)
    native = mode == "native"
    out = {
        "mode": mode,
        "command": c.string(mcp, "command", "mcp", required=native, min_len=1),
        "args": strings(c, mcp, "args", "mcp"),
    }
    if mode == "wrap":
        for key in ("command", "args"):
            if key in mcp:
                c.warn(
                    join("mcp", key), "ignored", f'mcp.{key} is used only with mode "native"; wrap generates the server'
                )
    c.unknown_keys(mcp, "mcp", ("mode", "command", "args"))
    return {k: v for k, v in out.items() if v is not None}


def _ui(c: Checker, doc: dict) -> str | None:
    """``ui`` is a bundle-relative path; ``{"path": …}`` (what v1.2 templates write) is read too."""
    ui = doc.get("ui")
    if ui is None:
        return None
    if isinstance(ui, dict):
        c.unknown_keys(ui, "ui", ("path",))
        if ui.get("path") is None:
            c.error("ui.path", "required", "ui.path is required (a bundle-relative path)")
            return None
        return relative_path(c, ui["path"], "ui.path")
    return relative_path(c, ui, "ui")


def _env(c: Checker, doc: dict) -> list[dict[str, Any]] | None:
    """The non-secret env contract: ``[{name, description}]`` or ``{NAME: description}``."""
    env = c.get(doc, "env", "", (list, dict))
    if env is None:
        return None
    if isinstance(env, dict):
        return [
            e
            for e in (_env_entry(c, {"name": k, "description": v}, join("env", k), keyed=True) for k, v in env.items())
            if e
        ]
    return [e for e in (_env_entry(c, item, join("env", i)) for i, item in enumerate(env)) if e]


def _env_entry(c: Checker, item: Any, where: str, keyed: bool = False) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        c.error(where, "type", f"{where} must be an object {{name, description}}")
        return None
    name_at = where if keyed else join(where, "name")
    name = item.get("name")
    if not isinstance(name, str) or not ENV_RE.fullmatch(name):
        c.error(
            name_at,
            "pattern" if isinstance(name, str) else "required",
            f"{name_at} must be an UPPER_SNAKE environment variable name",
        )
        name = None
    elif SECRET_WORDS.search(name):
        c.warn(name_at, "secret_env", f"{name} looks like a secret; secrets belong in credential_slots, never in env")
    description = item.get("description")
    if description is not None and not isinstance(description, str):
        c.error(where if keyed else join(where, "description"), "type", f"{where} description must be a string")
        description = None
    if not keyed:
        c.unknown_keys(item, where, ("name", "description", "required"))
    return {"name": name, "description": description} if name else None


def misplaced(c: Checker, doc: dict, kind: str) -> None:
    """Fields of another kind are ignored, with a warning naming the kind they belong to."""
    for keys, owner in ((CODE_BUNDLE_KEYS, "code-bundle"), (SKILLS_BUNDLE_KEYS, "skills-bundle")):
        if kind == owner:
            continue
        for key in keys:
            if key in doc:
                c.warn(key, "ignored", f"{key} applies only to kind {owner!r}; this manifest is {kind!r}")
