"""Synthetic origins for benchmarks: ``site-00001.synthetic.test`` … generated on the fly.

Every origin serves a valid agent-app manifest (names, categories, pricing and tags vary,
deterministically by index), a guide, llms.txt, SKILL.md, policy pages and a small HTTP API
(``/v1``, ``/v1/capabilities``, ``/v1/openapi.json``). Nothing touches the disk; the same
index always yields the same bytes, so ETags hold across restarts.

Variant ``v2`` (``SampleWeb.set_variant("*", "v2")``) changes every tenth origin (index
divisible by 10): its one-liner, instructions and guide, so recrawl benchmarks see a known
share of changes. :func:`write_synthetic_tree` writes the same web as folders that
``SampleWeb(root=...)`` (or any static file server) can serve.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

# The spec's own list: a synthetic manifest must validate, so it draws only what the spec allows.
from agentdex.formats.agent_app import CATEGORIES

DOMAIN = "synthetic.test"
CHANGED_EVERY = 10
VARIANTS = ("", "v2")
ADJECTIVES = (
    "Amber",
    "Brisk",
    "Cedar",
    "Copper",
    "Dawn",
    "Ember",
    "Fable",
    "Granite",
    "Harbor",
    "Indigo",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Maple",
    "Nimbus",
    "Onyx",
    "Pine",
    "Quill",
    "River",
    "Saffron",
    "Tidal",
    "Umber",
    "Velvet",
    "Willow",
    "Zephyr",
)
NOUNS = (
    "Ledger",
    "Planner",
    "Notes",
    "Atlas",
    "Pantry",
    "Journal",
    "Tracker",
    "Radar",
    "Courier",
    "Garden",
    "Compass",
    "Desk",
    "Forge",
    "Studio",
    "Library",
    "Market",
    "Almanac",
    "Beacon",
    "Workshop",
    "Guide",
)
TAGS = (
    "budget",
    "recipes",
    "habits",
    "weather",
    "travel",
    "reading",
    "fitness",
    "invoices",
    "calendar",
    "notes",
    "music",
    "garden",
    "code-review",
    "podcasts",
    "maps",
    "shopping",
    "translation",
    "study",
)
PRICING = ("free", "freemium", "paid")
HOSTS = ("claude", "claude_code", "chatgpt", "codex", "openclaw", "grok")
HOST_STATUSES = ("tested", "untested", "unsupported")
HOST_RE = re.compile(r"site-(\d+)\.(.+)")
EMPTY_BASE = 1_000_000  # empty origins have names of 7 digits: no generated origin has one

# url path -> (file path in a written tree, content type)
FILES: dict[str, tuple[str, str]] = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/.well-known/agent-app.json": (".well-known/agent-app.json", "application/json"),
    "/agent.md": ("agent.md", "text/markdown; charset=utf-8"),
    "/llms.txt": ("llms.txt", "text/plain; charset=utf-8"),
    "/SKILL.md": ("SKILL.md", "text/markdown; charset=utf-8"),
    "/privacy": ("privacy.html", "text/html; charset=utf-8"),
    "/terms": ("terms.html", "text/html; charset=utf-8"),
    "/v1": ("v1/index.json", "application/json"),
    "/v1/capabilities": ("v1/capabilities.json", "application/json"),
    "/v1/openapi.json": ("v1/openapi.json", "application/json"),
}
MANIFEST_HEADERS = (("Access-Control-Allow-Origin", "*"),)


def host_name(index: int, domain: str = DOMAIN, width: int = 5) -> str:
    """The host of synthetic origin ``index`` (1-based)."""
    return f"site-{index:0{width}d}.{domain}"


def _profile(index: int) -> dict[str, Any]:
    """The varying facts of one origin, drawn from a generator seeded by its index."""
    rng = random.Random(f"agentdex-synthetic-{index}")
    name = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
    return {
        "name": name,
        "slug": name.lower().replace(" ", "-"),
        "categories": rng.sample(CATEGORIES, rng.randint(1, 3)),
        "tags": rng.sample(TAGS, rng.randint(1, 4)),
        "pricing": rng.choice(PRICING),
        "hosts": [{"host": h, "status": rng.choice(HOST_STATUSES)} for h in rng.sample(HOSTS, rng.randint(0, 3))],
        "events": rng.choice((["poll"], ["webhook", "email"], ["none"])),
    }


def manifest(index: int, host: str, changed: bool = False) -> dict[str, Any]:
    """The agent-app v1 manifest of one synthetic origin."""
    p = _profile(index)
    base = f"https://{host}"
    one_liner = f"{p['name']} keeps {p['tags'][0]} in order for origin number {index}."
    if changed:
        one_liner = f"{p['name']} now also plans {p['tags'][-1]} for origin number {index}."
    return {
        "agent_app": "1",
        "name": p["name"],
        "one_liner": one_liner,
        "description": (
            f"{p['name']} is synthetic origin {index} of the agentdex benchmark web. The agent reads "
            f"and writes {', '.join(p['tags'])} through a small HTTP API; the server stores them "
            "and runs no language model."
        ),
        "homepage": f"{base}/",
        "guide": {"url": f"{base}/agent.md", "llms_txt": f"{base}/llms.txt"},
        "skill": {"url": f"{base}/SKILL.md"},
        "http": {"base": f"{base}/v1", "openapi": f"{base}/v1/openapi.json", "capabilities": f"{base}/v1/capabilities"},
        "auth_methods": ["api_key"],
        "events": p["events"],
        "hosts": p["hosts"],
        "categories": p["categories"],
        "tags": p["tags"],
        "pricing": p["pricing"],
        "publisher": {"name": f"{p['name']} Co", "url": f"{base}/", "contact": f"mailto:agents@{host}"},
        "policies": {"privacy": f"{base}/privacy", "terms": f"{base}/terms"},
        "say": [f"Install {p['name']}", f"Show my {p['tags'][0]} in {p['name']}"],
        "instructions": (
            f"{p['name']} manages the user's {', '.join(p['tags'])}"
            f"{' and plans ahead' if changed else ''}. Guide: {base}/agent.md"
        ),
    }


def _guide(doc: dict[str, Any], index: int, changed: bool) -> str:
    extra = "\n## What changed\n\nPlanning arrived in version two of this origin.\n" if changed else ""
    return (
        f"# {doc['name']} — guide for agents\n\n{doc['description']}\n\n## API\n\n"
        f"Base URL: {doc['http']['base']}\nAuthentication: an API key in the `Authorization` header.\n\n"
        f"## Say\n\n" + "\n".join(f"- {line}" for line in doc["say"]) + f"\n\nOrigin {index}.\n{extra}"
    )


def _html(title: str, text: str) -> str:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>\n'
        f"<body><h1>{title}</h1><p>{text}</p></body></html>\n"
    )


def _openapi(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": f"{doc['name']} API", "version": "1.0.0"},
        "servers": [{"url": doc["http"]["base"]}],
        "paths": {
            "/items": {
                "get": {
                    "operationId": "listItems",
                    "summary": "List items",
                    "responses": {"200": {"description": "The items"}},
                }
            }
        },
    }


@lru_cache(maxsize=8192)
def site_files(index: int, host: str, changed: bool) -> dict[str, bytes]:
    """Every file of one origin, by url path (cached: generation is the hot path)."""
    doc = manifest(index, host, changed)
    slug = _profile(index)["slug"]
    texts = {
        "/": _html(doc["name"], doc["one_liner"]),
        "/.well-known/agent-app.json": json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
        "/agent.md": _guide(doc, index, changed),
        "/llms.txt": f"# {doc['name']}\n\n> {doc['one_liner']}\n\n- [Guide]({doc['guide']['url']}): for agents\n",
        "/SKILL.md": (
            f"---\nname: {slug}\ndescription: {doc['one_liner']}\n---\n\n"
            f"# {doc['name']}\n\nRead {doc['guide']['url']}.\n"
        ),
        "/privacy": _html("Privacy", "We keep only what the app needs."),
        "/terms": _html("Terms", "Use it kindly."),
        "/v1": json.dumps({"name": doc["name"], "version": "v1"}) + "\n",
        "/v1/capabilities": json.dumps({"name": doc["name"], "operations": ["items.list"]}) + "\n",
        "/v1/openapi.json": json.dumps(_openapi(doc), indent=2) + "\n",
    }
    return {path: text.encode("utf-8") for path, text in texts.items()}


class SyntheticWeb:
    """``n`` generated origins under ``domain``, and ``empty`` more that answer 404 to every
    path (``site-1000001…``, as nearly every origin of a top-1M list does)."""

    def __init__(self, n: int, domain: str = DOMAIN, empty: int = 0) -> None:
        self.n = n
        self.empty = empty
        self.domain = domain
        self.width = max(5, len(str(n)))
        self.variant = ""
        self.last_modified = int(time.time())

    @property
    def hosts(self) -> list[str]:
        """Every synthetic host name."""
        return [host_name(i, self.domain, self.width) for i in range(1, self.n + 1)]

    def index_of(self, host: str) -> int | None:
        """The index a host name stands for, or None when it is not one of ours."""
        match = HOST_RE.fullmatch(host)
        if not match or match.group(2) != self.domain or len(match.group(1)) != self.width:
            return None
        index = int(match.group(1))
        return index if 1 <= index <= self.n else None

    @property
    def empty_hosts(self) -> list[str]:
        """Every host that answers 404 to every path."""
        return [host_name(EMPTY_BASE + i, self.domain, 7) for i in range(1, self.empty + 1)]

    def serves(self, host: str) -> bool:
        """Whether ``host`` is one of the synthetic origins (an empty one included)."""
        if self.index_of(host) is not None:
            return True
        match = HOST_RE.fullmatch(host)
        return bool(match and match.group(2) == self.domain and 0 < int(match.group(1)) - EMPTY_BASE <= self.empty)

    def set_variant(self, name: str) -> None:
        """Switch every origin to variant ``name`` ("" or "v2")."""
        if name not in VARIANTS:
            raise ValueError(f"the synthetic web has variants {VARIANTS}, not {name!r}")
        if name != self.variant:
            self.variant = name
            self.last_modified = max(int(time.time()), self.last_modified + 1)

    def lookup(self, host: str, path: str) -> tuple[bytes, str, tuple[tuple[str, str], ...]] | None:
        """(body, content type, extra headers) for a request, or None (404)."""
        index = self.index_of(host)
        if index is None or path not in FILES:
            return None
        changed = self.variant == "v2" and index % CHANGED_EVERY == 0
        body = site_files(index, host, changed)[path]
        headers = MANIFEST_HEADERS if path.startswith("/.well-known/") else ()
        return body, FILES[path][1], headers


def write_synthetic_tree(path: str | Path, n: int, domain: str = DOMAIN) -> list[str]:
    """Write ``n`` synthetic origins as host folders under ``path`` (the ``web/`` layout,
    with ``_v2/`` overlays holding the files variant v2 changes and a ``_site.json`` for the
    manifest's CORS header) plus a ``seeds.txt`` of their origins; returns the host names."""
    root = Path(path)
    web = SyntheticWeb(n, domain)
    site_json = json.dumps({"paths": {"/.well-known/agent-app.json": {"headers": dict(MANIFEST_HEADERS)}}}, indent=2)
    for index, host in enumerate(web.hosts, start=1):
        base = site_files(index, host, False)
        _write_files(root / host, base, base.keys())
        (root / host / "_site.json").write_text(site_json + "\n", encoding="utf-8")
        if index % CHANGED_EVERY == 0:
            changed = site_files(index, host, True)
            _write_files(root / host / "_v2", changed, [p for p in changed if changed[p] != base[p]])
    hosts = web.hosts
    (root / "seeds.txt").write_text("".join(f"https://{h}\n" for h in hosts), encoding="utf-8")
    return hosts


def _write_files(folder: Path, files: dict[str, bytes], paths: Iterable[str]) -> None:
    for url_path in paths:
        target = folder / FILES[url_path][0]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[url_path])
