"""A benchmark's own HTTPS server: asyncio on 127.0.0.1, TLS from a throwaway CA, in a thread.

Shared by the benchmarks that serve a synthetic web of their own (bench_registry_census.py,
bench_seeds.py): a subclass answers connections in ``_serve``.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
import threading

import trustme


class LoopbackTLS:
    """Starts at construction; ``port`` is the port it listens on."""

    def __init__(self, ca: trustme.CA, name: str) -> None:
        self.port = 0
        self._tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert(name).configure_cert(self._tls)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()
        if not self._ready.wait(10):
            sys.exit(f"the benchmark's server for {name} did not start")

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.set_exception_handler(lambda _loop, _context: None)  # clients that leave are expected
        srv = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self._tls))
        self.port = srv.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError
