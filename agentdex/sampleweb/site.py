"""Virtual hosts made of folders: ``web/<host>/<path files>`` plus ``_site.json`` rules.

A host folder may hold variant trees ``_<name>/`` whose files (and ``_site.json`` rules)
lay over the base ones while that variant is switched on; see README.md beside this file.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

SITE_FILE = "_site.json"
DNS_FILE = "_dns.json"
RULE_KEYS = (
    "status",
    "headers",
    "content_type",
    "delay",
    "drip",
    "redirect",
    "redirect_status",
    "body",
    "gzip",
    "gzip_bomb",
    "pad_to",
    "app",
    "options",
    "etag",
    "comment",
)
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
BOMB_DEFAULT = 100 * 1024 * 1024
INDEX_FILES = ("index.html", "index.json")
EXTENSION_FALLBACKS = (".html", ".json")


@dataclass(slots=True)
class Rule:
    """Per-path behaviour read from ``_site.json`` (every field optional)."""

    key: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = None
    delay: float = 0.0
    drip: int | None = None
    redirect: str | None = None
    redirect_status: int = 302
    body: bytes | None = None
    gzip: bool = False
    gzip_bomb: int = 0
    pad_to: int = 0
    app: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    etag: bool = True

    @property
    def is_prefix(self) -> bool:
        """Whether the rule covers every path under its key (the key ends in ``*``)."""
        return self.key.endswith("*")


def parse_rule(key: str, data: Any, where: str) -> Rule:
    """Build a :class:`Rule` from its JSON form; our own content, so mistakes raise."""
    if not key.startswith("/") or not isinstance(data, dict):
        raise ValueError(f"{where}: rule {key!r} must start with / and be an object")
    unknown = set(data) - set(RULE_KEYS)
    if unknown:
        raise ValueError(f"{where}: rule {key!r} has unknown keys {sorted(unknown)}")
    rule = Rule(key=key)
    for name in (
        "status",
        "content_type",
        "delay",
        "drip",
        "redirect",
        "redirect_status",
        "gzip",
        "pad_to",
        "app",
        "etag",
    ):
        if name in data:
            setattr(rule, name, data[name])
    rule.headers = {str(k): str(v) for k, v in (data.get("headers") or {}).items()}
    rule.options = dict(data.get("options") or {})
    rule.body = _inline_body(data.get("body"))
    bomb = data.get("gzip_bomb", 0)
    rule.gzip_bomb = BOMB_DEFAULT if bomb is True else int(bomb or 0)
    if rule.redirect_status not in REDIRECT_STATUSES:
        raise ValueError(f"{where}: rule {key!r}: redirect_status must be one of {REDIRECT_STATUSES}")
    return rule


def _inline_body(body: Any) -> bytes | None:
    if body is None:
        return None
    if isinstance(body, str):
        return body.encode("utf-8")
    return json.dumps(body, indent=2).encode("utf-8")


@dataclass(slots=True)
class SiteConfig:
    """The rules in force for one variant of a host (base rules with the variant's laid over)."""

    exact: dict[str, Rule] = field(default_factory=dict)
    prefixes: list[Rule] = field(default_factory=list)  # longest first
    default_headers: dict[str, str] = field(default_factory=dict)

    def rule_for(self, path: str) -> Rule:
        """The rule for a request path: an exact key, else the longest ``*`` prefix."""
        rule = self.exact.get(path)
        if rule is not None:
            return rule
        for rule in self.prefixes:
            if path.startswith(rule.key[:-1]):
                return rule
        return Rule(key=path)

    def app_rules(self) -> list[Rule]:
        """Every rule that routes to an ASGI app."""
        return [r for r in [*self.exact.values(), *self.prefixes] if r.app]


def build_config(documents: list[dict[str, Any]], where: str) -> SiteConfig:
    """Merge ``_site.json`` documents in order (later ones win key by key)."""
    rules: dict[str, Rule] = {}
    headers: dict[str, str] = {}
    for doc in documents:
        unknown = set(doc) - {"paths", "default_headers", "comment"}
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        headers.update({str(k): str(v) for k, v in (doc.get("default_headers") or {}).items()})
        for key, data in (doc.get("paths") or {}).items():
            rules[key] = parse_rule(key, data, where)
    config = SiteConfig(default_headers=headers)
    for key, rule in rules.items():
        if rule.is_prefix:
            config.prefixes.append(rule)
        else:
            config.exact[key] = rule
    config.prefixes.sort(key=lambda r: len(r.key), reverse=True)
    return config


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise ValueError(f"{path.name} must hold a JSON object")
    return doc


def safe_parts(path: str) -> tuple[str, ...] | None:
    """The components of a request path, or ``None`` when it tries to leave the folder
    or names an internal file (a top-level name starting with ``_``)."""
    parts = tuple(p for p in PurePosixPath(path).parts if p != "/")
    for part in parts:
        if part in (".", "..") or "\\" in part or "\x00" in part:
            return None
    if parts and parts[0].startswith("_"):
        return None
    return parts


class Site:
    """One virtual host served from a folder, with its variants."""

    def __init__(self, host: str, folder: Path) -> None:
        self.host = host
        self.folder = folder
        self.variant = ""
        self.switched_at = int(time.time())
        base = _read_json(folder / SITE_FILE)
        self.configs: dict[str, SiteConfig] = {"": build_config([base], f"{host}/{SITE_FILE}")}
        for name in self.variant_names():
            doc = _read_json(folder / f"_{name}" / SITE_FILE)
            self.configs[name] = build_config([base, doc], f"{host}/_{name}/{SITE_FILE}")

    def variant_names(self) -> list[str]:
        """The names of the variant trees (``_v2/`` is variant ``v2``)."""
        return sorted(p.name[1:] for p in self.folder.iterdir() if p.is_dir() and p.name.startswith("_"))

    @property
    def config(self) -> SiteConfig:
        """The rules of the variant in force."""
        return self.configs[self.variant]

    def set_variant(self, name: str) -> None:
        """Switch the host's content to variant ``name`` (``""`` is the base tree)."""
        if name not in self.configs:
            raise ValueError(f"{self.host} has no variant {name!r}; it has {sorted(self.configs)}")
        if name != self.variant:
            self.variant = name
            # Last-Modified never goes backwards, so If-Modified-Since stays correct.
            self.switched_at = max(int(time.time()), self.switched_at + 1)

    def find_internal(self, rel: str, variant: str | None = None) -> Path | None:
        """A file of the host by relative path, the variant's tree first (the current
        variant unless one is named); internal names (``_servers.json``) are allowed."""
        variant = self.variant if variant is None else variant
        dirs = [self.folder / f"_{variant}"] if variant else []
        for base in [*dirs, self.folder]:
            candidate = base / rel
            if candidate.is_file():
                return candidate
        return None

    def find_file(self, path: str) -> Path | None:
        """The file a request path maps to: exact, ``index.*`` for folders, then
        ``.html`` / ``.json`` for extension-less names; variant tree first."""
        parts = safe_parts(path)
        if parts is None:
            return None
        rel = "/".join(parts)
        for name in _candidates(rel, path.endswith("/") or not parts):
            found = self.find_internal(name)
            if found is not None:
                return found
        return None


def _candidates(rel: str, is_folder: bool) -> list[str]:
    if is_folder:
        return [f"{rel}/{i}".lstrip("/") for i in INDEX_FILES]
    out = [rel]
    if "." not in PurePosixPath(rel).name:
        out += [rel + ext for ext in EXTENSION_FALLBACKS]
        out += [f"{rel}/{i}" for i in INDEX_FILES]
    return out


def load_sites(root: Path) -> dict[str, Site]:
    """Every host folder under ``root`` (folders starting with ``_`` or ``.`` are not hosts)."""
    sites: dict[str, Site] = {}
    for folder in sorted(root.iterdir()):
        if folder.is_dir() and not folder.name.startswith(("_", ".")):
            host = folder.name.lower()
            sites[host] = Site(host, folder)
    return sites


def load_dns_zone(root: Path) -> dict[str, Any]:
    """The DNS zone of a web folder (``_dns.json``), or an empty zone."""
    return _read_json(root / DNS_FILE)
