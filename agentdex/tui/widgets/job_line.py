"""One line saying which crawls and verifications are running, and how far they are."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from agentdex.text import plain
from agentdex.tui.messages import JobProgress

VERB = {"crawl": "crawling", "verify": "re-verifying"}


class JobLine(Static):
    """Hidden while nothing runs; ``⟳ crawling 3/21 · last pantry.test listed`` otherwise."""

    DEFAULT_CSS = """
    JobLine { height: 1; background: $boost; color: $text-accent; padding: 0 1; display: none; }
    JobLine.-busy { display: block; }
    """

    def show(self, jobs: dict[int, JobProgress]) -> None:
        """Describe the running ``jobs`` (by job id)."""
        self.set_class(bool(jobs), "-busy")
        text = Text(end="")
        for job in jobs.values():
            if text:
                text.append("   ")
            text.append(f"⟳ {VERB.get(job.kind, job.kind)} {job.done}/{job.total}")
            if job.last_origin:
                text.append(
                    f" · last {plain(job.last_origin, 60, single_line=True)} "
                    f"{plain(job.last_status, 20, single_line=True)}",
                    style="dim",
                )
        self.update(text, layout=False)
