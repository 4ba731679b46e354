"""RFC 9111 freshness as a private cache computes it (agentdex.crawler.freshness): the
lifetime from max-age or Expires − Date, the age from Age, Date and the time the answer
took, the directives that forbid using an answer fresh, and agentdex's floor and ceiling.
Pure arithmetic: every time is epoch seconds given by the test."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from agentdex.crawler.freshness import (
    Policy,
    age_text,
    corrected_initial_age,
    directives,
    epoch,
    fresh_until,
    iso,
    lifetime,
)

T = 1_800_000_000.0  # the moment the answer arrived


def http(seconds: float) -> str:
    return formatdate(seconds, usegmt=True)


def until(headers: dict[str, str], status: int = 200, sent: float = T, arrived: float = T) -> float | None:
    return fresh_until(headers, status, sent, arrived)


# --- lifetime -------------------------------------------------------------------------------


def test_max_age_is_the_lifetime_counted_from_arrival():
    assert until({"cache-control": "max-age=3600"}) == T + 3600


def test_s_maxage_is_for_shared_caches_and_ignored():
    assert until({"cache-control": "s-maxage=86400"}) is None
    assert until({"cache-control": "s-maxage=86400, max-age=60"}) == T + 60


def test_max_age_wins_over_expires():
    headers = {"cache-control": "max-age=60", "expires": http(T + 86400), "date": http(T)}
    assert until(headers) == T + 60


def test_expires_minus_date_is_the_lifetime_when_there_is_no_max_age():
    # The origin's clock runs 10 minutes behind ours: Expires − Date does not care.
    skew = 600
    headers = {"expires": http(T - skew + 3600), "date": http(T - skew)}
    lifetime_seconds = lifetime(headers, T - skew)
    assert lifetime_seconds == 3600
    # But a Date 10 minutes in our past also makes the answer look 10 minutes old (4.2.3).
    assert until(headers) == T + 3600 - skew


def test_expires_without_date_counts_from_arrival():
    assert until({"expires": http(T + 900)}) == T + 900


@pytest.mark.parametrize("value", ["0", "-1", "yesterday", ""])
def test_an_invalid_expires_means_already_stale(value):
    assert until({"expires": value, "date": http(T)}) is None


def test_no_explicit_lifetime_is_never_fresh_no_heuristics():
    # Last-Modified alone would allow heuristic freshness (4.2.2); agentdex does not guess.
    assert until({"last-modified": http(T - 365 * 86400), "etag": '"x"'}) is None


@pytest.mark.parametrize(
    "cache_control",
    [
        "no-store, max-age=3600",
        "max-age=3600, no-cache",
        'no-cache="set-cookie", max-age=3600',
        "NO-STORE",
    ],
)
def test_no_store_and_no_cache_are_never_fresh(cache_control):
    assert until({"cache-control": cache_control}) is None


def test_must_revalidate_is_fresh_while_fresh():
    assert until({"cache-control": "max-age=600, must-revalidate"}) == T + 600
    assert until({"cache-control": "max-age=600, proxy-revalidate, private"}) == T + 600


@pytest.mark.parametrize("cache_control", ["max-age=60, max-age=3600", "max-age=soon", "max-age=", "max-age=0"])
def test_conflicting_invalid_or_zero_max_age_is_stale(cache_control):
    assert until({"cache-control": cache_control}) is None


def test_the_same_max_age_twice_is_no_conflict():
    assert until({"cache-control": "max-age=60, max-age=60"}) == T + 60


def test_quoted_values_and_spacing_are_read():
    assert directives(' max-age="120" , private,no-transform ') == [
        ("max-age", "120"),
        ("private", None),
        ("no-transform", None),
    ]
    assert until({"cache-control": 'max-age="120"'}) == T + 120


@pytest.mark.parametrize(
    "status, fresh",
    [(200, True), (203, True), (404, True), (410, True), (500, False), (503, False), (301, False), (206, False)],
)
def test_only_whole_answers_and_definite_absence_may_be_fresh(status, fresh):
    assert (until({"cache-control": "max-age=60"}, status=status) is not None) is fresh


# --- age --------------------------------------------------------------------------------------


def test_age_header_is_subtracted_with_the_time_the_answer_took():
    # Age 3000 at the origin, 2 s on the way: 598 s of freshness left.
    headers = {"cache-control": "max-age=3600", "age": "3000"}
    assert corrected_initial_age(headers, T - 2, T) == 3002
    assert until(headers, sent=T - 2) == T + 598


def test_an_answer_older_than_its_lifetime_is_stale_on_arrival():
    assert until({"cache-control": "max-age=3600", "age": "3600"}) is None


def test_apparent_age_from_date_counts_when_larger_than_age():
    headers = {"cache-control": "max-age=3600", "date": http(T - 100), "age": "10"}
    assert corrected_initial_age(headers, T, T) == 100
    assert until(headers) == T + 3500


def test_a_date_in_the_future_is_no_negative_age():
    headers = {"cache-control": "max-age=3600", "date": http(T + 500)}
    assert corrected_initial_age(headers, T, T) == 0
    assert until(headers) == T + 3600


@pytest.mark.parametrize("age, counted", [("120", 120), ("120, 5", 120), ("-5", 0), ("soon", 0), ("", 0)])
def test_age_uses_its_first_member_and_ignores_an_invalid_one(age, counted):
    assert corrected_initial_age({"age": age}, T, T) == counted


# --- agentdex's bounds --------------------------------------------------------------------------


def test_a_fresh_answer_is_used_until_the_floor_before_it_expires():
    policy = Policy(ceiling=86400, floor=60)
    assert policy.usable(T + 3600, T, now=T + 3539)
    assert not policy.usable(T + 3600, T, now=T + 3540)
    assert policy.trusted_until(T + 3600, T) == T + 3540


def test_the_ceiling_caps_what_a_long_lifetime_buys():
    year = 365 * 86400.0
    policy = Policy()  # 24 hours
    assert policy.usable(T + year, T, now=T + 86399)
    assert not policy.usable(T + year, T, now=T + 86400)
    assert policy.trusted_until(T + year, T) == T + 86400
    assert not Policy(ceiling=600).usable(T + year, T, now=T + 601)
    assert not Policy(ceiling=0).usable(T + year, T, now=T)  # --max-fresh 0: always ask


def test_revalidate_trusts_nothing_and_never_fresh_stays_never():
    assert not Policy(revalidate=True).usable(T + 3600, T, now=T + 1)
    assert not Policy().usable(None, T, now=T + 1)
    assert Policy().trusted_until(None, T) is None
    assert Policy(floor=600).trusted_until(T + 300, T) is None  # shorter than the floor: never used


# --- text ---------------------------------------------------------------------------------------


def test_iso_and_epoch_round_trip_the_catalogues_time_format():
    assert iso(T) == "2027-01-15T08:00:00.000Z"
    assert epoch(iso(T + 0.25)) == T + 0.25
    assert epoch("2027-01-15T08:00:00Z") == T
    assert epoch(None) is None and epoch("not a time") is None and iso(None) is None


@pytest.mark.parametrize(
    "seconds, text",
    [(0, "0 s"), (59, "59 s"), (60, "1 min"), (7199, "1 h"), (7200, "2 h"), (172800, "2 d"), (None, "")],
)
def test_ages_read_as_people_say_them(seconds, text):
    assert age_text(seconds) == text
