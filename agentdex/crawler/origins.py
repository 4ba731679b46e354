"""Origins as the user types them: a host, a host:port, or an https URL; and seeds files."""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

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


# -- request URLs ---------------------------------------------------------------------------
#
# Why agentdex reads the URLs it requests itself: httpx.URL parses and normalises every URL
# character by character in Python (a generator over the whole text for control characters,
# a regex pass and a quote for each part): about 12 µs of a request's ~260 µs of CPU, the
# largest single item of the fetch path's profile (benchmarks/bench_fetch.py under cProfile;
# docs/benchmarks.md, issue 35). Almost every URL a crawl asks is already in the form httpx
# would give it (an origin's own https URL and a well-known path); one regex tells those apart
# and they are read once, here. Every other URL (a capital letter, a port spelled 443, a
# non-ASCII or IDNA host, a dot segment, a character httpx would percent-encode, a fragment)
# is left to httpx.URL as before (agentdex.crawler.fetch.checked_url), so what a URL means,
# and every refusal, stays httpx's.

# An https URL httpx leaves unchanged: a lower-case ASCII host whose last label is no number
# (httpx checks IPv4-looking hosts), a port other than 443 without a leading zero, and a path
# and query of characters that need no percent-encoding (or are already encoded).
_PLAIN_URL = re.compile(
    r"https://(?P<host>[a-z0-9-]+(?:\.[a-z0-9-]+)*(?<![0-9.]))(?::(?P<port>[1-9][0-9]{0,4}))?"
    r"(?P<path>/(?:[-A-Za-z0-9._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*)"
    r"(?P<query>\?(?:[-A-Za-z0-9._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?"
)
# A redirect's Location that resolves against its URL as RFC 3986 says and needs no encoding:
# an absolute path (not a network-path "//host"), a query, a relative path whose first segment
# has no colon (RFC 3986, 4.2: a scheme, or what httpx reads as an empty one), or an absolute
# https URL.
_PLAIN_REFERENCE = re.compile(
    r"(?:https://[-A-Za-z0-9.:]+)?(?:/(?!/)|\?|(?=[^/?])(?![^/?]*:))"
    r"(?:[-A-Za-z0-9._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*"
)
_DOT_SEGMENTS = frozenset({".", ".."})
PLAIN_URL_MAX = 8192  # longer ones go to httpx, which also refuses those above 64 KiB


class HttpsURL:
    """An https URL in the form httpx would normalise it to, read once (see above): what
    the fetch path asks of a URL (the attributes httpx.URL has of the same names)."""

    __slots__ = ("host", "netloc", "path_query", "port", "_text")
    scheme = "https"
    fragment = ""  # never one: a URL with a fragment goes to httpx

    def __init__(self, text: str, host: str, port: int | None, path_query: str) -> None:
        self._text, self.host, self.port, self.path_query = text, host, port, path_query
        self.netloc = (host if port is None else f"{host}:{port}").encode("ascii")

    @property
    def raw_path(self) -> bytes:
        """The request target: the path and query as they go on the request line."""
        return self.path_query.encode("ascii")

    @property
    def raw_path_only(self) -> str:
        """The path without the query, still percent-encoded (as ``urlsplit`` gives it)."""
        return self.path_query.partition("?")[0]

    @property
    def origin(self) -> str:
        """``https://host[:port]``, as :func:`origin_of` spells it."""
        return f"https://{self.netloc.decode('ascii')}"

    @property
    def path(self) -> str:
        """The path, percent-decoded (as httpx.URL.path)."""
        return unquote(self.raw_path_only)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"HttpsURL({self._text!r})"


def plain_https_url(text: str) -> HttpsURL | None:
    """``text`` read as an :class:`HttpsURL` when httpx would leave it as it is (see above);
    None for any other text, which httpx.URL is to read."""
    if len(text) > PLAIN_URL_MAX:
        return None
    match = _PLAIN_URL.fullmatch(text)
    if match is None:
        return None
    host, port, path, query = match.group("host", "port", "path", "query")
    if "/." in path and not _DOT_SEGMENTS.isdisjoint(path.split("/")):
        return None  # httpx removes dot segments
    number = int(port) if port else None
    if number == 443 or (number is not None and number > 65535) or host.startswith("xn--"):
        return None  # httpx drops the default port; decodes an IDNA host for .host; refuses no range
    return HttpsURL(text, host, number, path + (query or ""))


def plain_join(base: HttpsURL, location: str) -> HttpsURL | None:
    """``location`` (a redirect's) resolved against ``base`` as httpx.URL.join would resolve
    it, when both are plain; None when httpx is to do it."""
    if len(location) > PLAIN_URL_MAX or not _PLAIN_REFERENCE.fullmatch(location):
        return None
    return plain_https_url(urljoin(str(base), location))
