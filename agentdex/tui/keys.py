"""Escape typed just before another key, read as the user typed it.

A terminal sends Escape-then-q and Alt+q as the same bytes, ESC q, and tmux (by default)
joins an Escape and a key that follows within half a second into exactly that. Textual reads
ESC q as alt+q, and ESC ⏎ or ESC / as a bare ⏎ or /, dropping the Escape: "Escape, q" did not
quit and "Escape, Enter" reached the dialog being closed. agentdex binds no Alt key, so an
ESC followed by one key is read as Escape and then that key.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events

# Private names of textual: pinned exactly in pyproject.toml for them (no public API exposes
# the terminal's key parser).
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver

ESC = "\x1b"
INTRODUCERS = "[O]P_\\" + ESC  # ESC and one of these starts a longer sequence (CSI, SS3, OSC, DCS…)


class EscapeThenKeyParser(XTermParser):
    """Textual's terminal parser, except that ESC + one key is Escape and then the key."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if alt:  # the parser gave up on a sequence and replays what followed an ESC
            yield events.Key("escape", ESC)
            yield from super()._sequence_to_key_events(sequence)
        elif (
            len(sequence) == 2
            and sequence[0] == ESC
            and sequence[1] not in INTRODUCERS
            and sequence not in ANSI_SEQUENCES_KEYS
        ):
            yield events.Key("escape", ESC)
            yield from super()._sequence_to_key_events(sequence[1])
        else:
            yield from super()._sequence_to_key_events(sequence, alt)


def install() -> None:
    """Read the terminal with :class:`EscapeThenKeyParser` (Textual's driver offers no hook
    for its parser, so the name it looks up is replaced)."""
    linux_driver.XTermParser = EscapeThenKeyParser  # type: ignore[misc]
