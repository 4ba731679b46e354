"""Inferred listings: an origin with bootstrap files but no manifest.

Spec: ``specs/agent-app-manifest-v1.md``, "Bootstrap listings without a manifest". An app
that serves ``/agent.md`` (or ``/llms.txt``) and ``/SKILL.md`` at its root but no manifest
still gets a listing, built from those files:

- **name** and **description** come from the SKILL.md frontmatter (the Agent Skills /
  ClawHub form: a ``---`` line, a YAML mapping, a ``---`` line). A SKILL.md without
  frontmatter is an error (``frontmatter``); a missing ``name`` or ``description`` is a
  ``required`` error at ``SKILL.md:name`` / ``SKILL.md:description``. The name is limited
  to 64 characters (an error, as in agent-app); a name outside the Agent Skills form
  (lower-case letters, digits and single hyphens) is a warning. A description over 1,000
  characters (agent-app's limit) is a warning and the listing keeps its first 1,000.
  Other frontmatter keys (license, metadata, allowed-tools, …) are kept, never checked:
  the skill formats in the wild differ too much for a typo warning to be useful.
- **guide_url** is ``<base>/agent.md``; with no agent.md, ``<base>/llms.txt`` is the
  guide. **llms_txt_url** is set whenever llms.txt exists. No guide at all is a
  ``required`` error at ``agent.md``; no SKILL.md a ``required`` error at ``SKILL.md``;
  neither a ``no_bootstrap`` error at ``""`` and no listing.
- **skill_url** is ``<base>/SKILL.md``.
- **mcp_url** comes from a ``mcp.json`` beside the skill when it names a remote server,
  else from the first MCP URL the guide mentions. In mcp.json the shapes read are
  ``{"mcpServers": {name: {...}}}`` (Claude, Cursor, Windsurf, Gemini CLI),
  ``{"servers": {...}}`` (``.vscode/mcp.json``) and a top-level ``{"url": ...}``; an entry
  gives its ``url``, ``serverUrl`` or ``httpUrl`` unless it is typed ``stdio`` or ``sse``.
  A mcp.json that cannot be read, or names no remote server, is a warning.
- **An MCP URL in a guide** is an ``https://`` URL with a dotted host name (no ``{…}`` or
  ``${…}`` template parts, no bare ``localhost``) that either
  (1) the text calls an MCP endpoint: earlier on the same line, ignoring markdown emphasis,
      stand the words "MCP endpoint", "MCP URL", "MCP server endpoint" or "MCP server URL"
      (any case); or
  (2) has the shape of one: its path ends in ``/mcp`` (a trailing slash allowed) or
      contains ``/mcp/``, and no earlier path segment is a documentation word (``docs``,
      ``blog``, ``guide``, ``tags``, ``release_notes`` …), so links to pages *about* MCP
      are not taken for endpoints.
  The first URL of kind (1) wins; failing that the first of kind (2).
- An inferred listing always carries the warning ``inferred`` at ``""``: the publisher is
  asked to publish a real manifest.

Findings inside a file are prefixed with the file name and a colon (``SKILL.md:name``;
``SKILL.md:`` for the file as a whole). ``base_url`` (``https://example.com``) makes the
URLs absolute; without it they are derived from ``origin`` when that is a host or URL,
and stay ``None`` otherwise (a local folder has no URLs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from agentdex.formats._check import Checker
from agentdex.formats._load import decode_text, load_json
from agentdex.formats._spec import FormatSpec, OriginFile
from agentdex.formats._yaml import YamlLimits, load_yaml
from agentdex.models import Finding, Listing, ParseResult, Severity, StatedFacts

NAME = "inferred"
SKILL, AGENT_MD, LLMS_TXT, MCP_JSON = "SKILL.md", "agent.md", "llms.txt", "mcp.json"
FILES = (SKILL, AGENT_MD, LLMS_TXT, MCP_JSON)
MAX_TEXT_BYTES = 1024 * 1024  # a SKILL.md or guide larger than this is refused
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_MCP_JSON_BYTES = 256 * 1024
# The bootstrap files a crawl fetches from an origin that publishes no manifest, under
# fetch caps below the format's own limits (a crawl reads many origins).
ORIGIN_FILES = (
    OriginFile("agent_md", AGENT_MD, "/agent.md", 512 * 1024),
    OriginFile("llms_txt", LLMS_TXT, "/llms.txt", 256 * 1024),
    OriginFile("skill", SKILL, "/SKILL.md", 256 * 1024),
    OriginFile("mcp_json", MCP_JSON, "/mcp.json", 64 * 1024),
)
SPEC = FormatSpec(
    NAME,
    priority=90,
    max_bytes=MAX_TEXT_BYTES,
    origin_files=ORIGIN_FILES,
    folder_files=FILES,
    json=False,
    title="a listing inferred from bootstrap files (SKILL.md, agent.md, llms.txt)",
)
# The document kinds the crawler stores bootstrap files under, and the file each one is.
BOOTSTRAP_NAMES = {f.kind: f.name for f in ORIGIN_FILES}
FRONTMATTER_LIMITS = YamlLimits(chars=MAX_FRONTMATTER_CHARS, nodes=10_000, depth=64)
NAME_MAX = 64
DESCRIPTION_MAX = 1000
MCP_TRANSPORT = "streamable-http"

SKILL_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_OPEN_RE = re.compile(r"---[ \t]*(?:\r?\n|\Z)")
_CLOSE_RE = re.compile(r"^---[ \t]*\r?$", re.M)
_URL_RE = re.compile(r"https://[^\s<>()\[\]\"'`|\\^]+", re.I)
_URL_TRAILING = ".,;:!?*_~'\""
_HOST_RE = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", re.I)
_TEMPLATE_CHARS = set("{}$<>\\ \t\r\n")
_CALLED_MCP_RE = re.compile(r"\bmcp\s+(?:server\s+)?(?:endpoint|url)\b", re.I)
_EMPHASIS_RE = re.compile(r"[*_`]+")
DOC_SEGMENTS = frozenset(
    {
        "docs",
        "doc",
        "documentation",
        "blog",
        "blogs",
        "guide",
        "guides",
        "learn",
        "tutorial",
        "tutorials",
        "wiki",
        "changelog",
        "news",
        "release_notes",
        "release-notes",
        "releases",
        "tags",
        "articles",
    }
)
SKIPPED_TRANSPORTS = ("stdio", "sse")


# -- entry points ------------------------------------------------------------------------------
def infer(files: Mapping[str, bytes | None], *, origin: str | None = None, base_url: str | None = None) -> ParseResult:
    """Build an inferred listing from an origin's bootstrap files.

    ``files`` maps ``"SKILL.md"``, ``"agent.md"``, ``"llms.txt"`` and ``"mcp.json"`` to
    their bytes (``None`` or no key: absent or not fetched; other keys are ignored).
    """
    present = _present(files)
    if not ({SKILL, AGENT_MD, LLMS_TXT} & present.keys()):
        return ParseResult(
            NAME,
            None,
            [
                Finding(
                    "error",
                    "",
                    "no_bootstrap",
                    "nothing to infer a listing from: there is no SKILL.md and no guide (agent.md or llms.txt)",
                )
            ],
        )
    base = _base(origin, base_url)
    listing = Listing(format=NAME, origin=origin)
    findings: list[Finding] = []
    frontmatter = _skill(present, listing, base, findings)
    guide_text = _guide(present, listing, base, findings)
    _mcp(present.get(MCP_JSON), guide_text, listing, findings)
    findings.append(
        Finding(
            "warning",
            "",
            "inferred",
            "this listing was inferred from the site's SKILL.md and guide because it publishes no manifest; "
            "the publisher is asked to publish a real one at /.well-known/agent-app.json",
        )
    )
    return ParseResult(NAME, listing, findings, _document(listing, frontmatter))


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Treat ``data`` as an origin's SKILL.md with no other bootstrap file."""
    return infer({SKILL: data}, origin=origin)


def looks_like(doc: Any) -> bool:
    """Inferred listings have no JSON document of their own: never."""
    return False


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """The common format shape: ``doc`` is the mapping of bootstrap files :func:`infer` takes."""
    return infer(doc if isinstance(doc, Mapping) else {}, origin=origin)


# -- SKILL.md frontmatter ----------------------------------------------------------------------
def parse_frontmatter(text: str, *, prefix: str = "") -> tuple[dict | None, list[Finding]]:
    """The YAML frontmatter mapping at the top of a SKILL.md, or ``None`` with the reason.

    Only a safe YAML loader runs (no tags that build objects); alias expansion and depth are
    bounded; dates become ISO strings so the mapping is plain JSON data. ``prefix`` goes in
    front of every finding's path (``"SKILL.md:"``).
    """

    def fail(message: str) -> tuple[None, list[Finding]]:
        return None, [Finding("error", prefix, "frontmatter", message)]

    block, reason = _frontmatter_block(text.removeprefix("\ufeff"))
    if reason:
        return fail(reason)
    # +1: the opening --- line comes before the block.
    value, problem = load_yaml(block, what="the frontmatter", limits=FRONTMATTER_LIMITS, line_offset=1)
    if problem:
        return fail(problem)
    if value is None:
        return {}, []
    if not isinstance(value, dict):
        return fail(f"the frontmatter must be a YAML mapping of keys to values, not {_yaml_kind(value)}")
    return value, []


def _frontmatter_block(text: str) -> tuple[str, str | None]:
    """The text between the opening and closing ``---`` lines, or ``("", reason)``."""
    opening = _OPEN_RE.match(text)
    if not opening:
        return "", "there is no YAML frontmatter: the file must start with a line of three dashes (---)"
    closing = _CLOSE_RE.search(text, opening.end())
    if not closing:
        return "", "the frontmatter is not closed: no line of three dashes (---) ends it"
    return text[opening.end() : closing.start()], None


def _yaml_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


# -- the files ---------------------------------------------------------------------------------
def _present(files: Any) -> dict[str, bytes]:
    """The known files that are there, as bytes (other keys and types are ignored)."""
    if not isinstance(files, Mapping):
        return {}
    out: dict[str, bytes] = {}
    for name in FILES:
        value = files.get(name)
        if isinstance(value, str):
            value = value.encode("utf-8", "surrogatepass")
        if isinstance(value, (bytes, bytearray, memoryview)):
            out[name] = bytes(value)
    return out


def _base(origin: str | None, base_url: str | None) -> str | None:
    """``https://host`` from ``base_url`` or an origin given as a host or URL."""
    candidate = base_url or origin
    if not isinstance(candidate, str) or not candidate.strip():
        return None
    candidate = candidate.strip()
    if "://" not in candidate:
        candidate = "https://" + candidate
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return None
    if parts.scheme not in ("https", "http") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _at(base: str | None, name: str) -> str | None:
    return f"{base}/{name}" if base else None


def _text(data: bytes, name: str, severity: Severity = "error") -> tuple[str | None, list[Finding]]:
    """Decode a markdown/text file (a UTF-8 BOM is allowed there); findings are prefixed."""
    if len(data) > MAX_TEXT_BYTES:
        return None, [
            Finding(
                severity,
                f"{name}:",
                "too_large",
                f"{name} is {len(data):,} bytes; agentdex reads at most {MAX_TEXT_BYTES:,}",
            )
        ]
    text, problem = decode_text(data.removeprefix(b"\xef\xbb\xbf"), what=name)
    if problem:
        return None, [Finding(severity, f"{name}:{problem.path}", problem.code, problem.message)]
    return text, []


def _skill(present: dict[str, bytes], listing: Listing, base: str | None, findings: list[Finding]) -> dict | None:
    """Name and description from SKILL.md; the frontmatter mapping when it was read."""
    data = present.get(SKILL)
    if data is None:
        findings.append(
            Finding(
                "error",
                SKILL,
                "required",
                "an inferred listing needs /SKILL.md: its frontmatter gives the name and description",
            )
        )
        return None
    listing.skill_url = _at(base, SKILL)
    text, problems = _text(data, SKILL)
    findings.extend(problems)
    if text is None:
        return None
    frontmatter, problems = parse_frontmatter(text, prefix=f"{SKILL}:")
    findings.extend(problems)
    if frontmatter is not None:
        c = Checker(prefix=f"{SKILL}:")
        listing.name = _skill_name(c, frontmatter)
        listing.description = _skill_description(c, frontmatter)
        findings.extend(c.findings)
    return frontmatter


def _skill_name(c: Checker, frontmatter: dict) -> str | None:
    value = c.get(frontmatter, "name", "", str, True)
    if value is None:
        return None
    value = value.strip()
    if c.check_string(value, "name", max_len=NAME_MAX, min_len=1) is None:
        return None
    if not SKILL_NAME_RE.fullmatch(value):
        c.warn(
            "name",
            "pattern",
            f"name {value!r} is not in the Agent Skills form: lower-case letters, digits and single hyphens",
        )
    return value


def _skill_description(c: Checker, frontmatter: dict) -> str | None:
    value = c.get(frontmatter, "description", "", str, True)
    if value is None:
        return None
    value = value.strip()
    if c.check_string(value, "description", min_len=1) is None:
        return None
    if len(value) > DESCRIPTION_MAX:
        c.warn(
            "description",
            "max_length",
            f"description is {len(value):,} characters; a listing shows the first {DESCRIPTION_MAX:,}",
        )
        value = value[: DESCRIPTION_MAX - 1] + "…"
    return value


def _guide(present: dict[str, bytes], listing: Listing, base: str | None, findings: list[Finding]) -> str | None:
    """Set guide_url / llms_txt_url; the guide's text when it could be read."""
    if LLMS_TXT in present:
        listing.llms_txt_url = _at(base, LLMS_TXT)
    name = AGENT_MD if AGENT_MD in present else LLMS_TXT if LLMS_TXT in present else None
    if name is None:
        findings.append(
            Finding(
                "error",
                AGENT_MD,
                "required",
                "an inferred listing needs a guide: publish /agent.md (or /llms.txt) beside /SKILL.md",
            )
        )
        return None
    listing.guide_url = _at(base, name)
    listing.extra.update(StatedFacts(sources={**listing.facts.sources, "guide": name}))
    text, problems = _text(present[name], name)
    findings.extend(problems)
    if name == AGENT_MD and LLMS_TXT in present:
        findings.extend(_text(present[LLMS_TXT], LLMS_TXT, "warning")[1])
    return text


# -- the MCP endpoint --------------------------------------------------------------------------
def _mcp(mcp_json: bytes | None, guide_text: str | None, listing: Listing, findings: list[Finding]) -> None:
    url, source = None, None
    if mcp_json is not None:
        url, problems = mcp_url_from_mcp_json(mcp_json)
        findings.extend(problems)
        source = MCP_JSON if url else None
    if url is None and guide_text is not None:
        url = mcp_url_from_text(guide_text)
        source = listing.facts.sources.get("guide") if url else None
    if url:
        listing.mcp_url, listing.mcp_transport = url, MCP_TRANSPORT
    if url and source:  # a URL found in the guide is the guide's, which _guide named
        listing.extra.update(StatedFacts(sources={**listing.facts.sources, "mcp_url": source}))


def mcp_url_from_mcp_json(data: bytes) -> tuple[str | None, list[Finding]]:
    """The first remote (https) server URL a mcp.json names; warnings say why there is none."""
    doc, problems = load_json(data, max_bytes=MAX_MCP_JSON_BYTES, what=MCP_JSON)
    if doc is None:
        return None, [Finding("warning", f"{MCP_JSON}:{p.path}", p.code, p.message) for p in problems]
    for entry in _server_entries(doc):
        url = _entry_url(entry)
        if url:
            return url, []
    return None, [
        Finding(
            "warning",
            f"{MCP_JSON}:",
            "no_mcp_url",
            "mcp.json names no remote MCP server with an https URL (local stdio "
            "servers cannot be listed); the guide is searched instead",
        )
    ]


def _server_entries(doc: dict) -> list[dict]:
    """Server entries in document order: the document itself, then mcpServers/servers."""
    entries = [doc]
    for key in ("mcpServers", "servers"):
        container = doc.get(key)
        values = container.values() if isinstance(container, dict) else container if isinstance(container, list) else ()
        entries.extend(v for v in values if isinstance(v, dict))
    return entries


def _entry_url(entry: dict) -> str | None:
    kind = entry.get("type", entry.get("transport"))
    if isinstance(kind, str) and kind.strip().lower() in SKIPPED_TRANSPORTS:
        return None
    for key in ("url", "serverUrl", "httpUrl"):
        value = entry.get(key)
        if isinstance(value, str) and is_https_url(value.strip()):
            return value.strip()
    return None


def is_https_url(value: str) -> bool:
    """An ``https://`` URL with a dotted host name: no template parts, no whitespace."""
    if not value.lower().startswith("https://") or _TEMPLATE_CHARS & set(value):
        return False
    try:
        host = urlsplit(value).hostname
        urlsplit(value).port  # noqa: B018 -- raises ValueError for a malformed port
    except ValueError:
        return False
    if not host:
        return False
    return bool(_HOST_RE.fullmatch(host)) and "." in host


def mcp_url_from_text(text: str) -> str | None:
    """The first MCP URL a guide mentions (see the module docstring for the definition)."""
    shaped = None
    for line in text.splitlines():
        for match in _URL_RE.finditer(line):
            url = match.group(0).rstrip(_URL_TRAILING)
            if not is_https_url(url):
                continue
            if _CALLED_MCP_RE.search(_EMPHASIS_RE.sub("", line[: match.start()])):
                return url
            if shaped is None and _mcp_shaped(url):
                shaped = url
    return shaped


def _mcp_shaped(url: str) -> bool:
    """A path ending in /mcp or holding /mcp/, under no documentation segment."""
    segments = [s.lower() for s in urlsplit(url).path.split("/")]
    while segments and segments[-1] == "":
        segments.pop()
    if "mcp" not in segments[1:]:
        return False
    first_mcp = segments.index("mcp", 1)
    return not (DOC_SEGMENTS & set(segments[:first_mcp]))


# -- the inferred manifest ---------------------------------------------------------------------
def _document(listing: Listing, frontmatter: dict | None) -> dict[str, Any]:
    """The inferred manifest, in agent-app spelling, marked ``manifest: inferred``."""
    doc: dict[str, Any] = {"manifest": "inferred", "name": listing.name, "description": listing.description}
    guide = {"url": listing.guide_url, "llms_txt": listing.llms_txt_url}
    doc["guide"] = {k: v for k, v in guide.items() if v}
    doc["skill"] = {"url": listing.skill_url} if listing.skill_url else {}
    doc["mcp"] = {"url": listing.mcp_url, "transport": listing.mcp_transport} if listing.mcp_url else {}
    doc["frontmatter"] = frontmatter
    doc["sources"] = dict(listing.facts.sources)
    return {k: v for k, v in doc.items() if v not in (None, {})}
