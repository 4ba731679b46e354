"""A developer feedback inbox: the agent-app spec's shared minimal contract.

``POST`` a JSON body ``{"message", "user_requested": true, "idempotency_key": <uuid>}``.
- 201 ``{"data": {feedback_id, status: "received", received_at}}`` for a new submission;
- 200 with the same receipt for the same key and message (a retry after a lost response);
- 409 ``IDEMPOTENCY_CONFLICT`` for the same key with a different message;
- 400 ``VALIDATION_ERROR`` for anything else off-contract (unknown fields, a message that is
  empty after trimming, over 4,000 characters or 16,000 UTF-8 bytes, control characters
  other than tab/newline/carriage return, a key that is not a UUID);
- 429 ``RATE_LIMITED`` with ``Retry-After`` once ``rate_limit`` submissions were accepted.

The crawler must never POST here; only the TUI does, on a user's explicit request. The
inbox (``MountedApp.state``) keeps every receipt so tests can read it.

Options: ``rate_limit`` (accepted submissions before every new one gets 429; default none),
``max_message_length`` (default 4000).
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agentdex.sampleweb.apps import AppContext, MountedApp
from agentdex.sampleweb.responses import Receive, Scope, Send, send_json

FIELDS = ("message", "user_requested", "idempotency_key")
MAX_BYTES = 16_000
ALLOWED_CONTROLS = "\t\n\r"


@dataclass
class Inbox:
    """Every accepted submission, keyed by idempotency key (thread-safe)."""

    rate_limit: int | None = None
    max_chars: int = 4000
    items: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def receipts(self) -> list[dict[str, Any]]:
        """The receipts issued so far, with their messages."""
        with self.lock:
            return [{**receipt, "message": message} for message, receipt in self.items.values()]

    def submit(self, key: str, message: str) -> tuple[int, dict[str, Any]]:
        """Store a submission; status and JSON answer."""
        with self.lock:
            if key in self.items:
                stored, receipt = self.items[key]
                if stored != message:
                    return 409, _error("IDEMPOTENCY_CONFLICT", "This idempotency key was used for a different message.")
                return 200, {"data": receipt}
            if self.rate_limit is not None and len(self.items) >= self.rate_limit:
                return 429, _error("RATE_LIMITED", "Too many submissions; retry later with the same key.")
            receipt = {
                "feedback_id": "fb_" + uuid.uuid4().hex[:16],
                "status": "received",
                "received_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            }
            self.items[key] = (message, receipt)
            return 201, {"data": receipt}


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def validate(body: bytes, max_chars: int) -> tuple[str, str] | str:
    """(idempotency key, trimmed message), or the reason the body is refused."""
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return "The body must be a JSON object."
    if not isinstance(doc, dict):
        return "The body must be a JSON object."
    unknown = sorted(set(doc) - set(FIELDS))
    if unknown:
        return f"Unsupported fields: {', '.join(unknown)}."
    if doc.get("user_requested") is not True:
        return "user_requested must be true: feedback is sent only on the user's request."
    key = doc.get("idempotency_key")
    try:
        uuid.UUID(str(key))
    except ValueError:
        return "idempotency_key must be a UUID."
    message = doc.get("message")
    if not isinstance(message, str):
        return "message must be a string."
    return _check_message(message.strip(), max_chars) or (str(key), message.strip())


def _check_message(message: str, max_chars: int) -> str | None:
    if not 1 <= len(message) <= max_chars:
        return f"message must be 1 to {max_chars} characters after trimming."
    if len(message.encode("utf-8")) > MAX_BYTES:
        return f"message must be at most {MAX_BYTES} UTF-8 bytes."
    if any((ord(ch) < 32 or ord(ch) == 127) and ch not in ALLOWED_CONTROLS for ch in message):
        return "message must not contain control characters."
    return None


async def read_body(receive: Receive) -> bytes:
    """The whole request body."""
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body"):
            return b"".join(chunks)


def build(ctx: AppContext) -> MountedApp:
    """The ``feedback`` app."""
    rate = ctx.options.get("rate_limit")
    inbox = Inbox(
        rate_limit=None if rate is None else int(rate), max_chars=int(ctx.options.get("max_message_length", 4000))
    )

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await send_json(send, 405, _error("METHOD_NOT_ALLOWED", "Use POST."), {"Allow": "POST"})
            return
        checked = validate(await read_body(receive), inbox.max_chars)
        if isinstance(checked, str):
            await send_json(send, 400, _error("VALIDATION_ERROR", checked))
            return
        status, answer = inbox.submit(*checked)
        await send_json(send, status, answer, {"Retry-After": "60"} if status == 429 else None)

    return MountedApp(app=app, state=inbox)
