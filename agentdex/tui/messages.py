"""The messages workers post back to the UI (threads never touch widgets; they post one
of these and the screen that asked updates itself on the UI thread). Answers meant for one
screen do not bubble; :class:`DbProblem` bubbles up to the app, which changes screens."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from agentdex.db.listing_query import ListingQuery


@dataclass
class DbProblem(Message):
    """The catalogue cannot be opened read-only (missing, not SQLite, older schema…)."""

    text: str


@dataclass
class WindowLoaded(Message, bubble=False):
    """A window of catalogue rows for ``query`` starting at ``start`` (absolute)."""

    seq: int
    query: ListingQuery
    start: int
    rows: list[dict[str, Any]]
    cursor: int | None = None  # the absolute row to put the cursor on, when not where it is


@dataclass
class CountsLoaded(Message, bubble=False):
    """How many listings match ``query`` and how many the catalogue holds."""

    seq: int
    query: ListingQuery
    matching: int
    catalogue: int


@dataclass
class TableShown(Message, bubble=False):
    """The catalogue table now shows the rows of ``query`` (benchmarks time this)."""

    query: ListingQuery
    rows: int


@dataclass
class ListingLoaded(Message, bubble=False):
    """Everything the listing screen shows for ``origin`` (``None``: not in the catalogue)."""

    origin: str
    view: dict[str, Any] | None


@dataclass
class EventsLoaded(Message, bubble=False):
    """The newest change events across the catalogue."""

    events: list[dict[str, Any]]


@dataclass
class JobProgress(Message):
    """A crawl or verification in flight: ``done`` of ``total`` origins."""

    job_id: int
    kind: str
    done: int
    total: int
    last_origin: str = ""
    last_status: str = ""
    requests: int = 0


@dataclass
class JobFinished(Message):
    """A crawl or verification ended: its summary, or the error that stopped it."""

    job_id: int
    kind: str
    origins: list[str]
    summary: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class FeedbackDone(Message, bubble=False):
    """One feedback attempt's outcome, and the receipt row id when a receipt was kept."""

    outcome: Any  # agentdex.feedback.Outcome
    receipt_id: int | None = None
    not_kept: str | None = None  # why a received receipt could not be stored


@dataclass
class UpgradeDone(Message, bubble=False):
    """The catalogue was opened for writing (created or migrated): ``error`` when it failed."""

    error: str | None = None
    notes: list[str] = field(default_factory=list)
