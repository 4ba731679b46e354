"""Origins as the user types them: a host, a host:port, or an https URL; and seeds files."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from agentdex.errors import InputError


def normalise_origin(text: str) -> str:
    """The listing identity for what a user typed: the lower-case host (with a port only
    when it is not 443). ``https://Pantry.example.com/x`` -> ``pantry.example.com``."""
    raw = text.strip()
    if not raw:
        raise InputError("an empty origin")
    if "://" not in raw:
        raw = "https://" + raw
    try:
        parts = urlsplit(raw)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise InputError(f"not an origin: {text!r} ({exc})") from exc
    if parts.scheme != "https":
        raise InputError(f"not an https origin: {text!r}; agentdex only crawls https")
    if not host or any(c.isspace() for c in host):
        raise InputError(f"not an origin: {text!r}")
    try:
        host = host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise InputError(f"not a valid host name: {text!r}") from exc
    return host if port in (None, 443) else f"{host}:{port}"


def origin_url(origin: str, path: str = "/") -> str:
    """``https://<origin><path>``."""
    return f"https://{origin}{path}"


def read_seeds(path: str | Path) -> list[str]:
    """Origins from a seeds file: one per line, ``#`` starts a comment, blanks ignored."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read seeds file {path}: {exc}") from exc
    origins = []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.split("#", 1)[0].strip()
        if entry:
            try:
                origins.append(normalise_origin(entry))
            except InputError as exc:
                raise InputError(f"{path}, line {number}: {exc}") from exc
    return origins


def unique(origins: list[str]) -> list[str]:
    """Origins in first-seen order without repeats."""
    return list(dict.fromkeys(origins))
