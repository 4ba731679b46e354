"""Where the crawler may connect: the address guard, ``--connect-to`` and TLS trust.

Every connection the crawler opens goes through :class:`GuardedBackend`, the transport's
network backend (:class:`~agentdex.crawler.netstream.NetworkBackend`). It resolves the host
name itself, checks *every* address the name resolved to, and then connects to one of those
checked addresses. Nothing resolves the name a second time, so a DNS answer that changes
between the check and the connection (DNS rebinding) cannot slip a private address in.

The checked addresses are raced as Happy Eyeballs v2 has it (RFC 8305, sections 4 and 5):
the resolver's order, the two families taking turns from the first address's family; the
next address is dialled as soon as the one before fails, or after :data:`ATTEMPT_DELAY`
(250 ms, the RFC's recommended Connection Attempt Delay) while the earlier attempts go on;
the first connection made wins and the others are dropped. A black-holed first address (an
IPv6 answer for a host reachable over IPv4 only) so costs 250 ms, not the whole connect
timeout. (The RFC's own resolution step, AAAA and A asked apart with a 50 ms Resolution
Delay, is not done: the system resolver answers both families at once.)

A host none of whose addresses connects within the connect timeout is remembered for the
backend's life (one Fetcher: a crawl): every later connection to it fails at once with the
same ``timeout`` (:class:`~agentdex.errors.FetchError`, not retried), so a host that never
answers costs one connect timeout a crawl rather than one for every path asked of it.

Public API::

    is_blocked_ip(ip: str | IPv4Address | IPv6Address) -> str | None
        why an address is refused ("loopback", "private", ...) or None when it is allowed.
    ConnectTo(pattern: str, addr: str, port: int)
        one ``--connect-to`` rule; ``ConnectTo.matches(host)``.
    parse_connect_to(spec: str) -> tuple[str, str, int]
        "PATTERN:ADDR:PORT" (ADDR may be ``[::1]``) -> a tuple; InputError when unusable.
    GuardedBackend(*, connect_to=(), allow_private=False, resolver=None)
        the transport's NetworkBackend; ``resolver`` (async (host, port) -> [addr, ...])
        replaces the system resolver (tests).
    interleaved(addresses) -> list[str]   RFC 8305's order of connection attempts.
    build_ssl_context(ca_bundle: str | Path | None = None) -> ssl.SSLContext
        system + certifi trust, plus an extra CA PEM when given.

A connection to a ``--connect-to`` target is trusted even when the target is loopback:
the user named it. TLS still verifies the URL's own host name (SNI and certificate), as
the transport (:mod:`agentdex.crawler.h1`) hands ``start_tls`` the URL's host, never the address we connected to.
"""

from __future__ import annotations

import asyncio
import collections
import fnmatch
import functools
import ipaddress
import itertools
import re
import socket
import ssl
import typing
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import idna

from agentdex.crawler.netstream import NetworkStream, SocketBackend, SocketOption
from agentdex.errors import BlockedAddress, ConnectError, FetchError, InputError
from agentdex.headers import port_number

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
# RFC 8305, section 5: how long an attempt has before the next address is dialled beside it.
ATTEMPT_DELAY = 0.25
# Hosts remembered as not answering: a crawl's origins pass a few dozen at a time, and what a
# host costs is decided within its origin's few seconds; the oldest are forgotten first.
SILENT_HOSTS_KEPT = 4096

# Ranges ipaddress's flags do not name on their own (or name differently across Python
# versions); checked explicitly so the guard does not depend on the interpreter's table.
_EXTRA_BLOCKED: tuple[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network], ...] = (
    ("unspecified", ipaddress.ip_network("0.0.0.0/8")),
    ("shared address space (CGNAT)", ipaddress.ip_network("100.64.0.0/10")),
    ("unique local", ipaddress.ip_network("fc00::/7")),
    ("link-local", ipaddress.ip_network("fe80::/10")),
    ("NAT64", ipaddress.ip_network("64:ff9b::/96")),
)

_FLAGS = (
    ("unspecified", "is_unspecified"),
    ("loopback", "is_loopback"),
    ("link-local", "is_link_local"),
    ("multicast", "is_multicast"),
    ("private", "is_private"),
    ("reserved", "is_reserved"),
)


def is_blocked_ip(ip: str | IPAddress) -> str | None:
    """Why the guard refuses ``ip`` (a short phrase such as ``"loopback"``), or None.

    Refused: private, loopback, link-local, multicast, reserved and unspecified addresses,
    0.0.0.0/8, 100.64.0.0/10 (CGNAT), fc00::/7, fe80::/10, NAT64 and any other address
    that is not globally routable, and IPv6 forms that embed such an IPv4 address
    (IPv4-mapped, 6to4, Teredo). An unparsable address is refused too.
    """
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0] if isinstance(ip, str) else ip)
    except ValueError:
        return "not an IP address"
    embedded = _embedded_ipv4(addr)
    if embedded is not None:
        reason = is_blocked_ip(embedded)
        return f"{reason} (embedded in {addr})" if reason else None
    return _own_reason(addr)


def _embedded_ipv4(addr: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo client), if any."""
    if not isinstance(addr, ipaddress.IPv6Address):
        return None
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    return None


def _own_reason(addr: IPAddress) -> str | None:
    for reason, network in _EXTRA_BLOCKED:
        if addr.version == network.version and addr in network:
            return reason
    for reason, flag in _FLAGS:
        if getattr(addr, flag):
            return reason
    # Documentation, benchmarking and other special-purpose ranges.
    return None if addr.is_global else "not globally routable"


@dataclass(frozen=True, slots=True)
class ConnectTo:
    """One ``--connect-to`` rule: hosts matching ``pattern`` connect to ``addr:port``."""

    pattern: str
    addr: str
    port: int

    def matches(self, host: str) -> bool:
        """fnmatch-style, case-insensitive match of a host name against the pattern."""
        return fnmatch.fnmatchcase(host.lower().rstrip("."), self.pattern.lower())


def parse_connect_to(spec: str) -> tuple[str, str, int]:
    """Split ``PATTERN:ADDR:PORT`` (ADDR may be a bracketed IPv6 literal) into a tuple."""
    pattern, sep, rest = spec.partition(":")
    addr, sep2, port_text = rest.rpartition(":")
    if not (sep and sep2 and pattern and addr):
        raise InputError(f"--connect-to {spec!r}: expected PATTERN:ADDR:PORT")
    if addr.startswith("[") and addr.endswith("]"):
        addr = addr[1:-1]
    port = port_number(port_text)
    if port is None:
        raise InputError(f"--connect-to {spec!r}: {port_text!r} is not a port number (1-65535, ASCII digits)")
    return pattern, addr, port


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system resolver gives for ``host``, in its order, deduplicated. A
    name outside ASCII is asked in its IDNA 2008 form (UTS 46 mapping, as httpx reads URLs);
    a scoped IPv6 address is spelled ``address%scope``."""
    infos = await asyncio.get_running_loop().getaddrinfo(_ascii(host), port, type=socket.SOCK_STREAM)
    # A Python built without IPv6 answers such addresses as numbers: they are left out.
    return list(dict.fromkeys(_spelled(info[4]) for info in infos if not isinstance(info[4][0], int)))


def _ascii(host: str) -> bytes:
    try:
        return host.encode("ascii")
    except UnicodeEncodeError:
        return idna.encode(host, uts46=True)  # an IDNAError is a UnicodeError: a dns failure


def _spelled(sockaddr: tuple[typing.Any, ...]) -> str:
    if len(sockaddr) == 4 and sockaddr[3]:  # IPv6 with a scope (link-local)
        return f"{str(sockaddr[0]).split('%')[0]}%{sockaddr[3]}"
    return str(sockaddr[0])


_NUMERIC_HOST = re.compile(r"[0-9a-fA-FxX.]+")


def numeric_address(host: str) -> str | None:
    """The address a host written as a number stands for, as the machine's resolver reads
    it: an IP literal, or an IPv4 address in one of inet_aton's older forms (``2130706433``,
    ``0x7f000001``, ``127.1``), which getaddrinfo turns into an address without asking DNS.
    A resolver that asks a DNS server must read them the same way, or such a host would pass
    as an unknown name instead of being refused as the private address it is. None for a
    name."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        pass
    if not _NUMERIC_HOST.fullmatch(host) or not any(c.isdigit() for c in host):
        return None
    try:
        return str(ipaddress.IPv4Address(socket.inet_aton(host)))
    except OSError:
        return None


def dns_server_resolver(server: str, lifetime: float = 5.0) -> Resolver:
    """A resolver asking only the DNS server ``server`` (``ADDR:PORT``, ``--dns-server``)
    for a host's A and AAAA records, never the machine's resolver: with the sample web's
    DNS server a crawl of it stays on loopback, an unserved name (``gone.invalid``)
    included. An IP literal is its own answer. Each lookup is asked for at most
    ``lifetime`` seconds; a name that does not exist raises :class:`OSError`."""
    addr, _, port = server.rpartition(":")

    async def resolve(host: str, _port: int) -> list[str]:
        literal = numeric_address(host)
        if literal is not None:
            return [literal]
        if host.lower().rstrip(".") == "localhost" or host.lower().rstrip(".").endswith(".localhost"):
            # RFC 6761 6.3: resolvers answer localhost names with loopback themselves, as the
            # machine's does from /etc/hosts; the guard then refuses them as loopback.
            return ["127.0.0.1", "::1"]
        import dns.asyncresolver
        import dns.exception
        import dns.resolver

        resolver = dns.asyncresolver.Resolver(configure=False)
        resolver.nameservers, resolver.port, resolver.lifetime = [addr.strip("[]") or "127.0.0.1"], int(port), lifetime
        found: list[str] = []
        for rtype in ("A", "AAAA"):
            try:
                found += [record.address for record in await resolver.resolve(host, rtype)]
            except dns.resolver.NoAnswer:
                continue
            except dns.resolver.NXDOMAIN as exc:
                raise OSError("no such name") from exc
            except dns.exception.DNSException as exc:
                raise OSError(f"the DNS server {server} gave no answer: {exc}") from exc
        return found

    return resolve


class GuardedBackend:
    """A network backend that resolves, checks, then connects to checked addresses.

    ``connect_tcp`` raises :class:`~agentdex.errors.BlockedAddress` when any address the
    host resolves to is refused by :func:`is_blocked_ip` (unless ``allow_private``),
    :class:`~agentdex.errors.FetchError` with code ``dns`` when the name does not resolve and
    with code ``timeout`` when no address connected within the timeout (then, and ever after
    for that host and port: see the module docstring). Connection failures surface as
    :class:`~agentdex.errors.ConnectError`.
    """

    def __init__(
        self,
        *,
        connect_to: Iterable[tuple[str, str, int]] = (),
        allow_private: bool = False,
        resolver: Resolver | None = None,
    ) -> None:
        self.rules = [ConnectTo(*rule) for rule in connect_to]
        self.allow_private = allow_private
        self._resolve = resolver or system_resolver
        self._inner = SocketBackend()
        # (host, port) of the hosts that did not answer -> the sentence, oldest first
        self._silent: collections.OrderedDict[tuple[str, int], str] = collections.OrderedDict()

    def target_for(self, host: str) -> ConnectTo | None:
        """The first ``--connect-to`` rule whose pattern matches ``host``."""
        return next((rule for rule in self.rules if rule.matches(host)), None)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[SocketOption] | None = None,
    ) -> NetworkStream:
        """Resolve ``host`` (or apply ``--connect-to``), check, connect to a checked address."""
        key = (host.lower(), port)
        if key in self._silent:
            raise FetchError("timeout", self._silent[key])
        try:
            async with asyncio.timeout(timeout):
                addresses, port = await self._checked_addresses(host, port)
                return await self._connect_any(addresses, port, local_address, socket_options)
        except TimeoutError as exc:
            raise FetchError("timeout", self._remember_silent(key, timeout)) from exc

    def _remember_silent(self, key: tuple[str, int], timeout: float | None) -> str:
        """Remember that ``key``'s host did not answer; the sentence its fetches record."""
        host, port = key
        said = f"{host} (port {port}) did not answer: no connection within the {timeout:g} s connect timeout"
        self._silent[key] = f"{said} earlier in this crawl, so it is not dialled again."
        while len(self._silent) > SILENT_HOSTS_KEPT:
            self._silent.popitem(last=False)
        return f"{said}."

    async def _checked_addresses(self, host: str, port: int) -> tuple[list[str], int]:
        rule = self.target_for(host)
        if rule is not None:
            # The user named this target: trusted even on loopback.
            return await self._lookup(rule.addr, rule.port), rule.port
        addresses = await self._lookup(host, port)
        if not self.allow_private:
            self._check_all(host, addresses)
        return addresses, port

    async def _lookup(self, host: str, port: int) -> list[str]:
        try:
            addresses = await self._resolve(host, port)
        except (OSError, UnicodeError) as exc:
            raise FetchError("dns", f"The host name {host} could not be resolved ({_reason(exc)}).") from exc
        if not addresses:
            raise FetchError("dns", f"The host name {host} resolved to no address.")
        return addresses

    @staticmethod
    def _check_all(host: str, addresses: Sequence[str]) -> None:
        for address in addresses:
            reason = is_blocked_ip(address)
            if reason:
                raise BlockedAddress(
                    f"{host} resolves to {address}, {_article(reason)} {reason} address; such addresses are "
                    "refused unless --allow-private is given."
                )

    async def _connect_any(
        self,
        addresses: Sequence[str],
        port: int,
        local_address: str | None,
        socket_options: typing.Iterable[SocketOption] | None,
    ) -> NetworkStream:
        """The first connection made to one of ``addresses``, raced as RFC 8305 says (see
        the module docstring); the last failure when none connects."""

        def dial(address: str) -> Awaitable[NetworkStream]:
            # An IP literal: the inner backend connects without resolving anything.
            return self._inner.connect_tcp(address, port, local_address=local_address, socket_options=socket_options)

        if len(addresses) == 1:  # the usual case (and every --connect-to target): nothing to race
            return await dial(addresses[0])
        return await _race(interleaved(addresses), dial)


def interleaved(addresses: Sequence[str]) -> list[str]:
    """``addresses`` in the order they are dialled (RFC 8305, section 4, with a First Address
    Family Count of 1): the resolver's order within each family (it sorts by RFC 6724's
    preferences), the families taking turns, the first address's family first."""
    first = _is_v6(addresses[0]) if addresses else False
    same = [a for a in addresses if _is_v6(a) == first]
    other = [a for a in addresses if _is_v6(a) != first]
    return [a for pair in itertools.zip_longest(same, other) for a in pair if a is not None]


def _is_v6(address: str) -> bool:
    return ":" in address


_Dial = Callable[[str], Awaitable[NetworkStream]]


async def _race(addresses: list[str], dial: _Dial) -> NetworkStream:
    """Dial ``addresses`` in turn, the next when the one before failed or after
    :data:`ATTEMPT_DELAY`; the first connection made (the others are closed), or the last
    failure. Cancelled (the connect timeout), it leaves no attempt behind."""
    waiting = collections.deque(addresses)
    running: set[asyncio.Task[NetworkStream]] = set()
    failures: list[BaseException] = []
    try:
        while waiting or running:
            if waiting:
                running.add(asyncio.ensure_future(dial(waiting.popleft())))
            delay = ATTEMPT_DELAY if waiting else None  # the last address: wait for any outcome
            done, running = await asyncio.wait(running, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
            stream = _first_connected(done, failures)
            if stream is not None:
                return stream
        raise failures[-1]  # there was an address, and every attempt failed
    finally:
        for task in running:
            task.cancel()
            task.add_done_callback(_close_if_connected)


def _first_connected(done: set[asyncio.Task[NetworkStream]], failures: list[BaseException]) -> NetworkStream | None:
    """The connection one of the finished attempts made (any other is closed: two may end
    in one turn of the loop); their failures added to ``failures``. Anything but a
    connection failure is raised."""
    made: list[NetworkStream] = []
    unexpected: BaseException | None = None
    for task in done:
        error = task.exception()
        if error is None:
            made.append(task.result())
        elif isinstance(error, ConnectError):
            failures.append(error)
        else:
            unexpected = error
    for extra in made[1:] if unexpected is None else made:
        _close(extra)
    if unexpected is not None:
        raise unexpected
    return made[0] if made else None


def _close_if_connected(task: asyncio.Task[NetworkStream]) -> None:
    """Close the connection a dropped attempt made just before it was cancelled."""
    if not task.cancelled() and task.exception() is None:
        _close(task.result())


def _close(stream: NetworkStream) -> None:
    sock = stream.get_extra_info("socket")
    if sock is not None:
        sock.close()


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _reason(exc: BaseException) -> str:
    """The OS's words for an error, without the errno prefix."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def build_ssl_context(ca_bundle: str | Path | None = None) -> ssl.SSLContext:
    """A verifying client TLS context: system roots, certifi's roots and ``ca_bundle``.

    Contexts are shared between Fetchers with the same bundle (loading roots costs tens of
    milliseconds); an edited bundle file gives a fresh one. Raises
    :class:`~agentdex.errors.InputError` when ``ca_bundle`` cannot be read as PEM.
    """
    if ca_bundle is None:
        return _cached_context(None, 0)
    path = Path(ca_bundle)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise InputError(f"--ca-bundle {ca_bundle}: cannot be read ({_reason(exc)})") from exc
    return _cached_context(str(path.resolve()), stamp)


@functools.lru_cache(maxsize=8)
def _cached_context(ca_bundle: str | None, _stamp: int) -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    _load_certifi(context)
    if ca_bundle is not None:
        try:
            context.load_verify_locations(cafile=ca_bundle)
        except (OSError, ssl.SSLError) as exc:
            raise InputError(f"--ca-bundle {ca_bundle}: not a readable PEM file ({_reason(exc)})") from exc
    return context


def _load_certifi(context: ssl.SSLContext) -> None:
    try:
        import certifi
    except ImportError:  # system roots alone then
        return
    context.load_verify_locations(cafile=certifi.where())
