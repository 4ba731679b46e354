"""The two JSON Schemas an A2A agent card is validated against, compiled once.

* **A2A 1.0** (``supportedInterfaces``): the JSON bundle the A2A project publishes beside its
  specification (``spec/a2a.json`` of the gh-pages branch), shipped byte for byte as
  ``schemas/a2a-v1.schema-bundle.json``: the ``dev/`` deployment of gh-pages revision 35fa6395
  (2026-03-05), the revision the search index holds. Its ``AgentCard`` and every definition
  a card uses are those of the v1.0.1 bundle (tag v1.0.1, 2026-05-28); it differs from that
  bundle in descriptions and in ``SendMessageConfiguration`` (``blocking``, later
  ``returnImmediately``), which no card contains. The bundle is marked non-normative: it is
  generated from ``specification/a2a.proto``, the normative source, but leaves
  out what the proto marks ``field_behavior = REQUIRED`` and its ``oneof`` groups, and its
  ``$ref`` values name one file a message (``lf.a2a.v1.AgentCard.jsonschema.json``) that the
  bundle keys by title instead. :func:`v1_validator` therefore compiles a copy in which each
  reference points at its definition and :data:`REQUIRED` (the proto's REQUIRED fields, in
  their JSON names; ``tests/test_validate_ecosystem.py`` checks them against the proto at
  revision f903eee9, whose REQUIRED markings are tag v1.0.1's) and :data:`ONE_OF` are added.
  The bundle closes every object; the specification says
  implementations SHOULD ignore unrecognised fields, so :mod:`~agentdex.formats.a2a_card`
  reports those as warnings.
* **A2A 0.3** (``url``): ``specification/json/a2a.json``, its ``AgentCard`` definition
  (``schemas/a2a-v0.3.schema.json``): the revision of 4864c210 (2025-08-13), the one the
  search index holds, which is tag v0.3.0's file with one more definition (``JSONError``, not
  used by ``AgentCard``).
"""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from agentdex.formats import _jsonschema
from agentdex.formats.schemas import load_vendored

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

# specification/a2a.proto at tag v1.0.1: the fields marked REQUIRED, by message, in JSON names.
REQUIRED = {
    "AgentCard": [
        "name",
        "description",
        "supportedInterfaces",
        "version",
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
    ],
    "AgentInterface": ["url", "protocolBinding", "protocolVersion"],
    "AgentProvider": ["url", "organization"],
    "AgentSkill": ["id", "name", "description", "tags"],
    "AgentCardSignature": ["protected", "signature"],
    "APIKeySecurityScheme": ["location", "name"],
    "HTTPAuthSecurityScheme": ["scheme"],
    "OAuth2SecurityScheme": ["flows"],
    "OpenIdConnectSecurityScheme": ["openIdConnectUrl"],
    "AuthorizationCodeOAuthFlow": ["authorizationUrl", "tokenUrl", "scopes"],
    "ClientCredentialsOAuthFlow": ["tokenUrl", "scopes"],
    "DeviceCodeOAuthFlow": ["deviceAuthorizationUrl", "tokenUrl", "scopes"],
}
# The proto's ``oneof`` groups among them: exactly one member is set.
ONE_OF = {"SecurityScheme": "scheme", "OAuthFlows": "flow"}
_REF_RE = re.compile(r"(?:lf\.a2a\.v1|google\.protobuf)\.(\w+)\.jsonschema\.json")


def _linked(node: Any) -> Any:
    """``node`` with every file reference turned into a reference to its definition."""
    if isinstance(node, dict):
        out = {k: _linked(v) for k, v in node.items() if k != "$schema"}
        ref = node.get("$ref")
        found = _REF_RE.fullmatch(ref) if isinstance(ref, str) else None
        if found:
            out["$ref"] = f"#/$defs/{found.group(1)}"
        return out
    return [_linked(v) for v in node] if isinstance(node, list) else node


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def v1_schema() -> dict:
    """The v1 bundle as one self-contained schema, with the proto's required fields and
    one-of groups, rooted at ``AgentCard``."""
    bundle = copy.deepcopy(load_vendored("a2a_card_v1.0"))
    defs = {title.replace(" ", ""): _linked(schema) for title, schema in bundle["definitions"].items()}
    for name, fields in REQUIRED.items():
        defs[name]["required"] = fields
    for name in ONE_OF:  # each member in either JSON spelling (lowerCamelCase or the proto's)
        members = sorted(defs[name]["properties"])
        defs[name]["oneOf"] = [{"anyOf": [{"required": [m]}, {"required": [_snake(m)]}]} for m in members]
    return {"$schema": bundle["$schema"], "$defs": defs, "$ref": "#/$defs/AgentCard"}


@cache
def v1_validator() -> Validator:
    """A2A 1.0's AgentCard, compiled once."""
    return _jsonschema.compile_schema(v1_schema())


@cache
def v03_validator() -> Validator:
    """A2A 0.3.0's AgentCard, compiled once."""
    schema = load_vendored("a2a_card_v0.3")
    return _jsonschema.compile_schema({**schema, "$ref": "#/definitions/AgentCard"})


def v03_fields() -> tuple[str, ...]:
    """The top-level fields A2A 0.3.0's AgentCard defines."""
    return tuple(load_vendored("a2a_card_v0.3")["definitions"]["AgentCard"]["properties"])
