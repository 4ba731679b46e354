"""Feedback to an app's developer, only on the user's explicit request.

The user writes the message, reviews exactly what will be sent and confirms. Review builds
the draft (the trimmed, checked message and a fresh UUID-v4 idempotency key); Send posts it;
Retry posts the same draft again under the same key. Editing the message after a review
drops the draft, so the next confirmation is a new submission with a new key. A receipt is
shown and kept exactly as the developer's server sent it; none is ever made up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from agentdex.feedback import MAX_MESSAGE_CHARS, Draft, FeedbackError, Outcome, check_message, new_draft
from agentdex.text import plain
from agentdex.tui.jobs import feedback_job
from agentdex.tui.messages import FeedbackDone

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp


class FeedbackScreen(ModalScreen):
    """Write, review, confirm, send; retry with the same key."""

    app: AgentdexApp  # textual's app property, as the app these screens run in (for the type checker)

    BINDINGS = [Binding("escape", "dismiss", "Close", priority=True)]  # before the next key is routed

    def __init__(self, origin: str, descriptor: dict[str, Any]) -> None:
        super().__init__()
        self.origin = origin
        self.descriptor = descriptor
        self.draft: Draft | None = None
        self.outcome: Outcome | None = None
        self.sending = False

    def compose(self) -> ComposeResult:
        where = plain(self.descriptor.get("url"), 200, single_line=True)
        with Vertical(id="dialog", classes="dialog wide"):
            yield Static(
                Text(f"Feedback to the developer of {plain(self.origin, 100, single_line=True)}", style="bold")
            )
            yield Static(
                Text(
                    f"Sent to {where} only when you confirm. Only your message goes: no profile, "
                    "no contact details, no conversation.",
                    style="dim",
                )
            )
            yield TextArea("", id="message", soft_wrap=True)
            yield Static(id="message-check", classes="hint-line")
            with VerticalScroll(id="review"):
                yield Static(id="review-text")
            yield Static(id="result", classes="result")
            with Horizontal(classes="buttons"):
                yield Button("Review", id="review-button", variant="primary")
                yield Button("Send", id="send", variant="success", disabled=True)
                yield Button("Retry (same key)", id="retry", disabled=True)
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.query_one("#message", TextArea).focus()
        self._check_hint()

    def _limit(self) -> int:
        limit = self.descriptor.get("max_message_length")
        return limit if isinstance(limit, int) and 0 < limit <= MAX_MESSAGE_CHARS else MAX_MESSAGE_CHARS

    def _check_hint(self) -> None:
        text = self.query_one("#message", TextArea).text
        message, reason = check_message(text, self._limit())
        hint = f"{len(message):,} / {self._limit():,} characters" if message is not None else (reason or "")
        self.query_one("#message-check", Static).update(Text(hint, style="dim" if message else "yellow"))

    @on(TextArea.Changed, "#message")
    def _edited(self) -> None:
        self._check_hint()
        if self.draft is not None and not self.sending:
            # A different message is a new submission: it gets a new key after a new review.
            self.draft = None
            self.query_one("#review-text", Static).update("")
            self._buttons(send=False, retry=False)

    @on(Button.Pressed, "#review-button")
    def review(self) -> None:
        """Build the draft and show exactly what would be sent; nothing is sent yet."""
        try:
            draft = new_draft(self.descriptor, self.origin, self.query_one("#message", TextArea).text)
        except FeedbackError as exc:
            self._say(Text(plain(str(exc), 600), style="yellow"))
            return
        self.draft, self.outcome = draft, None
        review = Text("This exact message will be sent when you press Send:\n\n", style="bold")
        review.append(plain(draft.message, MAX_MESSAGE_CHARS + 1), style="not bold")
        self.query_one("#review-text", Static).update(review)
        self._say(Text(""))
        self._buttons(send=True, retry=False)

    @on(Button.Pressed, "#send")
    def confirm(self) -> None:
        """The user's explicit confirmation: send the reviewed draft."""
        if self.draft is not None and self.outcome is None:
            self._send()

    @on(Button.Pressed, "#retry")
    def retry(self) -> None:
        """Send the same draft again: same message, same idempotency key."""
        if self.draft is not None and self.outcome is not None and self.outcome.retryable:
            self._send()

    def _send(self) -> None:
        self.sending = True
        self._buttons(send=False, retry=False)
        self._say(Text("sending…", style="dim"))
        self._post(self.draft)

    @work(exclusive=True, group="feedback", exit_on_error=False)
    async def _post(self, draft: Draft) -> None:
        outcome, receipt_id, not_kept = await feedback_job(self.app.db_path, draft, self.app.net)
        self.post_message(FeedbackDone(outcome, receipt_id, not_kept))

    def on_feedback_done(self, message: FeedbackDone) -> None:
        self.sending = False
        self.outcome = outcome = message.outcome
        self._say(_outcome_text(outcome, message.receipt_id, message.not_kept))
        self._buttons(send=False, retry=outcome.retryable)

    def _buttons(self, *, send: bool, retry: bool) -> None:
        self.query_one("#send", Button).disabled = not send
        self.query_one("#retry", Button).disabled = not retry

    def _say(self, text: Text) -> None:
        self.query_one("#result", Static).update(text)

    @on(Button.Pressed, "#close")
    def action_dismiss(self) -> None:  # type: ignore[override]  # a key binding's action: no result to give
        self.dismiss()


def _outcome_text(outcome: Outcome, receipt_id: int | None, not_kept: str | None) -> Text:
    """What became of the submission, and the receipt exactly as received."""
    style = {"received": "green", "conflict": "bold red", "rate_limited": "yellow"}.get(outcome.status, "red")
    text = Text(plain(outcome.message, 1_000), style=style)
    if outcome.receipt is not None:
        text.append("\n\nReceipt, as the developer's server sent it:\n", style="bold")
        for name, value in outcome.receipt.items():
            text.append(f"  {name}: ", style="bold")
            text.append(plain(value, 200, single_line=True))
            text.append("\n")
        if receipt_id is not None:
            text.append(f"Kept in the catalogue (feedback_receipts row {receipt_id}).", style="dim")
        else:
            text.append(f"Not kept in the catalogue: {plain(not_kept, 300)}", style="red")
    if outcome.status == "conflict":
        text.append("\nEdit the message and review it again to start a new submission.", style="dim")
    return text
