"""``agentdex validate``: read a local file, .adapp package or repository folder and
validate it. This module does the file IO; the formats stay pure."""

from __future__ import annotations

from pathlib import Path

from agentdex import formats
from agentdex.formats import adapp, agent_app, anchor, findagent
from agentdex.errors import InputError, PackageError
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


def validate_path(path: str | Path, fmt: str = "auto") -> ParseResult:
    """Validate whatever is at ``path``; raises :class:`InputError` when it cannot be read."""
    path = Path(path)
    if fmt not in ("auto", *formats.FORMAT_NAMES):
        raise InputError(f"unknown format {fmt!r}; choose auto, {', '.join(formats.FORMAT_NAMES)}")
    if not path.exists():
        raise InputError(f"no such file or folder: {path}")
    if path.is_dir():
        return validate_folder(path, fmt)
    data = read_capped(path)
    if len(data) > MAX_FILE_BYTES:
        return ParseResult(fmt if fmt != "auto" else "unknown", None, [Finding(
            "error", "", "too_large", f"{path.name} is over {MAX_FILE_BYTES:,} bytes; agentdex reads no manifest that large")])
    if fmt == "adapp" or (fmt == "auto" and (data.startswith(ZIP_MAGIC) or path.suffix == ".adapp")):
        return formats.get("adapp").parse_package(data)
    if fmt == "inferred" or (fmt == "auto" and (path.suffix.lower() == ".md" or path.name == "llms.txt")):
        return formats.get("inferred").infer({_bootstrap_name(path.name): data}, origin=None)
    result = formats.parse_json(data, fmt)
    if result.format == "unknown" and isinstance(result.document, dict):
        result.findings = [Finding("error", "", "unknown_format", diagnose(result.document, path.name))
                           if f.code == "unknown_format" else f for f in result.findings]
    return result


def read_folder(path: Path) -> dict[str, bytes]:
    """The files of a folder that any format reads, keyed by their relative path."""
    files: dict[str, bytes] = {}
    for rel in formats.FOLDER_FILES:
        candidate = path / rel
        if candidate.is_file():
            files[rel] = read_capped(candidate)
    return files


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
        if fmt == "findagent" or result.listing is not None or \
                {"findagent.json", ".findagent/findagent.json"} & files.keys():
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
            files[rel.as_posix()] = read_capped(item)
    return files


def _bootstrap_name(filename: str) -> str:
    """A lone file is read as the bootstrap file it can be: a guide or a skill."""
    if filename in ("agent.md", "llms.txt", "mcp.json"):
        return filename
    return "SKILL.md"


# --- which format a document that is none of agentdex's looks closest to -----------------------

# Keys every kind of document has: they tell no format apart.
GENERIC_KEYS = {"name", "description", "version", "$schema", "id", "title", "tags", "category", "homepage"}
# (format, in words, keys that mark it); agentdex's own formats first (they win a tie).
LOOKALIKES: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("agent_app", "the agent-app v1 format", frozenset(agent_app.TOP_LEVEL)),
    ("anchor", "the Anchor format", frozenset(anchor.TOP_LEVEL)),
    ("findagent", "the FindAgent format", frozenset(findagent.TOP_LEVEL)),
    ("adapp", "the adapp package manifest", frozenset(adapp.TOP_LEVEL)),
    ("a2a", "an A2A Agent Card", frozenset({
        "protocolVersion", "url", "skills", "capabilities", "defaultInputModes", "defaultOutputModes",
        "supportedInterfaces", "preferredTransport", "securitySchemes", "security", "provider",
        "documentationUrl", "supportsExtendedAgentCard", "authentication"})),
    ("mcp_config", "an MCP client configuration (mcp.json)", frozenset({"mcpServers", "servers", "inputs"})),
    ("mcp_server", "an MCP registry server.json", frozenset({"packages", "remotes", "repository", "websiteUrl",
                                                              "version_detail", "icons", "status"})),
    ("mcp_server_card", "an MCP server card", frozenset({"serverInfo", "transport", "transports", "endpoint",
                                                         "discovery", "authentication", "capabilities"})),
    ("agentweave", "an AgentWeave app manifest", frozenset({
        "schemaVersion", "appId", "package", "compatibility", "requires", "features", "policy", "branding",
        "appearance", "localization", "modelAccess", "identity", "entitlements"})),
    ("openapi", "an OpenAPI document", frozenset({"openapi", "swagger", "paths", "info", "components", "servers"})),
)
OWN_FORMATS = ("agent_app", "anchor", "findagent", "adapp")
MARKERS = {"agent_app": "agent_app key", "anchor": "anchor key", "findagent": "name with system_prompt or tools"}
NAMED_AS = {"agent-app.json": "agent_app", "anchor.json": "anchor", "findagent.json": "findagent"}


def closest_format(doc: dict) -> tuple[str, str, list[str]] | None:
    """The format ``doc`` shares the most telling keys with: (format, in words, those keys),
    or None when it shares none with any format agentdex knows of."""
    keys = set(doc) - GENERIC_KEYS
    scored = [(len(keys & marks), -rank, fmt, words, sorted(keys & marks))
              for rank, (fmt, words, marks) in enumerate(LOOKALIKES)]
    best = max(scored)
    return (best[2], best[3], best[4]) if best[0] else None


def diagnose(doc: dict, filename: str = "") -> str:
    """Why a JSON document is none of agentdex's formats, what it looks closest to (and the
    keys that decided) and how to validate it as one anyway (``--format``)."""
    named = next(((name, fmt) for name, fmt in NAMED_AS.items() if filename.lower().endswith(name)), None)
    parts = ["not a manifest agentdex knows"]
    if named:
        parts[0] = f"named {named[0]} but not that format (it has no {MARKERS[named[1]]})"
    closest = closest_format(doc)
    if closest is None:
        parts.append("it shares no telling key with any format agentdex knows of")
    else:
        fmt, words, keys = closest
        shown = ", ".join(keys[:5]) + (", …" if len(keys) > 5 else "")
        own = fmt in OWN_FORMATS
        parts.append(f"it looks closest to {words}{'' if own else ', which agentdex does not validate'} "
                     f"(decided by the keys {shown})")
    meant = named[1] if named else (closest[0] if closest and closest[0] in OWN_FORMATS else None)
    parts.append("to validate it as one of agentdex's formats anyway, force one with "
                 + (f"--format {meant}" if meant else "--format agent_app (or anchor, findagent, adapp)"))
    return "; ".join(parts)
