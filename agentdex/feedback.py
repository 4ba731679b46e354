"""Feedback to an app's developer, sent only on the user's explicit request.

The agent-app spec's feedback contract, seen from a client (section "User feedback reaches
the developer"): the user writes the message and confirms; the message is trimmed and
checked (1–4,000 characters, at most 16,000 UTF-8 bytes, no control characters but tab,
newline and carriage return); one fresh UUID-v4 idempotency key belongs to that deliberate
submission and every retry reuses it; the body carries exactly ``message``,
``user_requested`` and ``idempotency_key``, never a profile, conversation, contact details,
credentials or diagnostics. A receipt ``{feedback_id, status, received_at}`` is kept exactly
as the developer's server sent it; without one the submission is a failure. Never an
invented receipt.

Typical use (the TUI)::

    draft = new_draft(listing.feedback, listing.origin, text)   # FeedbackError: say why
    outcome = await send(draft, fetcher)                        # never raises
    show(outcome.message)
    if outcome.retryable: ... later: await send(draft, fetcher)  # same Draft, same key
    if outcome.receipt: save_feedback_receipt(db, **receipt_row(draft, outcome))

The crawler never calls this module: feedback is a user's act, not a crawl's.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from agentdex.errors import AgentdexError
from agentdex.formats._load import load_json
from agentdex.formats.agent_app import FEEDBACK_MAX_MESSAGE, feedback_problems
from agentdex.headers import retry_after_seconds
from agentdex.models import FetchRecord
from agentdex.text import plain

MAX_MESSAGE_CHARS = FEEDBACK_MAX_MESSAGE  # the spec's limit, also a descriptor's largest
MAX_MESSAGE_BYTES = 16_000
RESPONSE_CAP = 64 * 1024  # a receipt is a few hundred bytes; an error envelope not much more
RECEIPT_FIELDS = ("feedback_id", "status", "received_at")
OUTCOMES = ("received", "conflict", "rate_limited", "failed")

# C0 controls but tab/newline/CR, DEL, C1 controls, and lone surrogates (not text at all).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_ERROR_CODE = re.compile(r"[A-Z][A-Z0-9_]{0,63}")

RECEIVED_MEANS = (
    "Received means saved where the developer can read it; it does not mean emailed, read, accepted or acted upon."
)
CONFLICT = (
    "IDEMPOTENCY_CONFLICT: this key was already used with a different message; "
    "nothing was changed — start a new submission."
)
SAME_KEY = "you may retry; the same key is reused so the developer gets it at most once."


class Fetcher(Protocol):
    """What :func:`send` needs: :class:`agentdex.crawler.fetch.Fetcher`'s ``fetch``."""

    async def fetch(
        self,
        url: str,
        *,
        kind: str,
        max_bytes: int,
        method: str = ...,
        content: bytes | None = ...,
        headers: dict[str, str] | None = ...,
        accept: str | None = ...,
        same_origin: bool = ...,
        honour_robots: bool = ...,
    ) -> FetchRecord: ...


class FeedbackError(AgentdexError):
    """Feedback that agentdex will not send (no usable descriptor, a message that breaks
    the rules), or a receipt asked for where none came back."""


# -- the message -------------------------------------------------------------------------------


def check_message(text: str, max_length: int = MAX_MESSAGE_CHARS) -> tuple[str | None, str | None]:
    """``(trimmed message, None)`` when ``text`` may be sent, else ``(None, reason)``.

    The limit is ``min(4000, max_length)`` Unicode characters (code points) after trimming,
    and at most 16,000 UTF-8 bytes. Control characters other than tab, newline and
    carriage return are refused anywhere in ``text`` (also at its edges: trimming must not
    quietly hide them), and so are lone surrogates.
    """
    if not isinstance(text, str):
        return None, "the message must be text"
    bad = _FORBIDDEN.search(text)
    if bad:
        return None, _forbidden_reason(bad.group(), bad.start())
    message = text.strip()
    limit = min(MAX_MESSAGE_CHARS, max_length)
    if not message:
        return None, "the message is empty; write what the developer should read"
    if len(message) > limit:
        return None, f"the message is {len(message):,} characters long; the limit is {limit:,}"
    size = len(message.encode("utf-8"))
    if size > MAX_MESSAGE_BYTES:
        return None, f"the message is {size:,} bytes in UTF-8; the limit is {MAX_MESSAGE_BYTES:,}"
    return message, None


def _forbidden_reason(char: str, index: int) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return f"character {index + 1} is a lone surrogate (U+{code:04X}), which is not valid text"
    return (
        f"character {index + 1} is a control character (U+{code:04X}); only tab, newline "
        "and carriage return are allowed"
    )


# -- the draft -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draft:
    """One deliberate submission: the checked message and its idempotency key.

    Frozen, because a retry must send the same message under the same key.
    """

    origin: str
    url: str
    message: str
    idempotency_key: str
    created_at: str


def new_draft(listing_feedback: dict[str, Any] | None, origin: str, text: str) -> Draft:
    """A draft for the message the user wrote and confirmed, with a fresh UUID-v4 key.

    :raises FeedbackError: the listing declares no feedback descriptor, the descriptor is
        inconsistent with the spec, it needs an account agentdex does not hold, or the
        message breaks the rules (the exception's text says which, for the user)
    """
    where = plain(origin, 200, single_line=True)
    if not isinstance(listing_feedback, dict) or not listing_feedback:
        raise FeedbackError(f"{where} declares no feedback route, so agentdex cannot send it feedback.")
    problems = feedback_problems(listing_feedback)
    if problems:
        raise FeedbackError(
            f"The feedback route of {where} is inconsistent ({'; '.join(problems)}); "
            "agentdex does not send feedback there."
        )
    if listing_feedback["authentication"] == "existing_account":
        raise FeedbackError(
            f"{where} accepts feedback only from signed-in users, and agentdex holds no "
            "account of yours; send it from the app itself."
        )
    limit = listing_feedback.get("max_message_length") or MAX_MESSAGE_CHARS
    message, reason = check_message(text, limit)
    if message is None:
        raise FeedbackError(f"This feedback cannot be sent: {reason}.")
    return Draft(origin, listing_feedback["url"], message, str(uuid.uuid4()), _utc_now())


def request_body(draft: Draft) -> bytes:
    """The JSON body: exactly ``message``, ``user_requested: true`` and ``idempotency_key``.

    :raises FeedbackError: the draft's message breaks the rules (a draft built by hand)
    """
    message, reason = check_message(draft.message)
    if message != draft.message:
        raise FeedbackError(f"This feedback cannot be sent: {reason or 'the message is not trimmed'}.")
    body = {"message": draft.message, "user_requested": True, "idempotency_key": draft.idempotency_key}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# -- sending --------------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """What became of one attempt to send a draft.

    ``status`` is one of OUTCOMES. ``receipt`` is ``{feedback_id, status, received_at}``
    exactly as the server sent them, present only for ``received``. ``raw_response`` is the
    parsed JSON answer and ``raw_body`` its bytes as received (None when there was none).
    ``retry_after`` is in seconds (429 only, when the server said). ``retryable``: sending
    the same draft again may help. ``message`` is a sentence for the user.
    """

    status: str
    message: str
    receipt: dict[str, Any] | None = None
    raw_response: Any = None
    raw_body: bytes | None = None
    http_status: int | None = None
    retry_after: int | None = None
    retryable: bool = False
    sent_at: str = ""


async def send(draft: Draft, fetcher: Fetcher) -> Outcome:
    """POST the draft once through the fetch policy and say what became of it; never raises
    for a network or server failure. To retry, call again with the same ``draft``.

    robots.txt is not consulted (this is the user's request, not a crawl); a redirect to
    another origin is refused, so the message never goes where the descriptor did not say.
    """
    record = await fetcher.fetch(
        draft.url,
        kind="feedback",
        max_bytes=RESPONSE_CAP,
        method="POST",
        content=request_body(draft),
        headers={"Content-Type": "application/json"},
        accept="application/json",
        same_origin=True,
        honour_robots=False,
    )
    return interpret(record)


def interpret(record: FetchRecord) -> Outcome:
    """The Outcome of one feedback POST's FetchRecord (see :func:`send`)."""
    if record.error_code == "cross_origin":
        return Outcome(
            "failed",
            "Not sent: the feedback route redirects to another origin, and agentdex "
            "sends your message only where the app's descriptor says.",
            sent_at=record.fetched_at,
        )
    if record.status is None or record.error_code not in (None, "http_status"):
        reason = plain(record.error or "no answer", 300, single_line=True)
        return Outcome(
            "failed",
            f"Not sent / unknown ({reason}): {SAME_KEY}",
            http_status=record.status,
            retryable=True,
            sent_at=record.fetched_at,
        )
    parsed = _parsed(record.body)
    outcome = Outcome(
        "failed", "", raw_response=parsed, raw_body=record.body, http_status=record.status, sent_at=record.fetched_at
    )
    _explain(outcome, record)
    return outcome


def _explain(outcome: Outcome, record: FetchRecord) -> None:
    """Fill in status, message, receipt and retry advice from the answer's status code."""
    status = record.status or 0
    if 200 <= status < 300:
        _take_receipt(outcome)
    elif status == 409:
        outcome.status, outcome.message = "conflict", CONFLICT
    elif status == 429:
        outcome.status, outcome.retryable = "rate_limited", True
        outcome.retry_after = _retry_after(record, outcome.raw_response)
        wait = f"in {outcome.retry_after} seconds" if outcome.retry_after is not None else "later"
        outcome.message = f"RATE_LIMITED: try again {wait}; retrying reuses the same key."
    elif status >= 500:
        outcome.retryable = True
        outcome.message = f"Not received: the developer's server failed (HTTP {status}{_code(outcome)}); {SAME_KEY}"
    else:
        outcome.message = (
            f"Not received: the developer's server refused the submission (HTTP {status}"
            f"{_code(outcome)}); sending it again unchanged will not help."
        )


def _take_receipt(outcome: Outcome) -> None:
    """A received outcome when the success envelope's data holds a receipt; never invent one."""
    data = outcome.raw_response.get("data") if isinstance(outcome.raw_response, dict) else None
    if not isinstance(data, dict) or not all(name in data for name in RECEIPT_FIELDS):
        outcome.retryable = True
        outcome.message = (
            "Unknown: the developer's server answered HTTP "
            f"{outcome.http_status} but sent no receipt (feedback_id, status, received_at), "
            f"so agentdex does not assume it was saved; {SAME_KEY}"
        )
        return
    receipt = {name: data[name] for name in RECEIPT_FIELDS}
    if receipt["status"] != "received":
        outcome.message = (
            f"Not confirmed: the receipt says {plain(receipt['status'], 60, single_line=True)!r}, "
            "not 'received', so agentdex does not treat the feedback as saved."
        )
        return
    feedback_id = plain(receipt["feedback_id"], 80, single_line=True)
    received_at = plain(receipt["received_at"], 60, single_line=True)
    outcome.status, outcome.receipt = "received", receipt
    outcome.message = f"Received (feedback {feedback_id}, at {received_at}). {RECEIVED_MEANS}"


def _parsed(body: bytes | None) -> Any:
    """The answer as JSON (any value), or None when there is no answer or it is not JSON."""
    if not body:
        return None
    value, findings = load_json(body, what="answer", require_object=False)
    return None if findings else value


def _code(outcome: Outcome) -> str:
    """ ", CODE" from an error envelope, when it holds a plain code word."""
    error = outcome.raw_response.get("error") if isinstance(outcome.raw_response, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return f", {code}" if isinstance(code, str) and _ERROR_CODE.fullmatch(code) else ""


def _retry_after(record: FetchRecord, parsed: Any) -> int | None:
    """Seconds to wait: the Retry-After header, else a retry hint in the error envelope."""
    header = record.headers.get("retry-after")
    seconds = retry_after_seconds(header) if header is not None else None
    if seconds is None and isinstance(parsed, dict):
        seconds = _body_hint(parsed.get("error"))
        seconds = _body_hint(parsed) if seconds is None else seconds
    return math.ceil(seconds) if seconds is not None else None


def _body_hint(where: Any) -> float | None:
    if not isinstance(where, dict):
        return None
    for name in ("retry_after", "retry_after_seconds"):
        value = where.get(name)
        # Parsed JSON: a number is an int or a float; true and false are bools and no hint.
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 10**7:
            return float(value)
    return None


# -- keeping the receipt ----------------------------------------------------------------------


def receipt_row(draft: Draft, outcome: Outcome) -> dict[str, Any]:
    """The ``feedback_receipts`` row for a received outcome: the receipt exactly as received,
    the raw answer as its own text, and the message only as a sha256 (never the message).

    :raises FeedbackError: the outcome carries no receipt (there is nothing to keep, and
        agentdex never invents one)
    """
    if outcome.status != "received" or outcome.receipt is None or outcome.raw_body is None:
        raise FeedbackError("There is no receipt to keep: the developer's server did not confirm the feedback.")
    return {
        "origin": draft.origin,
        "idempotency_key": draft.idempotency_key,
        "message_sha256": hashlib.sha256(draft.message.encode("utf-8")).hexdigest(),
        "feedback_id": outcome.receipt["feedback_id"],
        "status": outcome.receipt["status"],
        "received_at": outcome.receipt["received_at"],
        "raw_response": outcome.raw_body.decode("utf-8"),  # load_json accepted it: valid UTF-8
        "sent_at": outcome.sent_at,
    }


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
