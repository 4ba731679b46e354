"""The pydantic models of :mod:`agentdex.formats.registry_api`'s pages, apart so that importing
the API's URLs and paging does not import pydantic: :mod:`agentdex.formats` imports every format
module at start, so pydantic here would cost every ``agentdex`` command, ``tui``'s first paint
included, about 55 ms of CPU (``python benchmarks/bench_cli_start.py``). Read them through
:mod:`agentdex.formats.registry_api`, which loads this module on first use.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentdex.errors import pydantic_words
from agentdex.formats.registry_api import NAME_MAX, OFFICIAL, STATUS_MESSAGE_MAX


# -- pages, in the registry's spelling -------------------------------------------------------------
class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class Remote(_Lenient):
    """One ``remotes[]`` transport of a server.json."""

    type: str = ""
    url: str = ""


class Server(_Lenient):
    """The parts of a server.json the API's readers use (the rest is server.json's own,
    validated by :mod:`agentdex.formats.server_json` where a document is stored)."""

    name: str = Field(max_length=NAME_MAX)
    websiteUrl: str | None = None  # noqa: N815 - the registry's spelling
    remotes: list[Remote] = Field(default_factory=list)


class Official(_Lenient):
    """``_meta["io.modelcontextprotocol.registry/official"]``: what the registry says of a
    server (``RegistryExtensions``)."""

    status: str = Field(default="active", max_length=40)  # active | deprecated | deleted
    statusMessage: str | None = Field(default=None, max_length=STATUS_MESSAGE_MAX)  # noqa: N815
    statusChangedAt: str | None = None  # noqa: N815
    publishedAt: str | None = None  # noqa: N815
    updatedAt: str | None = None  # noqa: N815
    isLatest: bool = True  # noqa: N815

    @property
    def skipped(self) -> bool:
        """Deleted, or not the latest version (a registry that ignores ``version=latest``
        lists them all)."""
        return self.status == "deleted" or not self.isLatest


class Entry(_Lenient):
    """One ``ServerResponse``: the server and the registry's metadata."""

    server: Server
    meta: dict[str, Any] = Field(default_factory=dict, alias="_meta")

    @cached_property
    def official(self) -> Official:
        """The registry's metadata (defaults when it gives none); a ``ValidationError``
        titled ``Official`` when it is there but unreadable."""
        found = self.meta.get(OFFICIAL)
        return Official.model_validate(found) if isinstance(found, dict) else Official()


class Metadata(_Lenient):
    """A page's ``metadata``."""

    nextCursor: str | None = None  # noqa: N815
    count: int | None = None


class Page(_Lenient):
    """One ``ServerList`` page; its entries are read one by one (:func:`read_entry`)."""

    servers: list[Any]
    metadata: Metadata = Field(default_factory=Metadata)


def where_and_what(exc: ValidationError) -> str:
    """Where and what pydantic's first complaint is."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    if exc.title == "Official":
        where = f"_meta[{OFFICIAL}].{where}"
    return f"{where}: {pydantic_words(error['msg'])}" if where else pydantic_words(error["msg"])
