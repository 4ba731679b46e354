"""Where a copied install plan goes, and saying so truthfully.

The terminal's clipboard is reached with OSC 52, an escape sequence the terminal may
honour or silently ignore (macOS Terminal, many tmux setups): nothing comes back to say
which. So a copy also goes to a system clipboard tool when one is installed and has a
display to talk to, and the message names every way the text went. Writing the plan to a
file (:func:`write_plan`) is the way that always works.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TOOL_TIMEOUT = 3.0  # seconds: a clipboard tool that hangs (no display) must not hang the app
# (command, the environment variable of the display it needs; "" for none)
TOOLS = (
    (("wl-copy",), "WAYLAND_DISPLAY"),
    (("xclip", "-selection", "clipboard"), "DISPLAY"),
    (("xsel", "--clipboard", "--input"), "DISPLAY"),
    (("pbcopy",), ""),
)


def clipboard_tool() -> tuple[str, ...] | None:
    """The command of a system clipboard tool usable here, or None."""
    for command, display in TOOLS:
        if command[0] == "pbcopy" and sys.platform != "darwin":
            continue
        if (not display or os.environ.get(display)) and shutil.which(command[0]):
            return command
    return None


def copy_with_tool(text: str) -> str | None:
    """Give ``text`` to the system clipboard tool; the tool's name if it took it."""
    command = clipboard_tool()
    if command is None:
        return None
    try:
        done = subprocess.run(
            command,
            input=text.encode("utf-8"),
            timeout=TOOL_TIMEOUT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return command[0] if done.returncode == 0 else None


def copied_note(what: str, tool: str | None) -> str:
    """What the user is told after a copy: each way the text went, and the sure way."""
    how = f"{tool} put it on the system clipboard, and it was" if tool else "It was"
    return (
        f"{how} sent to the terminal's clipboard (OSC 52), which some terminals ignore. "
        f"{what}: press ctrl+s to write it to a file instead."
    )


def plan_file_name(origin: str, host: str) -> str:
    """``pantry.test-codex-plan.txt``: a file name safe on every system."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"{origin}-{host}-plan.txt")


def write_plan(text: str, origin: str, host: str, folder: Path | None = None) -> Path:
    """Write ``text`` to :func:`plan_file_name` in ``folder`` (default: the working
    directory); its path. :raises OSError: it cannot be written."""
    path = (folder or Path.cwd()) / plan_file_name(origin, host)
    path.write_text(text + "\n", encoding="utf-8")
    return path.resolve()
