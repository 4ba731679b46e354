"""JSON Schemas agentdex authors for the formats it reads (shipped as package data)."""

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
