"""The fetch path reads plain https URLs itself (``origins.HttpsURL``) and leaves every other
URL to httpx: what it reads must be what httpx would have read, part for part, and a redirect
must land where httpx.URL.join would land it."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentdex.crawler import origins
from agentdex.crawler.fetch import checked_url, redirect_target
from agentdex.crawler.origins import HttpsURL, plain_https_url, plain_join
from agentdex.errors import FetchError

# Characters that matter to URL reading: delimiters, ones httpx encodes, ones it refuses.
_ALPHABET = "aZ09-._~!$&'()*+,;=:@/?#%[]\\ \"<>`{}|^\t\xe9\u00df"
_pieces = st.text(alphabet=_ALPHABET, max_size=24)
_hosts = st.sampled_from(
    ["a.test", "A.test", "o12.synthetic.test", "xn--fa-hia.de", "faß.de", "127.0.0.1", "1.2.3", "h-2", "[::1]", ""]
)
_ports = st.sampled_from(["", ":443", ":8443", ":0443", ":99999", ":0", ":x", ":"])


def _same_as_httpx(text: str) -> None:
    plain = plain_https_url(text)
    if plain is None:
        return
    parsed = httpx.URL(text)
    assert str(plain) == str(parsed)
    assert (plain.scheme, plain.host, plain.port) == (parsed.scheme, parsed.host, parsed.port)
    assert (plain.netloc, plain.raw_path, plain.path) == (parsed.netloc, parsed.raw_path, parsed.path)
    assert plain.origin == origins.origin_of(text) and plain.raw_path_only == urlsplit(text).path


@settings(max_examples=400)
@given(host=_hosts, port=_ports, rest=_pieces)
@example(host="a.test", port="", rest="/.well-known/agent-app.json")
@example(host="a.test", port=":8443", rest="/a/./b?x=%2F")
@example(host="a.test", port="", rest="/a/../b")
@example(host="a.test", port="", rest="/a%zz")
def test_a_plain_url_reads_as_httpx_reads_it(host: str, port: str, rest: str) -> None:
    _same_as_httpx(f"https://{host}{port}{rest}")


def test_the_urls_a_crawl_asks_are_plain_and_the_rest_go_to_httpx() -> None:
    for text in ("https://a.test/.well-known/agent-app.json", "https://a.test:8443/x?y=1&z=%20"):
        assert isinstance(checked_url(text), HttpsURL)
    for text in ("https://A.test/", "https://a.test:443/", "https://faß.de/", "https://a.test/a b", "https://a.test"):
        assert isinstance(checked_url(text), httpx.URL)
    # The refusals are httpx's and the policy's, as before.
    for text, code in (
        ("http://a.test/", "scheme"),
        ("https://u:p@a.test/", "invalid_url"),
        ("https://a.test:x/", "invalid_url"),
    ):
        with pytest.raises(FetchError) as caught:
            checked_url(text)
        assert caught.value.code == code


_locations = st.one_of(
    _pieces,
    st.builds(lambda host, port, rest: f"https://{host}{port}{rest}", _hosts, _ports, _pieces),
    st.builds(lambda rest: f"//{rest}", _pieces),
)


@settings(max_examples=400)
@given(
    base=st.sampled_from(["https://a.test/x/y?q=1", "https://a.test:8443/", "https://b.test/a/b/c"]),
    location=_locations,
)
@example(base="https://a.test/x/y", location="../z")
@example(base="https://a.test/x/y", location="?only")
@example(base="https://a.test/x/y", location="http://a.test/")
@example(base="https://a.test/x/y", location="mailto:a@b")
@example(base="https://a.test/x/y?q=1", location=":")
@example(base="https://a.test/x/y?q=1", location="1:x")
@example(base="https://a.test/x/y?q=1", location="////")
def test_a_redirect_lands_where_httpx_would_land_it(base: str, location: str) -> None:
    plain = plain_https_url(base)
    assert plain is not None
    joined = plain_join(plain, location)
    if joined is None:
        return
    expected = httpx.URL(base).join(location)
    assert str(joined) == str(expected) and joined.host == expected.host and joined.port == expected.port


def test_redirect_target_reads_a_relative_location_against_the_url_asked() -> None:
    current = checked_url("https://a.test/old/page")
    answer = httpx.Response(301, headers={"Location": "../new?x=1"})
    target = redirect_target(answer, current)
    assert isinstance(target, HttpsURL) and str(target) == "https://a.test/new?x=1"
    assert origins.origin_key(target.scheme, target.host, target.port) == ("https", "a.test", 443)
