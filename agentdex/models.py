"""The data agentdex passes between its stages.

Every manifest format becomes the same normalised :class:`Listing` plus a list of
:class:`Finding`. These are plain data: the formats build them, the database stores them,
the plans read them, and reporters (CLI, TUI, Datasette) render them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, TypedDict, TypeVar, cast

Severity = Literal["error", "warning"]
STATUSES = ("listed", "invalid", "unreachable", "no_manifest", "delisted")
_D = TypeVar("_D")


def _pickled_by_fields(cls: type[_D]) -> type[_D]:
    """Pickle instances of the dataclass ``cls`` as a call with its fields in order (each
    of them an ``__init__`` argument), not as a slot dict set attribute by attribute: every
    origin a crawling process sends the saving one is a few dozen of them
    (``crawl --processes``), and this made unpickling one origin's result a third cheaper."""
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, tuple([getattr(self, name) for name in names])

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a document.

    ``path`` is the dotted location of the offending value (``mcp.url``, ``tags[3]``), the
    missing field's own path for a missing required field, ``""`` for the whole document,
    and ``file:path`` for a finding inside another file of a package.
    """

    severity: Severity
    path: str
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """The finding as the JSON contract's dict."""
        return {"severity": self.severity, "path": self.path, "code": self.code, "message": self.message}


@_pickled_by_fields
@dataclass(slots=True)
class Tool:
    """A tool a listing exposes: declared in a manifest or listed by its MCP server.

    ``read_only`` is derived, never copied: true only when ``readOnlyHint`` is true and
    nothing about the tool (destructiveHint, a mutating HTTP method) contradicts it.
    """

    name: str
    description: str = ""
    annotations: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    input_schema: dict[str, Any] | None = None
    source: str = "manifest"  # manifest | mcp
    detail: dict[str, Any] = field(default_factory=dict)


class PaidResource(TypedDict, total=False):
    """One paid resource an x402 discovery document lists, its URL made absolute (the
    method of an MCP item may be unknown)."""

    method: str | None
    url: str


class CardFacts(TypedDict, total=False):
    """One MCP server card as :mod:`agentdex.formats.server_card` reads it, its tools left out."""

    name: str | None
    registry_name: str | None  # the reverse-DNS name
    description: str | None
    version: Any
    schema_version: str | None  # v1 | v2 | None
    mcp_urls: list[str]
    protocol_versions: list[str]
    auth: list[str]
    declares_tools: bool


class StatedFacts(TypedDict, total=False):
    """The cross-format facts (:class:`CrossFacts`) as a format states them into
    :attr:`Listing.extra`: the same names, in JSON spelling. A format writes
    ``{**StatedFacts(mcp_urls=urls), "its_own_key": ...}`` so a misspelt or mistyped fact is a
    type error; ``tests/test_cross_facts.py`` holds the two to the same names."""

    mcp_urls: list[str]
    mcp_transports: dict[str, str]
    mcp_tools: list[str] | None
    api_bases: list[str]
    a2a_urls: list[str]
    anchor_tools: list[dict[str, Any]]
    verify: dict[str, Any]
    resources: list[PaidResource]
    prices: dict[str, float]
    offers: dict[str, list[dict[str, Any]]]
    cards: list[CardFacts]
    provenance: list[dict[str, Any]]
    sources: dict[str, str]
    checksum: str | None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, (list, tuple)) else ()


def _strings_or_none(value: Any) -> tuple[str, ...] | None:
    return None if value is None else _strings(value)


def _objects(value: Any) -> tuple[Mapping[str, Any], ...]:
    return tuple(v for v in value if isinstance(v, dict)) if isinstance(value, (list, tuple)) else ()


def _paid_resources(value: Any) -> tuple[PaidResource, ...]:
    return cast(tuple[PaidResource, ...], _objects(value))  # the readers test each value's type


def _cards(value: Any) -> tuple[CardFacts, ...]:
    return cast(tuple[CardFacts, ...], _objects(value))  # the readers test each value's type


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text_map(value: Any) -> Mapping[str, str]:
    return {k: v for k, v in _object(value).items() if isinstance(v, str)}


def _number_map(value: Any) -> Mapping[str, float]:
    ok = (int, float)
    return {k: float(v) for k, v in _object(value).items() if isinstance(v, ok) and not isinstance(v, bool)}


def _offer_map(value: Any) -> Mapping[str, tuple[Mapping[str, Any], ...]]:
    return {k: _objects(v) for k, v in _object(value).items() if isinstance(v, list)}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _read(reader: Callable[[Any], Any]) -> dict[str, Any]:
    """A :class:`CrossFacts` field's metadata: how its stored JSON value is read."""
    return {"read": reader}


@dataclass(frozen=True, slots=True)
class CrossFacts:
    """The facts one format states that other modules read (the verifier, the cross-check,
    the change events, the crawl's discovery of more endpoints): typed, so a misspelt fact
    is a type error rather than a silent miss.

    They are stored inside :attr:`Listing.extra`, each under its field's own name and in JSON
    spelling (lists and objects), so the listing JSON, the stored rows and ``show --json``
    keep the shape they always had, and a catalogue an older release wrote reads the same.
    Formats state them through :class:`StatedFacts`; :meth:`of` is the only reader of those
    keys: a value of the wrong type (a hand-edited or foreign row) reads as the field's empty
    value, never as an error. Anchor tool entries and x402 offers stay objects in their format's
    own spelling; a paid resource and a server card are agentdex's (:class:`PaidResource`,
    :class:`CardFacts`).
    """

    # Every MCP endpoint the document names (``Listing.mcp_url`` is the first); the transport
    # each declares, by normalised URL; the tool names it declares (None: it declares none).
    mcp_urls: tuple[str, ...] = field(default=(), metadata=_read(_strings))
    mcp_transports: Mapping[str, str] = field(default_factory=dict, metadata=_read(_text_map))
    mcp_tools: tuple[str, ...] | None = field(default=None, metadata=_read(_strings_or_none))
    # Every API base (``Listing.http_base`` is the first) and every A2A endpoint.
    api_bases: tuple[str, ...] = field(default=(), metadata=_read(_strings))
    a2a_urls: tuple[str, ...] = field(default=(), metadata=_read(_strings))
    # Anchor: the tool entries (endpoint, kind, transport, auth, payments, readOnlyVariant,
    # scopedVariants, deprecation ...) and the ``verify`` object (dnsTxt, http).
    anchor_tools: tuple[Mapping[str, Any], ...] = field(default=(), metadata=_read(_objects))
    verify: Mapping[str, Any] = field(default_factory=dict, metadata=_read(_object))
    # x402: the paid resources ({method, url}), declared prices in USD by resource URL, the
    # payment terms declared for each (normalised URL -> offers).
    resources: tuple[PaidResource, ...] = field(default=(), metadata=_read(_paid_resources))
    prices: Mapping[str, float] = field(default_factory=dict, metadata=_read(_number_map))
    offers: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict, metadata=_read(_offer_map))
    # MCP server cards: each card read, without its tools.
    cards: tuple[CardFacts, ...] = field(default=(), metadata=_read(_cards))
    # Where a discovered listing was read (``agentdex.crawler.discovered``).
    provenance: tuple[Mapping[str, Any], ...] = field(default=(), metadata=_read(_objects))
    # An inferred listing: the bootstrap file each inferred field came from.
    sources: Mapping[str, str] = field(default_factory=dict, metadata=_read(_text_map))
    # An adapp package's declared checksum.
    checksum: str | None = field(default=None, metadata=_read(_text))

    @classmethod
    def of(cls, extra: Mapping[str, Any] | None) -> CrossFacts:
        """The facts stored in a listing's ``extra`` (a :class:`Listing`'s, or the ``extra``
        of a stored listing's JSON)."""
        if not isinstance(extra, Mapping):
            return cls()
        return cls(**{f.name: f.metadata["read"](extra[f.name]) for f in fields(cls) if f.name in extra})


@_pickled_by_fields
@dataclass(slots=True)
class Listing:
    """The normalised form of any manifest: one origin, one listing.

    Fields a format has no equivalent for stay ``None`` / empty. ``extra`` keeps what is
    specific to one format (Anchor's tool entries with their endpoints, prices,
    deprecations and variants; an adapp package's secrets) in the format's own spelling;
    what other modules read of it, they read through :attr:`facts` (:class:`CrossFacts`).
    """

    format: str
    origin: str | None = None
    name: str | None = None
    one_liner: str | None = None
    description: str | None = None
    homepage: str | None = None
    guide_url: str | None = None
    llms_txt_url: str | None = None
    skill_url: str | None = None
    mcp_url: str | None = None
    mcp_transport: str | None = None
    mcp_auth: list[str] = field(default_factory=list)
    http_base: str | None = None
    http_openapi: str | None = None
    http_capabilities: str | None = None
    auth_methods: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    hosts: list[dict[str, Any]] = field(default_factory=list)
    pattern: dict[str, Any] = field(default_factory=dict)
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    audience: str | None = None
    pricing: str | None = None
    publisher_name: str | None = None
    publisher_url: str | None = None
    publisher_contact: str | None = None
    privacy_url: str | None = None
    terms_url: str | None = None
    say: list[str] = field(default_factory=list)
    instructions: str | None = None
    feedback: dict[str, Any] | None = None
    tools: list[Tool] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def facts(self) -> CrossFacts:
        """The cross-format facts stored in :attr:`extra`, typed (:class:`CrossFacts`)."""
        return CrossFacts.of(self.extra)

    def to_dict(self) -> dict[str, Any]:
        """The listing as plain JSON-ready data (what :func:`dataclasses.asdict` gives)."""
        return {name: _plain(getattr(self, name)) for name in _LISTING_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Listing:
        """Rebuild a listing stored with :meth:`to_dict` (unknown keys are dropped)."""
        names = set(cls.__dataclass_fields__)
        values = {k: v for k, v in data.items() if k in names}
        values["tools"] = [Tool(**t) for t in values.get("tools") or []]
        return cls(**values)


@_pickled_by_fields
@dataclass(slots=True)
class ParseResult:
    """What a format module returns: the listing (when the document was usable at all),
    every finding, and the decoded document itself."""

    format: str
    listing: Listing | None
    findings: list[Finding]
    document: Any = None

    @property
    def valid(self) -> bool:
        """Errors make a manifest invalid; warnings never do."""
        return not any(f.severity == "error" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        """The ``validate --json`` contract: ``{format, valid, findings}``."""
        return {
            "format": self.format,
            "valid": self.valid,
            "findings": [f.to_dict() for f in sorted_findings(self.findings)],
        }


_LISTING_FIELDS = tuple(f.name for f in fields(Listing))
_ATOMS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """``value`` as :func:`dataclasses.asdict` copies a field: lists and dicts copied all the
    way down, dataclasses as dicts. Its own walk of the JSON shapes a listing holds, with
    ``asdict`` for anything else: ``asdict`` deep-copies every string too, and this was a
    tenth of saving an origin."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [_plain(item) for item in value]
    if kind is dict:
        return {_plain(key): _plain(item) for key, item in value.items()}
    if kind is Tool:
        return {name: _plain(getattr(value, name)) for name in _TOOL_FIELDS}
    return asdict(_Wrap(value))["value"]


@dataclass(slots=True)
class _Wrap:
    """What lets :func:`_plain` hand a value of another kind to ``asdict`` as it is."""

    value: Any


_TOOL_FIELDS = tuple(f.name for f in fields(Tool))


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    """Findings in path order (errors before warnings at the same path)."""
    return sorted(findings, key=lambda f: (f.path, f.severity != "error", f.code))


CheckStatus = Literal["pass", "fail", "warn", "skip"]


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Check:
    """The result of one verification check, stored as ``{name, status, detail}``."""

    name: str
    status: CheckStatus
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The check as the JSON contract's dict."""
        return {"name": self.name, "status": self.status, "detail": self.detail}


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Event:
    """A change between two crawls of one origin: ``{kind, at, old, new}``."""

    kind: str
    old: Any = None
    new: Any = None
    subject: str = ""  # e.g. an Anchor tool id or MCP tool name the change is about


@_pickled_by_fields
@dataclass(slots=True)
class FetchRecord:
    """One fetch made during a crawl (stored as a snapshot row; the body as a blob)."""

    url: str
    kind: str  # agent_app | anchor | guide | llms_txt | skill | agent_md | mcp_json | robots | homepage | ...
    status: int | None = None
    final_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # the headers that matter, lower-case names
    etag: str | None = None
    last_modified: str | None = None
    body: bytes | None = None
    sha256: str | None = None
    elapsed_ms: float = 0.0
    # dns | refused | tls | timeout | too_large | redirect_loop | cross_origin | blocked_address
    # | http_status | content_type | ...
    error_code: str | None = None
    error: str | None = None  # a readable sentence
    not_modified: bool = False  # a 304 answer to a conditional request
    fetched_at: str = ""
    redirects: list[str] = field(default_factory=list)
    # HTTP freshness (agentdex.crawler.freshness): when the answer this record stands on
    # arrived and until when it is fresh (ISO 8601, None: never fresh), and whether the
    # record was served from freshness (a stored answer still fresh: nothing was asked).
    response_at: str | None = None
    fresh_until: str | None = None
    from_freshness: bool = False
    # Served from a known absence (a discovery path that answered 404 or 410) that a
    # revalidating crawl does not ask again before its schedule (agentdex.schedule); then
    # ``fresh_until`` is when it is next asked. Such a record is from_freshness too.
    known_absence: bool = False

    @property
    def ok(self) -> bool:
        """A 2xx answer with a body (or a 304)."""
        return self.error_code is None and (self.not_modified or (self.status is not None and 200 <= self.status < 300))


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class EndpointProbe:
    """One URL a listing depends on, as one crawl found it (``agentdex.crawler.health``)."""

    # mcp | http_base | openapi | capabilities | homepage | privacy | terms | feedback | guide
    # | llms_txt | skill | x402
    role: str
    url: str
    state: str  # one of agentdex.crawler.health.STATES
    http_status: int | None = None
    detail: str = ""
    # The MCP endpoint's: the eras that answered (legacy | dual | modern | unknown), every
    # revision it was seen to speak, the server's self-reported name. None/() for other roles.
    era: str | None = None
    versions: tuple[str, ...] = ()
    server_name: str | None = None
    # agentdex's own word for what the state alone does not say (dns: a host name that does
    # not resolve; initialized_rejected): never text a server wrote, so counts can rely on it.
    cause: str | None = None
    # This probe as a sample of the endpoint's uptime (agentdex.db.health.save_samples): how
    # long it took, whether its answer says anything of health (a 429, a 503 with Retry-After
    # do not), and how it was verified. Not part of the row's identity.
    ms: float | None = field(default=None, compare=False)
    measurable: bool = field(default=True, compare=False)
    verified_by: str = field(default="", compare=False)
    # An MCP endpoint's auth posture (agentdex.crawler.auth_posture.KINDS), None for other roles.
    auth_kind: str | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        """What a later probe must equal to extend this one's history row (:func:`probe_key`)."""
        return probe_key(self.state, self.era, self.cause)


def probe_key(state: str, era: str | None, cause: str | None) -> str:
    """One endpoint probe's identity in the health history: its state, era and cause; a
    probe whose key differs from the latest row's starts a new row."""
    return "|".join((state, era or "", cause or ""))


@_pickled_by_fields
@dataclass(slots=True)
class OriginCrawl:
    """Everything one crawl learned about one origin; the database saves it in one
    transaction and derives the change events from it."""

    origin: str
    status: str  # one of STATUSES
    status_detail: str = ""
    primary: ParseResult | None = None  # the result of the format chosen for the listing
    results: dict[str, ParseResult] = field(default_factory=dict)  # every format found
    fetches: list[FetchRecord] = field(default_factory=list)
    documents: dict[str, str] = field(
        default_factory=dict
    )  # kind -> sha256 (manifest per format, guide, llms_txt, skill)
    checks: list[Check] | None = None  # None: not verified this run, keep what is stored
    mcp_tools: list[Tool] | None = None  # None: not probed this run, keep what is stored
    unchanged: bool = False  # every document answered 304: nothing to parse or write
    # What lets the next crawl skip the parse when the same manifest bytes answer 304: the
    # sha256 of each manifest body found ({format: sha256}) and the documents the primary
    # listing declares ({kind: url}); None when no listing was parsed.
    manifests_sha256: dict[str, str] | None = None
    declared_documents: dict[str, str] | None = None
    robots: FetchRecord | None = None  # robots.txt as this crawl fetched it (None: not fetched, or reused)
    # When the first of the origin's stored answers stops being usable fresh (epoch
    # seconds; None when one of them is not fresh now): the schedule waits at least that long.
    stale_at: float | None = None
    # The cross-format verdict (agentdex.formats.consistency.Consistency); None: not compared
    # this run (unchanged or unreachable), keep what is stored.
    consistency: Any = None
    # Every endpoint the verification asked this run (None: not verified, nothing recorded).
    endpoints: list[EndpointProbe] | None = None
    # The TDQS lint of mcp_tools, computed off the event loop (agentdex.formats.tool_quality:
    # a ServerLint, or why TDQS refuses the list); None: the store computes it.
    tool_quality: Any = None
    # The MCP endpoints the verifier probes besides the listing's own ``mcp_url``: the others
    # its document names and those registry seeds declare on the origin
    # (``agentdex.crawler.discovered.Declared``: url, transport, name, source, status).
    extra_endpoints: list[Any] = field(default_factory=list)
    # The documents the origin's AI Catalog names by URL (``agentdex.crawler.discovered.Linked``):
    # the crawl records each under the origin it lives on, and crawls that origin.
    catalog_links: list[Any] = field(default_factory=list)

    def read_at(self, kind: str) -> str | None:
        """Where this crawl read the document of ``kind`` (after redirects; a 304 counts), if it did."""
        read = [r for r in self.fetches if r.kind == kind and (r.not_modified or r.ok)]
        return (read[-1].final_url or read[-1].url) if read else None
