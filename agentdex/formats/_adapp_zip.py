"""Reading and packing ``.adapp`` ZIP packages, for :mod:`agentdex.formats.adapp`.

Pure, like the rest of the package: it works on bytes in memory. A package is read under
caps on entry count, per-file and total expanded size and compression ratio, counting the
bytes actually inflated so a lying ZIP header cannot get past them; any unsafe entry (zip
slip, a link, a device) refuses the whole package. Packing is deterministic (sorted
entries, fixed timestamps and modes) with the checksum of ``docs/adapp-checksum.md``
computed last.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import zipfile
import zlib
from collections.abc import Mapping
from typing import IO, Any

from agentdex.errors import PackageError
from agentdex.formats._load import load_json
from agentdex.models import Finding

MANIFEST = "manifest.json"
MAX_ENTRIES = 500
MAX_TOTAL_BYTES = 16 * 1024 * 1024  # everything the package expands to
MAX_FILE_BYTES = 8 * 1024 * 1024  # any one file
MAX_PACKAGE_BYTES = MAX_TOTAL_BYTES + 1024 * 1024  # the archive itself
MAX_RATIO = 100  # expanded / compressed, for entries that expand past RATIO_FLOOR
RATIO_FLOOR = 1024 * 1024
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every packed entry gets this timestamp
_CHUNK = 64 * 1024
_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a first entry, or an empty archive


def compute_checksum(files: Mapping[str, bytes]) -> str:
    """``sha256:<64 hex>`` over a package's files, as ``docs/adapp-checksum.md`` defines it:
    each file sorted by its UTF-8 path contributes ``path NUL length NUL bytes``, with
    ``manifest.json`` replaced by its canonical JSON without the ``checksum`` key."""
    digest = hashlib.sha256()
    for path in sorted(files, key=_path_bytes):
        if path.endswith("/"):
            continue  # directories carry no content
        data = canonical_manifest(files[path]) if path == MANIFEST else bytes(files[path])
        digest.update(_path_bytes(path) + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def canonical_manifest(data: bytes) -> bytes:
    """The manifest's bytes as the checksum sees them: canonical JSON (sorted keys, no
    whitespace, UTF-8) without ``checksum``; undecodable bytes are hashed as they are."""
    doc, _ = load_json(bytes(data), what=MANIFEST)
    if doc is None:
        return bytes(data)
    doc = {k: v for k, v in doc.items() if k != "checksum"}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")  # JSON's \ud800 escapes survive as themselves


def pack(files: Mapping[str, bytes]) -> bytes:
    """Build a deterministic ``.adapp`` ZIP from a source tree (paths -> bytes): entries
    sorted, fixed timestamps and modes, the checksum computed last and written into
    ``manifest.json`` (whatever checksum the tree held is replaced). Raises
    :class:`PackageError` for a tree that would not make a package agentdex reads."""
    tree = _pack_tree(files)
    manifest = _pack_manifest(tree)
    _refuse_secret_values(tree, manifest)
    checksum = compute_checksum(tree)
    tree[MANIFEST] = _manifest_bytes(_with_checksum(manifest, checksum))
    return _write_zip(tree)


def read_package(data: bytes) -> tuple[dict[str, bytes] | None, list[Finding]]:
    """The files of a ``.adapp`` ZIP by path (directories left out), read under the safety
    caps; ``(None, findings)`` when the archive is unusable or unsafe (then nothing is used)."""
    problem = _not_zip(data)
    if problem is not None:
        return None, [problem]
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return _read_entries(zf)
    except _Refused as exc:
        return None, [exc.finding]
    except Exception as exc:  # zipfile raises many kinds on a damaged archive; none may escape
        return None, [package_error("not_zip", f"the package is a damaged or truncated ZIP archive: {_reason(exc)}")]


# -- reading the ZIP safely ------------------------------------------------------------------


class _Refused(Exception):
    """An archive agentdex will not read; carries the finding that says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.finding = package_error(code, message)


def package_error(code: str, message: str, path: str = "") -> Finding:
    """An error finding (at the whole package unless ``path`` says where)."""
    return Finding("error", path, code, message)


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:200]


def show(value: str, limit: int = 80) -> str:
    """Untrusted text quoted for a message: repr escapes control characters."""
    return repr(value[:limit] + ("…" if len(value) > limit else ""))


def _not_zip(data: bytes) -> Finding | None:
    if not data:
        return package_error("not_zip", "the package is empty (0 bytes); an .adapp package is a ZIP archive")
    if len(data) > MAX_PACKAGE_BYTES:
        return package_error("too_large", f"the package is {len(data):,} bytes; the limit is {MAX_PACKAGE_BYTES:,}")
    if data.startswith(_ZIP_STARTS):
        return None
    if data.lstrip()[:1] in (b"{", b"["):
        return package_error(
            "not_zip",
            "the package is a JSON document, not a ZIP archive; an .adapp "
            "package is a ZIP with manifest.json at its root",
        )
    return package_error("not_zip", "the package is not a ZIP archive (a ZIP starts with the bytes PK\\x03\\x04)")


def _read_entries(zf: zipfile.ZipFile) -> tuple[dict[str, bytes] | None, list[Finding]]:
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _Refused("zip_bomb", f"the package holds {len(infos):,} entries; the limit is {MAX_ENTRIES}")
    findings = _unsafe_entries(infos)
    if findings:
        return None, findings
    declared = sum(info.file_size for info in infos)
    if declared > MAX_TOTAL_BYTES:
        raise _Refused(
            "zip_bomb", f"the package declares {declared:,} bytes uncompressed; the limit is {MAX_TOTAL_BYTES:,}"
        )
    files: dict[str, bytes] = {}
    budget = MAX_TOTAL_BYTES
    for info in infos:
        if not info.is_dir():
            files[info.filename] = _read_entry(zf, info, budget)
            budget -= len(files[info.filename])
    return files, []


def _unsafe_entries(infos: list[zipfile.ZipInfo]) -> list[Finding]:
    findings, seen = [], set()
    for info in infos:
        reason = unsafe_path_reason(info.orig_filename) or _unsafe_kind(info)
        if reason is None and info.filename in seen:
            reason = "appears twice in the archive"
        seen.add(info.filename)
        if reason:
            findings.append(
                package_error(
                    "unsafe_path",
                    f"entry {show(info.orig_filename, 120)} {reason}; the package is refused and nothing in it is used",
                )
            )
    return findings


def unsafe_path_reason(name: str) -> str | None:
    """Why a package path is unsafe (zip slip and friends), or ``None`` when it is fine."""
    if not name or name in ("/",):
        return "has an empty name"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/"):
        return "is an absolute path"
    if ":" in name:
        return "contains a colon (a drive letter or stream name)"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return "contains a control character"
    parts = name.rstrip("/").split("/")
    if ".." in parts:
        return "climbs out of the package with .."
    if "." in parts or "" in parts:
        return "is not a plain relative path (. or an empty segment)"
    return None


def _unsafe_kind(info: zipfile.ZipInfo) -> str | None:
    kind = (info.external_attr >> 16) & 0o170000
    if kind == 0o120000:
        return "is a symbolic link"
    if kind not in (0, 0o100000, 0o040000):
        return "is a special file (device, pipe or socket)"
    return None


def _read_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> bytes:
    limit = min(MAX_FILE_BYTES, budget)
    name = show(info.filename)
    if info.file_size > limit:
        raise _Refused(
            "zip_bomb", f"entry {name} expands to {info.file_size:,} bytes; at most {limit:,} more may be read"
        )
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size // max(info.compress_size, 1)
        raise _Refused("zip_bomb", f"entry {name} compresses {ratio:,} to 1; the limit is {MAX_RATIO} to 1")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _Refused(
            "zip_entry", f"entry {name} uses compression method {info.compress_type}; a package uses deflate or store"
        )
    raw = _raw_bytes(zf, info, name)
    data = raw if info.compress_type == zipfile.ZIP_STORED else _inflate(raw, limit, name)
    if zlib.crc32(data) != info.CRC:
        raise _Refused("zip_entry", f"entry {name} is corrupt (its CRC-32 does not match)")
    return _check_read(info, data, name)


def _raw_bytes(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> bytes:
    """The entry's stored bytes, still compressed: zipfile checks the local header (and
    refuses encryption), we do the inflating, so no declared size decides how much we read."""
    probe = copy.copy(info)
    probe.compress_type, probe.file_size = zipfile.ZIP_STORED, info.compress_size
    # No CRC: zipfile then skips its check of these still-compressed bytes (ZipExtFile reads
    # None as "unknown"); typeshed declares the field int only.
    probe.CRC = None  # type: ignore[assignment]
    try:
        with zf.open(probe) as stream:
            return _read_counted(stream, MAX_PACKAGE_BYTES, name)
    except _Refused:
        raise
    except Exception as exc:
        raise _Refused("zip_entry", f"entry {name} cannot be read: {_reason(exc)}") from exc


def _read_counted(stream: IO[bytes], limit: int, name: str) -> bytes:
    chunks, total = [], 0
    while chunk := stream.read(_CHUNK):
        total += len(chunk)
        if total > limit:
            raise _Refused("zip_bomb", f"entry {name} is larger than {limit:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _inflate(raw: bytes, limit: int, name: str) -> bytes:
    """Inflate a raw DEFLATE stream 64 KB of input at a time, counting what comes out: the
    count, not any declared size, stops a bomb."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    out = bytearray()
    view = memoryview(raw)
    try:
        for start in range(0, len(raw), _CHUNK):
            pending: bytes | memoryview = view[start : start + _CHUNK]
            while pending and not inflater.eof:
                out += inflater.decompress(pending, _CHUNK)
                _cap(len(out), limit, name)
                pending = inflater.unconsumed_tail
        while not inflater.eof and (chunk := inflater.decompress(b"", _CHUNK)):
            out += chunk  # output zlib still held when the input ran out
            _cap(len(out), limit, name)
    except zlib.error as exc:
        raise _Refused("zip_entry", f"entry {name} is corrupt: {_reason(exc)}") from exc
    if not inflater.eof:
        raise _Refused("zip_entry", f"entry {name} is corrupt: its compressed data ends early")
    return bytes(out)


def _cap(total: int, limit: int, name: str) -> None:
    if total > limit:
        raise _Refused("zip_bomb", f"entry {name} expands past {limit:,} bytes (more than its header declares)")


def _check_read(info: zipfile.ZipInfo, data: bytes, name: str) -> bytes:
    if len(data) > RATIO_FLOOR and len(data) > MAX_RATIO * max(info.compress_size, 1):
        raise _Refused("zip_bomb", f"entry {name} compresses more than {MAX_RATIO} to 1")
    if len(data) != info.file_size:
        raise _Refused("zip_entry", f"entry {name} declares {info.file_size:,} bytes but holds {len(data):,}")
    return data


# -- packing -----------------------------------------------------------------------------------


def _path_bytes(path: str) -> bytes:
    return path.encode("utf-8", "surrogatepass")


def _pack_tree(files: Mapping[str, bytes]) -> dict[str, bytes]:
    tree: dict[str, bytes] = {}
    for path, data in files.items():
        if path.endswith("/"):
            continue
        reason = unsafe_path_reason(path)
        if reason:
            raise PackageError(f"cannot pack {show(path)}: it {reason}")
        if not isinstance(data, (bytes, bytearray)):
            raise PackageError(f"cannot pack {show(path)}: its content must be bytes")
        if len(data) > MAX_FILE_BYTES:
            raise PackageError(f"cannot pack {show(path)}: {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,}")
        tree[path] = bytes(data)
    if len(tree) > MAX_ENTRIES or sum(map(len, tree.values())) > MAX_TOTAL_BYTES:
        raise PackageError(f"the tree is over the package limits ({MAX_ENTRIES} files, {MAX_TOTAL_BYTES:,} bytes)")
    return tree


def _pack_manifest(tree: Mapping[str, bytes]) -> dict:
    if MANIFEST not in tree:
        raise PackageError(f"the tree has no {MANIFEST} at its root")
    doc, problems = load_json(tree[MANIFEST], what=MANIFEST)
    if doc is None:
        raise PackageError(problems[0].message)
    return doc


def _refuse_secret_values(tree: Mapping[str, bytes], manifest: dict) -> None:
    """A packer must never ship a secret: refuse a tree whose required_secrets hold a value."""
    docs = {MANIFEST: manifest}
    for path, data in tree.items():
        if path.startswith("tools/") and path.endswith(".json"):
            docs[path] = load_json(data, what=path)[0]
    for path, doc in docs.items():
        items = doc.get("required_secrets") if isinstance(doc, dict) else None
        for i, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict) and "value" in item:
                raise PackageError(
                    f"{path}: required_secrets[{i}] carries a value; secrets never "
                    "travel inside a package (remove it; the value is not shown)"
                )


def _with_checksum(manifest: dict, checksum: str) -> dict:
    if "checksum" in manifest:
        return {**manifest, "checksum": checksum}
    out: dict[str, Any] = {}
    for key, value in manifest.items():
        out[key] = value
        if key == "format":
            out["checksum"] = checksum
    out.setdefault("checksum", checksum)
    return out


def _manifest_bytes(manifest: dict) -> bytes:
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape: keep it escaped
        return (json.dumps(manifest, indent=2) + "\n").encode("ascii")


def _write_zip(tree: Mapping[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path in sorted(tree, key=_path_bytes):
            info = zipfile.ZipInfo(path, FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, so the mode below is read as one
            info.external_attr = 0o100644 << 16  # a regular file, rw-r--r--
            zf.writestr(info, tree[path], compresslevel=9)
    return buffer.getvalue()
