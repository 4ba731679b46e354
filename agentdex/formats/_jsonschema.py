"""Published JSON Schemas as findings: every error a schema finds in a document becomes a
finding at the offending value's path with a stable code (``required`` at the missing
field's own path, ``max_length``, ``pattern``, ``unknown_key`` for a key a closed object
does not define, ``schema_mismatch`` when a value matches none of the shapes an
``anyOf``/``oneOf`` allows …).

Shared by the formats whose rules are a JSON Schema written by others (the MCP registry's
``server.json``, SEP-2127 server cards, A2A cards) or derived by agentdex from a normative
text (the AI Catalog's CDDL).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agentdex.formats._check import Checker, join

if TYPE_CHECKING:  # jsonschema is imported when a document is first validated, not at start-up
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

CODES = {
    "required": "required",
    "type": "type",
    "maxLength": "max_length",
    "minLength": "min_length",
    "pattern": "pattern",
    "enum": "enum",
    "const": "const",
    "not": "not_allowed",
    "format": "url",
    "maxItems": "max_items",
    "minItems": "min_items",
    "additionalProperties": "unknown_key",
    "unevaluatedProperties": "unknown_key",
}
# RFC 3986's ``URI``: a scheme, a colon, no white space (what ajv-formats' "uri" accepts,
# short of its full grammar); jsonschema checks "uri" only with an optional package.
_URI_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*")
# RFC 3339's date-time (CDDL's ``tdate``): 2026-03-15T10:00:00Z, fractions and offsets allowed.
_DATE_TIME_RE = re.compile(
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
    r"(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
)


def compile_schema(schema: dict, ref: str | None = None) -> Validator:
    """A validator for ``schema`` (the draft its ``$schema`` names), checking ``format:
    uri``; with ``ref`` (``#/$defs/ServerCard``) it validates against that definition of
    the schema, as a schema that only defines types is meant to be used."""
    from jsonschema import FormatChecker
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    checker = FormatChecker(formats=())
    checker.checks("uri")(lambda value: not isinstance(value, str) or bool(_URI_RE.fullmatch(value)))
    checker.checks("date-time")(lambda value: not isinstance(value, str) or bool(_DATE_TIME_RE.fullmatch(value)))
    root = {**schema, "$ref": ref} if ref else schema
    return cls(root, format_checker=checker)


def errors(validator: Validator, doc: Any) -> list[ValidationError]:
    """Every error ``validator`` finds in ``doc``, in document order."""
    return sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))


def check(c: Checker, validator: Validator, doc: Any, prefix: str = "") -> None:
    """Record every error ``validator`` finds in ``doc`` on ``c``, paths under ``prefix``."""
    for error in errors(validator, doc):
        record(c, error, prefix)


def error_path(error: ValidationError, prefix: str = "") -> str:
    """``remotes[0].url`` for an error at that value (under ``prefix``)."""
    path = prefix
    for part in error.absolute_path:
        path = join(path, part)
    return path


def record(c: Checker, error: ValidationError, prefix: str = "") -> None:
    """One schema error as a finding (the deepest of an ``anyOf``'s when it is inside one
    of the shapes, e.g. a package's version)."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        if len(deepest.absolute_path) > len(error.absolute_path):
            return record(c, deepest, prefix)
        where = error_path(error, prefix)
        c.error(where, "schema_mismatch", f"{where or 'the document'} matches none of the shapes the schema allows")
        return None
    where = error_path(error, prefix)
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else ""
        where = join(where, missing)
        c.error(where, "required", f"{where} is required")
        return None
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        for key in extra_keys(error):
            at = join(where, key)
            c.error(
                at, "unknown_key", f"the schema allows no key {key!r} {'in ' + where if where else 'at the top level'}"
            )
        return None
    code = CODES.get(str(error.validator), "schema_mismatch")
    if error.validator == "format" and error.validator_value == "date-time":
        code = "timestamp"
    c.error(where, code, f"{where or 'the document'}: {error.message[:300]}")
    return None


def extra_keys(error: ValidationError) -> list[str]:
    """The keys an ``additionalProperties`` error is about."""
    instance, schema = error.instance, error.schema
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return [""]
    known = set(schema.get("properties") or {})
    patterns = [re.compile(p) for p in schema.get("patternProperties") or {}]
    return sorted(k for k in instance if k not in known and not any(p.search(k) for p in patterns)) or [""]
