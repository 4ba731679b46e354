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
}


@cache
def load_vendored(name: str) -> dict:
    """A vendored schema by name (``KeyError`` when agentdex ships none)."""
    filename = VENDORED[name][0]
    return json.loads(resources.files(__package__).joinpath(filename).read_text("utf-8"))
