"""JSON Schemas shipped as package data: those agentdex authors for the formats it reads
(``SCHEMAS``) and those it copies from their publishers (``VENDORED``)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

SCHEMAS = {"agent_app": "agent-app-v1.schema.json", "anchor": "anchor-v0.1.schema.json"}


@cache
def load_schema(name: str) -> dict:
    """The schema for format ``name`` (``KeyError`` when agentdex ships none)."""
    filename = SCHEMAS[name]
    return json.loads(resources.files(__package__).joinpath(filename).read_text("utf-8"))


# Schemas written by others and copied byte for byte (see SOURCES.md beside this file):
# name -> (file, sha256 of the file as copied).
VENDORED = {
    "server_json": (
        "mcp-server.schema.2025-12-11.json",
        "d4c163f299ece68b7432f4e44c4108f2fdb663d99dc088c8344142e5b0a4b520",
    ),
    "server_card_v1": (
        "mcp-server-card.v1.schema.json",
        "70cb0cf89446d27f8e23dc19c74a6377e0c84ed99f031c9a9b24cffbbe9c77d7",
    ),
    "server_card_v2": (
        "mcp-server-card.v2.schema.json",
        "f6aa0be033925b801b322470446ffa3db96969e532923dd61a6cabecc43f8d97",
    ),
    "a2a_card_v0.3": (
        "a2a-v0.3.schema.json",
        "01c713c1047e7f3f8380aff30397f30f54407cb310d08133705cef39a91aefa9",
    ),
    "a2a_card_v1.0": (
        "a2a-v1.schema-bundle.json",
        "7bb4d521bdc0420b9d101b5502b8dabc2d22eb0868bde4277192ea6054416c83",
    ),
}


@cache
def load_vendored(name: str) -> dict:
    """A vendored schema by name (``KeyError`` when agentdex ships none)."""
    filename = VENDORED[name][0]
    return json.loads(resources.files(__package__).joinpath(filename).read_text("utf-8"))


# Schemas agentdex wrote from a specification that publishes none (see SOURCES.md): name -> file.
DERIVED = {"ai_catalog": "ai-catalog-1.0.schema.json"}


@cache
def load_derived(name: str) -> dict:
    """A schema derived from a specification's normative text (``KeyError`` when none)."""
    return json.loads(resources.files(__package__).joinpath(DERIVED[name]).read_text("utf-8"))


# Formats validated against more than one shipped schema (by the version a document names).
FAMILIES = {"server_card": ("server_card_v1", "server_card_v2"), "a2a_card": ("a2a_card_v0.3", "a2a_card_v1.0")}
# Every schema ``agentdex schema NAME`` prints, by name.
SHIPPED = (*SCHEMAS, *VENDORED, *DERIVED)


def load_shipped(name: str) -> dict:
    """A schema agentdex ships, authored or vendored, by name (``KeyError`` when none)."""
    if name in DERIVED:
        return load_derived(name)
    return load_schema(name) if name in SCHEMAS else load_vendored(name)
