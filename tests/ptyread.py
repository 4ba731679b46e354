"""Reading what a child process wrote to a terminal (a pty) until it closes its side."""

from __future__ import annotations

import os
import select


def read_until_closed(controller: int, quiet_limit: float = 60.0) -> str:
    """Everything written to the pty whose controller side is ``controller``, until the
    child closes the terminal; closes ``controller``. Fails when nothing arrives for
    ``quiet_limit`` seconds."""
    shown = b""
    try:
        while True:
            ready, _, _ = select.select([controller], [], [], quiet_limit)
            assert ready, f"the process printed nothing for {quiet_limit:.0f} s"
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the process closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    return shown.decode("utf-8", "replace")
