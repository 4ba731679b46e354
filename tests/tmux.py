"""A real terminal for the TUI: a tmux server of its own running ``agentdex tui``, fed with
``send-keys`` and read back with ``capture-pane`` (used by tests/test_tui_terminal.py and
benchmarks/bench_tui.py; no tests here).

tmux runs with its defaults (no user configuration), so an Escape and a key typed within
half a second reach the app joined, exactly as they reach a newcomer's TUI inside tmux.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

TMUX = shutil.which("tmux")
_SERVERS = itertools.count(1)
WIDTH, HEIGHT = 120, 40


class Terminal:
    """One tmux session (``WIDTH``×``HEIGHT`` unless told) whose pane runs a command."""

    def __init__(self, name: str, width: int = WIDTH, height: int = HEIGHT) -> None:
        if TMUX is None:
            raise RuntimeError("tmux is not installed")
        self.socket = f"agentdex-{os.getpid()}-{next(_SERVERS)}-{name}"
        self.width, self.height = width, height

    def tmux(self, *args: str) -> str:
        """Run a tmux command on this terminal's server; its output."""
        return subprocess.run(
            [TMUX, "-L", self.socket, "-f", os.devnull, *args], check=True, capture_output=True, text=True, timeout=60
        ).stdout

    def start(self) -> Terminal:
        """Start the server with an idle pane (kept when its command ends)."""
        self.tmux("new-session", "-d", "-s", "t", "-x", str(self.width), "-y", str(self.height), "sleep 3600")
        self.tmux("set-option", "-t", "t", "remain-on-exit", "on")
        return self

    def run(self, *command: str) -> float:
        """Replace the pane's command with ``command``; the perf_counter time it started."""
        started = time.perf_counter()
        self.tmux("respawn-pane", "-k", "-t", "t", " ".join(_quote(c) for c in command))
        return started

    def run_tui(self, db: Path) -> float:
        """Start ``agentdex tui`` on ``db`` (this checkout's code); when it started."""
        root = Path(__file__).resolve().parent.parent
        # Without COLUMNS and LINES: a size left in the environment (pytest's run has 80x24)
        # overrides the pane's own in every program that asks Python for the terminal size.
        return self.run(
            "env",
            "-u",
            "COLUMNS",
            "-u",
            "LINES",
            f"PYTHONPATH={root}",
            sys.executable,
            "-m",
            "agentdex",
            "tui",
            "--db",
            str(db),
        )

    def send(self, *keys: str, literal: bool = False) -> None:
        """One ``send-keys`` call: the keys reach the app in one write."""
        self.tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does (bracketed, when the app asked for it)."""
        self.tmux("set-buffer", "-b", "p", text)
        self.tmux("paste-buffer", "-p", "-b", "p", "-t", "t")

    def text(self) -> str:
        """What the terminal shows now."""
        return self.tmux("capture-pane", "-p", "-t", "t")

    def exited(self) -> bool:
        """Whether the pane's command has ended."""
        return self.tmux("display-message", "-p", "-t", "t", "#{pane_dead}").strip() == "1"

    def wait_for(self, condition: Callable[[str], object], timeout: float = 60.0) -> str:
        """Read the screen until ``condition(text)`` holds; that text (``timeout`` only fails
        the test: an app starting on a loaded machine can take many seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed what was expected; it shows:\n{text}")
            time.sleep(0.005)

    def close(self) -> None:
        """Stop the server (and the app in it) and remove its socket."""
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=60)
        folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / self.socket).unlink(missing_ok=True)


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def search_box(text: str) -> str:
    """The search box's contents on a catalogue screen ("" while it shows its placeholder)."""
    line = next((ln for ln in text.splitlines() if ln.startswith("▊") and ln.strip("▊▎▔▁ ")), "")
    inner = line.strip("▊▎").strip()
    return "" if inner.startswith("Search names") else inner
