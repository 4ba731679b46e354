"""FindAgent credential slots, guardrails and shared value checks (hosts, schemas, paths).

Part of :mod:`agentdex.formats.findagent`; split out to keep each module small. Every
function records findings on the caller's :class:`Checker` and returns normalised data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentdex.formats._check import Checker, join

if TYPE_CHECKING:  # jsonschema is imported lazily (see _schema_problem)
    from jsonschema.protocols import Validator

SLOT_TYPES = ("string", "secret", "json")
AUTH_SCHEMES = ("bearer", "basic", "raw", "header")
ACQUISITIONS = ("paste", "oauth")
APPROVALS = ("none", "human", "human_strict")
SLOT_KEYS = (
    "ref",
    "label",
    "env",
    "allowed_hosts",
    "type",
    "required",
    "auth_scheme",
    "header_name",
    "prefix",
    "auth_acquisition",
    "provider",
    "install_host",
    "host_example",
    "description",
)
# Keys that would carry the secret itself: a manifest only declares slots, never values.
SECRET_KEYS = ("value", "secret", "token", "password", "api_key", "default")
GOOGLE_TOKEN_HOSTS = ("oauth2.googleapis.com", "www.googleapis.com", "accounts.google.com")

ENV_RE = re.compile(r"[A-Z][A-Z0-9_]*")
HOST_RE = re.compile(
    r"(?=.{1,253}(:\d{1,5})?$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
    r"(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?",
    re.I,
)
HEADER_NAME_RE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
RATE_RE = re.compile(r"[1-9][0-9]*/(second|minute|hour|day)")
INPUT_RAIL_KEYS = ("max_length", "deny_patterns", "pii_redaction")
OUTPUT_RAIL_KEYS = ("secret_leak_scan", "pii_redaction", "schema")
ACTION_RAIL_KEYS = ("approval", "max_amount", "rate_limit", "idempotent", "requires")

_META_VALIDATORS: dict[type, Any] = {}  # one meta-schema validator per draft, built on first use


# -- shared value checks ------------------------------------------------------------------
def strings(
    c: Checker, obj: dict, key: str, path: str, *, max_items: int | None = None, min_items: int | None = None
) -> list[str] | None:
    """An array whose items must all be strings (returns the strings, ``None`` when absent)."""
    items = c.array(obj, key, path, max_items=max_items, min_items=min_items)
    if items is None:
        return None
    out, where = [], join(path, key)
    for i, item in enumerate(items):
        if isinstance(item, str):
            out.append(item)
        else:
            c.error(join(where, i), "type", f"{join(where, i)} must be a string")
    return out


def hosts(c: Checker, obj: dict, key: str, path: str) -> list[str] | None:
    """An array of host names (``api.example.com``, never a URL); lower-cased."""
    items = strings(c, obj, key, path)
    if items is None:
        return None
    out, where = [], join(path, key)
    for i, host in enumerate(items):
        if HOST_RE.fullmatch(host):
            out.append(host.lower().rstrip("."))
        else:
            c.error(
                join(where, i),
                "pattern",
                f"{join(where, i)} must be a host name such as api.example.com, not {host[:80]!r}",
            )
    return out


def host_covered(host: str, allowed: Iterable[str]) -> bool:
    """Whether ``host`` is one of ``allowed`` or a subdomain of one (ports ignored)."""
    host = host.lower().rstrip(".")
    for entry in allowed:
        name = entry.split(":", 1)[0]
        if host == name or host.endswith("." + name):
            return True
    return False


def url_host(url: str) -> str | None:
    """The host part of a URL (placeholders such as ``{install_host}`` kept), or ``None``."""
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def relative_path(c: Checker, value: Any, where: str) -> str | None:
    """A bundle-relative path: no leading slash, no ``..``, no scheme, no drive."""
    if not isinstance(value, str):
        c.error(where, "type", f"{where} must be a string (a bundle-relative path)")
        return None
    parts = value.replace("\\", "/").split("/")
    if not value or value.startswith(("/", "\\")) or ".." in parts or ":" in value:
        c.error(where, "unsafe_path", f"{where} must be a path inside the bundle, not {value[:80]!r}")
        return None
    return value


def json_schema(c: Checker, obj: dict, key: str, path: str, *, object_type: bool = False) -> dict | None:
    """An object that must itself be a valid JSON Schema (meta-schema 2020-12)."""
    schema = c.obj(obj, key, path)
    if schema is None:
        return None
    where = join(path, key)
    if object_type and "type" in schema and schema["type"] != "object":
        c.error(join(where, "type"), "const", f'{join(where, "type")} must be "object": a tool takes named arguments')
        return None
    problem = _schema_problem(schema)
    if problem is not None:
        at, message = problem
        c.error(at and f"{where}.{at}" or where, "schema", f"{where} is not a valid JSON Schema: {message}")
        return None
    return schema


def _schema_problem(schema: dict) -> tuple[str, str] | None:
    """The first way ``schema`` breaks its draft's meta-schema (2020-12 unless ``$schema``
    names another draft), as (path inside the schema, message)."""
    # Imported here: jsonschema costs more to import than every format together, and the
    # format registry imports this module on every start of agentdex.
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    try:
        draft: type[Validator] = Draft202012Validator
        if isinstance(schema.get("$schema"), str):
            draft = validator_for(schema, default=Draft202012Validator)
        if draft not in _META_VALIDATORS:
            _META_VALIDATORS[draft] = draft(draft.META_SCHEMA)
        error = next(iter(_META_VALIDATORS[draft].iter_errors(schema)), None)
    except Exception:  # a crash of meta-validation on hostile input is not the author's error
        return None
    if error is None:
        return None
    at = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return at, error.message[:200]


# -- credential slots ---------------------------------------------------------------------
def credential_slots(c: Checker, doc: dict) -> dict[str, dict[str, Any]]:
    """The declared slots keyed by ``ref`` (normalised; never holding a secret)."""
    items = c.array(doc, "credential_slots", "")
    out: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(items or []):
        where = join("credential_slots", i)
        if not isinstance(entry, dict):
            c.error(where, "type", f"{where} must be an object {{ref, label, allowed_hosts, …}}")
            continue
        slot = _slot(c, entry, where)
        ref = slot.get("ref")
        if ref is not None and ref in out:
            c.error(join(where, "ref"), "unique", f"credential slot ref {ref!r} is declared more than once")
        elif ref is not None:
            out[ref] = slot
    return out


def _slot(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    slot: dict[str, Any] = {
        "ref": c.string(entry, "ref", where, True, min_len=1),
        "label": c.string(entry, "label", where, True, min_len=1),
        "env": c.string(entry, "env", where, pattern=ENV_RE, pattern_text="must be an UPPER_SNAKE name"),
        "type": c.enum(entry, "type", where, SLOT_TYPES) or "string",
        "required": _default(c.boolean(entry, "required", where), True),
        "description": c.string(entry, "description", where),
    }
    slot.update(_slot_scheme(c, entry, where))
    slot.update(_slot_audience(c, entry, where))
    _secret_keys(c, entry, where)
    c.unknown_keys(entry, where, SLOT_KEYS, silent=SECRET_KEYS)
    return {k: v for k, v in slot.items() if v is not None}


def _default(value: Any, default: Any) -> Any:
    return default if value is None else value


def _slot_scheme(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    scheme = c.enum(entry, "auth_scheme", where, AUTH_SCHEMES) or "bearer"
    name = c.string(
        entry,
        "header_name",
        where,
        required=scheme == "header",
        pattern=HEADER_NAME_RE,
        pattern_text="must be an HTTP header name such as X-API-KEY",
    )
    prefix = c.string(entry, "prefix", where)
    if scheme != "header":
        for key in ("header_name", "prefix"):
            if key in entry:
                c.warn(join(where, key), "ignored", f'{join(where, key)} is used only with auth_scheme "header"')
        name = prefix = None
    return {"auth_scheme": scheme, "header_name": name, "prefix": prefix}


def _slot_audience(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    acquisition = c.enum(entry, "auth_acquisition", where, ACQUISITIONS) or "paste"
    install_host = bool(c.boolean(entry, "install_host", where))
    oauth = acquisition == "oauth"
    provider = c.string(entry, "provider", where, required=oauth, min_len=1)
    if provider is not None and not oauth:
        c.warn(
            join(where, "provider"), "ignored", f'{join(where, "provider")} is used only with auth_acquisition "oauth"'
        )
    if oauth and install_host:
        c.error(
            join(where, "install_host"),
            "exclusive",
            "an OAuth slot does not use install_host: its audience is the provider's own API hosts",
        )
    host_example = c.string(entry, "host_example", where)
    if host_example is not None and not install_host:
        c.warn(
            join(where, "host_example"), "ignored", f"{join(where, 'host_example')} is used only with install_host true"
        )
    allowed = _slot_hosts(c, entry, where, oauth, install_host)
    _token_hosts(c, entry, where, allowed)
    return {
        "auth_acquisition": acquisition,
        "provider": provider if oauth else None,
        "install_host": install_host,
        "host_example": host_example if install_host else None,
        "allowed_hosts": allowed,
    }


def _slot_hosts(c: Checker, entry: dict, where: str, oauth: bool, install_host: bool) -> list[str]:
    allowed = hosts(c, entry, "allowed_hosts", where)
    at = join(where, "allowed_hosts")
    if (oauth or install_host) and allowed:
        why = (
            "an OAuth slot's audience is fixed by its provider"
            if oauth
            else "an install_host slot's audience is the host the buyer enters"
        )
        c.error(at, "exclusive", f"{at} must be empty: {why}")
        return []
    raw = entry.get("allowed_hosts")
    if not oauth and not install_host and (raw is None or raw == []):
        c.error(
            at,
            "no_audience",
            "a credential slot needs allowed_hosts (or install_host / OAuth): "
            "a secret without an audience is a cross-host exfiltration risk",
        )
    return allowed or []


def _token_hosts(c: Checker, entry: dict, where: str, allowed: list[str]) -> None:
    """A ``json`` service-account key on a Google API first trades a signed JWT for a token
    at Google's auth hosts; without them the egress guard blocks the call."""
    if entry.get("type") != "json" or not any(host_covered(h, ("googleapis.com",)) for h in allowed):
        return
    missing = [h for h in GOOGLE_TOKEN_HOSTS if not host_covered(h, allowed)]
    if missing:
        c.warn(
            join(where, "allowed_hosts"),
            "token_host",
            f"a json service-account key for a Google API must also allow {', '.join(missing)}",
        )


def _secret_keys(c: Checker, entry: dict, where: str) -> None:
    for key in SECRET_KEYS:
        if key in entry:
            c.error(
                join(where, key),
                "secret_value",
                f"{join(where, key)} would put a secret in the manifest; slots only declare what the buyer supplies",
            )


# -- guardrails ---------------------------------------------------------------------------
def guardrails(c: Checker, doc: dict, tool_names: set[str]) -> dict[str, Any] | None:
    """The declared rails (the gateway enforces them); ``secret_leak_scan`` is always on."""
    rails = c.obj(doc, "guardrails", "")
    if rails is None:
        return None
    out = {
        "input": _input_rail(c, rails),
        "output": _output_rail(c, rails),
        "actions": _action_rails(c, rails, tool_names),
    }
    c.unknown_keys(rails, "guardrails", out.keys())
    return {k: v for k, v in out.items() if v is not None}


def _input_rail(c: Checker, rails: dict) -> dict[str, Any] | None:
    rail = c.obj(rails, "input", "guardrails")
    if rail is None:
        return None
    where = "guardrails.input"
    out = {
        "max_length": c.number(rail, "max_length", where, minimum=1, integer=True),
        "deny_patterns": strings(c, rail, "deny_patterns", where),
        "pii_redaction": strings(c, rail, "pii_redaction", where),
    }
    c.unknown_keys(rail, where, INPUT_RAIL_KEYS)
    return {k: v for k, v in out.items() if v is not None}


def _output_rail(c: Checker, rails: dict) -> dict[str, Any]:
    rail = c.obj(rails, "output", "guardrails") or {}
    where = "guardrails.output"
    if c.boolean(rail, "secret_leak_scan", where) is False:
        c.error(
            join(where, "secret_leak_scan"),
            "mandatory_guardrail",
            "secret_leak_scan is mandatory: the platform always runs it and it cannot be set false",
        )
    out = {
        "secret_leak_scan": True,
        "pii_redaction": strings(c, rail, "pii_redaction", where),
        "schema": json_schema(c, rail, "schema", where),
    }
    c.unknown_keys(rail, where, OUTPUT_RAIL_KEYS)
    return {k: v for k, v in out.items() if v is not None}


def _action_rails(c: Checker, rails: dict, tool_names: set[str]) -> dict[str, Any] | None:
    actions = c.obj(rails, "actions", "guardrails")
    if actions is None:
        return None
    out = {}
    for name, policy in actions.items():
        where = join("guardrails.actions", name)
        if name not in tool_names:
            c.error(where, "unknown_tool", f"guardrails.actions names {name!r}, which is not a tool of this manifest")
        if not isinstance(policy, dict):
            c.error(where, "type", f"{where} must be an object {{approval, max_amount, rate_limit, …}}")
            continue
        out[name] = _action_rail(c, policy, where, name, tool_names)
    return out


def _action_rail(c: Checker, policy: dict, where: str, name: str, tool_names: set[str]) -> dict[str, Any]:
    out = {
        "approval": c.enum(policy, "approval", where, APPROVALS) or "none",
        "max_amount": c.number(policy, "max_amount", where, minimum=0),
        "rate_limit": c.string(
            policy,
            "rate_limit",
            where,
            pattern=RATE_RE,
            pattern_text="must be <count>/<second|minute|hour|day>, e.g. 10/hour",
        ),
        "idempotent": c.boolean(policy, "idempotent", where),
        "requires": _requires(c, policy, where, name, tool_names),
    }
    c.unknown_keys(policy, where, ACTION_RAIL_KEYS)
    return {k: v for k, v in out.items() if v is not None}


def _requires(c: Checker, policy: dict, where: str, name: str, tool_names: set[str]) -> list[str] | None:
    required = strings(c, policy, "requires", where)
    if required is None:
        return None
    at = join(where, "requires")
    for i, other in enumerate(required):
        if other not in tool_names:
            c.error(join(at, i), "unknown_tool", f"{join(at, i)} names {other!r}, which is not a tool of this manifest")
        elif other == name:
            c.warn(join(at, i), "requires_self", f"{name!r} requires itself, so the gate can never open")
    return [t for t in required if t in tool_names]
