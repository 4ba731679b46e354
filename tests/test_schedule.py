"""The due-first schedule (agentdex.schedule), pure: an origin that changed is due
again soon, one unchanged for many crawls backs off to a bounded maximum, failures back off
on their own, and nothing is due before its stored answers go stale."""

from __future__ import annotations

import pytest

from agentdex.schedule import Schedule, interval, next_due, unchanged_after

HOUR = 3600.0
T = 1_800_000_000.0


@pytest.mark.parametrize("unchanged, hours", [(0, 1), (1, 2), (2, 4), (3, 8), (7, 128), (8, 168), (500, 168)])
def test_each_unchanged_crawl_doubles_the_interval_up_to_a_week(unchanged, hours):
    assert interval(unchanged, 0) == hours * HOUR


@pytest.mark.parametrize(
    "failures, minutes", [(1, 15), (2, 30), (3, 60), (6, 480), (11, 7 * 24 * 60), (99, 7 * 24 * 60)]
)
def test_failures_back_off_exponentially_from_fifteen_minutes(failures, minutes):
    # An unreachable origin is retried on its own clock, whatever its change history.
    assert interval(10, failures) == minutes * 60


def test_the_intervals_are_configurable():
    quick = Schedule(min_interval=60, max_interval=600, failure_interval=10)
    assert [interval(n, 0, quick) for n in range(6)] == [60, 120, 240, 480, 600, 600]
    assert [interval(0, n, quick) for n in (1, 2, 3)] == [10, 20, 40]


def test_next_due_waits_until_the_first_stored_answer_is_stale():
    assert next_due(T, 0, 0) == T + HOUR
    assert next_due(T, 0, 0, stale_at=T + 6 * HOUR) == T + 6 * HOUR
    assert next_due(T, 3, 0, stale_at=T + HOUR) == T + 8 * HOUR  # freshness never makes it sooner
    assert next_due(T, 0, 2, stale_at=T + 6 * HOUR) == T + 30 * 60  # a failure is retried on time


def test_a_change_resets_the_count_and_a_crawl_that_asked_nothing_keeps_it():
    assert unchanged_after(5, changed=True, asked=True) == 0
    assert unchanged_after(5, changed=False, asked=True) == 6
    assert unchanged_after(5, changed=False, asked=False) == 5


def test_a_history_of_changes_orders_origins_by_when_they_are_due():
    # Three origins crawled at the same moment: one changed, one unchanged for 2 crawls, one
    # unchanged for 10. The one that changed is due first, the quiet one last (a week).
    dues = {name: next_due(T, unchanged, 0) for name, unchanged in (("busy", 0), ("calm", 2), ("quiet", 10))}
    assert sorted(dues, key=dues.get) == ["busy", "calm", "quiet"]
    assert dues["quiet"] - T == 7 * 24 * HOUR
