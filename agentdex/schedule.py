"""When an origin is next due for a crawl: pure functions, no IO.

The schedule follows each origin's change history, so a crawler with many origins spends
its requests where changes happen:

- after a crawl that found a change (or the first crawl of an origin) it is due again
  after ``min_interval`` (1 hour by default);
- every crawl in a row that found nothing changed doubles that, up to ``max_interval``
  (7 days): 1 h, 2 h, 4 h … so an origin unchanged for many crawls costs almost nothing,
  and one change brings it back to hourly;
- a crawl that could not reach the origin backs off on its own: ``failure_interval``
  (15 minutes) after the first failure, doubling with each failure in a row, up to
  ``max_interval``;
- an origin whose documents are all still fresh (HTTP freshness, see
  :mod:`agentdex.crawler.freshness`) is not due before the first of them goes stale:
  nothing could be learnt by asking sooner.

``crawl --due`` crawls only the origins whose next-due time has passed, most overdue
first; ``crawl`` without ``--due`` still crawls every origin, whatever the schedule says.

Known absences have a schedule of their own (:func:`absence_recheck_at`): a discovery path
that answered 404 (or 410) is asked again by a revalidating crawl (``crawl --revalidate``)
only once it has been known absent for as long again as it had been when last asked, at
least ``min_interval`` and at most ``max_interval`` after that (1 h, 2 h, 4 h … 7 days while
it keeps answering 404). In between, the crawl records the stored absence as standing
(``known_absent``), with when it is asked next: never a silent skip.
"""

from __future__ import annotations

from dataclasses import dataclass

HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class Schedule:
    """The intervals (seconds) the schedule works with."""

    min_interval: float = HOUR
    max_interval: float = 7 * 24 * HOUR
    failure_interval: float = 15 * 60.0


DEFAULT = Schedule()


def interval(unchanged_crawls: int, failures: int, schedule: Schedule = DEFAULT) -> float:
    """Seconds until the next crawl: doubling with each unchanged crawl in a row (or, after
    failures, with each failure in a row), never above ``max_interval``."""
    if failures > 0:
        base, steps = schedule.failure_interval, failures - 1
    else:
        base, steps = schedule.min_interval, max(0, unchanged_crawls)
    # 2**steps overflows a float only after ~1,000 steps; the cap is reached long before.
    return min(base * 2.0 ** min(steps, 64), schedule.max_interval)


def next_due(
    crawled_at: float, unchanged_crawls: int, failures: int, stale_at: float | None = None, schedule: Schedule = DEFAULT
) -> float:
    """When an origin crawled at ``crawled_at`` (epoch seconds) is next due. ``stale_at``:
    when the first of its stored documents stops being fresh (None: one is not fresh now)."""
    due = crawled_at + interval(unchanged_crawls, failures, schedule)
    if failures == 0 and stale_at is not None and stale_at > due:
        return stale_at
    return due


def unchanged_after(previous: int, *, changed: bool, asked: bool) -> int:
    """The count of unchanged crawls in a row after one more crawl: 0 after a change, one
    more after a crawl that asked and found nothing, the same after a crawl that asked
    nothing (every answer was still fresh: it learnt nothing either way)."""
    if changed:
        return 0
    return previous + 1 if asked else previous


def absence_recheck_at(first_seen: float, last_asked: float, schedule: Schedule = DEFAULT) -> float:
    """When a known absence is next asked by a revalidating crawl: ``first_seen`` is when
    the path first answered 404 (or 410), ``last_asked`` when it last did (epoch seconds)."""
    span = max(0.0, last_asked - first_seen)
    return last_asked + min(max(span, schedule.min_interval), schedule.max_interval)
