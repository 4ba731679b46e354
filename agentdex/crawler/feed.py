"""The origins of one run as they come: a seeds file of a million lines is read while the run
crawls, never held whole.

A :class:`Feed` takes its origins from any iterable (a list a user typed, or
:class:`~agentdex.crawler.seedlines.SeedLines` reading a file or standard input line by line).
A list is taken at once; anything else is read in a thread of its own, at most
:data:`AHEAD` origins ahead of the crawl: the thread waits while that many are read and not
yet taken (a bounded queue), so memory stays flat whatever the length of the file, and a
file still being written (a pipe, ``agentdex seeds … | agentdex crawl --seeds -``) is
crawled as its lines arrive.

Each origin is crawled once a run, however often the seeds repeat it: the run remembers the
origins it took in a private temporary SQLite database (:class:`Seen`), not in a Python set.
One exception: a line declaring an endpoint on an origin whose crawl had already begun (a
shuffled seeds file puts an origin's endpoint lines anywhere) is recorded as it is read, and
the origin is taken once more when every line has been read, so this run probes it; once,
whatever the number of such lines (:attr:`Feed.late`).
A set holds about 100 bytes of objects an origin (100 MB for a million); SQLite keeps its
B-tree in a page cache of at most :data:`SEEN_CACHE_KIB` KiB and the rest in a temporary file
on disk (the origin's length and about 10 bytes: 35 MB for a million 26-character origins),
at about 6 µs an origin, nothing beside the milliseconds an origin's crawl takes.

Everything the thread hands over (origins, bad lines) is acted on in the event loop's
thread: the endpoints a seed declares are recorded, a bad line is reported, and the
progress's count of known origins grows. Nothing here prints.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

AHEAD = 1024  # origins read and not yet taken, at most: the queue's bound
SEEN_CACHE_KIB = 2048  # the page cache of the origins seen (SQLite's default size)


@dataclass(frozen=True)
class Seed:
    """One origin of a seeds file, with the endpoints its lines declare (rows for
    :func:`agentdex.db.seeds.save_run`)."""

    origin: str
    endpoints: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class BadLine:
    """A line of a seeds file that names no origin: reported, and the run goes on."""

    where: str  # "seeds.txt, line 7"
    reason: str
    not_public: bool = False  # an origin, but no public one (a private host needs the user's word)

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


Item = str | Seed | BadLine


class Seen:
    """The origins a run has taken, in a private temporary SQLite database (deleted when
    closed): memory is its page cache, whatever the number of origins."""

    def __init__(self) -> None:
        # "": a private database on disk that lives in the page cache until it outgrows it
        self.conn = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self.conn.execute(f"PRAGMA cache_size = -{SEEN_CACHE_KIB}")
        self.conn.execute("CREATE TABLE seen (origin TEXT PRIMARY KEY) WITHOUT ROWID")
        self.conn.execute("BEGIN")  # never committed: one transaction is the fastest, and nothing outlives it

    def add(self, origin: str) -> bool:
        """Whether ``origin`` is new to the run (it is remembered from now on)."""
        cursor = self.conn.execute("INSERT INTO seen VALUES (?) ON CONFLICT DO NOTHING", (origin,))
        return cursor.rowcount == 1

    def close(self) -> None:
        """Drop the database (its temporary file goes with it)."""
        self.conn.close()


@dataclass
class Hooks:
    """What a run does with what its seeds say besides origins (each called in the event loop's
    thread)."""

    declare: Callable[[list[dict[str, Any]]], object] | None = None  # the endpoints a seed declares
    refused: Callable[[BadLine], None] | None = None  # a bad line
    known: Callable[[int, bool], None] | None = None  # origins known so far, and whether more may come


class Feed:
    """The origins of one run, each once, as they are read; :meth:`take` waits for the next."""

    def __init__(
        self,
        items: Iterable[Item],
        hooks: Hooks | None = None,
        *,
        owns: Callable[[str], bool] | None = None,
        ahead: int = AHEAD,
    ) -> None:
        self.hooks = hooks or Hooks()
        self.owns = owns  # which origins are this run's (crawl --shard: the shard's own; None: all)
        self.count = 0  # distinct origins taken into the run so far (followed ones too)
        self.error: BaseException | None = None  # what ended the reading early
        self._items = items
        self._seen = Seen()
        self._ready: collections.deque[str] = collections.deque()  # read in the thread, each holding a slot
        self._free: collections.deque[str] = collections.deque()  # a list's, or an AI Catalog named them
        self._slots = threading.Semaphore(ahead)
        # Origins taken before a line declaring an endpoint on them was read: again at the end.
        self.late: dict[str, None] = {}
        self._ended = False
        self._closed = False
        self._changed = asyncio.Event()

    @property
    def reading(self) -> bool:
        """Whether the seeds may still give more origins."""
        return not self._ended

    @property
    def exhausted(self) -> bool:
        """Nothing to take now, and nothing more will come (unless an AI Catalog names more)."""
        return self._ended and not self._ready and not self._free

    def start(self) -> None:
        """Start reading (in the running event loop): a list at once, anything else in a thread."""
        if isinstance(self._items, list | tuple):
            for item in self._items:
                if self._wanted(item):
                    self._arrive(item, slot=False)
            self._end(None)
            return
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, args=(loop,), name="agentdex-seeds", daemon=True).start()

    async def take(self) -> str | None:
        """The next origin, waiting for one to be read; None once there are no more."""
        while (origin := self.take_now()) is None:
            if self.exhausted:
                self._raise()
                return None
            await self.changed()
        return origin

    def take_now(self) -> str | None:
        """The next origin read already, or None."""
        if self._free:
            return self._free.popleft()
        if self._ready:
            self._slots.release()
            return self._ready.popleft()
        return None

    async def changed(self) -> None:
        """Wait until an origin arrives or the reading ends."""
        await self._changed.wait()

    def follow(self, origins: list[str]) -> int:
        """Take the origins an AI Catalog named that the run does not have yet; how many."""
        new = [origin for origin in dict.fromkeys(origins) if self._seen.add(origin)]
        self._free.extend(new)
        self._counted(len(new))
        return len(new)

    def close(self) -> None:
        """Stop reading and forget the origins seen (the thread stops at its next origin)."""
        self._closed = True
        self._slots.release()  # a thread waiting for a slot wakes and sees it is closed
        self._seen.close()

    # --- the reading thread and what it hands over -------------------------------------------

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        error: BaseException | None = None
        try:
            for item in self._items:
                if not self._wanted(item):
                    continue
                self._slots.acquire()
                if self._closed:
                    return
                loop.call_soon_threadsafe(self._arrive, item)
        except Exception as exc:  # noqa: BLE001 - a read that failed midway: the run says so and ends
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop has closed: the run is over anyway
            loop.call_soon_threadsafe(self._end, error)

    def _wanted(self, item: Item) -> bool:
        """Whether ``item`` goes on to the run: a bad line does, an origin when it is the run's."""
        if isinstance(item, BadLine):
            return True
        return self.owns is None or self.owns(item if isinstance(item, str) else item.origin)

    def _arrive(self, item: Item, slot: bool = True) -> None:
        if self._closed or (self._ended and slot):
            return
        try:
            self._take_in(item, slot)
        except Exception as exc:  # noqa: BLE001 - a full disk while recording: the run ends with it
            self._ready.clear()
            self._end(exc)

    def _take_in(self, item: Item, slot: bool) -> None:
        seed = Seed(item) if isinstance(item, str) else item
        if isinstance(seed, BadLine):
            self._drop(slot)
            if self.hooks.refused:
                self.hooks.refused(seed)
            return
        if seed.endpoints and self.hooks.declare:
            self.hooks.declare(list(seed.endpoints))  # a repeat's too: a later crawl probes them
        if not self._seen.add(seed.origin):
            if seed.endpoints and not self._waiting(seed.origin):
                self.late[seed.origin] = None  # its crawl began without them
            self._drop(slot)
            return
        (self._ready if slot else self._free).append(seed.origin)
        self._counted(1)

    def _waiting(self, origin: str) -> bool:
        """Whether ``origin`` is read and not taken yet (its crawl will read what was recorded)."""
        return origin in self._ready or origin in self._free  # at most AHEAD, and what catalogs named

    def _drop(self, slot: bool) -> None:
        if slot:
            self._slots.release()

    def _counted(self, added: int) -> None:
        self.count += added
        if self.hooks.known:
            self.hooks.known(self.count, self.reading)
        self._wake()

    def _end(self, error: BaseException | None) -> None:
        if self._ended:
            return  # ended by a failure already: the thread's own end changes nothing
        if error is None:  # every line read: each origin that had endpoint lines too late, once more
            again = [origin for origin in self.late if not self._waiting(origin)]
            self._free.extend(again)
            self.count += len(again)
        self._ended, self.error = True, error
        if self.hooks.known:
            self.hooks.known(self.count, False)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error
