"""FindAgent manifests (``findagent.json`` at a repository root).

Spec: ``specs/findagent-manifest.md``. A manifest carries a small core (name, description,
system prompt, example prompts, tools), optionally tool actions with credential slots and
guardrails, the marketplace listing fields (each with a couple of common aliases), a
``metadata`` block of https links, and per-kind fields for skills bundles and code bundles.

In a repository, ``findagent.json`` wins, then ``.findagent/findagent.json``; a
``manifest.json`` is read only when it declares ``schema_version "1.1"``, and a second file
that also declares actions is refused, never merged (:func:`parse_repo`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agentdex.formats import _findagent_bundles as bundles
from agentdex.formats._check import EMAIL_RE, Checker, join
from agentdex.formats._findagent_rails import credential_slots, guardrails, host_covered, json_schema, strings, url_host
from agentdex.formats._load import load_json, read_document
from agentdex.formats._spec import FormatSpec
from agentdex.models import Finding, Listing, ParseResult, Tool

NAME = "findagent"
MAX_BYTES = 1024 * 1024
MAX_LISTED_TAGS = 100  # a listing keeps this many tags (the spec sets no limit)
ROOT_FILE = "findagent.json"
REPO_FILES = (ROOT_FILE, ".findagent/findagent.json")
MANIFEST_JSON = "manifest.json"
SPEC = FormatSpec(
    NAME, priority=30, max_bytes=MAX_BYTES, folder_files=(*REPO_FILES, MANIFEST_JSON), title="the FindAgent format"
)
MANIFEST_JSON_VERSION = "1.1"  # the only version that makes a manifest.json a FindAgent manifest
KNOWN_VERSIONS = ("1.0", "1.1", "1.2")

KINDS = ("mcp-tool", "skills-bundle", "code-bundle", "autonomous-agent")
MAX_TOOLS = 40
TOOL_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
RESPONSE_KINDS = ("text", "json", "binary")
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "interactiveHint")
EXECUTIONS = ("client", "app")
ACTION_KINDS = ("http", "prompt-template")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
MUTATING = ("POST", "PUT", "PATCH", "DELETE")
PLACEHOLDER_RE = re.compile(r"\{([^{}]*)\}")
TEMPLATE_PARAM_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
INSTALL_HOST = "install_host"

TOOL_KEYS = ("name", "description", "input_schema", "output_schema", "response_kind", "annotations", "action")
HTTP_ACTION_KEYS = ("type", "kind", "method", "url", "headers", "body_template", "auth_ref")
PROMPT_ACTION_KEYS = ("type", "kind", "template", "prompt")
META_URLS = (
    "homepage",
    "docs_url",
    "support_url",
    "privacy_url",
    "terms_url",
    "repository",
    "source_url",
    "changelog_url",
    "status_url",
    "icon",
)
META_KEYS = (*META_URLS, "license", "support_email", "author")
# Listing fields accept a couple of common aliases so exports from other tools import
# cleanly; the spec's own name wins when both are present.
ALIASES: dict[str, tuple[str, ...]] = {
    "tagline": ("one_liner", "short_description"),
    "changelog": ("release_notes",),
    "category": ("primary_category",),
    "additional_category_slugs": ("additional_categories", "secondary_categories"),
    "tags": ("keywords",),
    "example_prompts": ("conversation_starters", "starter_prompts"),
}
TOP_LEVEL = (
    "$schema",
    "schema_version",
    "name",
    "description",
    "system_prompt",
    "example_prompts",
    "tools",
    "credential_slots",
    "guardrails",
    "metadata",
    "tagline",
    "version",
    "changelog",
    "category",
    "additional_category_slugs",
    "tags",
    "kind",
    "delivery",
    "exec",
    "targets",
    "discipline",
    "skills",
    *bundles.SKILLS_BUNDLE_KEYS,
    *bundles.CODE_BUNDLE_KEYS,
    *(alias for names in ALIASES.values() for alias in names),
)
# Keys that make a document something else (another format, or a DXT/MCPB manifest).
OTHER_FORMAT_KEYS = ("agent_app", "anchor", "format", "dxt_version", "manifest_version", "mcpServers", "openapi")


# -- entry points -------------------------------------------------------------------------
def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of one ``findagent.json`` (1 MB limit)."""
    return read_document(
        data, validate_document, name=NAME, what="FindAgent manifest", max_bytes=MAX_BYTES, origin=origin
    )


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as a FindAgent manifest: a ``name`` plus one of
    ``system_prompt``, ``tools``, ``kind`` or ``schema_version``, and no key that marks
    another format (``agent_app``, ``anchor``, adapp's ``format``, a DXT manifest's
    ``dxt_version`` / ``manifest_version`` …)."""
    if not isinstance(doc, dict) or "name" not in doc:
        return False
    if any(key in doc for key in OTHER_FORMAT_KEYS):
        return False
    return any(key in doc for key in ("system_prompt", "tools", "kind", "schema_version"))


def validate_document(doc: dict, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded manifest and normalise it into a :class:`Listing`."""
    return _validate(doc, origin, Checker())


def parse_repo(files: Mapping[str, bytes], *, origin: str | None = None) -> ParseResult:
    """Read the FindAgent manifest of a repository given as ``{relative path: bytes}``.

    ``findagent.json`` wins, then ``.findagent/findagent.json``, then a ``manifest.json``
    that declares ``schema_version "1.1"``. A second file that also declares actions is
    refused (an error ``conflict``); a DXT ``manifest.json`` is not a FindAgent manifest.
    Findings inside any file but the root ``findagent.json`` carry ``<file>:`` before the path.
    """
    files = {_normal_path(path): data for path, data in files.items()}
    present = [path for path in REPO_FILES if path in files]
    if present:
        primary = present[0]
        result = _parse_file(primary, files[primary], origin)
        for other in [*present[1:], *([MANIFEST_JSON] if MANIFEST_JSON in files else [])]:
            result.findings.extend(_second_file(other, files[other], primary))
        return result
    if MANIFEST_JSON in files:
        return _manifest_json(files[MANIFEST_JSON], origin)
    return ParseResult(
        NAME,
        None,
        [
            Finding(
                "error",
                ROOT_FILE,
                "no_manifest",
                "no findagent.json, .findagent/findagent.json or manifest.json (schema_version 1.1) in the repository",
            )
        ],
    )


# -- repository layout --------------------------------------------------------------------
def _normal_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def _prefix(name: str) -> str:
    return "" if name == ROOT_FILE else f"{name}:"


def _parse_file(name: str, data: bytes, origin: str | None) -> ParseResult:
    doc, findings = load_json(data, max_bytes=MAX_BYTES, what=name)
    if doc is None:
        return ParseResult(NAME, None, [_prefixed(f, _prefix(name)) for f in findings])
    return _validate(doc, origin, Checker(_prefix(name)))


def _prefixed(finding: Finding, prefix: str) -> Finding:
    return Finding(finding.severity, prefix + finding.path, finding.code, finding.message)


def _is_findagent_manifest_json(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("schema_version") == MANIFEST_JSON_VERSION


def _manifest_json(data: bytes, origin: str | None) -> ParseResult:
    doc, findings = load_json(data, max_bytes=MAX_BYTES, what=MANIFEST_JSON)
    if _is_findagent_manifest_json(doc):
        return _validate(doc, origin, Checker(_prefix(MANIFEST_JSON)))
    declared = doc.get("schema_version") if isinstance(doc, dict) else None
    said = f"declares schema_version {declared!r}" if declared is not None else "declares no schema_version"
    findings = [_prefixed(f, _prefix(MANIFEST_JSON)) for f in findings]
    findings.append(
        Finding(
            "error",
            f"{MANIFEST_JSON}:schema_version",
            "not_findagent",
            f"manifest.json {said}; it is read as a FindAgent manifest only with "
            f'schema_version "{MANIFEST_JSON_VERSION}" (a DXT manifest is not one); '
            "add a findagent.json",
        )
    )
    return ParseResult(NAME, None, findings, doc)


def _second_file(name: str, data: bytes, primary: str) -> list[Finding]:
    """A second manifest beside the one that wins: never merged; refused when it also
    declares actions. A DXT manifest.json beside findagent.json is the normal layout."""
    doc, _ = load_json(data, max_bytes=MAX_BYTES, what=name)
    if name == MANIFEST_JSON and not _is_findagent_manifest_json(doc):
        return []
    if _declares_actions(doc):
        return [
            Finding(
                "error",
                f"{name}:tools",
                "conflict",
                f"{name} also declares actions; {primary} is the manifest and the two are never merged",
            )
        ]
    return [Finding("warning", f"{name}:", "conflict", f"{name} is ignored: {primary} is the manifest")]


def _declares_actions(doc: Any) -> bool:
    tools = doc.get("tools") if isinstance(doc, dict) else None
    return isinstance(tools, list) and any(isinstance(t, dict) and t.get("action") is not None for t in tools)


# -- the document -------------------------------------------------------------------------
def _validate(doc: dict, origin: str | None, c: Checker) -> ParseResult:
    if not isinstance(doc, dict):
        c.error("", "not_object", "a FindAgent manifest must be a JSON object")
        return ParseResult(NAME, None, c.findings, doc)
    listing = Listing(format=NAME, origin=origin)
    extra: dict[str, Any] = {"schema_version": _version(c, doc)}
    kind = _kind(c, doc, extra)
    slots = credential_slots(c, doc)
    skills = bundles.skills(c, doc, kind) if "skills" in doc or kind == "skills-bundle" else []
    tools, names = _tools(c, doc, slots)
    if kind == "code-bundle":
        tools += bundles.skill_tools(skills)
        names |= {s[k] for s in skills for k in ("id", "name") if s.get(k)}
    listing.tools = tools
    extra.update(_core(c, doc, listing, kind, skills))
    extra["credential_slots"] = list(slots.values())
    extra["guardrails"] = guardrails(c, doc, names)
    extra.update(_listing_fields(c, doc, listing))
    extra["metadata"] = _metadata(c, doc, listing)
    extra["delivery"] = _delivery(c, doc, listing)
    extra.update(_kind_fields(c, doc, kind, skills))
    c.unknown_keys(doc, "", TOP_LEVEL)
    listing.extra = {k: v for k, v in extra.items() if v is not None}
    return ParseResult(NAME, listing, c.findings, doc)


def _version(c: Checker, doc: dict) -> str | None:
    version = doc.get("schema_version")
    if version is None:
        return None
    if not isinstance(version, str):
        c.error("schema_version", "type", 'schema_version must be a string such as "1.2"')
        return None
    if version not in KNOWN_VERSIONS:
        newer_minor = version.split(".")[0] == "1"
        (c.warn if newer_minor else c.error)(
            "schema_version",
            "unsupported_version",
            f"schema_version {version[:20]!r} is not one agentdex knows ({', '.join(KNOWN_VERSIONS)})",
        )
    return version


def _kind(c: Checker, doc: dict, extra: dict[str, Any]) -> str:
    declared = c.enum(doc, "kind", "", KINDS)
    if declared == "autonomous-agent":
        c.warn(
            "kind",
            "reserved_kind",
            "autonomous-agent is a reserved roadmap kind with no distinct behaviour; it is treated as mcp-tool",
        )
        extra["declared_kind"] = declared
    kind = "mcp-tool" if declared in (None, "autonomous-agent") else declared
    extra["kind"] = kind
    return kind


def _core(c: Checker, doc: dict, listing: Listing, kind: str, skills: list) -> dict[str, Any]:
    listing.name = c.string(doc, "name", "", True, min_len=1)
    listing.description = c.string(doc, "description", "")
    system_prompt = c.string(doc, "system_prompt", "")
    if kind == "mcp-tool" and not system_prompt and not doc.get("tools") and not skills:
        c.warn(
            "system_prompt",
            "one_of_required",
            "the agent declares neither a system_prompt nor tools, so it can do nothing",
        )
    return {"system_prompt": system_prompt}


def _kind_fields(c: Checker, doc: dict, kind: str, skills: list[dict[str, Any]]) -> dict[str, Any]:
    bundles.misplaced(c, doc, kind)
    out: dict[str, Any] = {"skills": skills or None}
    if kind == "skills-bundle":
        out.update(bundles.skills_bundle(c, doc, skills))
    elif kind == "code-bundle":
        out["code_bundle"] = bundles.code_bundle(c, doc)
    return out


# -- tools --------------------------------------------------------------------------------
def _tools(c: Checker, doc: dict, slots: dict[str, dict]) -> tuple[list[Tool], set[str]]:
    """The declared tools, and every tool name (valid or not) for cross-references."""
    items = c.array(doc, "tools", "", max_items=MAX_TOOLS)
    tools: list[Tool] = []
    names: set[str] = set()
    for i, entry in enumerate(items or []):
        where = join("tools", i)
        if not isinstance(entry, dict):
            c.error(where, "type", f"{where} must be an object {{name, description, …}}")
            continue
        raw = entry.get("name")
        duplicate = isinstance(raw, str) and raw in names
        if duplicate:
            c.error(join(where, "name"), "unique", f"tool name {raw!r} is used more than once")
        tool = _tool(c, entry, where, slots)
        if isinstance(raw, str):
            names.add(raw)
        if tool is not None and not duplicate:
            tools.append(tool)
    return tools, names


def _tool(c: Checker, entry: dict, where: str, slots: dict[str, dict]) -> Tool | None:
    name = c.string(
        entry,
        "name",
        where,
        True,
        pattern=TOOL_NAME_RE,
        pattern_text="must be 1-64 characters of a-z, A-Z, 0-9, _ and -",
    )
    description = c.string(entry, "description", where, True, min_len=10, max_len=500)
    input_schema = json_schema(c, entry, "input_schema", where, object_type=True)
    output_schema = json_schema(c, entry, "output_schema", where)
    response_kind = c.enum(entry, "response_kind", where, RESPONSE_KINDS)
    annotations = _annotations(c, entry, where)
    action = _action(c, entry, where, slots, _params_schema(entry, input_schema))
    read_only = _read_only(c, entry, annotations, where)
    c.unknown_keys(entry, where, TOOL_KEYS)
    if name is None:
        return None
    detail = {"action": action, "response_kind": response_kind, "output_schema": output_schema}
    return Tool(
        name=name,
        description=description or "",
        annotations=annotations,
        read_only=read_only,
        input_schema=input_schema,
        source="manifest",
        detail={k: v for k, v in detail.items() if v is not None or k == "action"},
    )


def _params_schema(entry: dict, input_schema: dict | None) -> dict | None:
    """The schema placeholders bind against: none declared means no parameters (``{}``);
    one declared but unusable means unknown (``None``)."""
    if input_schema is not None:
        return input_schema
    return {} if entry.get("input_schema") is None else None


def _annotations(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    value = c.obj(entry, "annotations", where)
    if value is None:
        return {}
    path = join(where, "annotations")
    out: dict[str, Any] = {hint: c.boolean(value, hint, path) for hint in HINTS}
    out["execution"] = c.enum(value, "execution", path, EXECUTIONS)
    out["title"] = c.string(value, "title", path)
    c.unknown_keys(value, path, out.keys())
    return {k: v for k, v in out.items() if v is not None}


def _read_only(c: Checker, entry: dict, annotations: dict[str, Any], where: str) -> bool:
    """``readOnlyHint`` unless contradicted: the security floor wins over the source."""
    if annotations.get("readOnlyHint") is not True:
        return False
    at = join(join(where, "annotations"), "readOnlyHint")
    action = entry.get("action")
    method = action.get("method") if isinstance(action, dict) else None
    if isinstance(method, str) and method.upper() in MUTATING:
        c.warn(at, "security_floor", f"a {method.upper()} action mutates; readOnlyHint true is overridden")
        return False
    if annotations.get("destructiveHint") is True:
        c.warn(at, "security_floor", "destructiveHint true contradicts readOnlyHint true; the tool is not read-only")
        return False
    return True


# -- actions ------------------------------------------------------------------------------
def _action(c: Checker, entry: dict, where: str, slots: dict[str, dict], schema: dict | None) -> dict[str, Any] | None:
    """The tool's binding; ``schema`` is ``None`` when an input_schema is given but unusable
    (reported once there, not again at every placeholder)."""
    action = c.obj(entry, "action", where)
    if action is None:
        return None
    path = join(where, "action")
    kind = _action_kind(c, action, path)
    if kind == "http":
        return _http_action(c, action, path, schema, slots)
    if kind == "prompt-template":
        return _prompt_action(c, action, path, schema)
    return {"kind": None}


def _action_kind(c: Checker, action: dict, path: str) -> str | None:
    """The binding kind, under ``type`` (the spec's example) or its alias ``kind``."""
    declared = [(k, action[k]) for k in ("type", "kind") if action.get(k) is not None]
    if not declared:
        c.error(join(path, "type"), "required", f"{join(path, 'type')} is required: http or prompt-template")
        return None
    if len(declared) == 2 and declared[0][1] != declared[1][1]:
        c.error(
            join(path, "kind"),
            "alias_conflict",
            f"{path} gives type {declared[0][1]!r} and kind {declared[1][1]!r}; an action has one binding kind",
        )
        return None
    key, value = declared[0]
    return c.check_enum(value, join(path, key), ACTION_KINDS)


def _http_action(c: Checker, action: dict, path: str, schema: dict | None, slots: dict[str, dict]) -> dict[str, Any]:
    out = {
        "kind": "http",
        "method": c.enum(action, "method", path, METHODS, True),
        "url": c.url(action, "url", path, True),
        "headers": _headers(c, action, path),
        "body_template": c.get(action, "body_template", path, (str, dict, list)),
        "auth_ref": c.string(action, "auth_ref", path, min_len=1),
    }
    if out["url"] is not None:
        _placeholders(c, out["url"], join(path, "url"), schema, slots, out["auth_ref"])
    if out["auth_ref"] is not None:
        _auth(c, action, path, out["auth_ref"], out["url"], slots)
    c.unknown_keys(action, path, HTTP_ACTION_KEYS)
    return {k: v for k, v in out.items() if v is not None}


def _headers(c: Checker, action: dict, path: str) -> dict[str, str] | None:
    headers = c.obj(action, "headers", path)
    if headers is None:
        return None
    out = {}
    for name, value in headers.items():
        if isinstance(value, str):
            out[name] = value
        else:
            c.error(join(join(path, "headers"), name), "type", f"header {name!r} must have a string value")
    return out


def _schema_properties(schema: dict | None) -> set[str]:
    properties = (schema or {}).get("properties")
    return set(properties) if isinstance(properties, dict) else set()


def _placeholders(
    c: Checker, url: str, where: str, schema: dict | None, slots: dict[str, dict], auth_ref: str | None
) -> None:
    """Each ``{param}`` must be an input_schema property; ``{install_host}`` must point at
    an install_host slot (the auth_ref's, or else any)."""
    properties = _schema_properties(schema)
    for param in PLACEHOLDER_RE.findall(url):
        if param == INSTALL_HOST:
            candidates = [slots.get(auth_ref, {})] if auth_ref else list(slots.values())
            if not any(slot.get(INSTALL_HOST) is True for slot in candidates):
                c.error(
                    where,
                    "placeholder",
                    "{install_host} must reference a credential slot with install_host true"
                    + (f" (slot {auth_ref!r} is not one)" if auth_ref else ""),
                )
        elif schema is not None and param not in properties:
            c.error(where, "placeholder", f"{{{param}}} in {where} is not a property of the tool's input_schema")


def _auth(c: Checker, action: dict, path: str, ref: str, url: str | None, slots: dict[str, dict]) -> None:
    slot = slots.get(ref)
    if slot is None:
        c.error(join(path, "auth_ref"), "auth_ref", f"auth_ref {ref!r} names no declared credential slot")
        return
    if url is None:
        return
    where = join(path, "url")
    _audience(c, url, where, ref, slot)
    if url.startswith("http://"):
        c.warn(where, "https", f"credential {ref!r} would be sent over plain http")


def _audience(c: Checker, url: str, where: str, ref: str, slot: dict[str, Any]) -> None:
    """The credential is attached only where its audience covers the request's host."""
    if slot.get("auth_acquisition") == "oauth":
        return  # the provider registry fixes an OAuth token's audience server-side
    host = url_host(url)
    if slot.get(INSTALL_HOST):
        if host != "{install_host}":
            c.error(
                where,
                "host_not_allowed",
                f"slot {ref!r} takes its host at install; the url's host must be {{install_host}}",
            )
        return
    allowed = slot.get("allowed_hosts") or []
    if not allowed:
        return  # already reported as no_audience
    if host == "{install_host}":
        return  # reported as a placeholder without an install_host slot
    if host is None or "{" in host:
        c.error(
            where,
            "host_not_allowed",
            f"the url's host is built from tool input; credential {ref!r} needs a fixed audience",
        )
    elif not host_covered(host, allowed):
        c.error(
            where,
            "host_not_allowed",
            f"host {host!r} is not covered by allowed_hosts of slot {ref!r} ({', '.join(allowed)})",
        )


def _prompt_action(c: Checker, action: dict, path: str, schema: dict | None) -> dict[str, Any]:
    key = "template" if "template" in action or "prompt" not in action else "prompt"
    template = c.string(action, key, path, True, min_len=1)
    if template is not None and schema is not None:
        properties = _schema_properties(schema)
        for param in sorted(set(TEMPLATE_PARAM_RE.findall(template)) - properties):
            c.warn(
                join(path, key),
                "placeholder",
                f"{{{param}}} in the template is not a property of the tool's input_schema",
            )
    c.unknown_keys(action, path, PROMPT_ACTION_KEYS)
    return {"kind": "prompt-template", "template": template}


# -- listing fields -----------------------------------------------------------------------
def _pick(c: Checker, doc: dict, field: str) -> str | None:
    """The key a listing field is given under: its own name first, then its aliases."""
    present = [k for k in (field, *ALIASES.get(field, ())) if doc.get(k) is not None]
    for other in present[1:]:
        if doc[other] != doc[present[0]]:
            c.warn(
                other,
                "alias_conflict",
                f"{other} is an alias of {field}; both are given and differ, so {present[0]} is used",
            )
    return present[0] if present else None


def _text(c: Checker, doc: dict, field: str) -> str | None:
    key = _pick(c, doc, field)
    return c.string(doc, key, "") if key else None


def _texts(c: Checker, doc: dict, field: str) -> list[str] | None:
    key = _pick(c, doc, field)
    return strings(c, doc, key, "") if key else None


def _capped_tags(c: Checker, tags: list[str] | None) -> list[str] | None:
    """The spec sets no limit on tags; a listing keeps the first ``MAX_LISTED_TAGS`` (a warning)."""
    if tags and len(tags) > MAX_LISTED_TAGS:
        c.warn("tags", "max_items", f"tags has {len(tags):,} items; agentdex lists the first {MAX_LISTED_TAGS}")
        return tags[:MAX_LISTED_TAGS]
    return tags


def _listing_fields(c: Checker, doc: dict, listing: Listing) -> dict[str, Any]:
    listing.one_liner = _text(c, doc, "tagline")
    out: dict[str, Any] = {
        "version": c.string(doc, "version", ""),
        "changelog": _text(c, doc, "changelog"),
        "category": _text(c, doc, "category"),
        "additional_category_slugs": _texts(c, doc, "additional_category_slugs"),
        "tags": _capped_tags(c, _texts(c, doc, "tags")),
        "example_prompts": _texts(c, doc, "example_prompts"),
        "exec": c.string(doc, "exec", ""),
        "targets": strings(c, doc, "targets", ""),
        "discipline": c.string(doc, "discipline", ""),
    }
    listing.categories = _unique([out["category"], *(out["additional_category_slugs"] or [])])
    listing.tags = _unique(out["tags"] or [])
    return out


def _unique(values: list[str | None]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


# -- metadata -----------------------------------------------------------------------------
def _errors(c: Checker) -> int:
    return sum(1 for f in c.findings if f.severity == "error")


def _metadata(c: Checker, doc: dict, listing: Listing) -> dict[str, Any] | None:
    """Trust and support links, all https. An invalid block is dropped from the listing."""
    meta = c.obj(doc, "metadata", "")
    if meta is None:
        return None
    before = _errors(c)
    out: dict[str, Any] = {key: c.url(meta, key, "metadata", https_only=True) for key in META_URLS}
    out["license"] = c.string(meta, "license", "metadata", min_len=1)
    out["support_email"] = c.string(meta, "support_email", "metadata")
    if out["support_email"] is not None and not EMAIL_RE.match(out["support_email"]):
        c.error("metadata.support_email", "email", "metadata.support_email must be an email address")
    out["author"] = _author(c, meta)
    _unknown_metadata(c, meta)
    if _errors(c) > before:
        return None
    out = {k: v for k, v in out.items() if v is not None}
    _publisher(listing, out)
    return out


def _author(c: Checker, meta: dict) -> dict[str, Any] | None:
    author = c.get(meta, "author", "metadata", (dict, str))
    if isinstance(author, str):
        return {"name": author}
    if author is None:
        return None
    where = "metadata.author"
    out = {
        "name": c.string(author, "name", where, min_len=1),
        "url": c.url(author, "url", where, https_only=True),
        "email": c.string(author, "email", where),
    }
    if out["email"] is not None and not EMAIL_RE.match(out["email"]):
        c.error(join(where, "email"), "email", f"{where}.email must be an email address")
    c.unknown_keys(author, where, out.keys())
    return {k: v for k, v in out.items() if v is not None}


def _unknown_metadata(c: Checker, meta: dict) -> None:
    """Unknown keys warn; an unknown key holding a non-https URL still breaks the https rule."""
    c.unknown_keys(meta, "metadata", META_KEYS)
    for key, value in meta.items():
        if key not in META_KEYS and isinstance(value, str) and "://" in value and not value.startswith("https://"):
            c.error(join("metadata", key), "https", f"metadata.{key} must be an https:// URL")


def _publisher(listing: Listing, meta: dict[str, Any]) -> None:
    author = meta.get("author") or {}
    listing.homepage = meta.get("homepage")
    listing.guide_url = meta.get("docs_url")
    listing.privacy_url = meta.get("privacy_url")
    listing.terms_url = meta.get("terms_url")
    listing.publisher_name = author.get("name")
    listing.publisher_url = author.get("url")
    email = meta.get("support_email") or author.get("email")
    listing.publisher_contact = f"mailto:{email}" if email else meta.get("support_url")


# -- delivery -----------------------------------------------------------------------------
def _delivery(c: Checker, doc: dict, listing: Listing) -> dict[str, Any] | None:
    delivery = c.obj(doc, "delivery", "")
    if delivery is None:
        return None
    out: dict[str, Any] = {}
    mcp = c.obj(delivery, "mcp", "delivery")
    if mcp is not None:
        out["mcp"] = _delivery_mcp(c, mcp, listing)
    c.unknown_keys(delivery, "delivery", ("mcp",))
    return out


def _delivery_mcp(c: Checker, mcp: dict, listing: Listing) -> dict[str, Any]:
    out: dict[str, Any] = {}
    where = "delivery.mcp"
    stdio = c.obj(mcp, "stdio", where)
    if stdio is not None:
        at = join(where, "stdio")
        out["stdio"] = {
            "command": c.string(stdio, "command", at, True, min_len=1),
            "args": strings(c, stdio, "args", at) or [],
        }
        c.unknown_keys(stdio, at, ("command", "args"))
    url = c.url(mcp, "url", where, https_only=True)
    if url is not None:
        out["url"] = listing.mcp_url = url
        listing.mcp_transport = "streamable-http"
    c.unknown_keys(mcp, where, ("stdio", "url"))
    return out
