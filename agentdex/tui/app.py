"""The agentdex TUI: browse the catalogue, inspect listings, verify, plan installs, crawl.

This module holds what is global: the key bindings every screen shares, which screen is
shown, the background jobs (crawls and verifications: async workers on the app, so they
outlive the screen that started them and quitting cancels them) and the messages that
reach every screen. Screens live in :mod:`agentdex.tui.screens`, reusable widgets in
:mod:`agentdex.tui.widgets`, reads in :mod:`agentdex.tui.reader`, writes in
:mod:`agentdex.tui.jobs`.
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.worker import get_current_worker

from agentdex.errors import AgentdexError
from agentdex.text import plain
from agentdex.tui import keys
from agentdex.tui.commands import OriginCommands
from agentdex.tui.jobs import crawl_job, run_in_own_loop
from agentdex.tui.messages import DbProblem, JobFinished, JobProgress
from agentdex.tui.reader import Reader
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.screens.problem import ProblemScreen
from agentdex.tui.widgets.job_line import JobLine

if TYPE_CHECKING:
    from agentdex.crawler.crawl import NetworkOptions, Progress

VERB_DONE = {"crawl": "Crawl", "verify": "Re-verification"}
SCREEN_ACTIONS = ("events", "crawl", "help")


class AgentdexApp(App[None]):
    """The catalogue browser (see the module docstring)."""

    CSS_PATH = "app.tcss"
    TITLE = "agentdex"
    COMMANDS = App.COMMANDS | {OriginCommands}
    # Classes on every screen for the terminal's size (app.tcss and the widgets' CSS use them).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    # Keys that change which screen gets the next keys are priority bindings: they run as
    # the key arrives, before the keys typed after it are routed (a plain binding runs only
    # once the key has bubbled up, by which time a fast typist's next keys went elsewhere).
    # A text box that takes the character still gets it (Textual filters those out).
    # Crawling is network work: a control key, so typing cannot start it by accident.
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", priority=True),
        Binding("e", "events", "Events", priority=True),
        Binding("ctrl+n", "crawl", "Crawl", priority=True),
    ]

    def __init__(self, db_path: Path, net: NetworkOptions | None = None) -> None:
        super().__init__()
        self.db_path = Path(db_path)
        self._net = net
        self.reader = Reader(self.db_path)
        self.jobs: dict[int, JobProgress] = {}
        self._job_ids = itertools.count(1)
        self._typed: deque[events.Key | events.Paste] = deque()  # keys read, not yet routed
        self._routing = False  # a key was routed and has not been handled yet
        self._settled_screen: Screen | None = None

    @property
    def net(self) -> NetworkOptions:
        """The network options jobs and feedback use (default: the real network)."""
        if self._net is None:  # imported on first use: showing the catalogue needs no crawler
            from agentdex.crawler.options import NetworkOptions

            self._net = NetworkOptions()
        return self._net

    def on_mount(self) -> None:
        self.sub_title = self.db_path.name
        self.push_screen(CatalogueScreen())

    def on_unmount(self) -> None:
        self.reader.close()

    # --- one key at a time -------------------------------------------------------------
    #
    # The terminal hands over every key it has read at once. Textual routes each to the
    # focused widget as it arrives, while a key's binding runs only once the key has bubbled
    # back up to the app: "ctrl+u" then "kit" typed fast deleted the "kit", and the keys after
    # "/" went to the table. So a key is routed only once the one before it has been handled
    # by the widget it went to and every widget above it, up to the app.
    #
    # However long that takes: there is no time limit after which the next key goes anyway.
    # On a loaded machine handling a key can take seconds (ctrl+n imports and builds the
    # crawl dialog), and a key routed before then started a second routing chain beside
    # the first, so keys landed out of order or before the dialog's box had focus. The wait
    # always ends: each node handles what it was sent in order, and a closed node is skipped.

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self._typed.append(event)
            if not self._routing:
                await self._route_next_key()
            return
        await super().on_event(event)

    async def _route_next_key(self) -> None:
        self._routing = bool(self._typed)
        if not self._typed:
            return
        if self.focused is None and self._settled_screen is not self.screen:
            # A screen just shown focuses its first widget once it has handled what it was
            # sent (mounting, then resuming): the key is for that widget.
            self._settled_screen = self.screen
            self._after_each([self.screen], self._route_next_key)
            return
        event = self._typed.popleft()
        target = self.focused or self.screen
        await super().on_event(event)  # a priority binding, or on to the focused widget
        path = [*target.ancestors_with_self] if event.is_forwarded else [self]
        # One more round on the app: what the key's binding asked it to do later (focus).
        self._after_each([*path, self], self._route_next_key)

    def _after_each(self, nodes: list[MessagePump], then: Callable[[], Awaitable[None]]) -> None:
        """Call ``then`` once each of ``nodes`` in turn has handled what it was sent so far
        (a node that has closed is skipped: it passes nothing on)."""
        if not nodes:
            self.call_later(then)
        elif not nodes[0].call_later(self._after_each, nodes[1:], then):
            self._after_each(nodes[1:], then)

    # --- which screen -----------------------------------------------------------------

    def on_db_problem(self, message: DbProblem) -> None:
        self.call_later(self._replace_base, ProblemScreen(message.text))

    def show_catalogue(self) -> None:
        """Show the catalogue from the start (after a problem was fixed)."""
        self.call_later(self._replace_base, CatalogueScreen())

    async def _replace_base(self, screen: Screen) -> None:
        # Close dialogs and detail screens first: the new base screen starts a fresh stack.
        while len(self.screen_stack) > 2:
            await self.pop_screen()
        await self.switch_screen(screen)

    # The other screens are imported when first shown: the catalogue paints sooner.

    def open_listing(self, origin: str) -> None:
        """Show the listing screen of ``origin``."""
        from agentdex.tui.screens.listing import ListingScreen

        if isinstance(self.screen, ListingScreen) and self.screen.origin == origin:
            return
        self.push_screen(ListingScreen(origin))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in SCREEN_ACTIONS and self.screen.is_modal:
            return False  # a dialog answers its own keys (help closes on ?)
        if isinstance(self.screen, ProblemScreen):
            # No events to show; a crawl only where it would create or upgrade the file.
            return action != "events" and (action != "crawl" or self.screen.kind != "other")
        return True

    def action_events(self) -> None:
        from agentdex.tui.screens.events import EventsScreen

        if not isinstance(self.screen, EventsScreen):
            self.push_screen(EventsScreen())

    def action_crawl(self) -> None:
        from agentdex.tui.screens.crawl import CrawlScreen

        if not isinstance(self.screen, CrawlScreen):
            self.push_screen(CrawlScreen())

    def action_help(self) -> None:
        from agentdex.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own "Keys" (a side panel of the focused widget's keys) would stand
        # beside ours under the same name: ours lists every key agentdex answers to.
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        yield SystemCommand("Events", "The newest changes across the catalogue", self.action_events)
        yield SystemCommand("Crawl origins", "Crawl and verify hosts you type", self.action_crawl)
        yield SystemCommand("Keys", "What every key does", self.action_help)

    # --- jobs ------------------------------------------------------------------------

    def start_job(self, kind: str, origins: list[str]) -> int:
        """Crawl (``kind="crawl"``) or re-verify (``"verify"``) ``origins`` in the
        background; returns the job id its messages carry."""
        job_id = next(self._job_ids)
        self.jobs[job_id] = JobProgress(job_id, kind, 0, len(origins))
        self._show_jobs()
        self._run_job(job_id, kind, origins)
        return job_id

    @work(thread=True, group="jobs", exit_on_error=False)
    def _run_job(self, job_id: int, kind: str, origins: list[str]) -> None:
        # A thread with its own event loop: the crawl's parsing, hashing and writes never hold
        # the screen; post_message is thread-safe.
        def progress(state: Progress) -> None:
            self.post_message(
                JobProgress(job_id, kind, state.done, state.total, state.last_origin, state.last_status, state.requests)
            )

        worker = get_current_worker()
        try:
            summary = run_in_own_loop(
                lambda: crawl_job(self.db_path, origins, self.net, kind=kind, progress=progress),
                lambda: worker.is_cancelled,
            )
        except asyncio.CancelledError:
            return
        except (AgentdexError, sqlite3.Error, OSError) as exc:
            self.post_message(JobFinished(job_id, kind, origins, error=str(exc)))
            return
        self.post_message(JobFinished(job_id, kind, origins, summary=summary.to_dict()))

    def on_job_progress(self, message: JobProgress) -> None:
        if message.job_id in self.jobs:
            self.jobs[message.job_id] = message
        self._show_jobs()
        self._tell_screens("job_progress", message)

    def on_job_finished(self, message: JobFinished) -> None:
        self.jobs.pop(message.job_id, None)
        self._show_jobs()
        self.notify(_finished_note(message), severity="error" if message.error else "information", markup=False)
        self._tell_screens("job_finished", message)

    def _show_jobs(self) -> None:
        for screen in self.screen_stack:
            for line in screen.query(JobLine):
                line.show(self.jobs)

    def _tell_screens(self, method: str, message: JobProgress | JobFinished) -> None:
        for screen in list(self.screen_stack):
            handler = getattr(screen, method, None)
            if handler is not None:
                handler(message)


def _finished_note(message: JobFinished) -> str:
    what = VERB_DONE.get(message.kind, message.kind)
    names = ", ".join(plain(o, 60, single_line=True) for o in message.origins[:3])
    names += f" and {len(message.origins) - 3} more" if len(message.origins) > 3 else ""
    if message.error:
        return f"{what} of {names} stopped: {plain(message.error, 300)}"
    summary = message.summary or {}
    statuses = ", ".join(f"{n} {k}" for k, n in sorted(summary.get("by_status", {}).items()))
    return f"{what} of {names} done: {statuses or 'nothing'}; {summary.get('events', 0)} change event(s)."


def make_app(db_path: Path, net: NetworkOptions | None = None) -> AgentdexApp:
    """The TUI over the catalogue at ``db_path``; ``net`` are the network options for
    re-verify, re-crawl, new crawls and feedback (default: the real network)."""
    return AgentdexApp(db_path, net)


def run_tui(db_path: Path, net: NetworkOptions | None = None) -> None:
    """Run the TUI until the user quits."""
    # Here, not in make_app: only a real terminal's driver reads keys through the parser
    # (Pilot's headless driver does not), and the swap is process-wide (agentdex.tui.keys).
    keys.install()
    make_app(db_path, net).run()
