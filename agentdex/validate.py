"""``agentdex validate``: read a local file, .adapp package or repository folder and
validate it. This module does the file IO; the formats stay pure.

Besides the manifests (:data:`agentdex.formats.FORMAT_NAMES`) it validates every discovery
document a crawl reads (:data:`DISCOVERY_FORMATS`: the MCP registry's server.json, A2A agent
cards of both the 0.3 and the 1.0 shape, MCP server cards, RFC 9727 API catalogs, x402
discovery documents and AI catalogs). ``auto`` tells them apart by ``$schema`` first, then by
the keys only one of them uses (:func:`detect`). A file that is none of them is unusable
input (:class:`InputError`, exit 2) whose message names the closest guess.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentdex import formats
from agentdex.errors import InputError, PackageError
from agentdex.formats import adapp, server_card, server_json
from agentdex.models import Finding, ParseResult

MAX_FILE_BYTES = 64 * 1024 * 1024  # read no more than this of any input
ZIP_MAGIC = b"PK\x03\x04"


def read_capped(path: Path, cap: int = MAX_FILE_BYTES) -> bytes:
    """Read at most ``cap + 1`` bytes of ``path`` (so oversize input is seen, not loaded)."""
    try:
        with path.open("rb") as fh:
            return fh.read(cap + 1)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc


# The discovery documents ``validate`` reads besides the manifests, in the order ``auto`` tries
# them (each format's ``detect_rank``: the loosest test, an A2A card's, last).
DISCOVERY_FORMATS = tuple(sorted(formats.VALIDATE_DISCOVERY, key=lambda n: formats.spec(n).detect_rank or 0))
CHOICES = (*formats.FORMAT_NAMES, *DISCOVERY_FORMATS)
# ``$schema`` URLs that name a format outright (a substring of the URL, lower case).
SCHEMA_MARKS = tuple((mark, name) for name in DISCOVERY_FORMATS for mark in formats.spec(name).schema_marks)
BOOTSTRAP_NAMES = ("agent.md", "skill.md", "llms.txt")
# What only an MCP server card has: a draft card's keys but url, which an A2A card has too.
SERVER_CARD_KEYS = set(server_card.DRAFT_KEYS) - {"url"}


def validate_path(path: str | Path, fmt: str = "auto", *, discovery: bool = True) -> ParseResult:
    """Validate whatever is at ``path`` as format ``fmt`` (``auto``: the one it is meant as;
    with ``discovery=False`` only a manifest is looked for). Raises :class:`InputError` when
    it cannot be read or is no manifest or discovery document of any kind."""
    path = Path(path)
    if fmt not in ("auto", *CHOICES):
        raise InputError(f"unknown format {fmt!r}; choose auto, {', '.join(CHOICES)}")
    if not path.exists():
        raise InputError(f"no such file or folder: {path}")
    if path.is_dir():
        return validate_folder(path, fmt)
    data = read_capped(path)
    if len(data) > MAX_FILE_BYTES:
        return ParseResult(
            fmt if fmt != "auto" else "unknown",
            None,
            [
                Finding(
                    "error",
                    "",
                    "too_large",
                    f"{path.name} is over {MAX_FILE_BYTES:,} bytes; agentdex reads no manifest that large",
                )
            ],
        )
    if fmt == "adapp" or (fmt == "auto" and (data.startswith(ZIP_MAGIC) or path.suffix == ".adapp")):
        return formats.get("adapp").parse_package(data)
    if fmt == "inferred" or (fmt == "auto" and (path.suffix.lower() == ".md" or path.name == "llms.txt")):
        if fmt == "auto" and not _is_bootstrap(path.name, data):
            raise InputError(
                f"{path.name} is no manifest or discovery document: it looks closest to a guide "
                "(agent.md, llms.txt) or a skill (SKILL.md) but is named neither and has no skill "
                "front matter; to read it as one anyway, force --format inferred"
            )
        return formats.get("inferred").infer({_bootstrap_name(path.name): data}, origin=None)
    if fmt in DISCOVERY_FORMATS:
        return formats.get(fmt).parse(data)
    return _validate_json(path, data, fmt, discovery)


def _validate_json(path: Path, data: bytes, fmt: str, discovery: bool) -> ParseResult:
    """A JSON file: a manifest (``fmt``, or detected), else a discovery document it is meant as."""
    result = formats.parse_json(data, fmt)
    if fmt == "auto" and result.document is None and path.suffix.lower() != ".json" and result.findings:
        # Not JSON and not named as JSON: unusable input (exit 2, as the help says), not an
        # invalid manifest; a broken *.json file is a manifest with an error (exit 1).
        raise InputError(f"{path.name} is no manifest or discovery document: {result.findings[0].message}")
    named = named_by_schema(result.document) if fmt == "auto" and discovery else None
    if named:  # a server card with tools looks like a FindAgent manifest: its $schema says otherwise
        return formats.get(named).parse(data)
    if result.format != "unknown" or not isinstance(result.document, dict):
        return result
    found = detect(result.document) if discovery else None
    if found is None:
        raise InputError(f"{path.name}: {diagnose(result.document, path.name)}")
    return formats.get(found).parse(data)


def detect(doc: dict) -> str | None:
    """The discovery format a decoded document (no manifest) is meant as, or ``None``: the
    one its ``$schema`` names, else the first whose telling keys it has, else a server.json
    whose keys are all the registry schema's and hold two of its three required fields."""
    named = named_by_schema(doc)
    if named:
        return named
    if not {"skills", "supportedInterfaces"} & set(doc) and SERVER_CARD_KEYS & set(doc):
        return "server_card"  # a draft card ({"url", "transport"}) would pass for an A2A card's url
    found = next((fmt for fmt in DISCOVERY_FORMATS if formats.get(fmt).looks_like(doc)), None)
    return found or ("server_json" if _bare_server_json(doc) else None)


def named_by_schema(doc: Any) -> str | None:
    """The discovery format a document's ``$schema`` names, or ``None``."""
    if not isinstance(doc, dict) or not isinstance(doc.get("$schema"), str):
        return None
    if server_card.names_card_schema(doc["$schema"]):
        return "server_card"  # /schemas/vN/…: even a wrong file name there is a card's (server.json's are dated)
    schema = doc["$schema"].lower()
    return next((fmt for mark, fmt in SCHEMA_MARKS if mark in schema), None)


def _bare_server_json(doc: dict) -> bool:
    # The registry's own invalid examples are as bare as {"description", "version"}: a document
    # with nothing but the schema's keys is read as the server.json it can only be.
    schema: Any = server_json.validator().schema  # the registry's schema: an object, not a bare bool
    known = set(schema["definitions"]["ServerDetail"]["properties"])
    return bool(doc) and set(doc) <= known and len(set(doc) & {"name", "description", "version"}) >= 2


def _is_bootstrap(filename: str, data: bytes) -> bool:
    """A lone markdown file is a bootstrap file when named as one or when it opens with the
    front matter a SKILL.md has (a README.md is neither)."""
    return filename.lower() in BOOTSTRAP_NAMES or data.lstrip(b"\xef\xbb\xbf").startswith(b"---")


def read_folder(path: Path) -> dict[str, bytes]:
    """The files of a folder that any format reads, keyed by their relative path.

    :raises InputError: one of them is a symbolic link (or lies under one) whose target is
        outside the folder: a repository is read from its own files, never from elsewhere
    """
    files: dict[str, bytes] = {}
    for rel in formats.FOLDER_FILES:
        candidate = path / rel
        if candidate.is_file():
            files[rel] = read_capped(inside(candidate, path))
    return files


def inside(item: Path, root: Path) -> Path:
    """``item`` when it resolves (every symbolic link followed) to a place inside ``root``.

    :raises InputError: it resolves outside ``root``
    """
    real = item.resolve()
    if not real.is_relative_to(root.resolve()):
        rel = item.relative_to(root).as_posix()
        raise InputError(
            f"{rel} in {root} is a symbolic link to {real}, outside the folder; "
            "agentdex reads only the folder's own files"
        )
    return real


def validate_folder(path: Path, fmt: str = "auto") -> ParseResult:
    """A repository folder: FindAgent, a well-known manifest, an adapp source tree or
    bootstrap files for an inferred listing, in that order."""
    files = read_folder(path)
    findagent_files = {"findagent.json", ".findagent/findagent.json", "manifest.json"}
    is_adapp_tree = b'"adapp/v1"' in files.get("manifest.json", b"")
    if fmt == "adapp" or (fmt == "auto" and is_adapp_tree):
        try:
            return adapp.parse_package(adapp.pack(read_tree(path)))
        except PackageError as exc:
            raise InputError(f"cannot pack {path}: {exc}") from exc
    if fmt in ("findagent", "auto") and findagent_files & files.keys():
        result = formats.get("findagent").parse_repo(files)
        if (
            fmt == "findagent"
            or result.listing is not None
            or {"findagent.json", ".findagent/findagent.json"} & files.keys()
        ):
            return result
    for rel, name in formats.FOLDER_MANIFESTS:
        if rel in files and fmt in ("auto", name):
            return formats.get(name).parse(files[rel])
    if fmt in ("auto", "inferred"):
        return formats.get("inferred").infer(files, origin=None)
    raise InputError(f"{path} holds no {fmt} manifest")


def read_tree(path: Path, cap_files: int = 2000) -> dict[str, bytes]:
    """Every regular file below ``path`` (for packing an adapp source tree)."""
    files: dict[str, bytes] = {}
    for item in sorted(path.rglob("*")):
        rel = item.relative_to(path)
        if any(part.startswith(".") for part in rel.parts):
            continue  # .git/, .DS_Store and other hidden files are not package content
        if item.is_file() and not item.is_symlink():
            if len(files) >= cap_files:
                raise InputError(f"{path} holds more than {cap_files} files")
            files[rel.as_posix()] = read_capped(inside(item, path))
    return files


def _bootstrap_name(filename: str) -> str:
    """A lone file is read as the bootstrap file it can be: a guide or a skill."""
    if filename in ("agent.md", "llms.txt", "mcp.json"):
        return filename
    return "SKILL.md"


# --- which format a document that is none of agentdex's looks closest to -----------------------

# Keys every kind of document has: they tell no format apart.
GENERIC_KEYS = {"name", "description", "version", "$schema", "id", "title", "tags", "category", "homepage"}
# Formats agentdex does not read, named so an unknown document that is one of them is told so.
FOREIGN: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("mcp_config", "an MCP client configuration (mcp.json)", frozenset({"mcpServers", "servers", "inputs"})),
    (
        "agentweave",
        "an AgentWeave app manifest",
        frozenset(
            {
                "schemaVersion",
                "appId",
                "package",
                "compatibility",
                "requires",
                "features",
                "policy",
                "branding",
                "appearance",
                "localization",
                "modelAccess",
                "identity",
                "entitlements",
            }
        ),
    ),
    ("openapi", "an OpenAPI document", frozenset({"openapi", "swagger", "paths", "info", "components", "servers"})),
)


def _own(name: str) -> tuple[str, str, frozenset[str]]:
    spec = formats.spec(name)
    return name, spec.title, spec.keys or frozenset(formats.get(name).TOP_LEVEL)


# The formats ``validate`` reads as a lone JSON document (a manifest, or a discovery document).
OWN_FORMATS = (*(n for n in formats.JSON_FORMATS if n != "inferred"), *DISCOVERY_FORMATS)
# (format, in words, keys that mark it); agentdex's own formats first (they win a tie).
LOOKALIKES: tuple[tuple[str, str, frozenset[str]], ...] = (
    *map(_own, (n for n in formats.REGISTRY if n in OWN_FORMATS)),
    *FOREIGN,
)
MARKERS = {"agent_app": "agent_app key", "anchor": "anchor key", "findagent": "name with system_prompt or tools"}
NAMED_AS = {"agent-app.json": "agent_app", "anchor.json": "anchor", "findagent.json": "findagent"}


def closest_format(doc: dict) -> tuple[str, str, list[str]] | None:
    """The format ``doc`` shares the most telling keys with: (format, in words, those keys),
    or None when it shares none with any format agentdex knows of."""
    keys = set(doc) - GENERIC_KEYS
    scored = [
        (len(keys & marks), -rank, fmt, words, sorted(keys & marks))
        for rank, (fmt, words, marks) in enumerate(LOOKALIKES)
    ]
    best = max(scored)
    return (best[2], best[3], best[4]) if best[0] else None


def diagnose(doc: dict, filename: str = "") -> str:
    """Why a JSON document is none of agentdex's formats, what it looks closest to (and the
    keys that decided) and how to validate it as one anyway (``--format``)."""
    named = next(((name, fmt) for name, fmt in NAMED_AS.items() if filename.lower().endswith(name)), None)
    parts = ["no manifest or discovery document agentdex knows"]
    if named:
        parts[0] = f"named {named[0]} but not that format (it has no {MARKERS[named[1]]})"
    closest = closest_format(doc)
    if closest is None:
        parts.append("it shares no telling key with any format agentdex knows of")
    else:
        fmt, words, keys = closest
        shown = ", ".join(keys[:5]) + (", …" if len(keys) > 5 else "")
        own = fmt in OWN_FORMATS
        parts.append(
            f"it looks closest to {words}{'' if own else ', which agentdex does not validate'} "
            f"(decided by the keys {shown})"
        )
    meant = named[1] if named else (closest[0] if closest and closest[0] in OWN_FORMATS else None)
    parts.append(
        "to validate it as one of agentdex's formats anyway, force one with "
        + (f"--format {meant}" if meant else f"--format {OWN_FORMATS[0]} (or {', '.join(OWN_FORMATS[1:])})")
    )
    return "; ".join(parts)
