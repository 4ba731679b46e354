"""When the catalogue cannot be opened: say why, and offer the way forward.

A missing file or a file without a catalogue can be filled by a crawl (``ctrl+n``); an older
schema can be upgraded in place (``u``, what any crawl would do first); anything else
(not SQLite, a newer schema) needs the user's hand, and the message says what to do.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Header, Static

from agentdex.errors import AgentdexError
from agentdex.text import plain
from agentdex.tui.jobs import open_for_writing
from agentdex.tui.messages import JobFinished, UpgradeDone
from agentdex.tui.widgets.footer import Footer
from agentdex.tui.widgets.job_line import JobLine

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp


def problem_kind(path: Path, text: str) -> str:
    """``missing``, ``older`` or ``other`` for an error from ``open_db(path, readonly=True)``."""
    # The messages are agentdex's own (agentdex.db.connection); their wording is tested there.
    if not path.exists() or "holds no catalogue yet" in text:
        return "missing"
    if "older than this agentdex" in text:
        return "older"
    return "other"


WAY_FORWARD = {
    "missing": "Press ctrl+n to crawl origins into a new catalogue at this path, or quit (q) and run "
    "`agentdex demo` to crawl the bundled sample web.",
    "older": "Press u to upgrade it now (its data is kept), or run any `agentdex crawl` on it.",
    "other": "Quit (q) and open another file with `agentdex tui --db PATH`.",
}


class ProblemScreen(Screen):
    """Why the catalogue cannot be shown, and what to do about it."""

    app: AgentdexApp  # textual's app property, as the app these screens run in (for the type checker)

    BINDINGS = [
        Binding("u", "upgrade", "Upgrade"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    @property
    def kind(self) -> str:
        """What kind of problem this is (see :func:`problem_kind`)."""
        return problem_kind(self.app.db_path, self.text)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="problem", classes="dialog"):
            yield Static(Text("The catalogue cannot be shown", style="bold red"))
            yield Static(Text(plain(self.text, 1_000)), id="problem-text")
            yield Static(id="way-forward")
        yield JobLine()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#way-forward", Static).update(Text(WAY_FORWARD[self.kind], style="bold"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "upgrade":
            return self.kind == "older"
        return True

    def action_upgrade(self) -> None:
        self.query_one("#way-forward", Static).update(Text("upgrading…", style="dim"))
        self._upgrade(self.app.db_path)

    @work(thread=True, exclusive=True, group="upgrade", exit_on_error=False)
    def _upgrade(self, path: Path) -> None:
        try:
            open_for_writing(path)
        except AgentdexError as exc:
            self.post_message(UpgradeDone(str(exc)))
            return
        self.post_message(UpgradeDone())

    def on_upgrade_done(self, message: UpgradeDone) -> None:
        if message.error:
            self.query_one("#problem-text", Static).update(Text(plain(message.error, 1_000)))
            self.query_one("#way-forward", Static).update(Text(WAY_FORWARD["other"], style="bold"))
            return
        self.app.show_catalogue()

    def job_finished(self, message: JobFinished) -> None:
        """A crawl from here created or upgraded the catalogue: show it."""
        if message.error is None:
            self.app.show_catalogue()
