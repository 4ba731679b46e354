"""Shared fixtures."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import threading
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

# Hypothesis fails an example that runs longer than 200 ms, and a search whose examples are
# slow to draw, by default: on a busy machine that is load, not a bug. No test of this suite
# measures time, so no example has a deadline (modules with settings of their own say so too).
settings.register_profile("agentdex", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("agentdex")
EXAMPLES = ROOT / "tests" / "examples"


def _find_shared() -> Path | None:
    # shared/ sits beside the checkout (the project's folder and CI's clone alike).
    for parent in ROOT.parents:
        candidate = parent / "shared"
        if (candidate / "specs").is_dir():
            return candidate
    return None


SHARED = _find_shared()


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (the doc generators the docs tests compare with)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cli_env() -> dict[str, str]:
    """The environment for ``python -m agentdex`` in a child process: this checkout on its
    path, and no ``$AGENTDEX_DB`` from the caller's shell (the test names its catalogue)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTDEX_DB", None)
    return env


@pytest.fixture
def shared() -> Path:
    """The shared/ folder with specs and real-world documents."""
    if SHARED is None:
        pytest.skip("shared/ is not beside this checkout")
    return SHARED


# --- the quick lane: `pytest -m "not slow"` ---------------------------------------------------
#
# A test that starts a server, a subprocess (the CLI, Datasette, node, npm), a browser or tmux,
# or builds a large catalogue, is marked ``slow``. Most are marked here, by the fixtures they
# use (directly or through another fixture): each name below starts one of those in every
# module that defines it. Tests that start one in their own body carry the mark themselves.
# In the quick lane, a test that starts a subprocess or listens on a socket without the mark
# fails and says so, so a new test cannot slow the lane down unnoticed.
SLOW_FIXTURES = frozenset(
    {
        "web",  # a SampleWeb (tests/test_tui_support.py, tests/freshweb.py and many modules)
        "hostile_web",
        "tls_server_session",  # tests/netfixtures.py's HTTPS server
        "tls_server",
        "server",  # test_fetch_connections.py's keep-alive server
        "server_tls",
        "servers",  # the MCP reference servers (node) behind TLS proxies
        "python_sse",
        "served",  # `agentdex serve` in a process
        "odd_served",
        "plain",  # Datasette's own command
        "base",
        "browser",  # headless Chromium
        "shots",
        "terminal",  # tmux
        "runs",  # the demo, as a subprocess and in-process
        "catalogue",  # a module's catalogue crawled from a SampleWeb, or 10,000+ synthetic listings
        "crawled",  # a module's catalogue crawled from a SampleWeb
        "db_path",  # tests/test_tui_support.py: the catalogue crawled from its SampleWeb
        "flapped",
        "looked_up",
        "verified",
    }
)
QUICK_LANE = "not slow"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not SLOW_FIXTURES.isdisjoint(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


class _QuickLaneGuard:
    """In the quick lane, refuses a subprocess or a listening socket to a test not marked slow."""

    def __init__(self) -> None:
        self.quick_test: str | None = None  # the running test, when it is not marked slow
        self.refused: list[str] = []

    def check(self, what: str) -> None:
        if self.quick_test is not None:
            self.refused.append(what)
            raise RuntimeError(
                f"{self.quick_test} {what} but is not marked slow: add @pytest.mark.slow "
                "(or use a fixture named in tests/conftest.py's SLOW_FIXTURES)"
            )


_GUARD = _QuickLaneGuard()


def _hear_ctrl_c() -> None:
    """A suite started in the background by a shell without job control (``cmd &`` in a
    script, as CI wrappers do) starts with SIGINT ignored, and an ignored signal stays ignored
    across exec: every process a test starts would then ignore the Ctrl-C the test sends it
    (the Ctrl-C tests of ``crawl --processes`` and ``sampleweb`` hung so). Python's own
    handler again, so the processes the tests start hear it."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    _hear_ctrl_c()
    if (config.getoption("markexpr", "") or "").strip() != QUICK_LANE:
        return
    popen_init, listen = subprocess.Popen.__init__, socket.socket.listen

    def guarded_popen(self, args, *rest, **options):
        _GUARD.check(f"starts a subprocess ({str(args)[:80]})")
        popen_init(self, args, *rest, **options)

    def guarded_listen(self, *rest):
        _GUARD.check("listens on a socket (a server)")
        return listen(self, *rest)

    subprocess.Popen.__init__ = guarded_popen  # type: ignore[method-assign]
    socket.socket.listen = guarded_listen  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _GUARD.refused.clear()
    _GUARD.quick_test = None if item.get_closest_marker("slow") else item.nodeid


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    # A server started in a thread may swallow the refusal: the test fails here all the same.
    refused, _GUARD.quick_test = list(_GUARD.refused), None
    if refused:
        pytest.fail(f"{item.nodeid} {refused[0]} but is not marked slow: add @pytest.mark.slow", pytrace=False)


def skip_reasons(reports: list) -> list[tuple[int, str]]:
    """``(count, reason)`` of skipped test reports, most first (a reason's ``Skipped: ``
    prefix dropped; ties by reason)."""
    counts: dict[str, int] = {}
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        counts[reason] = counts.get(reason, 0) + 1
    return sorted(((n, reason) for reason, n in counts.items()), key=lambda item: (-item[0], item[1]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker whose session is over ignores SIGINT. execnet (2.1, gateway_base
    ``_terminate_execution``) sends its own worker a SIGINT when the worker still runs 5 s
    after the run was told to end, which a busy machine makes happen: the KeyboardInterrupt
    then lands wherever the worker is (hypothesis's gc callback) and prints a traceback after
    the green result. Every result was reported by then, so nothing is lost; the worker ends
    on its own, or execnet ends it 10 s later. Runs before xdist reports the session over."""
    if hasattr(session.config, "workerinput") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """Why tests were skipped, one line a reason with its count (96 skips said nothing; the
    README's test command stays as it is, so the summary comes from here, not from -rs)."""
    if "s" in (config.option.reportchars or "") or "a" in (config.option.reportchars or ""):
        return  # -rs already lists every skip
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if getattr(r, "when", "") in ("setup", "call")]
    if skipped:
        terminalreporter.section(f"{len(skipped)} skipped, by reason", sep="-")
        for count, reason in skip_reasons(skipped):
            terminalreporter.line(f"{count:>5}  {reason}")
