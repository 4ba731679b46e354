"""The sample web on loopback: real HTTPS (a throwaway CA from trustme), many virtual hosts,
mounted apps (MCP, x402, registry, feedback) and a DNS server for TXT proofs.

    with SampleWeb() as web:                  # or: async with SampleWeb() as web
        web.port, web.hosts, web.ca_pem, web.dns_address
        web.connect_to()                      # [(pattern, "127.0.0.1", port), ...]
        web.cli_args()                        # --connect-to … --ca-bundle … --dns-server …
        web.requests_log                      # every request received
        web.set_variant("pantry.test", "v2")  # switch content between crawls
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trustme
import uvicorn

from agentdex.sampleweb.dns import SampleDNS
from agentdex.sampleweb.router import RequestLog, SampleWebApp
from agentdex.sampleweb.site import Site, load_dns_zone, load_sites
from agentdex.sampleweb.synthetic import DOMAIN as SYNTHETIC_DOMAIN
from agentdex.sampleweb.synthetic import VARIANTS as SYNTHETIC_VARIANTS
from agentdex.sampleweb.synthetic import SyntheticWeb

if TYPE_CHECKING:
    from agentdex.crawler.options import NetworkOptions

REGISTRY_HOST = "registry.test"  # the sample MCP registry (Anchor's registry proof)

WEB_ROOT = Path(__file__).resolve().parent / "web"
HOSTILE_ROOT = Path(__file__).resolve().parent / "hostile"  # the hostile origins (hostile/README.md)
CROSSCHECK_ROOT = Path(__file__).resolve().parent / "crosscheck"  # one origin in many formats (crosscheck/README.md)
WILDCARD_AT = 20  # a parent domain with more hosts than this is covered by one wildcard
START_TIMEOUT = 120.0  # only ends a start that failed: a loaded machine starts the server slowly
UNSERVED_HOST = "gone.invalid"  # documented: never served, never in connect_to


class _QuietShutdown(logging.Filter):
    """Drop uvicorn's tracebacks for answers cancelled at shutdown (a slow drip, an open MCP
    stream): stopping a test server mid-answer is what it is for, not an error."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[0] is asyncio.CancelledError:
            return False
        return "timeout graceful shutdown exceeded" not in record.getMessage()


_QUIET = _QuietShutdown()


def host_patterns(hosts: list[str], wildcard_at: int = WILDCARD_AT) -> list[str]:
    """Names covering ``hosts``: the host itself, or ``*.parent`` for a crowded parent."""
    parents = Counter(h.split(".", 1)[1] for h in hosts if h.count(".") >= 2)
    crowded = {p for p, n in parents.items() if n > wildcard_at}
    out: list[str] = []
    for host in hosts:
        parent = host.split(".", 1)[1] if host.count(".") >= 2 else None
        name = f"*.{parent}" if parent in crowded else host
        if name not in out:
            out.append(name)
    return out


class SampleWeb:
    """The bundled sample web (or any folder in its layout) served over HTTPS on loopback."""

    def __init__(
        self,
        root: Path | str | None = None,
        *,
        synthetic: int = 0,
        empty: int = 0,
        port: int = 0,
        host: str = "127.0.0.1",
        dns: bool = True,
    ) -> None:
        self.root = Path(root) if root is not None else WEB_ROOT
        self.synthetic_count = synthetic
        self.empty_count = empty  # synthetic origins that answer 404 to every path
        self.port = port
        self.address = host
        self.dns_enabled = dns
        self.requests_log = RequestLog()
        self.sites: dict[str, Site] = {}
        self.synthetic: SyntheticWeb | None = None
        self.hosts: list[str] = []
        self.ca_pem: Path | None = None
        self.dns: SampleDNS | None = None
        self.app: SampleWebApp | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> SampleWeb:
        """Make the CA and certificate, start HTTPS and DNS; returns once both answer."""
        try:
            self._load()
            cert_file = self._make_certificates()
            self._start_http(cert_file)
            if self.dns_enabled:
                self.dns = SampleDNS(load_dns_zone(self.root), host=self.address).start()
        except BaseException:
            self.stop()
            raise
        return self

    def _load(self) -> None:
        self.sites = load_sites(self.root) if self.root.is_dir() else {}
        wanted = self.synthetic_count or self.empty_count
        self.synthetic = SyntheticWeb(self.synthetic_count, empty=self.empty_count) if wanted else None
        self.hosts = sorted(self.sites) + (self.synthetic.hosts if self.synthetic else [])
        self.app = SampleWebApp(self.sites, self.synthetic, self.requests_log)

    def _patterns(self) -> list[str]:
        names = host_patterns(sorted(self.sites))
        return names + ([f"*.{SYNTHETIC_DOMAIN}"] if self.synthetic else [])

    def _make_certificates(self) -> Path:
        self._tmp = tempfile.TemporaryDirectory(prefix="agentdex-sampleweb-")
        folder = Path(self._tmp.name)
        ca = trustme.CA(organization_name="agentdex sample web")
        names = self._patterns() or ["localhost"]
        cert = ca.issue_cert(*names)
        self.ca_pem = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_pem))
        cert_file = folder / "server.pem"
        cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
        return cert_file

    def _start_http(self, cert_file: Path) -> None:
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so, and
        # without it every answer waits ~40 ms for a delayed ACK (Nagle).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.address, self.port))
        sock.listen(2048)
        self._socket = sock
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            ssl_certfile=str(cert_file),
            ssl_keyfile=str(cert_file),
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=1,
            timeout_keep_alive=5,
        )
        self._server = uvicorn.Server(config)
        if _QUIET not in logging.getLogger("uvicorn.error").filters:
            logging.getLogger("uvicorn.error").addFilter(_QUIET)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=f"agentdex-sampleweb-{self.port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the sample web's HTTPS server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop HTTPS and DNS, close the sockets, join the threads, remove the CA files."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            if self._thread.is_alive():
                self._server.force_exit = True
                self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        if self.dns is not None:
            self.dns.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
        self._server = self._thread = self._socket = self.dns = self._tmp = None

    def __enter__(self) -> SampleWeb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> SampleWeb:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    # --- what clients need ------------------------------------------------------------

    @property
    def dns_address(self) -> str | None:
        """``127.0.0.1:PORT`` of the DNS server (None when DNS is off)."""
        return self.dns.address if self.dns is not None else None

    def connect_to(self) -> list[tuple[str, str, int]]:
        """``(pattern, address, port)`` rules sending every served host here (and nothing
        else: :data:`UNSERVED_HOST` and unknown names stay unmatched)."""
        return [(pattern, self.address, self.port) for pattern in self._patterns()]

    def connect_to_args(self) -> list[str]:
        """The same rules as ``PATTERN:ADDR:PORT`` strings for ``--connect-to``."""
        return [f"{p}:{a}:{port}" for p, a, port in self.connect_to()]

    def cli_args(self, *, one_wildcard: bool = False) -> list[str]:
        """Every network option agentdex needs to crawl this web; with ``one_wildcard`` a
        single ``--connect-to`` for the narrowest wildcard covering every host (what a
        person types) instead of one rule per served name."""
        args: list[str] = []
        specs = (
            [f"{covering_pattern(self.hosts)}:{self.address}:{self.port}"] if one_wildcard else self.connect_to_args()
        )
        for spec in specs:
            args += ["--connect-to", spec]
        args += ["--ca-bundle", str(self.ca_pem)]
        if self.dns_address:
            args += ["--dns-server", self.dns_address]
        if REGISTRY_HOST in self.sites:  # Anchor registry proofs ask the sample registry
            args += ["--registry", f"https://{REGISTRY_HOST}"]
        return args

    def network_options(self, **overrides: Any) -> NetworkOptions:
        """The same options as a :class:`~agentdex.crawler.options.NetworkOptions` for the
        Python API (``overrides`` set any other field, or replace one of these)."""
        from agentdex.crawler.options import NetworkOptions  # the server itself needs no crawler

        options: dict[str, Any] = {
            "connect_to": self.connect_to(),
            "ca_bundle": self.ca_pem,
            "dns_server": self.dns_address,
        }
        if REGISTRY_HOST in self.sites:
            options["registry"] = f"https://{REGISTRY_HOST}"
        return NetworkOptions(**{**options, **overrides})

    @staticmethod
    def url(host: str, path: str = "/") -> str:
        """``https://host/path``."""
        return f"https://{host}{path if path.startswith('/') else '/' + path}"

    # --- switching and inspecting --------------------------------------------------------

    def variants(self, host: str) -> list[str]:
        """The variant names a host has (``""`` is the base tree)."""
        return sorted(self._site(host).configs)

    def set_variant(self, host: str, name: str | None) -> None:
        """Switch a host's content to variant ``name`` (``""``/None: the base tree).
        ``host="*"`` switches every host having that variant, synthetic ones included."""
        name = name or ""
        if host != "*":
            self._site(host).set_variant(name)
            return
        having = [site for site in self.sites.values() if name in site.configs]
        synthetic = self.synthetic is not None and name in SYNTHETIC_VARIANTS
        if not having and not synthetic:
            raise ValueError(f"no host of the sample web has a variant {name!r}")
        for site in having:
            site.set_variant(name)
        if self.synthetic is not None:
            self.synthetic.set_variant(name if synthetic else "")

    def _site(self, host: str) -> Site:
        site = self.sites.get(host.lower())
        if site is None:
            raise ValueError(f"the sample web serves no folder host {host!r}")
        return site

    def app_state(self, host: str, path: str) -> Any:
        """The inspectable state of an app mounted on ``host`` at rule key ``path`` (the
        feedback inbox, the MCP server …), for the host's current variant."""
        if self.app is None:
            raise RuntimeError("the sample web is not running")
        return self.app.mounted_app(host.lower(), path).state


HELPER_PREFIXES = ("mcp.", "api.", "pay.")  # hosts that serve an origin's endpoints, not origins
HELPER_HOSTS = frozenset({REGISTRY_HOST, "elsewhere.test"})


def run_forever(
    synthetic: int = 0,
    port: int = 0,
    print_fn: Callable[[str], Any] = print,
    root: Path | str | None = None,
    seeds_out: Path | str | None = None,
) -> None:
    """Serve the sample web until Ctrl-C or SIGTERM (both remove its folder, CA key
    included), printing what agentdex needs to reach it. With ``synthetic`` only the
    generated origins are served (unless ``root`` names a folder to serve beside them);
    ``seeds_out`` gets the origins to crawl, one a line."""
    with tempfile.TemporaryDirectory(prefix="agentdex-nosites-") as empty, _sigterm_as_interrupt():
        chosen = root if root is not None else (empty if synthetic else None)
        with SampleWeb(chosen, synthetic=synthetic, port=port) as web:
            try:  # Ctrl-C may come while the lines are being printed
                if seeds_out is not None:
                    Path(seeds_out).write_text("".join(f"{o}\n" for o in served_origins(web)), "utf-8")
                for line in describe(web, seeds_out):
                    print_fn(line)
                threading.Event().wait()
            except KeyboardInterrupt:
                print_fn("Stopping the sample web.")


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt, so a terminated server cleans up as on Ctrl-C."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def served_origins(web: SampleWeb) -> list[str]:
    """The origins to crawl on ``web``: its hosts but the helpers that serve their endpoints."""
    return [h for h in web.hosts if not h.startswith(HELPER_PREFIXES) and h not in HELPER_HOSTS]


def covering_pattern(hosts: list[str]) -> str:
    """The narrowest ``--connect-to`` wildcard covering every host: ``*.`` and their common
    parent domain (``*.test``), or ``*``."""
    parents = [host.split(".")[1:][::-1] for host in hosts]  # each parent domain, top label first
    common = os.path.commonprefix(parents) if parents else []
    return "*." + ".".join(reversed(common)) if common else "*"


def describe(web: SampleWeb, seeds_out: Path | str | None = None) -> list[str]:
    """Human lines: port, CA, DNS, the origins served, and the agentdex arguments (one
    wildcard ``--connect-to`` for the whole web)."""
    origins = served_origins(web)
    lines = [
        f"Sample web on https://{web.address}:{web.port} serving {len(web.hosts)} hosts.",
        f"CA certificate: {web.ca_pem}",
    ]
    if web.dns_address:
        lines.append(f"DNS server: {web.dns_address} (UDP and TCP)")
    lines.append(f"Origins to crawl ({len(origins)}): {_span(origins)}")
    if seeds_out is not None:
        lines.append(f"Seeds file: {seeds_out} (agentdex crawl --seeds {_quote(str(seeds_out))})")
    lines += [
        "Pass these to agentdex crawl / verify:",
        "  " + " ".join(_quote(a) for a in web.cli_args(one_wildcard=True)),
        "Press Ctrl-C to stop.",
    ]
    return lines


def _span(origins: list[str]) -> str:
    # Many generated origins are named by their first and last (they are numbered).
    return ", ".join(origins) if len(origins) <= 60 else f"{origins[0]} … {origins[-1]}"


def _quote(arg: str) -> str:
    return f"'{arg}'" if any(ch in arg for ch in "*? ") else arg
