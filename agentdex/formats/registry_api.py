"""The MCP registry API, in one place: its URLs, its cursor paging and its pages.

Every client of the API builds its URLs here and reads its answers through the models here:
``agentdex seeds registry:BASE`` (every page of ``GET /v0.1/servers``), the crawl's namespace
lookup (``crawl --registry-lookup``: :mod:`agentdex.crawler.discovery`, read as a document by
:mod:`agentdex.formats.registry_server_json`) and Anchor's registry proof
(``…/versions/latest``: :mod:`agentdex.crawler.verify_anchor`); :mod:`agentdex.federation`,
which serves the same API, takes its routes, its page envelope and the official ``_meta``
from here. Pure: no IO (the callers fetch; :class:`Paging` tells them which cursor to ask
with next and when to stop).

**The revision followed**: modelcontextprotocol/registry ``docs/reference/api/openapi.yaml``
at commit 145c2ec7c424d503a553a50c0efac6c48db407db, API version ``2025-12-01`` (the newest in
the reference index; its trimmed read operations are ``tests/ecosystem/openapi.registry.yaml``),
with the registry's ``docs/reference/api/CHANGELOG.md``: ``/v0.1`` is the stable path since
2025-10-17 (``/v0`` the development one); ``include_deleted`` on the list and on both version
reads, ``statusMessage`` and ``statusChangedAt`` in the official ``_meta``, and a ``search``
that also matches descriptions are the changes not yet released under a date.

**Paging** (``ServerList.metadata.nextCursor``): a cursor is opaque and asked with exactly as
given; a missing, null or blank one ends the list. A reader follows at most a number of pages
it chooses (:data:`MAX_PAGES` unless it says otherwise) and refuses a cursor over
:data:`MAX_CURSOR` characters or one the list gave before (the pages loop): each stops the read
short, with the reason.

**Pages** are read through pydantic models in the registry's own spelling: a page's
``servers`` are taken as they come and each entry is read alone (:func:`read_entry`), so one
the models cannot read (wrong types, a name over the registry's 200 characters, a bad official
``_meta``) is refused alone with the reason and never spoils its page.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from agentdex.errors import pydantic_words

if TYPE_CHECKING:
    from agentdex.formats._registry_models import Entry, Metadata, Official, Page, Remote, Server  # noqa: F401

API_VERSION = "2025-12-01"  # the OpenAPI document's info.version followed (see the docstring)
SERVERS_PATH = "/v0.1/servers"
OFFICIAL = "io.modelcontextprotocol.registry/official"
PAGE_LIMIT = 100  # the most the official registry gives a page
MAX_PAGES = 2_000  # 200,000 servers: far above the official registry; stops a cursor loop
MAX_CURSOR = 4096  # the official cursor is a server name and version: a few hundred characters
NAME_MAX = 200  # server.json ``name``, the registry's own bound
STATUS_MESSAGE_MAX = 500  # the official ``_meta``'s ``statusMessage``
# The read routes, as a server of the API (agentdex.federation) matches them.
LIST_ROUTE = rf"^{re.escape(SERVERS_PATH)}$"
VERSIONS_ROUTE = rf"^{re.escape(SERVERS_PATH)}/(?P<name>.+?)/versions(?:/(?P<version>[^/]+))?$"


# -- URLs ------------------------------------------------------------------------------------------
def list_url(
    base: str,
    *,
    search: str | None = None,
    version: str | None = None,
    limit: int | None = None,
    include_deleted: bool = False,
    updated_since: str | None = None,
    cursor: str | None = None,
) -> str:
    """The URL of one page of ``GET /v0.1/servers`` at the API ``base``; the parameters not
    given are left out, every value percent-encoded (a space is ``%20``)."""
    params = {
        "search": search,
        "version": version,
        "limit": str(limit) if limit is not None else None,
        "include_deleted": "true" if include_deleted else None,
        "updated_since": updated_since,
        "cursor": cursor,
    }
    query = urlencode({k: v for k, v in params.items() if v}, quote_via=quote)
    return f"{base.rstrip('/')}{SERVERS_PATH}" + (f"?{query}" if query else "")


def versions_url(base: str, name: str, version: str | None = "latest") -> str:
    """The URL of ``GET /v0.1/servers/{name}/versions/{version}`` (``latest``: the newest), or
    of every version with ``version=None``; the name and version URL-encoded (``/`` too)."""
    url = f"{base.rstrip('/')}{SERVERS_PATH}/{quote(name, safe='')}/versions"
    return url if version is None else f"{url}/{quote(version, safe='')}"


# -- pages, in the registry's spelling (models: agentdex.formats._registry_models) ----------------
def server_list(servers: list[Any], next_cursor: str | None = None) -> dict[str, Any]:
    """A ``ServerList`` as a server of the API answers it (``metadata.count``: the page's size)."""
    from agentdex.formats._registry_models import Metadata, Page

    metadata = Metadata(nextCursor=next_cursor, count=len(servers))
    return Page(servers=servers, metadata=metadata).model_dump(exclude_none=True)


class NotRead(ValueError):
    """Bytes or a value the models cannot read as a page or an entry (the message says why)."""


def read_page(data: bytes) -> Page:
    """One page of the list from its JSON bytes.

    :raises NotRead: it is no page (the first thing wrong, in words)
    """
    from pydantic import ValidationError

    from agentdex.formats._registry_models import Page

    try:
        return Page.model_validate_json(data)
    except ValidationError as exc:
        raise NotRead(pydantic_words(exc.errors()[0]["msg"])) from exc


def page_of(doc: Any) -> Page | None:
    """An already decoded document as a page, or ``None`` when it is none."""
    from pydantic import ValidationError

    from agentdex.formats._registry_models import Page

    try:
        return Page.model_validate(doc)
    except ValidationError:
        return None


def read_entry(item: Any) -> Entry:
    """One entry of a page (a decoded ``ServerResponse``, or its JSON bytes: the answer of
    ``…/versions/{version}``), its official ``_meta`` read too.

    :raises NotRead: it cannot be read (where and what, ``server.name: String should have …``)
    """
    from pydantic import ValidationError

    from agentdex.formats._registry_models import Entry, where_and_what

    try:
        entry = Entry.model_validate_json(item) if isinstance(item, bytes) else Entry.model_validate(item)
        entry.official  # noqa: B018 - read now, so a bad one refuses the entry here
    except ValidationError as exc:
        raise NotRead(where_and_what(exc)) from exc
    return entry


_MODELS = frozenset({"Remote", "Server", "Official", "Entry", "Metadata", "Page"})


def __getattr__(name: str) -> Any:
    """The page models (``registry_api.Page`` …), imported on first use: see
    :mod:`agentdex.formats._registry_models` for why they live apart."""
    if name in _MODELS:
        from agentdex.formats import _registry_models

        return getattr(_registry_models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def server_name_of(item: Any) -> str:
    """The name an entry gives itself, read without the models (for naming a refused one)."""
    server = item.get("server") if isinstance(item, dict) else None
    return str(server.get("name", ""))[:NAME_MAX] if isinstance(server, dict) else ""


# -- paging ----------------------------------------------------------------------------------------
@dataclass
class Paging:
    """How far a read of the list has got, and the paging rules (see the module docstring):
    ask with :attr:`cursor` while :meth:`stop` says nothing, then :meth:`turn` each page."""

    max_pages: int = MAX_PAGES
    pages: int = 0
    cursor: str | None = None  # to ask the next page with (None: the first page)
    done: bool = False  # the last page was read
    _seen: set[bytes] = field(default_factory=set)

    def stop(self) -> str | None:
        """Why the next page is not asked (``None``: ask it)."""
        if self.pages >= self.max_pages:
            return f"the registry has more than {self.max_pages:,} pages (the page budget)"
        return None

    def turn(self, page: Page) -> str | None:
        """Count ``page`` and take its next cursor; why that cursor is not followed (the read
        stops short), else ``None`` (:attr:`done` when the page was the last)."""
        self.pages += 1
        cursor = page.metadata.nextCursor
        if not cursor or not cursor.strip():
            self.done = True
            return None
        if len(cursor) > MAX_CURSOR:
            return f"the registry gave a cursor over {MAX_CURSOR:,} characters"
        digest = hashlib.blake2b(cursor.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if digest in self._seen:
            return "the registry gave a cursor it had given before (the pages loop)"
        self._seen.add(digest)
        self.cursor = cursor
        return None
