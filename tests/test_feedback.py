"""Feedback to a developer (agentdex.feedback): the message rules, the draft's refusals, the
exact request body, and send() over real TLS sockets against a developer inbox that keeps
the spec's contract (tests/netfixtures.py serves it on 127.0.0.1)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from agentdex import feedback
from agentdex.crawler.fetch import Fetcher
from agentdex.errors import AgentdexError
from agentdex.feedback import FeedbackError, Outcome, check_message, new_draft, receipt_row, request_body, send
from netfixtures import Reply, Request, TLSServer, closed_port, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401

URL = "https://a.test/v1/feedback"
DESCRIPTOR = {
    "url": URL,
    "method": "POST",
    "authentication": "none",
    "operation": "feedback.submit",
    "max_message_length": 4000,
    "requires_user_request": True,
}
ORIGIN = "a.test"


# -- the message rules ---------------------------------------------------------------------------


def test_the_message_is_trimmed() -> None:
    assert check_message("  \n Please add dark mode.\t \r\n") == ("Please add dark mode.", None)


def test_a_message_empty_after_trimming_is_refused() -> None:
    message, reason = check_message(" \t\r\n ")
    assert message is None and "empty" in reason
    assert check_message("x") == ("x", None)


def test_4000_characters_pass_and_4001_do_not() -> None:
    assert check_message("a" * 4000) == ("a" * 4000, None)
    message, reason = check_message("a" * 4001)
    assert message is None and "4,001 characters" in reason and "4,000" in reason


def test_characters_are_counted_as_code_points_after_trimming() -> None:
    assert check_message("  " + "é" * 4000 + "  ")[0] == "é" * 4000


def test_four_byte_characters_fill_exactly_16000_bytes_at_4000_characters() -> None:
    text = "😀" * 4000
    assert len(text.encode("utf-8")) == 16_000
    assert check_message(text) == (text, None)
    assert check_message(text + "😀")[0] is None


def test_the_utf8_byte_limit_is_checked_separately(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4,000 code points never exceed 16,000 bytes, so a lower byte limit shows the rule at work.
    monkeypatch.setattr(feedback, "MAX_MESSAGE_BYTES", 15_999)
    message, reason = check_message("😀" * 4000)
    assert message is None and "16,000 bytes" in reason and "15,999" in reason
    assert check_message("😀" * 3999)[0] == "😀" * 3999


def test_a_descriptors_lower_max_message_length_applies() -> None:
    assert check_message("a" * 10, 10) == ("a" * 10, None)
    message, reason = check_message("a" * 11, 10)
    assert message is None and "limit is 10" in reason


def test_a_higher_max_message_length_never_lifts_the_4000_limit() -> None:
    assert check_message("a" * 4001, 10_000)[0] is None


def test_tab_newline_and_carriage_return_are_allowed_inside() -> None:
    text = "line one\r\nline two\n\tindented"
    assert check_message(text) == (text, None)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85", "\x0b", "\x0c", "\x9f"])
def test_other_control_characters_are_refused(char: str) -> None:
    message, reason = check_message(f"hello{char}world")
    assert message is None and f"U+{ord(char):04X}" in reason and "character 6" in reason


@pytest.mark.parametrize("char", ["\x85", "\x1c", "\x0b"])
def test_control_characters_that_python_calls_whitespace_are_refused_at_the_edges_too(char: str) -> None:
    assert check_message(f"hello{char}")[0] is None


def test_a_lone_surrogate_is_refused() -> None:
    message, reason = check_message("broken \ud83d text")
    assert message is None and "surrogate" in reason
    assert check_message("whole \U0001f600 text")[0] == "whole \U0001f600 text"


# -- drafts -------------------------------------------------------------------------------------


def test_a_draft_has_the_trimmed_message_and_a_fresh_uuid4_key() -> None:
    first = new_draft(DESCRIPTOR, ORIGIN, "  Please make results easier to compare. ")
    second = new_draft(DESCRIPTOR, ORIGIN, "Please make results easier to compare.")
    assert first.message == "Please make results easier to compare." and first.url == URL
    assert uuid.UUID(first.idempotency_key).version == 4
    assert first.idempotency_key != second.idempotency_key  # one key per deliberate submission
    assert first.origin == ORIGIN and first.created_at.endswith("Z")


def test_a_draft_cannot_change_its_key_or_message() -> None:
    draft = new_draft(DESCRIPTOR, ORIGIN, "hello")
    with pytest.raises(dataclasses.FrozenInstanceError):
        draft.idempotency_key = str(uuid.uuid4())  # type: ignore[misc]


@pytest.mark.parametrize("descriptor", [None, {}])
def test_no_descriptor_means_no_draft(descriptor: dict | None) -> None:
    with pytest.raises(FeedbackError, match="declares no feedback route"):
        new_draft(descriptor, ORIGIN, "hello")


@pytest.mark.parametrize(("change", "problem"), [
    ({"url": "http://a.test/v1/feedback"}, "url must be an https URL"),
    ({"url": "https://user:pw@a.test/v1/feedback"}, "url must be an https URL"),
    ({"url": None}, "url must be an https URL"),
    ({"method": "GET"}, "method must be POST"),
    ({"operation": "feedback.list"}, "operation must be feedback.submit"),
    ({"requires_user_request": False}, "requires_user_request must be true"),
    ({"requires_user_request": "true"}, "requires_user_request must be true"),
    ({"authentication": "bearer"}, "authentication must be none or existing_account"),
    ({"max_message_length": 0}, "max_message_length"),
    ({"max_message_length": 5000}, "max_message_length"),
])  # fmt: skip
def test_an_inconsistent_descriptor_is_refused(change: dict, problem: str) -> None:
    with pytest.raises(FeedbackError, match="inconsistent") as caught:
        new_draft({**DESCRIPTOR, **change}, ORIGIN, "hello")
    assert problem in str(caught.value)


def test_a_descriptor_without_max_message_length_allows_4000() -> None:
    descriptor = {k: v for k, v in DESCRIPTOR.items() if k != "max_message_length"}
    assert new_draft(descriptor, ORIGIN, "a" * 4000).message == "a" * 4000


def test_an_existing_account_route_is_left_to_the_app_itself() -> None:
    with pytest.raises(FeedbackError, match="from the app itself") as caught:
        new_draft({**DESCRIPTOR, "authentication": "existing_account"}, ORIGIN, "hello")
    assert isinstance(caught.value, AgentdexError)


def test_a_message_over_the_descriptors_limit_is_refused_with_the_reason() -> None:
    descriptor = {**DESCRIPTOR, "max_message_length": 20}
    assert new_draft(descriptor, ORIGIN, "a" * 20).message == "a" * 20
    with pytest.raises(FeedbackError, match="21 characters long; the limit is 20"):
        new_draft(descriptor, ORIGIN, "a" * 21)


def test_a_message_with_a_control_character_gets_no_draft() -> None:
    with pytest.raises(FeedbackError, match=r"U\+001B"):
        new_draft(DESCRIPTOR, ORIGIN, "\x1b[31mred")


# -- the request body ------------------------------------------------------------------------------


def test_the_body_holds_exactly_the_three_fields() -> None:
    draft = new_draft(DESCRIPTOR, ORIGIN, " Café ☕ please\n")
    body = request_body(draft)
    assert json.loads(body) == {
        "message": "Café ☕ please",
        "user_requested": True,
        "idempotency_key": draft.idempotency_key,
    }
    assert list(json.loads(body)) == ["message", "user_requested", "idempotency_key"]
    assert "Café ☕".encode() in body  # UTF-8 as it is, not \u escapes that would triple the size


def test_a_hand_built_draft_that_breaks_the_rules_is_not_sent() -> None:
    draft = new_draft(DESCRIPTOR, ORIGIN, "fine")
    with pytest.raises(FeedbackError):
        request_body(dataclasses.replace(draft, message="bad\x00"))
    with pytest.raises(FeedbackError, match="not trimmed"):
        request_body(dataclasses.replace(draft, message=" untrimmed "))


# -- a developer inbox on a real HTTPS server ---------------------------------------------------------


class Inbox:
    """The spec's minimal contract: durable items by key, same key and message → same
    receipt, a changed message → 409; plus switches for the failures a client must face."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[str, dict]] = {}
        self.requests: list[Request] = []
        self.rate_limited = 0  # answer 429 to the next N requests
        self.retry_after: str | None = "7"  # the 429's Retry-After header (None: none sent)
        self.retry_hint: dict | None = None  # extra fields of the 429's error object
        self.lose_next_response = False  # store, then drop the connection without answering
        self.canned: Reply | None = None  # answer this to every request instead

    async def handle(self, request: Request) -> Reply:
        self.requests.append(request)
        if self.canned is not None:
            return self.canned
        if self.rate_limited:
            self.rate_limited -= 1
            headers = {"Retry-After": self.retry_after} if self.retry_after is not None else {}
            return json_reply({"error": {"code": "RATE_LIMITED", **(self.retry_hint or {})}}, 429, **headers)
        doc = json.loads(request.body)
        key, message = doc["idempotency_key"], doc["message"]
        if key in self.items:
            stored, receipt = self.items[key]
            if stored != message:
                return json_reply({"error": {"code": "IDEMPOTENCY_CONFLICT"}}, 409)
            return json_reply({"data": receipt}, 200)
        receipt = {
            "feedback_id": f"fb_{len(self.items) + 1}",
            "status": "received",
            "received_at": datetime.now(UTC).isoformat(),
        }
        self.items[key] = (message, receipt)  # committed before any answer is written
        if self.lose_next_response:
            self.lose_next_response = False
            raise ConnectionResetError("the answer is lost on the way back")  # the server closes the socket
        return json_reply({"data": receipt}, 201)


@pytest.fixture
def inbox(tls_server: TLSServer) -> Inbox:
    box = Inbox()
    tls_server.routes["/v1/feedback"] = box.handle
    return box


@pytest.fixture
async def fetcher(tls_server: TLSServer) -> AsyncIterator[Fetcher]:
    async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, retries=0, deadline=5.0) as f:
        yield f


def draft_of(text: str = "Please make the results easier to compare.") -> feedback.Draft:
    return new_draft(DESCRIPTOR, ORIGIN, text)


async def test_a_submission_is_received_with_the_receipt_as_sent(inbox: Inbox, fetcher: Fetcher) -> None:
    draft = draft_of()
    outcome = await send(draft, fetcher)
    stored_message, stored_receipt = inbox.items[draft.idempotency_key]
    assert outcome.status == "received" and outcome.http_status == 201 and not outcome.retryable
    assert outcome.receipt == stored_receipt and stored_message == draft.message
    assert outcome.raw_response == {"data": stored_receipt}
    assert "fb_1" in outcome.message
    assert "does not mean emailed, read, accepted or acted upon" in outcome.message


async def test_the_server_gets_exactly_the_three_fields_as_json(inbox: Inbox, fetcher: Fetcher) -> None:
    draft = draft_of()
    await send(draft, fetcher)
    (request,) = inbox.requests
    assert request.method == "POST"
    assert json.loads(request.body) == {
        "message": draft.message,
        "user_requested": True,
        "idempotency_key": draft.idempotency_key,
    }
    assert request.headers["content-type"] == "application/json"
    assert request.headers["accept"] == "application/json"
    assert not {"cookie", "authorization"} & set(request.headers)


async def test_the_same_key_and_message_get_the_same_receipt(inbox: Inbox, fetcher: Fetcher) -> None:
    draft = draft_of()
    first, again = await send(draft, fetcher), await send(draft, fetcher)
    assert first.receipt == again.receipt and again.status == "received"
    assert len(inbox.items) == 1


async def test_a_retry_after_a_lost_response_gets_the_stored_receipt(inbox: Inbox, fetcher: Fetcher) -> None:
    draft = draft_of()
    inbox.lose_next_response = True
    lost = await send(draft, fetcher)
    assert lost.status == "failed" and lost.receipt is None and lost.retryable
    assert lost.message.startswith("Not sent / unknown") and "same key is reused" in lost.message
    assert len(inbox.items) == 1  # the server did save it: only the answer was lost
    retried = await send(draft, fetcher)
    assert retried.status == "received" and retried.receipt == inbox.items[draft.idempotency_key][1]
    assert len(inbox.items) == 1 and inbox.requests[0].body == inbox.requests[1].body


async def test_a_changed_message_under_the_same_key_is_a_conflict(inbox: Inbox, fetcher: Fetcher) -> None:
    draft = draft_of("first words")
    assert (await send(draft, fetcher)).status == "received"
    outcome = await send(dataclasses.replace(draft, message="second thoughts"), fetcher)
    assert outcome.status == "conflict" and outcome.http_status == 409 and outcome.receipt is None
    assert outcome.message.startswith("IDEMPOTENCY_CONFLICT") and "start a new submission" in outcome.message
    assert not outcome.retryable and inbox.items[draft.idempotency_key][0] == "first words"


async def test_rate_limited_says_when_to_retry_and_the_retry_uses_the_same_key(inbox: Inbox, fetcher: Fetcher) -> None:
    draft = draft_of()
    inbox.rate_limited = 1
    limited = await send(draft, fetcher)
    assert limited.status == "rate_limited" and limited.http_status == 429 and limited.retryable
    assert limited.retry_after == 7 and limited.receipt is None and not inbox.items
    assert limited.message == "RATE_LIMITED: try again in 7 seconds; retrying reuses the same key."
    assert (await send(draft, fetcher)).status == "received"
    keys = {json.loads(r.body)["idempotency_key"] for r in inbox.requests}
    assert keys == {draft.idempotency_key}


async def test_a_retry_hint_in_the_body_is_used_without_retry_after(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.rate_limited, inbox.retry_after, inbox.retry_hint = 1, None, {"retry_after": 30}
    outcome = await send(draft_of(), fetcher)
    assert outcome.retry_after == 30 and "in 30 seconds" in outcome.message


async def test_rate_limited_without_a_hint_says_later(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.rate_limited, inbox.retry_after = 1, None
    outcome = await send(draft_of(), fetcher)
    assert outcome.retry_after is None and "try again later" in outcome.message


async def test_a_success_without_a_receipt_is_a_failure_not_an_invented_receipt(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.canned = json_reply({"ok": True}, 200)
    draft = draft_of()
    outcome = await send(draft, fetcher)
    assert outcome.status == "failed" and outcome.receipt is None and outcome.http_status == 200
    assert "no receipt" in outcome.message and outcome.raw_response == {"ok": True}
    with pytest.raises(FeedbackError, match="no receipt to keep"):
        receipt_row(draft, outcome)


async def test_a_receipt_that_does_not_say_received_is_not_taken_as_saved(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.canned = json_reply({"data": {"feedback_id": "fb_9", "status": "queued", "received_at": "soon"}}, 202)
    outcome = await send(draft_of(), fetcher)
    assert outcome.status == "failed" and outcome.receipt is None and "'queued'" in outcome.message


async def test_a_server_error_is_a_failure_with_retry_advice(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.canned = json_reply({"error": {"code": "INTERNAL"}}, 500)
    outcome = await send(draft_of(), fetcher)
    assert outcome.status == "failed" and outcome.http_status == 500 and outcome.retryable
    assert "HTTP 500, INTERNAL" in outcome.message and "you may retry" in outcome.message
    assert len(inbox.requests) == 1  # a POST is never retried behind the user's back


async def test_a_refusal_is_a_failure_without_retry_advice(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.canned = json_reply({"error": {"code": "VALIDATION_ERROR", "message": "\x1b[2Jgo away"}}, 400)
    outcome = await send(draft_of(), fetcher)
    assert outcome.status == "failed" and not outcome.retryable
    assert "HTTP 400, VALIDATION_ERROR" in outcome.message and "\x1b" not in outcome.message


async def test_no_connection_is_not_sent_or_unknown_and_retryable(tls_server: TLSServer) -> None:
    async with Fetcher(
        connect_to=[("*", "127.0.0.1", closed_port())], ca_bundle=tls_server.ca_path, retries=0, deadline=5.0
    ) as unreachable:
        outcome = await send(draft_of(), unreachable)
    assert outcome.status == "failed" and outcome.http_status is None and outcome.retryable
    assert outcome.message.startswith("Not sent / unknown") and "at most once" in outcome.message


async def test_a_redirect_to_another_origin_is_not_followed(inbox: Inbox, fetcher: Fetcher) -> None:
    inbox.canned = Reply(307, b"", {"Location": "https://b.test/v1/feedback"}, content_type=None)
    outcome = await send(draft_of(), fetcher)
    assert outcome.status == "failed" and "another origin" in outcome.message
    assert all(r.host == "a.test" for r in inbox.requests)


async def test_server_text_in_a_receipt_is_kept_exactly_but_shown_plain(inbox: Inbox, fetcher: Fetcher) -> None:
    receipt = {"feedback_id": "fb_\x1b[31mred", "status": "received", "received_at": "2026-10-16T10:00:00.5+02:00"}
    inbox.canned = json_reply({"data": {**receipt, "extra": 1}, "meta": {"x": 1}}, 201)
    outcome = await send(draft_of(), fetcher)
    assert outcome.receipt == receipt  # the three fields, exactly as received
    assert "\x1b" not in outcome.message and "fb_[31mred" not in outcome.message


# -- the row the database keeps ---------------------------------------------------------------------


async def test_the_receipt_row_keeps_the_answer_as_received_and_only_a_hash_of_the_message(
    inbox: Inbox, fetcher: Fetcher
) -> None:
    body = b'{ "data" : {"received_at": "2026-10-16T10:00:00Z", "status": "received", "feedback_id": "fb_7"} }'
    inbox.canned = Reply(201, body)
    draft = draft_of("Secret-ish words")
    outcome = await send(draft, fetcher)
    row = receipt_row(draft, outcome)
    assert row == {
        "origin": ORIGIN,
        "idempotency_key": draft.idempotency_key,
        "message_sha256": hashlib.sha256(b"Secret-ish words").hexdigest(),
        "feedback_id": "fb_7",
        "status": "received",
        "received_at": "2026-10-16T10:00:00Z",
        "raw_response": body.decode(),
        "sent_at": outcome.sent_at,
    }
    assert outcome.sent_at.endswith("Z") and "Secret-ish words" not in json.dumps(row)


def test_no_receipt_row_without_a_receipt() -> None:
    with pytest.raises(FeedbackError):
        receipt_row(draft_of(), Outcome("failed", "Not sent / unknown", raw_body=b"{}"))
