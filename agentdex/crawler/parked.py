"""Answers sent ahead, pipelined (:meth:`agentdex.crawler.fetch.Fetcher.prefetch`), waiting
for the fetch that asks for them.

Public API::

    parked = Parked()
    parked.put(url, headers, answer)      an answer (or the failure the first fetch is to meet)
    parked.take(url_text, headers) -> Parcel | None   taken once, for the same request headers
    parked.status(url_text) -> int | None the status of an answer waiting for ``url_text``
    parked.drop(origin) -> int            forget what no fetch of that origin took
    bool(parked), url_text in parked

Kept by origin as well as by URL: a crawl has dozens of origins under way at once, and
dropping one origin's leftovers must not scan the others'.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentdex.crawler.h1 import Reply
from agentdex.crawler.origins import HttpsURL


@dataclass(slots=True)
class Parcel:
    """One answer sent ahead: the URL asked, the request's header fields and the answer, or
    the failure the pipeline met before any answer."""

    url: HttpsURL
    headers: tuple[tuple[str, str], ...]
    answer: Reply | Exception


class Parked:
    """The answers sent ahead that no fetch has taken yet; see the module docstring."""

    __slots__ = ("_by_url", "_of_origin")

    def __init__(self) -> None:
        self._by_url: dict[str, Parcel] = {}
        self._of_origin: dict[str, list[str]] = {}

    def __bool__(self) -> bool:
        return bool(self._by_url)

    def __contains__(self, url: str) -> bool:
        return url in self._by_url

    def put(self, url: HttpsURL, headers: list[tuple[str, str]], answer: Reply | Exception) -> None:
        """Keep ``answer`` for the fetch of ``url`` with these request ``headers``."""
        text = str(url)
        self._by_url[text] = Parcel(url, tuple(headers), answer)
        self._of_origin.setdefault(url.origin.lower(), []).append(text)

    def take(self, url: str, headers: list[tuple[str, str]]) -> Parcel | None:
        """The parcel for ``url`` when it answers these request ``headers`` (taken: once)."""
        parcel = self._by_url.get(url)
        if parcel is None or parcel.headers != tuple(headers):
            return None
        del self._by_url[url]
        return parcel

    def status(self, url: str) -> int | None:
        """The status of the answer waiting for ``url``, if one is (not a failure)."""
        parcel = self._by_url.get(url)
        return parcel.answer.status_code if parcel is not None and isinstance(parcel.answer, Reply) else None

    def drop(self, origin: str) -> int:
        """Forget what no fetch of ``origin`` (``https://host[:port]``) took; how many."""
        dropped = 0
        for url in self._of_origin.pop(origin.lower().rstrip("/"), ()):
            dropped += self._by_url.pop(url, None) is not None
        return dropped
