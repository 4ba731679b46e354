"""The sample web's ASGI app: logs every request, picks the virtual host, applies rules."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import NamedTuple

from agentdex.sampleweb.apps import AppContext, MountedApp, build_app
from agentdex.sampleweb.responses import (
    DisconnectWatch,
    Message,
    Receive,
    Scope,
    Send,
    Static,
    content_type_for,
    gzip_bomb,
    gzip_bytes,
    merge_headers,
    send_bytes,
    send_static,
    send_text,
    with_headers,
)
from agentdex.sampleweb.site import Rule, Site
from agentdex.sampleweb.synthetic import SyntheticWeb

LOG_BODY_CAP = 1024 * 1024


class LoggedRequest(NamedTuple):
    """One request the sample web received: ``path`` is the target as sent (with
    ``?query`` when there was one), ``headers`` lower-case names (the last value wins),
    ``body`` the first megabyte of the request body."""

    host: str
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def jsonrpc_methods(self) -> list[str]:
        """The JSON-RPC methods in the body (empty when it is not JSON-RPC)."""
        try:
            doc = json.loads(self.body)
        except ValueError:
            return []
        items = doc if isinstance(doc, list) else [doc]
        return [m["method"] for m in items if isinstance(m, dict) and isinstance(m.get("method"), str)]


class RequestLog:
    """A thread-safe, append-only list of :class:`LoggedRequest` (iterate for a snapshot)."""

    def __init__(self) -> None:
        self._items: list[LoggedRequest] = []
        self._lock = threading.Lock()

    def append(self, item: LoggedRequest) -> None:
        """Record one request."""
        with self._lock:
            self._items.append(item)

    def snapshot(self) -> list[LoggedRequest]:
        """A copy of everything logged so far."""
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        """Forget everything logged so far."""
        with self._lock:
            self._items.clear()

    def __iter__(self) -> Iterator[LoggedRequest]:
        return iter(self.snapshot())

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __getitem__(self, index: int) -> LoggedRequest:
        with self._lock:
            return self._items[index]

    def jsonrpc_methods(self, host: str | None = None) -> list[str]:
        """Every JSON-RPC method received (optionally for one host), in order."""
        return [m for r in self if host in (None, r.host) for m in r.jsonrpc_methods()]


def request_host(scope: Scope) -> str:
    """The Host header's name, lower case, without port or trailing dot."""
    for key, value in scope.get("headers", ()):
        if key == b"host":
            host = value.decode("latin-1").strip().lower()
            if host.startswith("["):
                return host.split("]", 1)[0] + "]"
            return host.rsplit(":", 1)[0].rstrip(".") if ":" in host else host.rstrip(".")
    return ""


async def read_all(receive: Receive) -> tuple[bytes, list[Message]]:
    """Drain the request body; returns the bytes and the messages to replay."""
    messages, chunks = [], []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return b"".join(chunks), messages
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks), messages


def replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives back already-read messages, then the real ones."""
    pending = list(messages)

    async def again() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return again


class SampleWebApp:
    """Route requests to folder hosts, synthetic hosts and mounted apps."""

    def __init__(self, sites: dict[str, Site], synthetic: SyntheticWeb | None, log: RequestLog) -> None:
        self.sites = sites
        self.synthetic = synthetic
        self.log = log
        self.mounted: dict[tuple[str, str, str], MountedApp] = {}
        for site in sites.values():
            for variant, config in site.configs.items():
                for rule in config.app_rules():
                    self.mounted[(site.host, variant, rule.key)] = _mount(site, variant, rule)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        async with AsyncExitStack() as stack:
            await receive()  # lifespan.startup
            try:
                for mounted in self.mounted.values():
                    if mounted.lifespan is not None:
                        await stack.enter_async_context(mounted.lifespan())
            except Exception as exc:  # report, so uvicorn refuses to start
                await send({"type": "lifespan.startup.failed", "message": repr(exc)})
                return
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
        await send({"type": "lifespan.shutdown.complete"})

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = request_host(scope)
        body, messages = await read_all(receive)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        query = scope.get("query_string", b"").decode("latin-1")
        target = scope["path"] + (f"?{query}" if query else "")
        self.log.append(LoggedRequest(host, scope["method"], target, headers, body[:LOG_BODY_CAP]))
        receive = replay(messages, receive)
        site = self.sites.get(host)
        if site is not None:
            await self._site(site, scope, receive, send)
        elif self.synthetic is not None and self.synthetic.serves(host):
            await self._synthetic(host, scope, receive, send)
        else:
            await send_text(send, 421, f"This server does not serve {host or 'that host'}.\n")

    async def _site(self, site: Site, scope: Scope, receive: Receive, send: Send) -> None:
        variant = site.variant  # read once: another thread may switch it meanwhile
        config = site.configs[variant]
        rule = config.rule_for(scope["path"])
        extra = merge_headers(config.default_headers, rule.headers)
        if rule.app:
            if rule.delay:
                await asyncio.sleep(rule.delay)
            app = self.mounted[(site.host, variant, rule.key)].app
            await app(scope, receive, with_headers(send, extra))
            return
        if not (rule.delay or rule.drip):
            await self._static(site, rule, extra, scope, send, None)
            return
        watch = DisconnectWatch(receive)  # a slow answer stops when its client goes away
        try:
            if rule.delay and await watch.sleep(rule.delay):
                return
            await self._static(site, rule, extra, scope, send, watch)
        finally:
            watch.close()

    async def _static(
        self, site: Site, rule: Rule, extra: dict[str, str], scope: Scope, send: Send, watch: DisconnectWatch | None
    ) -> None:
        if rule.redirect:
            await send_bytes(
                send, rule.redirect_status, {**extra, "Location": rule.redirect, "Content-Length": "0"}, b""
            )
            return
        if scope["method"] not in ("GET", "HEAD"):
            await send_text(send, 405, "Method not allowed.\n", headers={**extra, "Allow": "GET, HEAD"})
            return
        answer = static_answer(site, rule, scope["path"])
        answer.headers = merge_headers(extra, answer.headers)
        await send_static(scope, send, answer, drip=rule.drip, disconnected=watch.event if watch else None)

    async def _synthetic(self, host: str, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.synthetic is not None
        if scope["method"] not in ("GET", "HEAD"):
            await send_text(send, 405, "Method not allowed.\n", headers={"Allow": "GET, HEAD"})
            return
        found = self.synthetic.lookup(host, scope["path"])
        if found is None:
            await send_static(scope, send, Static(404, b"Not found.\n", "text/plain; charset=utf-8", etag=False))
            return
        body, content_type, headers = found
        await send_static(scope, send, Static(200, body, content_type, dict(headers), self.synthetic.last_modified))

    def mounted_app(self, host: str, path: str, variant: str | None = None) -> MountedApp:
        """The app mounted on a host's rule key (the host's current variant by default)."""
        site = self.sites[host]
        return self.mounted[(host, site.variant if variant is None else variant, path)]


def _mount(site: Site, variant: str, rule: Rule) -> MountedApp:
    def find_file(rel: str) -> Path | None:
        return site.find_internal(rel, variant)

    return build_app(rule.app or "", AppContext(site.host, rule.key, rule.options, find_file))


def static_answer(site: Site, rule: Rule, path: str) -> Static:
    """What a static rule answers: inline body, bomb, file or an error text."""
    headers: dict[str, str] = {}
    if rule.gzip_bomb:
        headers["Content-Encoding"] = "gzip"
        return Static(
            rule.status or 200, gzip_bomb(rule.gzip_bomb), rule.content_type or "application/json", headers, etag=False
        )
    found = None if rule.body is not None else site.find_file(path)
    if rule.body is not None:
        body, ctype, modified = rule.body, rule.content_type or "text/plain; charset=utf-8", site.switched_at
    elif found is not None:
        body, ctype = found.read_bytes(), rule.content_type or content_type_for(found.name)
        modified = max(int(found.stat().st_mtime), site.switched_at)
    else:
        status = rule.status or 404
        return Static(
            status,
            f"{status} {'Not found' if status == 404 else 'Error'}.\n".encode(),
            "text/plain; charset=utf-8",
            headers,
            etag=False,
        )
    if rule.pad_to and len(body) < rule.pad_to:
        body += b" " * (rule.pad_to - len(body) - 1) + b"\n"
    if rule.gzip:
        body, headers["Content-Encoding"] = gzip_bytes(body), "gzip"
    return Static(rule.status or 200, body, ctype, headers, modified, etag=rule.etag)
