"""A small web for the freshness and schedule tests: one agent-app origin per host in
``HOSTS``, each answering with that host's Cache-Control (or Expires) on every document,
an anchor.json that is a 404 with the same headers, and a ``v2`` variant whose guide
differs. Served by the sample web from a folder the test writes."""

from __future__ import annotations

import json

import pytest

from agentdex import formats
from agentdex.db import open_db
from agentdex.sampleweb.server import SampleWeb

HOSTS = {  # host: the Cache-Control (or Expires) every answer of the host carries
    "fresh.test": {"Cache-Control": "max-age=3600"},
    "nocache.test": {"Cache-Control": "max-age=3600, no-cache"},
    "nostore.test": {"Cache-Control": "no-store, max-age=3600"},
    "mustrevalidate.test": {"Cache-Control": "max-age=3600, must-revalidate"},
    "longlived.test": {"Cache-Control": "max-age=31536000"},
    "expires.test": {"Expires": "Fri, 01 Jan 2100 00:00:00 GMT"},
    "plain.test": {},
    "busy.test": {},  # the schedule tests' three origins: asked on every crawl
    "calm.test": {},
    "quiet.test": {},
}
# The manifests, every discovery path (each a 404 here: each document's paths are all tried)
# and the declared documents.
DISCOVERY = tuple(path for paths in formats.DISCOVERY_PATHS.values() for path in paths)
PATHS = ("/.well-known/agent-app.json", "/.well-known/anchor.json", *DISCOVERY, "/agent.md", "/llms.txt")
FOUND = ("/.well-known/agent-app.json", "/agent.md", "/llms.txt")  # the others answer 404


def manifest(host: str) -> dict:
    return {
        "agent_app": "1",
        "name": "Tidewatch",
        "one_liner": "Tide times and surf forecasts for any beach.",
        "description": "Tidewatch answers questions about tides and surf; the server runs no language model.",
        "homepage": f"https://{host}/",
        "guide": {"url": f"https://{host}/agent.md", "llms_txt": f"https://{host}/llms.txt"},
        "http": {"base": f"https://{host}/v1"},
        "categories": ["travel"],
        "pricing": "free",
        "publisher": {"name": "Tidewatch", "contact": "mailto:hello@tidewatch.example.org"},
    }


def write_host(root, host: str, headers: dict[str, str]) -> None:
    folder = root / host
    (folder / ".well-known").mkdir(parents=True)
    (folder / ".well-known" / "agent-app.json").write_text(json.dumps(manifest(host)), encoding="utf-8")
    (folder / "agent.md").write_text("# Tidewatch\n\nAsk for a beach and a date.\n", encoding="utf-8")
    (folder / "llms.txt").write_text("# Tidewatch\n\n> Tides.\n", encoding="utf-8")
    site = {"default_headers": headers, "paths": {"/.well-known/anchor.json": {"status": 404, "body": "Not found.\n"}}}
    (folder / "_site.json").write_text(json.dumps(site), encoding="utf-8")
    (folder / "_v2").mkdir()
    (folder / "_v2" / "agent.md").write_text("# Tidewatch\n\nAsk for a beach, a date and a board.\n", encoding="utf-8")


def write_web(root) -> None:
    """Every host of ``HOSTS`` under ``root``."""
    for host, headers in HOSTS.items():
        write_host(root, host, headers)


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """The web of ``HOSTS``, served for one test module."""
    root = tmp_path_factory.mktemp("freshweb")
    write_web(root)
    with SampleWeb(root=root, dns=False) as running:
        yield running


@pytest.fixture
def db(tmp_path):
    """A new catalogue for each test."""
    return open_db(tmp_path / "catalogue.db")
