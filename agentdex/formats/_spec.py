"""What each format module declares about itself, so the rest of agentdex reads it from one
place (:mod:`agentdex.formats` builds the registry from these declarations)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OriginFile:
    """A file an origin may publish at a fixed path, fetched under its own byte cap.

    ``kind`` is the document kind a crawl records it under (``agent_md``); ``name`` is the
    file name the format reads it by (``agent.md``); ``path`` is where it lives on an origin.
    """

    kind: str
    name: str
    path: str
    max_bytes: int


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """One format's facts for discovery, verification, ``validate``, the TUI and the CLI.

    - ``priority``: lower comes first everywhere formats are listed, and a valid listing of
      a lower priority wins the primary format of an origin (agent_app 10 beats anchor 20).
    - ``max_bytes``: the size limit of one manifest of this format (the crawl's fetch cap
      for a well-known manifest, and the limit the ``manifest.size`` check holds it to).
    - ``well_known``: the path on an origin where discovery looks for this manifest first;
      ``None`` for a format that is never crawled from a fixed path.
    - ``origin_files``: the files discovery fetches (only when an origin publishes no
      manifest) to build this format's listing, each with its fetch cap.
    - ``folder_files``: the paths ``agentdex validate`` reads in a repository folder for
      this format, in the order it tries them.
    - ``json``: the format's document is JSON, so ``validate --format auto`` may detect it.
    - ``also_at``: further paths of the same document, tried in order after ``well_known``
      when the ones before answered nothing (A2A's older ``agent.json``; x402's ``.json``).
    - ``discovery``: a discovery document (an A2A card, an MCP server card, an API catalog
      ...): fetched at every origin, stored as a snapshot and a document, validated and
      cross-checked, but never an origin's primary listing format.
    - ``title``: the format in words, for messages (``"an AI catalog"``).
    - ``keys``: top-level keys only this kind of document uses; ``validate`` names the format
      whose keys an unknown document shares most (a manifest's are its ``TOP_LEVEL``).
    - ``schema_marks``: substrings of a ``$schema`` URL that name this format outright.
    - ``detect_rank``: a discovery document's place in ``validate --format auto``'s tries
      (lower first, so a looser ``looks_like`` goes later); ``None``: ``validate`` does not
      read it (it is only ever fetched by a crawl).
    """

    name: str
    priority: int
    max_bytes: int
    well_known: str | None = None
    origin_files: tuple[OriginFile, ...] = ()
    folder_files: tuple[str, ...] = ()
    json: bool = True
    also_at: tuple[str, ...] = ()
    discovery: bool = False
    title: str = ""
    keys: frozenset[str] = frozenset()
    schema_marks: tuple[str, ...] = ()
    detect_rank: int | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path of this document on an origin, in the order discovery tries them."""
        return ((self.well_known,) if self.well_known else ()) + self.also_at
