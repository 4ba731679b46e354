"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``):
one browser for many pages, each opened, read and photographed in well under a second, with
no client library (used by tests/test_datasette_pages.py and tests/test_endpoint_status.py,
which take its ``browser`` and ``shots`` fixtures; no tests here).

The protocol is JSON messages ended by a NUL byte: the browser reads them on its fd 3 and
writes on its fd 4.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

WIDTH, HEIGHT = 1280, 1000
PNG = b"\x89PNG\r\n\x1a\n"  # the signature a screenshot file opens with


class Browser:
    """One headless Chromium with one tab (a context manager)."""

    def __init__(self, chromium: str, flags: tuple[str, ...], profile: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds() -> None:  # in the child, before exec: fd 3 reads from us, fd 4 writes to us
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
            os.dup2(high[0], 3)  # dup2 leaves 3 and 4 inheritable; nothing else of ours is (PEP 446)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [chromium, *flags, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=wire_fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._ids = 0
        self._events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.viewport(WIDTH, HEIGHT)

    def viewport(self, width: int, height: int) -> None:
        """Show pages in a window of ``width``×``height`` CSS pixels."""
        self.width, self.height = width, height
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True, awaitPromise=True
        )
        return result["result"].get("value")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, method: str, session: bool = False, timeout: float = 60.0, **params: Any) -> dict:
        """Send one command and wait for its answer (events that come first are kept)."""
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read(timeout)
            if answer.get("id") == self._ids:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self._events.append(answer)

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("Chromium stopped answering")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def navigate(self, url: str, timeout: float = 60.0) -> None:
        """Load ``url`` (any document: HTML, SVG, JSON) and wait for its load event."""
        self._events.clear()
        self.call("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not finish loading")
            self._events.append(self._read(deadline - time.monotonic()))

    def open(self, url: str, timeout: float = 60.0) -> dict:
        """Load ``url`` and wait for its load event; what the page says about itself:
        ``status`` (HTTP), ``title``, ``h1``, ``errors`` (Datasette's error messages) and ``text``."""
        self.navigate(url, timeout)
        script = """JSON.stringify({
            status: performance.getEntriesByType('navigation')[0].responseStatus,
            title: document.title,
            h1: (document.querySelector('h1') || {}).innerText || '',
            errors: [...document.querySelectorAll('.message-error, .error')].map(e => e.innerText),
            text: document.body.innerText})"""
        result = self.call("Runtime.evaluate", session=True, expression=script, returnByValue=True)
        return json.loads(result["result"]["value"])

    def screenshot(self, path: Path, first_screen: bool = False) -> Path:
        """The page (its first 2,400 pixels, or only what the window shows) as a PNG at ``path``."""
        metrics = self.call("Page.getLayoutMetrics", session=True)
        height = self.height if first_screen else min(2400, int(metrics["cssContentSize"]["height"]))
        shot = self.call(
            "Page.captureScreenshot",
            session=True,
            format="png",
            captureBeyondViewport=not first_screen,
            clip={"x": 0, "y": 0, "width": self.width, "height": max(height, 200), "scale": 1},
        )
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        """Close the browser."""
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, OSError):
            pass
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for a test module's pages."""
    from test_datasette_live import CHROMIUM, CHROMIUM_FLAGS  # where the tests find Chromium

    with Browser(CHROMIUM, CHROMIUM_FLAGS, tmp_path_factory.mktemp("profile")) as chromium:
        yield chromium


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: ``AGENTDEX_SCREENSHOTS=DIR`` keeps them for a person to look at."""
    kept = os.environ.get("AGENTDEX_SCREENSHOTS")
    folder = Path(kept) if kept else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
