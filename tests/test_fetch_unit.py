"""Unit tests of the Fetcher's request building, redirects and retries, over
``httpx.MockTransport`` (the ``transport_factory`` seam): what goes out on each hop.

The same rules are tested over real sockets in test_fetch_policy.py and test_hostile_*.py.
"""

from __future__ import annotations

import httpx
import pytest

from agentdex.crawler.fetch import Fetcher

pytestmark = pytest.mark.anyio

SECRET = {"Authorization": "Bearer s3cret", "Cookie": "sid=s3cret", "X-API-Key": "s3cret"}


class Body(httpx.AsyncByteStream):
    """A body streamed as a server's would be (a bytes body would arrive already read)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self):
        yield self.data


Answer = tuple[int, bytes, dict[str, str]]


def answer(status: int, body: bytes = b"", **headers: str) -> Answer:
    return status, body, {k.replace("_", "-"): v for k, v in headers.items()}


class Recorder:
    """A MockTransport handler answering from a table of ``url -> answer`` (a list: one
    answer per request, in order); it keeps every request it was sent."""

    def __init__(self, answers: dict[str, list[Answer] | Answer]) -> None:
        self.answers = answers
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        found = self.answers.get(str(request.url), answer(404))
        status, body, headers = found.pop(0) if isinstance(found, list) else found
        return httpx.Response(status, headers=headers, stream=Body(body))

    def fetcher(self, **options) -> Fetcher:
        return Fetcher(transport_factory=lambda: httpx.MockTransport(self), **options)


def moved(location: str, status: int = 302) -> Answer:
    return answer(status, Location=location)


async def fetch(recorder: Recorder, url: str, **options) -> object:
    async with recorder.fetcher(retries=options.pop("retries", 2)) as fetcher:
        return await fetcher.fetch(url, kind="t", max_bytes=1000, honour_robots=False, **options)


async def test_redirects_are_followed_by_hand_and_each_hop_is_recorded() -> None:
    recorder = Recorder(
        {
            "https://a.test/1": moved("/2", 301),
            "https://a.test/2": moved("https://a.test/3", 308),
            "https://a.test/3": answer(200, b'{"ok":true}'),
        }
    )
    record = await fetch(recorder, "https://a.test/1")
    assert record.ok and record.body == b'{"ok":true}'
    assert record.redirects == ["https://a.test/2", "https://a.test/3"] and record.final_url == "https://a.test/3"
    assert [r.headers["user-agent"].split("/")[0] for r in recorder.sent] == ["agentdex"] * 3
    assert {r.headers["accept-encoding"] for r in recorder.sent} == {"gzip, deflate"}  # only what is bounded


async def test_a_303_turns_a_post_into_a_get_without_its_body_or_body_headers() -> None:
    recorder = Recorder({"https://a.test/form": moved("/done", 303), "https://a.test/done": answer(200)})
    await fetch(
        recorder, "https://a.test/form", method="POST", content=b'{"x":1}', headers={"Content-Type": "application/json"}
    )
    post, get = recorder.sent
    assert (post.method, post.content, post.headers["content-type"]) == ("POST", b'{"x":1}', "application/json")
    assert (get.method, get.content) == ("GET", b"") and "content-type" not in get.headers


async def test_credentials_never_follow_a_redirect_to_another_origin() -> None:
    recorder = Recorder(
        {
            "https://a.test/x": moved("/y"),
            "https://a.test/y": moved("https://b.test/z"),
            "https://b.test/z": answer(200),
        }
    )
    record = await fetch(recorder, "https://a.test/x", headers={**SECRET, "X-Trace": "1"})
    first, same, other = recorder.sent
    assert record.ok
    for request in (first, same):  # the origin they were given for
        assert request.headers["authorization"] == "Bearer s3cret" and request.headers["x-api-key"] == "s3cret"
    assert not {"authorization", "cookie", "x-api-key"} & set(other.headers.keys())
    assert other.headers["x-trace"] == "1"  # other headers still go


async def test_a_redirect_back_to_the_first_origin_gets_no_credentials_either() -> None:
    recorder = Recorder(
        {
            "https://a.test/x": moved("https://b.test/y"),
            "https://b.test/y": moved("https://a.test/z"),
            "https://a.test/z": answer(200),
        }
    )
    await fetch(recorder, "https://a.test/x", headers=SECRET)
    assert "authorization" in recorder.sent[0].headers
    assert all("authorization" not in r.headers for r in recorder.sent[1:])


@pytest.mark.parametrize(
    ("location", "code"),
    [
        ("http://a.test/plain", "scheme"),
        ("https://u:p@a.test/", "invalid_url"),
        ("/self", "redirect_loop"),
        ("ftp://a.test/f", "scheme"),
    ],
)
async def test_a_redirect_the_policy_refuses_is_never_requested(location: str, code: str) -> None:
    recorder = Recorder({"https://a.test/self": moved(location)})
    record = await fetch(recorder, "https://a.test/self")
    assert record.error_code == code and len(recorder.sent) == 1


async def test_a_sixth_redirect_is_refused() -> None:
    recorder = Recorder({f"https://a.test/{i}": moved(f"/{i + 1}") for i in range(10)})
    record = await fetch(recorder, "https://a.test/0")
    assert record.error_code == "too_many_redirects" and len(recorder.sent) == 6


async def test_a_transient_answer_is_retried_and_a_client_error_is_not() -> None:
    recorder = Recorder({"https://a.test/flaky": [answer(503), answer(200, b"ok")], "https://a.test/gone": answer(404)})
    assert (await fetch(recorder, "https://a.test/flaky")).body == b"ok"
    assert (await fetch(recorder, "https://a.test/gone")).error_code == "http_status"
    assert [str(r.url) for r in recorder.sent] == ["https://a.test/flaky"] * 2 + ["https://a.test/gone"]


async def test_a_long_retry_after_is_honoured_by_not_retrying_and_a_post_is_never_retried() -> None:
    recorder = Recorder({"https://a.test/later": answer(503, Retry_After="120"), "https://a.test/rpc": answer(500)})
    assert (await fetch(recorder, "https://a.test/later")).status == 503
    assert (await fetch(recorder, "https://a.test/rpc", method="POST", content=b"{}")).status == 500
    assert len(recorder.sent) == 2


async def test_the_callers_headers_cannot_replace_the_policys_own() -> None:
    recorder = Recorder({"https://a.test/": answer(200)})
    await fetch(
        recorder, "https://a.test/", headers={"User-Agent": "evil", "Accept-Encoding": "br, zstd", "Host": "b.test"}
    )
    sent = recorder.sent[0]
    assert sent.headers["user-agent"].startswith("agentdex/") and sent.headers["accept-encoding"] == "gzip, deflate"
    assert sent.headers["host"] == "a.test"
