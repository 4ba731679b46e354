"""The command palette's "jump to an origin": type a host or words from a name."""

from __future__ import annotations

import asyncio
import sqlite3
from functools import partial
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.command import Hit, Hits, Provider

from agentdex.errors import AgentdexError
from agentdex.text import plain
from agentdex.tui import reader as reads

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp


class OriginCommands(Provider):
    """Listings whose origin is what was typed, or whose name and description match it."""

    async def search(self, query: str) -> Hits:
        app = cast("AgentdexApp", self.app)  # a Provider's app is typed App[object]
        reader = app.reader
        try:
            found = await asyncio.to_thread(_find, reader, query)
        except (sqlite3.Error, AgentdexError):
            return
        matcher = self.matcher(query)
        for rank, row in enumerate(found):
            origin = row["origin"]
            label = Text(f"Open {plain(origin, 80, single_line=True)}", end="")
            if row.get("name"):
                label.append(f"  {plain(row['name'], 60, single_line=True)}", style="dim")
            # Full-text matches need not fuzzy-match the typed words: keep them visible, in order.
            score = max(matcher.match(origin), 0.5 - rank / 100)
            yield Hit(
                score, label, partial(app.open_listing, origin), text=f"Open {origin}", help="Jump to this listing"
            )


def _find(reader: reads.Reader, query: str) -> list[dict]:
    with reader.connect() as db:
        return reads.find_origins(db, query)
