"""Origins as the user types them: a host, a host:port, or an https URL; and seeds files."""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import idna

from agentdex.errors import InputError

# A last label of digits (or 0x…) makes a host an IPv4 address to a browser (WHATWG URL):
# such a host must then be a plain dotted quad, never "1.2.3" or "0x7f.1".
_NUMERIC_LABEL = re.compile(r"(?:[0-9]+|0x[0-9a-f]*)")


def normalise_origin(text: str) -> str:
    """The listing identity for what a user typed: the lower-case host (with a port only
    when it is not 443). ``https://Pantry.example.com/x`` -> ``pantry.example.com``.

    This is the one test of "can be a host": names are mapped and checked by IDNA 2008 with
    UTS 46 (``faß.de`` -> ``xn--fa-hia.de``, as browsers and httpx do), IP addresses must
    be literal (IPv6 in brackets). Nothing is looked up.

    :raises InputError: the text cannot be an https origin (the message says why)
    """
    raw = text.strip()
    if not raw:
        raise InputError("an empty origin")
    if "://" not in raw:
        raw = "https://" + raw
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise InputError(f"not an origin: {text!r} ({exc})") from exc
    if parts.scheme.lower() != "https":
        raise InputError(f"not an https origin: {text!r}; agentdex only crawls https")
    if parts.username is not None or parts.password is not None:
        raise InputError(f"not an origin: {text!r} carries a user name; give the host alone")
    if port == 0:
        raise InputError(f"not an origin: {text!r}; port 0 cannot be connected to")
    host = host_name(_typed_host(parts.netloc), bracketed="[" in parts.netloc, typed=text)
    return host if port in (None, 443) else f"{host}:{port}"


def _typed_host(netloc: str) -> str:
    """The host as typed (``urlsplit``'s ``hostname`` lower-cases it the Python way, which
    turns a final capital sigma into ``ς`` where UTS 46 maps every ``Σ`` to ``σ``)."""
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        return hostport[1 : hostport.find("]")]
    return hostport.rpartition(":")[0] if ":" in hostport else hostport


def host_name(host: str, *, bracketed: bool = False, typed: str | None = None) -> str:
    """``host`` as the ASCII form agentdex stores: an IDNA 2008 name in lower case (no
    trailing dot), a dotted-quad IPv4 address, or a bracketed IPv6 address.

    :raises InputError: it cannot be a host (named as ``typed``, the user's text)
    """
    shown = repr(typed if typed is not None else host)
    if bracketed:
        try:
            return f"[{ipaddress.IPv6Address(host).compressed}]"
        except ValueError as exc:
            raise InputError(f"not an origin: {shown} has no IPv6 address in its brackets") from exc
    name = host[:-1] if host.endswith(".") else host  # the root's dot names the same host
    if not name:
        raise InputError(f"not an origin: {shown} names no host")
    try:
        ascii_name = idna.encode(name, uts46=True, std3_rules=True, transitional=False).decode("ascii").lower()
    except (idna.IDNAError, UnicodeError) as exc:
        raise InputError(f"not an origin: {shown} cannot be a host name ({exc})") from exc
    if _NUMERIC_LABEL.fullmatch(ascii_name.rstrip(".").rsplit(".", 1)[-1]):
        return _ipv4(ascii_name.rstrip("."), shown)
    return ascii_name.rstrip(".")


def _ipv4(name: str, shown: str) -> str:
    try:
        return str(ipaddress.IPv4Address(name))
    except ValueError as exc:
        raise InputError(
            f"not an origin: {shown} ends in a number but is no IPv4 address "
            "(write the four decimal parts, e.g. 192.0.2.1)"
        ) from exc


DEFAULT_PORTS = {"https": 443, "http": 80}
Origin = tuple[str, str, int]  # (scheme, host, port)


def origin_key(scheme: str, host: str, port: int | None) -> Origin:
    """The origin (RFC 6454, section 4) of a URL's scheme, host and port: scheme and host
    lower-cased, an implied port spelled out (https 443, http 80), so ``https://h/`` and
    ``https://H:443/`` are one origin and ``https://h:8443/`` another. The one definition the
    connection pools, the fetcher's same-origin rules, robots.txt and the SSE probe share."""
    scheme = scheme.lower()
    return scheme, host.lower(), port or DEFAULT_PORTS.get(scheme, 443)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: its :func:`origin_key` as text, the port only when
    it is not the scheme's default; no user name, path, query or fragment. A port that is no
    port (``:99999``, ``:x``) stays in the text as ``-1``: equal to no real origin."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    scheme, host, port = origin_key(parts.scheme, parts.hostname or "", port)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" if port == DEFAULT_PORTS.get(scheme) else f"{scheme}://{shown}:{port}"


def origin_url(origin: str, path: str = "/") -> str:
    """``https://<origin><path>``."""
    return f"https://{origin}{path}"


class NotPublic(InputError):
    """An origin that is no public one (``localhost``, an IP literal, a single label)."""


def public_origin(text: str, chosen: Callable[[str], bool] | None = None) -> str:
    """The one decision on what an origin is, for ``crawl``, ``verify``, ``seeds``, seeds
    files and the TUI: a host or an https URL naming a public host. ``localhost``, IP
    literals and single-label names are refused, unless ``chosen(host)`` says the user
    named that host on purpose (a ``--connect-to`` rule, ``--allow-private``).

    :raises InputError: it is no origin (:class:`NotPublic`: no public one); the message says why
    """
    raw = text.strip()
    if "{" in raw or "}" in raw:
        raise InputError("an unexpanded URL template: a client fills in {…} first, so it names no one origin")
    origin = normalise_origin(raw)
    host = urlsplit(f"https://{origin}").hostname or ""
    reason = _non_public(host)
    if reason and not (chosen is not None and chosen(host)):
        raise NotPublic(reason)
    return origin


def public_origins(texts: list[str], chosen: Callable[[str], bool] | None = None) -> list[str]:
    """:func:`public_origin` of each text a user typed, in order without repeats.

    :raises InputError: the first that is refused, named as typed
    """
    origins = []
    for text in texts:
        try:
            origins.append(public_origin(text, chosen))
        except NotPublic as exc:  # the reason names no origin: say which one
            raise NotPublic(f"{text.strip()}: {exc}") from exc
    return unique(origins)


def _non_public(host: str) -> str | None:
    try:
        ipaddress.ip_address(host)
        return "an IP address is no origin: agentdex lists named hosts"
    except ValueError:
        pass
    if host == "localhost" or host.endswith(".localhost"):
        return "localhost is no public origin"
    if "." not in host.strip("."):
        return f"{host!r} is no public host name (it has a single label)"
    return None


def chosen_by(net: Any) -> Callable[[str], bool]:
    """Whether the user named a host on purpose in the network options ``net``: it
    matches a ``--connect-to`` rule's pattern (matched as ``netpolicy.ConnectTo`` matches,
    fnmatch-style without case), or ``--allow-private`` lets private hosts in."""
    patterns = [pattern.lower() for pattern, _addr, _port in net.connect_to]
    return lambda host: bool(net.allow_private) or any(fnmatch.fnmatchcase(host.lower(), p) for p in patterns)


def read_seeds(path: str | Path, chosen: Callable[[str], bool] | None = None) -> list[str]:
    """Origins from a seeds file: one per line, ``#`` starts a comment, blanks ignored;
    each must be a public origin (:func:`public_origin`, with ``chosen``)."""
    origins = []
    try:
        with Path(path).open(encoding="utf-8") as lines:  # a line at a time: never the file whole
            for number, line in enumerate(lines, 1):
                entry = line.split("#", 1)[0].strip()
                if entry:
                    origins.append(_numbered(entry, chosen, f"{path}, line {number}"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read seeds file {path}: {exc}") from exc
    return origins


def _numbered(entry: str, chosen: Callable[[str], bool] | None, where: str) -> str:
    try:
        return public_origin(entry, chosen)
    except InputError as exc:  # the same class: a non-public origin stays NotPublic
        raise type(exc)(f"{where}: {exc}") from exc


def unique(origins: list[str]) -> list[str]:
    """Origins in first-seen order without repeats."""
    return list(dict.fromkeys(origins))
