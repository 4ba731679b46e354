"""Change events between two crawls of one origin: pure functions, no IO.

The database builds a *state* for an origin before and after it saves a crawl and asks
:func:`diff` what changed. A state is a plain dict::

    {
        "status": "listed",              # the stored (effective) status, see next_status()
        "observed": "no_manifest",       # what this crawl saw (optional; defaults to status)
        "was_listed": True,              # listed at least once before (optional)
        "unreachable_streak": 0,         # consecutive unreachable crawls (optional)
        "listing": {...} | None,         # Listing.to_dict()
        "guide_sha256": "ab12…" | None,  # sha256 of the guide text
        "tools": {name: {"description": ..., "annotations": {...}}} | None,  # MCP tools; None: never probed
        "checks": {name: status},        # verification checks (pass|fail|warn|skip)
        "registry": {name: {"version": ..., "remotes": [...]}} | None,  # what the MCP registry
                                         # lists in the origin's namespace; None: never asked
        "live_prices": {url: usd},       # what each x402 resource's live 402 asked (optional)
        "mcp_era": "dual" | None,        # the eras the MCP endpoint answered in (legacy | dual
                                         # | modern); None: no probe told (optional)
    }

**Listing status rules.** An origin enters the catalogue the first time it serves a valid
manifest (``listed``). A listed origin that answers but no longer serves a manifest is
``delisted`` at once; one that serves an *invalid* manifest leaves the catalogue too
(event ``delisted``, stored status ``invalid``, so its findings explain why). A listed origin
that cannot be reached is **not** delisted on a single failure: a network blip is not a
decision by its publisher. It stays ``listed`` (with the failure in ``status_detail``) until
it has been unreachable on :data:`UNREACHABLE_LIMIT` consecutive crawls, and is then
``delisted``. An origin that was once listed and is listed again is ``relisted``; one that
was never listed and fails stays ``unreachable`` / ``no_manifest`` / ``invalid``.

**Events** (``old`` and ``new`` are the actual values; ``subject`` names what the change
is about, when it is about one thing):

- ``listed``: old = the previous status or None, new = ``"listed"``
- ``relisted``: old = the previous status, new = ``"listed"``
- ``delisted``: old = ``"listed"``, new = what the crawl saw (no_manifest | invalid | unreachable)
- ``format_changed``, ``name_changed``, ``instructions_changed``, ``mcp_url_changed``,
  ``http_base_changed``: the old and new value of that listing field
- ``guide_changed``: the old and new sha256 of the guide text (None when absent)
- ``tools_changed``: ``{names, tools}`` before and after; subject = the changed tool names
- ``anchor_tool_added`` / ``anchor_tool_removed``: None / the tool entry; subject = tool id
- ``endpoint_changed``: old and new endpoint; subject = tool id
- ``price_changed``: old and new ``payments``; subject = tool id
- ``deprecation_declared``: the earlier entry for the same ``what`` (or None) and the new
  deprecation entry; subject = tool id
- ``variant_changed``: ``{readOnlyVariant, scopedVariants}`` before and after; subject = tool id
- ``proof_lost``: ``"pass"`` and the new status of an ``anchor.verify.*`` check; subject = check name
- ``registry_changed``: what the MCP registry lists in the origin's namespace,
  ``{name: {version, remotes}}`` before and after, the unchanged servers left out; subject = the
  added, removed and changed server names. Only between two crawls that both have a registry
  answer (``crawl --registry-lookup``): starting to ask a registry is no change of the origin's.
- ``live_price_changed``: the old and new dollar price the live 402 of a resource an x402
  discovery document declares asks (the ``x402.live_price`` check); subject = resource URL
- ``mcp_era_changed``: the old and new eras of MCP the endpoint answered in (``legacy``: the
  ``initialize`` handshake only; ``dual``: that and revision 2026-07-28; ``modern``:
  2026-07-28 only). Only between two probes that each told an era: an endpoint that stops
  answering has no era, which is its health's news, not a change of era.

``tools_changed``: ``names`` lists every tool name on that side; ``tools`` holds, on the old
side, the removed and changed tools as they were and, on the new side, the added and changed
tools as they are now (``{description, annotations}``). Field changes are reported only
between two listed states: an origin entering or leaving the catalogue gets one event.
"""

from __future__ import annotations

from agentdex.models import CrossFacts, Event

UNREACHABLE_LIMIT = 3
LISTED = "listed"
# Listing fields whose change is an event of its own, in the order events are emitted.
FIELD_EVENTS = (
    ("format", "format_changed"),
    ("name", "name_changed"),
    ("instructions", "instructions_changed"),
    ("mcp_url", "mcp_url_changed"),
    ("http_base", "http_base_changed"),
)
PROOF_PREFIX = "anchor.verify."
MCP_ERAS = ("legacy", "dual", "modern")  # the eras an answering MCP endpoint can be in


def next_status(old: dict | None, observed: str) -> tuple[str, int]:
    """The status to store after a crawl that ``observed`` a status, and the new count of
    consecutive unreachable crawls (see the module docstring for the rules)."""
    was_listed = _was_listed(old)
    if observed == LISTED:
        return LISTED, 0
    if observed == "unreachable":
        streak = (old or {}).get("unreachable_streak", 0) + 1
        if old is not None and old.get("status") == LISTED:
            return (LISTED if streak < UNREACHABLE_LIMIT else "delisted"), streak
        return ("delisted" if was_listed else "unreachable"), streak
    if observed == "no_manifest" and was_listed:
        return "delisted", 0
    return observed, 0


def diff(old: dict | None, new: dict | None) -> list[Event]:
    """Every change between two states of one origin, in a stable order.

    ``old`` is ``None`` for an origin seen for the first time. Nothing changed: no event.
    """
    if new is None:
        return []
    new_status = new.get("status")
    old_status = old.get("status") if old else None
    if new_status == LISTED and old_status != LISTED:
        kind = "relisted" if _was_listed(old) else "listed"
        return [Event(kind, old=old_status, new=LISTED)]
    if old_status == LISTED and new_status != LISTED:
        return [Event("delisted", old=LISTED, new=new.get("observed") or new_status)]
    if old_status != LISTED:
        return []
    return _listed_changes(old or {}, new)


def _was_listed(state: dict | None) -> bool:
    if not state:
        return False
    if "was_listed" in state:
        return bool(state["was_listed"])
    return state.get("status") in (LISTED, "delisted")


def _listed_changes(old: dict, new: dict) -> list[Event]:
    before = old.get("listing") or {}
    after = new.get("listing") or {}
    events = [
        Event(kind, before.get(key), after.get(key))
        for key, kind in FIELD_EVENTS[:2]
        if before.get(key) != after.get(key)
    ]
    if old.get("guide_sha256") != new.get("guide_sha256"):
        events.append(Event("guide_changed", old.get("guide_sha256"), new.get("guide_sha256")))
    events += [
        Event(kind, before.get(key), after.get(key))
        for key, kind in FIELD_EVENTS[2:]
        if before.get(key) != after.get(key)
    ]
    events += tool_changes(old.get("tools"), new.get("tools"))
    events += anchor_changes(_anchor_tools(before), _anchor_tools(after))
    events += proofs_lost(old.get("checks") or {}, new.get("checks") or {})
    events += registry_changes(old.get("registry"), new.get("registry"))
    events += live_price_changes(old.get("live_prices") or {}, new.get("live_prices") or {})
    events += era_changes(old.get("mcp_era"), new.get("mcp_era"))
    return events


def era_changes(old: str | None, new: str | None) -> list[Event]:
    """``mcp_era_changed`` when the MCP endpoint answers in other eras than before (both
    known: ``None`` on either side is no era to compare)."""
    if old in MCP_ERAS and new in MCP_ERAS and old != new:
        return [Event("mcp_era_changed", old, new)]
    return []


def registry_changes(old: dict | None, new: dict | None) -> list[Event]:
    """One ``registry_changed`` event when what the registry lists in the namespace changed
    (``None`` on either side: no registry answer to compare)."""
    if old is None or new is None or old == new:
        return []
    names = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
    return [
        Event(
            "registry_changed",
            {n: old[n] for n in names if n in old},
            {n: new[n] for n in names if n in new},
            ", ".join(names),
        )
    ]


def tool_changes(old: dict | None, new: dict | None) -> list[Event]:
    """One ``tools_changed`` event when the MCP tool surface changed (``None``: unknown)."""
    if old is None or new is None:
        return []
    removed = [n for n in sorted(old) if n not in new]
    added = [n for n in sorted(new) if n not in old]
    changed = [n for n in sorted(new) if n in old and _tool_view(old[n]) != _tool_view(new[n])]
    if not (removed or added or changed):
        return []
    before = {"names": sorted(old), "tools": {n: _tool_view(old[n]) for n in sorted(removed + changed)}}
    after = {"names": sorted(new), "tools": {n: _tool_view(new[n]) for n in sorted(added + changed)}}
    return [Event("tools_changed", before, after, ", ".join(sorted(removed + added + changed)))]


def _tool_view(tool: dict) -> dict:
    return {"description": tool.get("description") or "", "annotations": tool.get("annotations") or {}}


def _anchor_tools(listing: dict) -> dict[str, dict]:
    entries = CrossFacts.of(listing.get("extra")).anchor_tools
    return {str(e["id"]): dict(e) for e in entries if e.get("id") is not None}


def anchor_changes(old: dict[str, dict], new: dict[str, dict]) -> list[Event]:
    """Events for Anchor tool entries keyed by id: added, removed, endpoint, price,
    deprecation and variant changes, tool by tool in id order."""
    events: list[Event] = []
    for tool_id in sorted(set(old) | set(new)):
        before, after = old.get(tool_id), new.get(tool_id)
        if before is None:
            events.append(Event("anchor_tool_added", None, after, tool_id))
        elif after is None:
            events.append(Event("anchor_tool_removed", before, None, tool_id))
        else:
            events += _anchor_tool_changes(tool_id, before, after)
    return events


def _anchor_tool_changes(tool_id: str, before: dict, after: dict) -> list[Event]:
    events = []
    if before.get("endpoint") != after.get("endpoint"):
        events.append(Event("endpoint_changed", before.get("endpoint"), after.get("endpoint"), tool_id))
    if (before.get("payments") or []) != (after.get("payments") or []):
        events.append(Event("price_changed", before.get("payments") or [], after.get("payments") or [], tool_id))
    events += _deprecations(tool_id, before.get("deprecations") or [], after.get("deprecations") or [])
    old_variants, new_variants = _variants(before), _variants(after)
    if old_variants != new_variants:
        events.append(Event("variant_changed", old_variants, new_variants, tool_id))
    return events


def _deprecations(tool_id: str, before: list, after: list) -> list[Event]:
    # A deprecation is "declared" when an entry appears that was not there before; an entry
    # for the same ``what`` with a new sunset or replacement is declared again.
    events = []
    for entry in after:
        if entry in before:
            continue
        earlier = next(
            (
                b
                for b in before
                if isinstance(b, dict) and isinstance(entry, dict) and b.get("what") == entry.get("what")
            ),
            None,
        )
        events.append(Event("deprecation_declared", earlier, entry, tool_id))
    return events


def _variants(entry: dict) -> dict:
    return {"readOnlyVariant": entry.get("readOnlyVariant"), "scopedVariants": entry.get("scopedVariants") or {}}


def live_price_changes(old: dict[str, float], new: dict[str, float]) -> list[Event]:
    """``live_price_changed`` for every resource whose live 402 asked another price than the
    last time it was asked (one that stops answering a price is the check's, not a change)."""
    return [
        Event("live_price_changed", old[url], new[url], url)
        for url in sorted(old.keys() & new.keys())
        if abs(old[url] - new[url]) > 1e-9
    ]


def proofs_lost(old: dict[str, str], new: dict[str, str]) -> list[Event]:
    """``proof_lost`` for every ``anchor.verify.*`` check that passed and now fails."""
    return [
        Event("proof_lost", "pass", new[name], name)
        for name in sorted(new)
        if name.startswith(PROOF_PREFIX) and old.get(name) == "pass" and new[name] == "fail"
    ]
