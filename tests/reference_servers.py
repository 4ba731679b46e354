"""Reference MCP servers nobody here wrote, on loopback behind the suite's TLS.

The npm packages pinned in ``tests/npm/package.json`` (``.ci/run`` installs them with
``npm ci``): the MCP TypeScript SDK's reference server ``@modelcontextprotocol/server-everything``
(a 2025-era server, SDK v1), the TypeScript SDK v2 (``@modelcontextprotocol/server`` and
``client``, revision 2026-07-28) and the MCP conformance kit ``@modelcontextprotocol/conformance``;
and a server of the Python SDK ``mcp`` 2.3.0 (tests/py_mcp_server.py). They serve plain HTTP,
and agentdex fetches only over HTTPS, so :class:`TLSProxy` terminates TLS on 127.0.0.1 with a
certificate of the suite's throwaway CA and pipes the bytes to the server unchanged.

    node_skip_reason() -> str | None        why the npm tests cannot run here (None: they can)
    with everything("sse" | "streamableHttp") as port: ...     the reference server on PORT
    with ts_v2("reject" | "default") as port: ...   a TS SDK v2 server (2026-07-28 only | both eras)
    ts_v2_client(url, "auto" | "legacy") -> dict    what the TS SDK v2 client lists there
    with py_mcp(host) as port: ...                  an ``mcp`` 2.3.0 server (both eras)
    with TLSProxy(cert, port) as proxy: proxy.port, proxy.methods()
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import trustme

from waiting import wait_for

NPM_DIR = Path(__file__).parent / "npm"
MODULES = NPM_DIR / "node_modules"
EVERYTHING = MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
CONFORMANCE = MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
# The kit's newest release, 0.2.0-alpha.12 (the only one with 2026-07-28 client scenarios),
# installed as the alias conformance-2026; it loads on Node 20 through node20-globsync.mjs.
CONFORMANCE_2026 = MODULES / "conformance-2026" / "dist" / "index.js"
NODE20_GLOBSYNC = NPM_DIR / "node20-globsync.mjs"
TS_V2_SERVER = NPM_DIR / "ts_v2_server.mjs"
TS_V2_CLIENT = NPM_DIR / "ts_v2_client.mjs"
TS_V2 = MODULES / "@modelcontextprotocol" / "server" / "dist" / "index.mjs"
PY_MCP_SERVER = Path(__file__).parent / "py_mcp_server.py"
_METHOD = re.compile(rb'"method"\s*:\s*"([^"]{1,100})"')


def _node_major() -> int:
    """The major version of the node on PATH (0 when it does not say)."""
    said = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout
    found = re.match(r"v(\d+)\.", said.strip())
    return int(found.group(1)) if found else 0


def node_skip_reason() -> str | None:
    """Why the npm reference tests cannot run here, or None when they can."""
    if shutil.which("node") is None:
        return "node is not installed (the npm reference servers need it)"
    if _node_major() < 20:
        return "node is older than 20 (the TypeScript SDK v2 packages in tests/npm need 20 or newer)"
    if not all(p.exists() for p in (EVERYTHING, CONFORMANCE, CONFORMANCE_2026, TS_V2)):
        return "the pinned npm packages are not installed: run `npm ci` in tests/npm (.ci/run does)"
    return None


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 120.0) -> None:
    """Return once something accepts on ``port``; fail if ``process`` ends first or time runs out."""
    wait_for(lambda: process.poll() is not None or _accepts(port), seconds)
    if process.poll() is not None:
        raise RuntimeError(f"the server exited with {process.returncode}: {process.stderr.read()!r}")


@contextmanager
def everything(mode: str) -> Iterator[int]:
    """The reference server ``server-everything`` in ``mode`` (``sse``: GET /sse and POST
    /message; ``streamableHttp``: /mcp) on a free loopback port, stopped on exit."""
    with serving_on_a_free_port(lambda port: (["node", str(EVERYTHING), mode], {"PORT": str(port)})) as port:
        yield port


@contextmanager
def ts_v2(mode: str) -> Iterator[int]:
    """A TypeScript SDK v2 server (tests/npm/ts_v2_server.mjs) at /mcp: ``reject`` serves
    only 2026-07-28 (``createMcpHandler(…, {legacy: 'reject'})``), ``default`` both eras."""
    with serving_on_a_free_port(lambda port: (["node", str(TS_V2_SERVER), str(port), mode], {})) as port:
        yield port


def ts_v2_client(url: str, mode: str) -> dict:
    """What the TypeScript SDK v2 client lists at ``url`` (plain HTTP) in negotiation
    ``mode`` (``auto``: server/discover first; ``legacy``: the handshake):
    ``{version, serverInfo, tools}``."""
    done = subprocess.run(
        ["node", str(TS_V2_CLIENT), url, mode], cwd=NPM_DIR, capture_output=True, timeout=60, check=True
    )
    return json.loads(done.stdout)


@contextmanager
def py_mcp(host: str) -> Iterator[int]:
    """A server of the Python SDK ``mcp`` 2.3.0 (tests/py_mcp_server.py) at /mcp for clients
    that call it ``host``: both eras."""
    with serving_on_a_free_port(lambda port: ([sys.executable, str(PY_MCP_SERVER), str(port), host], {})) as port:
        yield port


@contextmanager
def serving_on_a_free_port(command_for: Callable[[int], tuple[list[str], dict[str, str]]]) -> Iterator[int]:
    """The command ``command_for(port)`` gives, running until exit, once it listens on a free
    loopback port; yields that port.

    A port free when asked can be taken by another test's server before this one binds it
    (the suite runs on two workers): the server then exits with EADDRINUSE while the other
    one answers on the port, and every test of the module would talk to the wrong server.
    So the wait is for *this* process's own listening socket, and a lost race starts over on
    another port."""
    for _ in range(5):
        port = free_port()
        command, env = command_for(port)
        process = _start(command, env)
        try:
            if _listens_itself(port, process):
                yield port
                return
        finally:
            stop(process)
    raise RuntimeError("five free ports in a row were taken before the server could bind them")


@contextmanager
def serving(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[None]:
    """``command`` running until exit, once something accepts on ``port``."""
    process = _start(command, env or {})
    try:
        wait_for_port(port, process)
        yield
    finally:
        stop(process)


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        command, env={**os.environ, **env}, cwd=NPM_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def stop(process: subprocess.Popen) -> None:
    """Terminate ``process`` (killed if it outlives 10 s), reap it, close its stderr pipe."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()


def _listens_itself(port: int, process: subprocess.Popen, seconds: float = 120.0) -> bool:
    """True once ``process`` holds a socket listening on ``port``; False when it ended while
    another process listens there (a lost race for the port). Where /proc does not say who
    listens, a connection accepted on the port is taken as the server's."""

    def settled() -> bool:
        owns = _owns_listener(process.pid, port)
        return process.poll() is not None or bool(owns) or (owns is None and _accepts(port))

    wait_for(settled, seconds)
    if process.poll() is None:
        return True
    if _listening_inodes(port):
        return False
    raise RuntimeError(f"the server exited with {process.returncode}: {process.stderr.read()!r}")


def _listening_inodes(port: int) -> set[str] | None:
    """The inodes of the TCP sockets listening on ``port`` (None where /proc/net is absent)."""
    inodes, seen = set(), False
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        try:
            rows = table.read_text().splitlines()[1:]
        except OSError:
            continue
        seen = True
        for fields in (row.split() for row in rows):
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes if seen else None


def _owns_listener(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds a socket listening on ``port`` (None: /proc cannot say)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None
    try:
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return False
    return any(link.startswith("socket:[") and link[8:-1] in inodes for link in links)


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


class TLSProxy:
    """TLS on 127.0.0.1 (a certificate of the suite's CA) in front of a plain-HTTP server on
    ``upstream``; what clients send is kept (``sent``) to tell which JSON-RPC methods went."""

    def __init__(self, cert: trustme.LeafCert, upstream: int) -> None:
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(self.context)
        self.upstream, self.port, self.sent = upstream, 0, bytearray()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TLSProxy:
        self._thread.start()
        if not self._ready.wait(60):
            raise RuntimeError("the TLS proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def connect_to(self, host: str) -> list[tuple[str, str, int]]:
        """The ``--connect-to`` rule that sends ``host`` here."""
        return [(host, "127.0.0.1", self.port)]

    def methods(self) -> list[str]:
        """Every JSON-RPC method clients sent through the proxy, in order."""
        return [m.decode() for m in _METHOD.findall(bytes(self.sent))]

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.context))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()
        pending = asyncio.all_tasks(self._loop)  # the connections still piping: end them here
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.close()
            return
        try:
            await asyncio.gather(
                self._pipe(reader, up_writer, keep=True), self._pipe(up_reader, writer), return_exceptions=True
            )
        except asyncio.CancelledError:
            pass  # the proxy is stopping; asyncio's stream callback would report a cancelled task

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, keep: bool = False) -> None:
        try:
            while chunk := await reader.read(65536):
                if keep:
                    self.sent += chunk
                writer.write(chunk)
                await writer.drain()
        finally:
            writer.close()
