"""Crawl origins the user types: validate them, start the job, follow its progress.

The crawl is a job on the app, so closing this dialog does not stop it; its progress stays
on the job line of every screen and the catalogue reloads when it ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Log, ProgressBar, Static

from agentdex.crawler.origins import chosen_by, public_origins
from agentdex.errors import InputError
from agentdex.text import plain
from agentdex.tui.messages import JobFinished, JobProgress
from agentdex.tui.widgets.filter_bar import NO_CONTROLS

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp


def parse_origins(text: str, chosen: Callable[[str], bool] | None = None) -> list[str]:
    """Origins typed as hosts or https URLs, separated by spaces, commas or newlines; each
    decided as ``crawl`` decides (:func:`~agentdex.crawler.origins.public_origin`).

    :raises InputError: one of them is not an origin, or no public one (the message names it)
    """
    return public_origins([part for part in re.split(r"[\s,]+", text) if part], chosen)


class CrawlScreen(ModalScreen):
    """Type origins, crawl and verify them, watch the progress."""

    app: AgentdexApp  # textual's app property, as the app these screens run in (for the type checker)

    BINDINGS = [Binding("escape", "dismiss", "Close", priority=True)]  # before the next key is routed

    def __init__(self) -> None:
        super().__init__()
        self.job_id: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(Text("Crawl origins", style="bold"))
            yield Static(
                Text(
                    "Hosts or https URLs, separated by spaces or commas. Each is fetched, "
                    "validated, stored and verified.",
                    style="dim",
                )
            )
            yield Input(placeholder="example.com https://other.example", id="origins", restrict=NO_CONTROLS)
            yield Static(id="crawl-error", classes="error-line")
            yield ProgressBar(id="crawl-progress", show_eta=False)
            yield Log(id="crawl-log", max_lines=500)
            with Horizontal(classes="buttons"):
                yield Button("Crawl", id="start", variant="primary")
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.query_one("#origins", Input).focus()

    @on(Input.Submitted, "#origins")
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        error = self.query_one("#crawl-error", Static)
        try:
            origins = parse_origins(self.query_one("#origins", Input).value, chosen_by(self.app.net))
        except InputError as exc:
            error.update(Text(plain(str(exc), 300)))
            return
        if not origins:
            error.update(Text("Type at least one origin, e.g. example.com."))
            return
        error.update("")
        self.job_id = self.app.start_job("crawl", origins)
        self.query_one("#crawl-progress", ProgressBar).update(total=len(origins), progress=0)
        self.query_one("#crawl-log", Log).write_line(f"crawling {len(origins)} origin(s)…")

    @on(Button.Pressed, "#close")
    def action_dismiss(self) -> None:  # type: ignore[override]  # a key binding's action: no result to give
        self.dismiss()

    def job_progress(self, message: JobProgress) -> None:
        """One more origin done."""
        if message.job_id != self.job_id:
            return
        self.query_one("#crawl-progress", ProgressBar).update(total=message.total, progress=message.done)
        self.query_one("#crawl-log", Log).write_line(
            f"{plain(message.last_origin, 80, single_line=True)}: {plain(message.last_status, 30, single_line=True)}"
        )

    def job_finished(self, message: JobFinished) -> None:
        """The crawl ended: its summary, or why it stopped."""
        if message.job_id != self.job_id:
            return
        log = self.query_one("#crawl-log", Log)
        if message.error:
            log.write_line(f"stopped: {plain(message.error, 300, single_line=True)}")
            return
        summary = message.summary or {}
        by_status = ", ".join(f"{n} {k}" for k, n in sorted(summary.get("by_status", {}).items()))
        log.write_line(
            f"done in {summary.get('seconds', 0):.1f}s: {by_status or 'nothing'}; "
            f"{summary.get('events', 0)} change event(s)"
        )
