"""Deriving an adapp package's tools from its ``openapi.json`` (transport ``openapi``).

Each operation of an OpenAPI 3 document becomes one tool: named by its ``operationId`` (or
``method_path``), with an ``inputSchema`` built from its parameters and JSON request body, and
a generated ``http_binding`` (v1). Pure: dicts in, tools and findings out.
"""

from __future__ import annotations

import re
from typing import Any

from agentdex.formats._check import Checker, join
from agentdex.models import Finding, Tool

OPENAPI = "openapi.json"
OPENAPI_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
API_KEY_IN = ("header", "query", "cookie")
MAX_OPENAPI_TOOLS = 500
_SCHEMA_REF = "#/components/schemas/"


def _show(value: str, limit: int = 80) -> str:
    """Untrusted text quoted for a message: repr escapes control characters."""
    return repr(value[:limit] + ("…" if len(value) > limit else ""))


def derive_openapi_tools(
    spec: dict, server: str, secrets: list[dict[str, Any] | None]
) -> tuple[list[Tool], list[Finding]]:
    """The tools an OpenAPI 3 document describes: one per operation, named by its
    ``operationId`` (or ``method_path``), with an ``inputSchema`` built from its parameters
    and JSON request body and a generated ``http_binding`` whose server is ``server``."""
    c = Checker(prefix=f"{OPENAPI}:")
    paths = spec.get("paths")
    tools: list[Tool] = []
    seen: set[str] = set()
    for path, item in paths.items() if isinstance(paths, dict) else ():
        for method in OPENAPI_METHODS:
            op = item.get(method) if isinstance(item, dict) else None
            if isinstance(op, dict) and len(tools) < MAX_OPENAPI_TOOLS:
                tool = _operation_tool(c, spec, str(path), method, op, item, server, secrets)
                _add_unique(c, tools, seen, tool, join(join("paths", str(path)), method))
    if not tools:
        c.warn("paths", "openapi", f"{OPENAPI} defines no operations: the app has no tools")
    return tools, c.findings


def _add_unique(c: Checker, tools: list[Tool], seen: set[str], tool: Tool, where: str) -> None:
    if tool.name in seen:
        c.warn(where, "duplicate", f"{where} makes a second tool named {_show(tool.name)}; it is left out")
        return
    seen.add(tool.name)
    tools.append(tool)


def _operation_tool(
    c: Checker,
    spec: dict,
    path: str,
    method: str,
    op: dict,
    item: dict,
    server: str,
    secrets: list[dict[str, Any] | None],
) -> Tool:
    op_id = op.get("operationId")
    name = op_id if isinstance(op_id, str) and op_id.strip() else _method_path(method, path)
    props, required, params = _operation_inputs(c, spec, path, method, op, item)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    schema = _with_defs(spec, schema)
    binding: dict[str, Any] = {
        "version": "v1",
        "method": method.upper(),
        "path": path,
        "server": server,
        "params": params,
    }
    auth = _operation_auth(c, spec, op, name, secrets)
    if auth is not None:
        binding["auth"] = auth
    description = next((t for t in (op.get("summary"), op.get("description")) if isinstance(t, str)), "")
    return Tool(
        name=name, description=description, input_schema=schema, source="manifest", detail={"http_binding": binding}
    )


def _method_path(method: str, path: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_")
    return f"{method}_{slug}" if slug else method


def _operation_inputs(
    c: Checker, spec: dict, path: str, method: str, op: dict, item: dict
) -> tuple[dict[str, Any], list[str], dict[str, str]]:
    props: dict[str, Any] = {}
    required: list[str] = []
    params: dict[str, str] = {}
    where = join(join("paths", path), method)
    for p in _parameters(spec, item, op):
        name, loc = p.get("name"), p.get("in")
        if not isinstance(name, str) or loc not in ("query", "header", "path"):
            if loc == "cookie":
                c.warn(
                    where,
                    "openapi",
                    f"{where}: cookie parameter {_show(str(name), 40)} cannot be bound; it is left out",
                )
            continue
        schema = p.get("schema")
        schema = schema if isinstance(schema, dict) else {}
        if isinstance(p.get("description"), str):
            schema = {**schema, "description": p["description"]}
        _add_input(props, required, params, name, schema, loc, bool(p.get("required")) or loc == "path")
    _body_inputs(spec, op, props, required, params)
    return props, required, params


def _parameters(spec: dict, item: dict, op: dict) -> list[dict]:
    """Path-level parameters overridden by operation-level ones (same name and location)."""
    merged: dict[tuple, dict] = {}
    for source in (item.get("parameters"), op.get("parameters")):
        for raw in source if isinstance(source, list) else []:
            p = _deref(spec, raw)
            if isinstance(p, dict):
                merged[(p.get("name"), p.get("in"))] = p
    return list(merged.values())


def _body_inputs(spec: dict, op: dict, props: dict, required: list, params: dict) -> None:
    body = _deref(spec, op.get("requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return
    media = content.get("application/json") or next(iter(content.values()))
    schema = _deref(spec, media.get("schema")) if isinstance(media, dict) else None
    schema = schema if isinstance(schema, dict) else {}
    body_required = bool(body.get("required"))
    fields = schema.get("properties")
    if schema.get("type", "object") == "object" and isinstance(fields, dict) and fields:
        wanted = schema.get("required")
        wanted = wanted if isinstance(wanted, list) else []
        for name, field in fields.items():
            _add_input(props, required, params, name, field, "body", body_required and name in wanted)
    else:
        _add_input(props, required, params, "body", schema, "body", body_required)


def _add_input(props: dict, required: list, params: dict, name: str, schema: Any, loc: str, is_required: bool) -> None:
    if name in props:
        return  # the first binding of a name wins; a body field never shadows a parameter
    props[name] = schema
    params[name] = loc
    if is_required:
        required.append(name)


def _deref(spec: dict, node: Any, hops: int = 8) -> Any:
    """Follow local ``$ref`` pointers (``#/components/...``) a few hops."""
    while hops and isinstance(node, dict) and isinstance(node.get("$ref"), str):
        node = _pointer(spec, node["$ref"])
        hops -= 1
    return node


def _pointer(spec: dict, ref: str) -> Any:
    if not ref.startswith("#/"):
        return None
    node: Any = spec
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _with_defs(spec: dict, schema: dict) -> dict:
    """The schema with ``#/components/schemas/X`` refs rewritten to ``#/$defs/X`` and each
    schema it needs copied once into ``$defs`` (linear size, even for recursive schemas)."""
    components = (spec.get("components") or {}).get("schemas") if isinstance(spec.get("components"), dict) else None
    components = components if isinstance(components, dict) else {}
    needed: dict[str, Any] = {}
    queue: list[str] = []

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(_SCHEMA_REF):
                target = value[len(_SCHEMA_REF) :]
                if target not in needed:
                    needed[target] = None
                    queue.append(target)
                out[key] = "#/$defs/" + target
            else:
                out[key] = rewrite(value)
        return out

    root = rewrite(schema)
    while queue:
        target = queue.pop()
        needed[target] = rewrite(components.get(target.replace("~1", "/").replace("~0", "~"), {}))
    return {**root, "$defs": needed} if needed else root


def _operation_auth(
    c: Checker, spec: dict, op: dict, tool: str, secrets: list[dict[str, Any] | None]
) -> dict[str, Any] | None:
    requirements = op.get("security", spec.get("security"))
    first = requirements[0] if isinstance(requirements, list) and requirements else None
    if not isinstance(first, dict) or not first:
        return None
    scheme_name = next(iter(first))
    schemes = (
        (spec.get("components") or {}).get("securitySchemes") if isinstance(spec.get("components"), dict) else None
    )
    scheme = _deref(spec, schemes.get(scheme_name)) if isinstance(schemes, dict) else None
    auth = _scheme_auth(scheme)
    if auth is None:
        c.warn(
            "components.securitySchemes",
            "openapi",
            f"tool {_show(tool)} uses security scheme {_show(str(scheme_name), 40)}, which http_binding "
            "cannot express (apiKey, http bearer and http basic can); it is bound without auth",
        )
        return None
    index = _secret_for(str(scheme_name), secrets)
    if index is None:
        c.warn(
            "components.securitySchemes",
            "credential_ref",
            f"tool {_show(tool)} needs scheme {_show(str(scheme_name), 40)} but no required_secrets "
            "entry can be chosen for it (declare one whose key matches the scheme name)",
        )
        return None
    return {**auth, "credential_ref": f"required_secrets[{index}].key"}


def _scheme_auth(scheme: Any) -> dict[str, Any] | None:
    if not isinstance(scheme, dict):
        return None
    if scheme.get("type") == "apiKey" and scheme.get("in") in API_KEY_IN and isinstance(scheme.get("name"), str):
        return {"type": "apiKey", "in": scheme["in"], "name": scheme["name"]}
    if scheme.get("type") == "http" and str(scheme.get("scheme", "")).lower() in ("bearer", "basic"):
        return {"type": str(scheme["scheme"]).lower()}
    return None


def _secret_for(scheme_name: str, secrets: list[dict[str, Any] | None]) -> int | None:
    """The secret whose key matches the scheme's name (ignoring case and punctuation), else
    the only usable secret."""

    def squash(text: str) -> str:
        return re.sub(r"[^a-z0-9]", "", text.lower())

    usable = [(i, s) for i, s in enumerate(secrets) if s is not None]
    for i, secret in usable:
        if squash(secret["key"]) == squash(scheme_name):
            return i
    return usable[0][0] if len(usable) == 1 else None
