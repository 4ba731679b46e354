"""Feedback to pantry.test's developer through the sample web's real feedback inbox
(api.pantry.test): sent only after the user reviews and confirms, the receipt shown and kept
exactly as received, retries under the same key, 409 and 429 explained."""

from __future__ import annotations

import json
import uuid

import pytest
from textual.widgets import Button, TextArea

from agentdex.db import open_db, save_origin, start_crawl
from agentdex.models import Listing
from agentdex.tui.app import make_app
from agentdex.tui.screens.feedback import FeedbackScreen
from db_records import listing_crawl
from test_tui_support import (
    SIZE,
    app,
    db_path,
    net,
    no_cursor_blink,
    open_listing,
    rendered,
    settle,  # noqa: F401
    wait_for,
    web,
)

FEEDBACK = ("api.pantry.test", "/v1/feedback")


@pytest.fixture
def inbox(web):
    """The inbox, as the sample web started it, after the test."""
    state = web.app_state(*FEEDBACK)
    limit = state.rate_limit
    yield state
    state.rate_limit = limit


def posts(web) -> list[dict]:
    """The JSON bodies POSTed to the feedback route so far."""
    return [
        json.loads(r.body) for r in web.requests_log if (r.host, r.method, r.path) == (FEEDBACK[0], "POST", FEEDBACK[1])
    ]


def receipts_kept(db_path) -> list[dict]:
    return list(open_db(db_path, readonly=True).query("SELECT * FROM feedback_receipts ORDER BY id"))


async def open_feedback(app, pilot) -> FeedbackScreen:
    await open_listing(app, pilot, "pantry.test", "f")
    assert isinstance(app.screen, FeedbackScreen)
    return app.screen


def result(screen) -> str:
    return " ".join(rendered(screen.query_one("#result")).split())


async def write_and_review(pilot, screen, text: str) -> None:
    screen.query_one("#message", TextArea).text = text
    await pilot.pause()  # the edit is handled before the click, as when a person types
    # A button ignores clicks while it still shows the previous press (Textual's 0.2 s
    # active effect); a person's next click comes later than that, so wait for it too.
    button = screen.query_one("#review-button", Button)
    await wait_for(pilot, lambda: not button.has_class("-active"))
    await pilot.click("#review-button")
    await settle(pilot)


async def test_nothing_is_sent_until_the_user_confirms(app, web, db_path):
    sent = len(posts(web))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_feedback(app, pilot)
        await pilot.press(*"Love it")  # the user writes…
        assert screen.query_one("#send", Button).disabled  # …and cannot send before reviewing
        await pilot.click("#review-button")
        await settle(pilot)
        assert "This exact message will be sent when you press Send" in rendered(screen.query_one("#review-text"))
        assert "Love it" in rendered(screen.query_one("#review-text"))
        assert not screen.query_one("#send", Button).disabled
        await pilot.press("escape")  # …and walks away without confirming
        await settle(pilot)
    assert len(posts(web)) == sent
    assert receipts_kept(db_path) == []


async def test_a_confirmed_message_is_received_and_its_receipt_kept_exactly(app, web, inbox, db_path):
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_feedback(app, pilot)
        await write_and_review(pilot, screen, "  The meal plans are great; please add a vegetarian filter.\n")
        await pilot.click("#send")
        await wait_for(pilot, lambda: screen.outcome is not None)
        await settle(pilot)
        body = posts(web)[-1]
        assert body == {
            "message": "The meal plans are great; please add a vegetarian filter.",
            "user_requested": True,
            "idempotency_key": screen.draft.idempotency_key,
        }
        assert uuid.UUID(body["idempotency_key"]).version == 4
        receipt = next(r for r in inbox.receipts() if r["message"] == body["message"])
        shown = result(screen)
        for name in ("feedback_id", "status", "received_at"):
            assert f"{name}: {receipt[name]}" in shown
        assert "Received means saved where the developer can read it" in shown
        assert screen.query_one("#retry", Button).disabled
    [kept] = receipts_kept(db_path)
    assert {k: kept[k] for k in ("origin", "idempotency_key", "feedback_id", "status", "received_at")} == {
        "origin": "pantry.test",
        "idempotency_key": body["idempotency_key"],
        "feedback_id": receipt["feedback_id"],
        "status": "received",
        "received_at": receipt["received_at"],
    }
    assert json.loads(kept["raw_response"]) == {
        "data": {k: receipt[k] for k in ("feedback_id", "status", "received_at")}
    }


CASES = [
    ("   \n\t ", "the message is empty"),
    ("x" * 4001, "the message is 4,001 characters long; the limit is 4,000"),
    ("ring the bell\x07", "character 14 is a control character (U+0007)"),
    ("é" * 3000 + "€" * 1000, None),  # 4,000 characters, 9,000 bytes
    ("😀" * 4000, None),  # 4,000 characters, exactly 16,000 bytes
    ("  padded  \n", None),
]


async def test_the_message_is_trimmed_and_checked_before_anything_is_sent(app, web):
    sent = len(posts(web))
    keys = set()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_feedback(app, pilot)
        for text, reason in CASES:
            await write_and_review(pilot, screen, text)
            if reason is None:
                assert screen.draft is not None and screen.draft.message == text.strip()
                assert not screen.query_one("#send", Button).disabled
                keys.add(screen.draft.idempotency_key)
            else:
                assert screen.draft is None and screen.query_one("#send", Button).disabled
                assert f"This feedback cannot be sent: {reason}" in result(screen)
    assert len(keys) == 3, "each reviewed message is a new submission with a fresh key"
    assert len(posts(web)) == sent


async def test_a_rate_limited_submission_is_explained_and_retried_with_the_same_key(app, web, inbox, db_path):
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_feedback(app, pilot)
        await write_and_review(pilot, screen, "Please support metric units.")
        key = screen.draft.idempotency_key
        inbox.rate_limit = len(inbox.receipts())  # the inbox is full for now
        await pilot.click("#send")
        await wait_for(pilot, lambda: screen.outcome is not None)
        await settle(pilot)
        assert "RATE_LIMITED: try again in 60 seconds; retrying reuses the same key." in result(screen)
        assert receipts_kept(db_path) == []
        assert not screen.query_one("#retry", Button).disabled
        inbox.rate_limit = None
        await pilot.click("#retry")
        await wait_for(pilot, lambda: screen.outcome.status != "rate_limited")
        await settle(pilot)
        assert screen.outcome.status == "received"
        assert "feedback_id: fb_" in result(screen)
    assert [b["idempotency_key"] for b in posts(web)[-2:]] == [key, key]
    assert [r["idempotency_key"] for r in receipts_kept(db_path)] == [key]


async def test_a_key_used_for_another_message_is_a_conflict_and_nothing_is_kept(app, web, inbox, db_path):
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_feedback(app, pilot)
        await write_and_review(pilot, screen, "First words.")
        # The developer's inbox already holds this key with other words (say, from another client).
        inbox.submit(screen.draft.idempotency_key, "Other words.")
        await pilot.click("#send")
        await wait_for(pilot, lambda: screen.outcome is not None)
        await settle(pilot)
        shown = result(screen)
        assert "IDEMPOTENCY_CONFLICT: this key was already used with a different message" in shown
        assert "start a new submission" in shown
        assert screen.query_one("#retry", Button).disabled and screen.query_one("#send", Button).disabled
    assert receipts_kept(db_path) == []


async def test_an_answer_without_a_receipt_is_never_shown_or_kept_as_one(db_path, net, web):
    # A listing whose feedback route is a plain page: the server answers, but confirms nothing.
    descriptor = {
        "url": "https://pantry.test/terms",
        "method": "POST",
        "authentication": "none",
        "operation": "feedback.submit",
        "requires_user_request": True,
    }
    listing = Listing(format="agent_app", origin="noreceipt.test", name="No Receipt", feedback=descriptor)
    db = open_db(db_path)
    save_origin(db, listing_crawl(listing, origin="noreceipt.test"), start_crawl(db))
    db.conn.close()
    app = make_app(db_path, net)
    async with app.run_test(size=SIZE) as pilot:
        await open_listing(app, pilot, "noreceipt.test", "f")
        screen = app.screen
        await write_and_review(pilot, screen, "Is anyone there?")
        await pilot.click("#send")
        await wait_for(pilot, lambda: screen.outcome is not None)
        await settle(pilot)
        assert screen.outcome.status == "failed" and screen.outcome.receipt is None
        shown = result(screen)
        assert "Not received" in shown and "Receipt" not in shown and "feedback_id" not in shown
    assert receipts_kept(db_path) == []
