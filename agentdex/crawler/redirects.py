"""The URLs the fetch policy requests and the redirects it follows (:mod:`agentdex.crawler.fetch`).

Public API::

    checked_url(url, via="") -> HttpsURL | httpx.URL     an https URL to request, or FetchError
    redirect_target(answer, current) -> URL | None      where a redirect answer points
    check_redirect(record, current, target, seen, same_origin)   record it; refuse what the policy refuses
    without_credentials(headers) -> headers             the headers sent past another origin's redirect
    method_after(status, method) -> str                 the method a redirect is followed with
"""

from __future__ import annotations

import httpx

from agentdex.crawler.h1 import Reply
from agentdex.crawler.origins import HttpsURL, plain_https_url, plain_join
from agentdex.crawler.pools import origin_key
from agentdex.errors import FetchError
from agentdex.models import FetchRecord

MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Request headers that carry a credential or a payment: never sent past a redirect to another origin.
CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "x-api-key",
        "api-key",
        "x-auth-token",
        "x-payment",
        "payment-signature",
    }
)
# A URL the fetch path requests: read by agentdex when plain (agentdex.crawler.origins.HttpsURL),
# else by httpx.
URL = HttpsURL | httpx.URL
Answer = Reply | httpx.Response


def checked_url(url: str, via: str = "") -> URL:
    """``url`` as a URL to request when it is an https URL with a host and no credentials:
    an :class:`~agentdex.crawler.origins.HttpsURL` when it is plain (the usual case; read
    once, see that module), else an httpx.URL (httpx reads and normalises it, and refuses
    what it cannot read).

    ``via`` names the URL that redirected here, for the error sentence.
    """
    plain = plain_https_url(url) if isinstance(url, str) else None
    if plain is not None:
        return plain
    what = f"{via} redirects to {url!r}, which" if via else f"The URL {url!r}"
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise FetchError("invalid_url", f"{what} is not a valid URL ({exc}).", str(url)) from exc
    if not parsed.scheme or not parsed.host:
        raise FetchError("invalid_url", f"{what} is not an absolute URL with a host.", str(url))
    if parsed.scheme != "https":
        raise FetchError("scheme", f"{what} is not https; agentdex fetches only over https.", str(url))
    if parsed.userinfo:
        raise FetchError("invalid_url", f"{what} carries credentials; agentdex never sends those.", str(url))
    # copy_with parses the URL again: only pay for it when there is a fragment to drop.
    return parsed.copy_with(fragment=None) if parsed.fragment else parsed


def redirect_target(response: Answer, current: URL) -> URL | None:
    """The absolute URL a redirect answer points to, or None when it is not a redirect."""
    if response.status_code not in REDIRECT_STATUSES:
        return None
    location = response.headers.get("location")
    if not location:
        return None
    if isinstance(current, HttpsURL):
        joined = plain_join(current, location)
        if joined is not None:
            return joined
    try:
        return httpx.URL(str(current)).join(location)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError("invalid_url", f"{current} redirects to an invalid URL {location!r} ({exc}).") from exc


def check_redirect(record: FetchRecord, current: URL, target: URL, seen: set[str], same_origin: bool) -> None:
    """Record the redirect and raise the policy's refusal if it may not be followed."""
    record.redirects.append(str(target))
    if not isinstance(target, HttpsURL):  # a plain one is an https URL with a host and no credentials
        checked_url(str(target), via=str(current))
    if str(target) in seen:
        raise FetchError("redirect_loop", f"{current} redirects back to {target}, a URL already visited.")
    if same_origin and origin_key(target) != origin_key(current):
        raise FetchError("cross_origin", f"{current} redirects to another origin, {target}; refused.")
    if len(record.redirects) > MAX_REDIRECTS:
        raise FetchError("too_many_redirects", f"{record.url} redirects more than {MAX_REDIRECTS} times.")
    seen.add(str(target))


def without_credentials(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` without any that carry a credential or a payment (sent to one origin only)."""
    return [(k, v) for k, v in headers if k.lower() not in CREDENTIAL_HEADERS]


def method_after(status: int, method: str) -> str:
    if status == 303 and method != "HEAD":
        return "GET"
    if status in (301, 302) and method == "POST":
        return "GET"
    return method
