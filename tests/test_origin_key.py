"""One origin of a URL for the whole crawler (RFC 6454: scheme, host, port; the port spelled
out when implied): the connection pools and the fetcher's same-origin rules
(``pools.origin_key``), robots.txt's cache and the SSE probe's endpoint check
(``origins.origin_of``) read every URL alike, and so does the second opinion's same-origin
redirect rule (``census --confirm``). Before, they disagreed on ``:443``, letter case and a user
name."""

from __future__ import annotations

import httpx
import pytest

from agentdex.crawler import mcp_sse, origins, pools, robots, second_opinion

CASES = [
    ("https://a.test/x", "https://A.TEST:443/y?q=1#f", True),
    ("https://a.test/", "https://a.test:8443/", False),
    ("https://a.test/", "http://a.test/", False),
    ("http://a.test/", "http://a.test:80/p", True),
    ("https://user:pw@a.test/", "https://a.test/", True),
    ("https://[::1]:443/", "https://[::1]/", True),
    ("https://b.test/", "https://a.test/", False),
]


@pytest.mark.parametrize(("a", "b", "same"), CASES)
def test_the_pools_robots_and_the_sse_probe_read_one_origin(a, b, same):
    assert (origins.origin_of(a) == origins.origin_of(b)) is same
    assert (pools.origin_key(httpx.URL(a)) == pools.origin_key(httpx.URL(b))) is same


@pytest.mark.parametrize(("a", "b", "same"), CASES)
def test_the_second_opinion_follows_a_redirect_to_the_same_origin_only(a, b, same):
    answer = httpx.Response(307, headers={"location": b})
    assert (second_opinion._same_origin_redirect(a, answer, "POST") is not None) is same


def test_the_origin_as_text_names_the_port_only_when_it_is_not_the_default():
    assert origins.origin_of("https://user@Pantry.TEST:443/a?b#c") == "https://pantry.test"
    assert origins.origin_of("https://pantry.test:8443/") == "https://pantry.test:8443"
    assert origins.origin_of("http://[::1]:80/") == "http://[::1]"
    assert origins.origin_of("https://a.test:99999/") == "https://a.test:-1" != origins.origin_of("https://a.test/")


def test_no_module_keeps_an_origin_rule_of_its_own():
    assert robots.origin_of is origins.origin_of and mcp_sse.origin_of is origins.origin_of
    assert pools.origin_key(httpx.URL("https://a.test/")) == origins.origin_key("https", "a.test", None)
