"""One listing, in tabs: Overview, Findings, Checks, Tools, Install, History, Raw, Cross-check,
Health.

From here the user re-verifies or re-crawls the origin (a job on the app: the screen stays
responsive and reloads when it ends), copies an install plan to the clipboard or writes it to a file
(:mod:`agentdex.tui.clipboard`) and,
when the listing declares a feedback route, writes to its developer.

Only the Overview is built when the screen opens; every other tab is built the first time
it is shown (that halves the time to open a listing), and filled from the loaded view.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Header,
    OptionList,
    Select,
    Sparkline,
    Static,
    TabbedContent,
    TabPane,
    Tabs,
    TextArea,
)

from agentdex.tui import clipboard
from agentdex.tui import reader as reads
from agentdex.tui.display import RAW_LIMIT
from agentdex.tui.messages import JobFinished, ListingLoaded
from agentdex.tui.reader import Reader
from agentdex.tui.widgets import listing_parts as parts
from agentdex.tui.widgets.footer import Footer
from agentdex.tui.widgets.job_line import JobLine
from agentdex.tui.widgets.safe_table import SafeTable

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp

PREFERRED_HOSTS = ("claude_code", "codex", "cursor", "vscode", "claude", "chatgpt")
TABS = ("overview", "findings", "checks", "tools", "install", "history", "raw", "crosscheck", "health")
TAB_TITLES = {"crosscheck": "Cross-check"}


def choose_host(plans: dict[str, Any], declared: list[str] | None = None) -> str | None:
    """The host shown first: one the listing says it was tested on, in the listing's own
    order (``declared``: its hosts as the manifest lists them; the catalogue's order put
    ChatGPT before the Claude Code a manifest named first), else a common one."""
    tested = [h for h, p in plans.items() if p.host_status == "tested"]
    tested.sort(key=lambda h: declared.index(h) if declared and h in declared else len(declared or ()))
    return next((h for h in [*tested, *PREFERRED_HOSTS] if h in plans), next(iter(plans), None))


class ListingScreen(Screen):
    """Everything the catalogue knows about one origin."""

    app: AgentdexApp  # textual's app property, as the app these screens run in (for the type checker)

    # Back runs as the key arrives (priority), so the keys typed after it reach the catalogue.
    # Re-verify and re-crawl are network work: control keys, which typing cannot hit.
    BINDINGS = [
        Binding("escape", "back", "Back", priority=True),
        Binding("ctrl+t", "verify", "Re-verify"),
        Binding("ctrl+r", "recrawl", "Re-crawl"),
        Binding("y", "copy_plan", "Copy"),
        Binding("ctrl+s", "write_plan", "Save"),  # writes a file: a control key, typing never does
        Binding("f", "feedback", "Feedback"),
        # Digits switch tabs wherever the focus is (priority), but in an open list, where
        # they search it (Textual gives a widget that consumes printable keys first say).
        *[
            Binding(str(i), f"tab('{tab}')", TAB_TITLES.get(tab, tab.title()), show=False, priority=True)
            for i, tab in enumerate(TABS, 1)
        ],
    ]

    def __init__(self, origin: str) -> None:
        super().__init__()
        self.origin = origin
        self.view: dict[str, Any] | None = None
        self.host: str | None = None  # the Install tab's host (what y copies)
        self._built = {"overview"}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(self.origin), id="listing-title")
        yield JobLine()
        with TabbedContent(initial="overview"):
            with TabPane("Overview", id="overview"):
                with VerticalScroll():
                    yield Static(Text("loading…", style="dim"), id="overview-body")
            for tab in TABS[1:]:
                yield TabPane(TAB_TITLES.get(tab, tab.title()), id=tab)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.origin
        self.load()

    # --- loading -----------------------------------------------------------------------

    def load(self) -> None:
        """(Re)load the listing from the catalogue."""
        self._load(self.app.reader, self.origin)

    @work(thread=True, exclusive=True, group="listing", exit_on_error=False)
    def _load(self, reader: Reader, origin: str) -> None:
        try:
            with reader.connect() as db:
                view = reads.listing_view(db, origin)
        except Exception as exc:  # noqa: BLE001 - say why on screen rather than stay "loading…"
            self.post_message(ListingLoaded(origin, {"error": f"{origin} cannot be shown: {exc}"}))
            return
        self.post_message(ListingLoaded(origin, view))

    def on_listing_loaded(self, message: ListingLoaded) -> None:
        if message.origin != self.origin:
            return
        view = message.view
        if view is None or "error" in view:
            why = view["error"] if view else f"{self.origin} is not in the catalogue: press ctrl+r to crawl it."
            self.query_one("#overview-body", Static).update(Text(why))
            return
        self.view = view
        if self.host not in view["plans"]:
            declared = [str(h.get("host")) for h in view.get("hosts") or [] if isinstance(h, dict)]
            self.host = choose_host(view["plans"], declared)
        self.query_one("#listing-title", Static).update(parts.title(view))
        self.query_one("#overview-body", Static).update(parts.overview(view))
        for tab in self._built - {"overview"}:
            self._fill(tab, view)
        self.refresh_bindings()

    # --- tabs, built when first shown ----------------------------------------------------

    @on(TabbedContent.TabActivated)
    async def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        tab = event.pane.id or ""
        if tab in self._built or tab not in TABS:
            return
        self._built.add(tab)
        await event.pane.mount_all(self._widgets(tab))
        if self.view is not None:
            self._fill(tab, self.view)

    def _widgets(self, tab: str) -> list[Widget]:
        if tab == "install":
            return [
                Horizontal(
                    Select([], prompt="host", id="host"),
                    Button("Copy (y)", id="copy-plan"),
                    Button("Save to file (ctrl+s)", id="write-plan"),
                    classes="toolbar",
                ),
                VerticalScroll(Static(id="plan-body")),
            ]
        if tab == "raw":
            return [
                Horizontal(Select([], prompt="document", id="document"), classes="toolbar"),
                TextArea("", read_only=True, id="raw-text", soft_wrap=True, show_line_numbers=True),
            ]
        if tab == "health":
            return [
                SafeTable(parts.HEALTH_COLUMNS, empty="No endpoint probed yet: press ctrl+t.", id="health-table"),
                Static(id="health-strip"),
                Sparkline([], id="health-latency"),
            ]
        if tab == "crosscheck":
            return [
                Static(id="crosscheck-verdict"),
                SafeTable(parts.CROSSCHECK_COLUMNS, empty="No disagreement and no tool.", id="crosscheck-table"),
            ]
        columns, empty = {
            "findings": (parts.FINDING_COLUMNS, "No findings: the manifest follows its spec."),
            "checks": (parts.CHECK_COLUMNS, "Not verified yet: press ctrl+t."),
            "tools": (parts.TOOL_COLUMNS, "No tools declared or listed."),
            "history": (parts.EVENT_COLUMNS, "No change events."),
            "health": (parts.HEALTH_COLUMNS, "No endpoint probed yet: press ctrl+t."),
        }[tab]
        return [SafeTable(columns, empty=empty, id=f"{tab}-table")]

    def _fill(self, tab: str, view: dict[str, Any]) -> None:
        if tab == "findings":
            self.query_one("#findings-table", SafeTable).fill(parts.finding_rows(view))
        elif tab == "checks":
            self.query_one("#checks-table", SafeTable).fill(parts.check_rows(view), details=parts.check_details(view))
        elif tab == "tools":
            self.query_one("#tools-table", SafeTable).fill(parts.tool_rows(view))
        elif tab == "history":
            self.query_one("#history-table", SafeTable).fill(parts.event_rows(list(reversed(view["events"]))))
        elif tab == "install":
            self._fill_install(view)
        elif tab == "raw":
            self._fill_raw(view)
        elif tab == "health":
            self.query_one("#health-table", SafeTable).fill(parts.health_rows(view))
            strip, latency = parts.health_strip(view)
            self.query_one("#health-strip", Static).update(strip)
            self.query_one("#health-latency", Sparkline).data = latency
        elif tab == "crosscheck":
            self.query_one("#crosscheck-verdict", Static).update(parts.crosscheck_verdict(view))
            self.query_one("#crosscheck-table", SafeTable).fill(parts.crosscheck_rows(view))

    def action_tab(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        if self.focused is not None and any(isinstance(node, TabPane) for node in self.focused.ancestors):
            # A focused widget in the pane being hidden would hand the focus to the next one
            # in order, and TabbedContent shows whichever pane holds the focus: the old one.
            self.set_focus(tabs.query_one(Tabs))
        tabs.active = tab

    # --- install ---------------------------------------------------------------------

    def _fill_install(self, view: dict[str, Any]) -> None:
        plans = view["plans"]
        select = self.query_one("#host", Select)
        # "5/14" on each host: a list cut by a short terminal shows that more hosts follow.
        select.set_options(
            [(f"{i}/{len(plans)} {p.host_name} ({host})", host) for i, (host, p) in enumerate(plans.items(), 1)]
        )
        if self.host is None:
            self.query_one("#plan-body", Static).update(Text("No install plan: the listing has no usable manifest."))
            return
        select.value = self.host
        self._show_plan()

    @on(Select.Changed, "#host")
    def _host_chosen(self, event: Select.Changed) -> None:
        if event.value is not Select.NULL:
            self.host = str(event.value)
            self._show_plan()

    def _show_plan(self) -> None:
        text = self.plan_text()
        if text is not None:
            self.query_one("#plan-body", Static).update(parts.plan_view(text))

    def plan_text(self) -> str | None:
        """The chosen host's plan as plain text (shown, and what ``y`` copies)."""
        plan = (self.view or {}).get("plans", {}).get(self.host)
        return parts.plan_text(plan) if plan is not None else None

    @on(Button.Pressed, "#copy-plan")
    async def action_copy_plan(self) -> None:
        text = self.plan_text()
        if text is None:
            self.notify("There is no plan to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(text)  # OSC 52: the terminal never says whether it took it
        tool = await asyncio.to_thread(clipboard.copy_with_tool, text)
        what = f"The {self.host} plan ({len(text.splitlines())} lines)"
        self.notify(clipboard.copied_note(what, tool), markup=False, timeout=8)

    @on(Button.Pressed, "#write-plan")
    def action_write_plan(self) -> None:
        text = self.plan_text()
        if text is None or self.host is None:
            self.notify("There is no plan to write.", severity="warning")
            return
        try:
            path = clipboard.write_plan(text, self.origin, self.host)
        except OSError as exc:
            self.notify(f"The plan could not be written: {exc}", severity="error", markup=False)
            return
        self.notify(f"Wrote the {self.host} plan to {path}", markup=False, timeout=8)

    # --- raw -------------------------------------------------------------------------

    def _fill_raw(self, view: dict[str, Any]) -> None:
        select = self.query_one("#document", Select)
        kinds = list(view["raw"])
        previous = select.value
        select.set_options([(kind, kind) for kind in kinds])
        if kinds:
            select.value = previous if previous in kinds else kinds[0]
            self._show_raw(str(select.value))
        else:
            self.query_one("#raw-text", TextArea).load_text("(no document stored)")

    @on(Select.Changed, "#document")
    def _document_chosen(self, event: Select.Changed) -> None:
        if event.value is not Select.NULL:
            self._show_raw(str(event.value))

    def _show_raw(self, kind: str) -> None:
        text = (self.view or {}).get("raw", {}).get(kind)
        self.query_one("#raw-text", TextArea).load_text(parts.raw_text(text, RAW_LIMIT))

    # --- actions ---------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "feedback":
            listing = (self.view or {}).get("listing_obj")
            return bool(listing is not None and listing.feedback)
        if action in ("copy_plan", "write_plan"):
            return self.plan_text() is not None
        if action == "back":
            return not isinstance(self.focused, OptionList)  # escape closes an open list first
        return True

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_verify(self) -> None:
        self.app.start_job("verify", [self.origin])

    def action_recrawl(self) -> None:
        self.app.start_job("crawl", [self.origin])

    def action_feedback(self) -> None:
        from agentdex.tui.screens.feedback import FeedbackScreen

        listing = (self.view or {}).get("listing_obj")
        if listing is None or not listing.feedback:
            self.notify("This listing declares no feedback route.", severity="warning")
            return
        self.app.push_screen(FeedbackScreen(self.origin, listing.feedback))

    def job_finished(self, message: JobFinished) -> None:
        """Reload when a job that touched this origin ends."""
        if self.origin in message.origins:
            self.load()
