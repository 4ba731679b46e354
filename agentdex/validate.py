"""``agentdex validate``: read a local file, .adapp package or repository folder and
validate it. This module does the file IO; the formats stay pure."""

from __future__ import annotations

from pathlib import Path

from agentdex import formats
from agentdex.errors import InputError, PackageError
from agentdex.models import Finding, ParseResult

MAX_FILE_BYTES = 64 * 1024 * 1024  # read no more than this of any input
FOLDER_FILES = formats.FOLDER_FILES
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
    return formats.parse_json(data, fmt)


def read_folder(path: Path) -> dict[str, bytes]:
    """The files of a folder that any format reads, keyed by their relative path."""
    files: dict[str, bytes] = {}
    for rel in FOLDER_FILES:
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
        from agentdex.formats import adapp
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
