"""A real DNS server on loopback (UDP and TCP, one port) answering from a small zone.

The zone maps names to TXT strings — ``{"_anchor.tidewater.test": ["anchor-verify=tok123"]}``
— or to records by type — ``{"name": {"TXT": [...], "A": ["127.0.0.1"]}}``. A name in the
zone answers its records (NOERROR with no answer for a type it lacks); any other name is
NXDOMAIN. Used for Anchor's ``verify.dnsTxt`` proofs: point agentdex at it with
``--dns-server 127.0.0.1:PORT``.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from dnslib import QTYPE, RCODE, RR, TXT, A, DNSRecord
from dnslib.server import BaseResolver, DNSLogger, DNSServer

TTL = 60
TXT_CHUNK = 255  # one TXT character-string holds at most 255 bytes
POLL = 0.05  # seconds; how soon stop() is noticed


def normalise_zone(zone: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """``name -> {TYPE: [values]}`` with lower-case names without the trailing dot."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, records in zone.items():
        if isinstance(records, list):
            by_type = {"TXT": list(records)}
        else:
            by_type = {k.upper(): list(v) for k, v in records.items()}
        out[name.lower().rstrip(".")] = by_type
    return out


class ZoneResolver(BaseResolver):
    """A dnslib resolver over a mutable zone."""

    def __init__(self, zone: dict[str, Any]) -> None:
        self.lock = threading.Lock()
        self.zone = normalise_zone(zone)

    def resolve(self, request: DNSRecord, handler: Any) -> DNSRecord:
        """Answer one query from the zone."""
        reply = request.reply()
        name = str(request.q.qname).lower().rstrip(".")
        qtype = QTYPE[request.q.qtype]
        with self.lock:
            records = self.zone.get(name)
        if records is None:
            reply.header.rcode = RCODE.NXDOMAIN
            return reply
        for rtype, values in records.items():
            if qtype in (rtype, "ANY"):
                for value in values:
                    reply.add_answer(RR(request.q.qname, getattr(QTYPE, rtype), rdata=_rdata(rtype, value), ttl=TTL))
        return reply


def _rdata(rtype: str, value: str) -> Any:
    if rtype == "TXT":
        raw = value.encode("utf-8")
        return TXT([raw[i : i + TXT_CHUNK] for i in range(0, len(raw), TXT_CHUNK)] or [b""])
    if rtype == "A":
        return A(value)
    raise ValueError(f"the sample DNS server answers TXT and A records, not {rtype}")


def _quiet() -> DNSLogger:
    """dnslib prints every query by default; the sample web stays silent."""
    return DNSLogger(logf=lambda *args: None)


class SampleDNS:
    """A UDP+TCP DNS server on ``host`` (a free port unless ``port`` is given).

    Use it as a context manager; ``address`` is ``"127.0.0.1:PORT"`` once started.
    """

    def __init__(self, zone: dict[str, Any] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.resolver = ZoneResolver(zone or {})
        self.host = host
        self.port = port
        self._servers: list[DNSServer] = []

    @property
    def address(self) -> str:
        """``host:port`` for ``--dns-server``."""
        return f"{self.host}:{self.port}"

    def set_records(self, name: str, txt: list[str] | None) -> None:
        """Replace a name's TXT records (``None`` removes the name: NXDOMAIN)."""
        key = name.lower().rstrip(".")
        with self.resolver.lock:
            if txt is None:
                self.resolver.zone.pop(key, None)
            else:
                self.resolver.zone.setdefault(key, {})["TXT"] = list(txt)

    def start(self) -> SampleDNS:
        """Bind UDP and TCP on the same port and serve in background threads."""
        for _attempt in range(20):
            try:
                self._bind(self.port)
                break
            except OSError:
                self._close_servers()
                if self.port:
                    raise
        else:
            raise OSError("could not find a port free for both UDP and TCP")
        for server, proto in zip(self._servers, ("udp", "tcp"), strict=True):
            server.thread = threading.Thread(
                target=server.server.serve_forever,
                kwargs={"poll_interval": POLL},
                daemon=True,
                name=f"agentdex-dns-{self.port}-{proto}",
            )
            server.thread.start()
        return self

    def _bind(self, port: int) -> None:
        udp = DNSServer(self.resolver, address=self.host, port=port, logger=_quiet())
        self._servers.append(udp)
        chosen = udp.server.server_address[1]
        self._servers.append(DNSServer(self.resolver, address=self.host, port=chosen, tcp=True, logger=_quiet()))
        self.port = chosen

    def _close_servers(self) -> None:
        for server in self._servers:
            server.server.server_close()
        self._servers.clear()

    def stop(self) -> None:
        """Stop both servers, close their sockets and join their threads."""
        for server in self._servers:
            server.server.shutdown()
            server.server.server_close()
            server.thread.join(timeout=5)
        self._servers.clear()

    def __enter__(self) -> SampleDNS:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether nothing listens on TCP ``host:port`` (used by tests after shutdown)."""
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((host, port)) != 0
