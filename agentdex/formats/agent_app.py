"""agent-app manifest, version 1 (``/.well-known/agent-app.json``).

Spec: ``specs/agent-app-manifest-v1.md``. Every field of its table is checked for type,
limit and catalogue; unknown top-level keys are warnings naming the key; the retired keys
``guide.version`` and ``updated_at`` produce nothing at all.

Beyond the checks the spec words directly, this module reads it strictly in three places:
a ``null`` value is a type error (the field is present but not of its type), a URL may not
carry control characters, and ``instructions`` must be one line whose leading name is a
whole word (``Pan`` does not lead ``Pantry tracks…``). The JSON Schema shipped beside it
(``schemas/agent-app-v1.schema.json``) encodes the same rules except the leading name and
the size limit, which a schema cannot express, and non-ASCII upper case in tags.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from agentdex.formats._check import EMAIL_RE, Checker, is_absolute_url, join, type_name
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.models import Listing, ParseResult

NAME = "agent_app"
MAX_BYTES = 32 * 1024
WELL_KNOWN_PATH = "/.well-known/agent-app.json"
SPEC = FormatSpec(
    NAME,
    priority=10,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATH,
    folder_files=(WELL_KNOWN_PATH.lstrip("/"), "agent-app.json"),
    title="the agent-app v1 format",
)

AUTH_METHODS = ("email_code", "magic_link", "oauth_provider", "mcp_oauth", "api_key", "none")
EVENTS = ("mcp_events", "webhook", "slack", "discord", "email", "poll", "none")
HOSTS = ("openclaw", "chatgpt", "claude", "claude_code", "codex", "openai_dots", "muse", "grok", "instinct", "other")
HOST_STATUSES = ("tested", "untested", "unsupported")
HUMAN_UI = ("none", "auth_only", "some")
CATEGORIES = (
    "lifestyle",
    "social",
    "productivity",
    "finance",
    "health",
    "education",
    "developer",
    "commerce",
    "travel",
    "home",
    "media",
    "utilities",
    "other",
)
AUDIENCES = ("all", "13+", "18+")
PRICING = ("free", "freemium", "paid")
MCP_AUTH = ("oauth", "bearer", "none")
MCP_TRANSPORTS = ("streamable-http",)
FEEDBACK_AUTH = ("none", "existing_account")
FEEDBACK_MAX_MESSAGE = 4000

TOP_LEVEL = (
    "agent_app",
    "name",
    "one_liner",
    "description",
    "homepage",
    "guide",
    "skill",
    "mcp",
    "http",
    "auth_methods",
    "events",
    "hosts",
    "pattern",
    "categories",
    "tags",
    "audience",
    "pricing",
    "publisher",
    "policies",
    "say",
    "instructions",
    "feedback",
)
RETIRED_TOP_LEVEL = ("updated_at",)
# Everything str.splitlines() splits on: "one line" means none of these.
LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# C0, DEL and C1 controls: urlsplit() silently strips some of them, so a URL carrying
# one would be stored and shown as something other than what was checked.
_URL_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NOT_URL_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")  # controls and lone surrogates


class _Checker(Checker):
    """The shared checker, read strictly: ``null`` is a type error and URLs carry no
    control characters."""

    def get(self, obj: dict, key: str, path: str, kind: type | tuple, required: bool = False) -> Any:
        """As :meth:`Checker.get`, but a present ``null`` is a ``type`` error."""
        if key in obj and obj[key] is None:
            where = join(path, key)
            self.error(where, "type", f"{where} is null; give it a value or leave the key out")
            return None
        return Checker.get(self, obj, key, path, kind, required)

    def check_url(self, value: str, where: str, *, https_only: bool = False) -> str | None:
        """As :meth:`Checker.check_url`, refusing control characters anywhere."""
        if _URL_CONTROL.search(value):
            self.error(where, "url", f"{where} contains control characters; it must be a plain absolute URL")
            return None
        return super().check_url(value, where, https_only=https_only)


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an agent-app manifest (32 KB limit)."""
    return read_document(
        data, validate_document, name=NAME, what="agent-app manifest", max_bytes=MAX_BYTES, origin=origin
    )


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as an agent-app manifest."""
    return isinstance(doc, dict) and "agent_app" in doc


def validate_document(doc: dict, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded manifest and normalise it into a :class:`Listing`."""
    c = _Checker()
    if not isinstance(doc, dict):
        c.error("", "not_object", f"the agent-app manifest is {type_name(doc)}; it must be a JSON object")
        return ParseResult(NAME, None, c.findings, doc)
    if not _version_ok(c, doc):
        return ParseResult(NAME, None, c.findings, doc)
    listing = Listing(format=NAME, origin=origin)
    c.unknown_keys(doc, "", TOP_LEVEL, silent=RETIRED_TOP_LEVEL)
    _identity(c, doc, listing)
    _links(c, doc, listing)
    _mcp(c, doc, listing)
    _http(c, doc, listing)
    if doc.get("mcp") is None and doc.get("http") is None:
        c.error("mcp", "one_of_required", "at least one of mcp and http is required")
    _catalogues(c, doc, listing)
    _publisher(c, doc, listing)
    _say_and_instructions(c, doc, listing)
    listing.feedback = _feedback(c, doc)
    return ParseResult(NAME, listing, c.findings, doc)


def _version_ok(c: Checker, doc: dict) -> bool:
    """False when the document is another version (nothing else is then checked)."""
    if "agent_app" not in doc:
        c.error("agent_app", "required", 'agent_app is required and must be the string "1"')
        return True  # keep validating: the rest is still worth reporting
    version = doc["agent_app"]
    if version == "1":
        return True
    is_number = isinstance(version, (int, float)) and not isinstance(version, bool)
    if isinstance(version, str) or (is_number and version != 1):
        shown = repr(version[:20]) if isinstance(version, str) else f"the number {version}"
        c.error(
            "agent_app",
            "unsupported_version",
            f'agent_app is {shown}: agentdex reads agent-app version "1" only, '
            "so nothing else in this manifest was checked",
        )
        return False
    c.error("agent_app", "type", f'agent_app must be the string "1", not {_shown_type(version)}')
    return True


def _shown_type(value: Any) -> str:
    return "the number 1" if value == 1 and not isinstance(value, bool) else type_name(value)


def _identity(c: Checker, doc: dict, listing: Listing) -> None:
    listing.name = c.string(doc, "name", "", True, max_len=64, min_len=1)
    listing.one_liner = c.string(doc, "one_liner", "", True, max_len=120, min_len=1)
    listing.description = c.string(doc, "description", "", True, max_len=1000, min_len=1)
    listing.homepage = c.url(doc, "homepage", "", True)


def _links(c: Checker, doc: dict, listing: Listing) -> None:
    guide = c.obj(doc, "guide", "", True)
    if guide is not None:
        listing.guide_url = c.url(guide, "url", "guide", True)
        listing.llms_txt_url = c.url(guide, "llms_txt", "guide")
        c.unknown_keys(guide, "guide", ("url", "llms_txt"), silent=("version",))
    skill = c.obj(doc, "skill", "")
    if skill is not None:
        listing.skill_url = c.url(skill, "url", "skill", True)
        c.unknown_keys(skill, "skill", ("url",))
    policies = c.obj(doc, "policies", "")
    if policies is not None:
        listing.privacy_url = c.url(policies, "privacy", "policies")
        listing.terms_url = c.url(policies, "terms", "policies")
        c.unknown_keys(policies, "policies", ("privacy", "terms"))


def _mcp(c: Checker, doc: dict, listing: Listing) -> None:
    mcp = c.obj(doc, "mcp", "")
    if mcp is None:
        return
    listing.mcp_url = c.url(mcp, "url", "mcp", True)
    listing.mcp_transport = c.enum(mcp, "transport", "mcp", MCP_TRANSPORTS, True)
    listing.mcp_auth = c.enum_array(mcp, "auth", "mcp", MCP_AUTH, True, min_items=1)
    c.unknown_keys(mcp, "mcp", ("url", "transport", "auth"))


def _http(c: Checker, doc: dict, listing: Listing) -> None:
    http = c.obj(doc, "http", "")
    if http is None:
        return
    listing.http_base = c.url(http, "base", "http", True)
    listing.http_openapi = c.url(http, "openapi", "http")
    listing.http_capabilities = c.url(http, "capabilities", "http")
    c.unknown_keys(http, "http", ("base", "openapi", "capabilities"))


def _catalogues(c: Checker, doc: dict, listing: Listing) -> None:
    listing.auth_methods = c.enum_array(doc, "auth_methods", "", AUTH_METHODS)
    listing.events = c.enum_array(doc, "events", "", EVENTS)
    listing.categories = c.enum_array(doc, "categories", "", CATEGORIES, True, min_items=1, max_items=3)
    listing.audience = c.enum(doc, "audience", "", AUDIENCES)
    listing.pricing = c.enum(doc, "pricing", "", PRICING, True)
    listing.tags = _tags(c, doc)
    listing.hosts = _hosts(c, doc)
    listing.pattern = _pattern(c, doc)


def _tags(c: Checker, doc: dict) -> list[str]:
    tags = c.array(doc, "tags", "", max_items=10)
    out: list[str] = []
    for i, tag in enumerate(tags or []):
        where = join("tags", i)
        if not isinstance(tag, str):
            c.error(where, "type", f"{where} must be a string, not {type_name(tag)}")
        elif c.check_string(tag, where, max_len=24, min_len=1) is None:
            continue
        elif tag != tag.lower():
            c.error(where, "lowercase", f"{where} {tag!r} must be lower case")
        elif tag in out:
            c.warn(where, "duplicate", f"{where} repeats {tag!r}")
        else:
            out.append(tag)
    return out


def _hosts(c: Checker, doc: dict) -> list[dict[str, Any]]:
    hosts = c.array(doc, "hosts", "")
    out, seen = [], set()
    for i, entry in enumerate(hosts or []):
        where = join("hosts", i)
        if not isinstance(entry, dict):
            c.error(where, "type", f"{where} must be an object {{host, status, notes?}}")
            continue
        host = c.enum(entry, "host", where, HOSTS, True)
        status = c.enum(entry, "status", where, HOST_STATUSES, True)
        notes = c.string(entry, "notes", where)
        c.unknown_keys(entry, where, ("host", "status", "notes"))
        if host in seen:
            c.warn(join(where, "host"), "duplicate", f"host {host!r} is listed more than once")
        elif host and status:
            seen.add(host)
            out.append({"host": host, "status": status, "notes": notes})
    return out


def _pattern(c: Checker, doc: dict) -> dict[str, Any]:
    pattern = c.obj(doc, "pattern", "")
    if pattern is None:
        return {}
    out = {
        "install_by_url": c.boolean(pattern, "install_by_url", "pattern"),
        "server_llm": c.boolean(pattern, "server_llm", "pattern"),
        "human_ui": c.enum(pattern, "human_ui", "pattern", HUMAN_UI),
    }
    c.unknown_keys(pattern, "pattern", out.keys())
    return {k: v for k, v in out.items() if v is not None}


def _publisher(c: Checker, doc: dict, listing: Listing) -> None:
    publisher = c.obj(doc, "publisher", "", True)
    if publisher is None:
        return
    listing.publisher_name = c.string(publisher, "name", "publisher", True, min_len=1)
    listing.publisher_url = c.url(publisher, "url", "publisher")
    contact = c.string(publisher, "contact", "publisher", True)
    if contact is not None and not _is_contact(contact):
        c.error(
            "publisher.contact",
            "contact",
            f"publisher.contact must be a mailto: address or an absolute URL, not {contact[:80]!r}",
        )
        contact = None
    listing.publisher_contact = contact
    c.unknown_keys(publisher, "publisher", ("name", "url", "contact"))


def _is_contact(value: str) -> bool:
    if value.startswith("mailto:"):
        if _URL_CONTROL.search(value) or any(ch.isspace() for ch in value):
            return False
        return bool(EMAIL_RE.fullmatch(value[7:].split("?", 1)[0]))
    return is_absolute_url(value) and not _URL_CONTROL.search(value)


def _say_and_instructions(c: Checker, doc: dict, listing: Listing) -> None:
    say = c.array(doc, "say", "", max_items=5)
    for i, line in enumerate(say or []):
        where = join("say", i)
        if not isinstance(line, str):
            c.error(where, "type", f"{where} must be a string, not {type_name(line)}")
        elif c.check_string(line, where, max_len=80, min_len=1) is not None:
            listing.say.append(line)
    listing.instructions = _instructions(c, doc, listing.name)


def _instructions(c: Checker, doc: dict, name: str | None) -> str | None:
    """One line of at most 280 characters that begins with the app's name."""
    text = c.string(doc, "instructions", "", max_len=280, min_len=1)
    if text is None:
        return None
    ok = True
    if LINE_BREAKS.search(text):
        c.error("instructions", "single_line", "instructions must be one line; it contains a line break")
        ok = False
    if name and not _leads_with(text, name):
        c.error(
            "instructions",
            "leading_name",
            f"instructions must begin with the app's name {name!r}, then a space or punctuation",
        )
        ok = False
    return text if ok else None


def _leads_with(text: str, name: str) -> bool:
    # The name must be a whole word at the front: "Pan" does not lead "Pantry tracks…".
    if not text.startswith(name):
        return False
    rest = text[len(name) :]
    return not (rest and rest[0].isalnum() and name[-1].isalnum())


def _feedback(c: Checker, doc: dict) -> dict[str, Any] | None:
    """The optional feedback descriptor (an additive v1 field)."""
    value = c.obj(doc, "feedback", "")
    if value is None:
        return None
    out = {
        "url": c.url(value, "url", "feedback", True),
        "method": c.enum(value, "method", "feedback", ("POST",), True),
        "authentication": c.enum(value, "authentication", "feedback", FEEDBACK_AUTH, True),
        "operation": c.enum(value, "operation", "feedback", ("feedback.submit",), True),
        "max_message_length": c.number(
            value, "max_message_length", "feedback", minimum=1, maximum=FEEDBACK_MAX_MESSAGE, integer=True
        ),
        "requires_user_request": _requires_user_request(c, value),
    }
    c.unknown_keys(value, "feedback", out.keys())
    return out


def _requires_user_request(c: Checker, value: dict) -> bool | None:
    flag = c.boolean(value, "requires_user_request", "feedback", True)
    if flag is False:
        c.error(
            "feedback.requires_user_request",
            "const",
            "feedback.requires_user_request must be true: feedback is sent only on the user's explicit request",
        )
    return flag


def feedback_problems(descriptor: dict[str, Any]) -> list[str]:
    """What makes a feedback descriptor unusable for a client, as sentences (empty when it
    is usable): the one rule both the crawler's ``feedback.descriptor`` check and the
    feedback client apply before anything is sent."""
    problems = [] if _is_https_url(descriptor.get("url")) else ["url must be an https URL without credentials"]
    if descriptor.get("method") != "POST":
        problems.append("method must be POST")
    if descriptor.get("operation") != "feedback.submit":
        problems.append("operation must be feedback.submit")
    if descriptor.get("requires_user_request") is not True:
        problems.append("requires_user_request must be true")
    if descriptor.get("authentication") not in FEEDBACK_AUTH:
        problems.append(f"authentication must be {' or '.join(FEEDBACK_AUTH)}")
    limit = descriptor.get("max_message_length")
    if limit is not None and (type(limit) is not int or not 1 <= limit <= FEEDBACK_MAX_MESSAGE):
        problems.append(f"max_message_length must be a whole number from 1 to {FEEDBACK_MAX_MESSAGE}")
    return problems


def _is_https_url(value: object) -> bool:
    if not isinstance(value, str) or _NOT_URL_TEXT.search(value) or any(ch.isspace() for ch in value):
        return False
    try:
        parts = urlsplit(value)
        return parts.scheme == "https" and bool(parts.hostname) and "@" not in parts.netloc
    except ValueError:
        return False
