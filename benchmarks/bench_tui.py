"""How fast the TUI paints a 100,000-listing catalogue, and how fast search follows typing.

Run from the repository root:

    .venv/bin/python benchmarks/bench_tui.py [--listings 100000] [--repeat 5] [--rebuild]

The catalogue is built once with :func:`agentdex.db.synthetic.fill_synthetic` and kept in
``benchmarks/out/tui-<listings>.db`` (``--rebuild`` builds it again). The app is the real one
(``make_app``) on that file, run headless by Textual's ``run_test`` at 140×40 and driven by
its Pilot; every time is ``time.perf_counter``:

- *first paint*: from creating the app to the first screen update after the catalogue table
  received its first rows (the ``TableShown`` message); one fresh app per repeat. Importing
  the TUI in a fresh process is timed on its own line (it comes before, once).
- *keystroke → table refreshed*: typing search words one key at a time (a pause between keys,
  as a person types), from sending the key to the table's refresh message (``TableShown``:
  the table holds the rows for the new text).
- *keystroke → painted*: the same, to the next screen update after those rows (headless,
  Textual computes the update but writes no bytes: a real terminal adds the write).
- *keystroke → counts*: to the "N shown" count for the new text (a separate query, which
  never holds back the rows).
- *jump to the last row*: ``ctrl+end`` on the unfiltered catalogue, to the rows painted.

Targets: first paint ≤ 1.0 s, median keystroke → table refreshed ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from textual.message import Message  # noqa: E402
from textual.widgets import Input  # noqa: E402

from agentdex.db import count_listings, open_db  # noqa: E402
from agentdex.db.synthetic import fill_synthetic  # noqa: E402
from agentdex.tui.app import AgentdexApp, make_app  # noqa: E402
from agentdex.tui.messages import CountsLoaded, TableShown  # noqa: E402

SIZE = (140, 40)
WORDS = ("pantry", "swift lantern", "invoices", "kitchen", "golden forge", "podcasts")
TYPING_PAUSE = 0.12  # seconds between keys: a fast typist


@dataclass
class Timeline:
    """When (perf_counter) each interesting thing happened in one app run."""

    shown: list[tuple[float, str, int]] = field(default_factory=list)  # (t, search text, rows)
    counts: list[tuple[float, str]] = field(default_factory=list)
    paints: list[float] = field(default_factory=list)

    def hook(self, message: Message) -> None:
        now = time.perf_counter()
        if isinstance(message, TableShown):
            self.shown.append((now, message.query.search, message.rows))
        elif isinstance(message, CountsLoaded):
            self.counts.append((now, message.query.search))

    def watch(self, app: AgentdexApp) -> None:
        """Record every screen update the app makes."""
        app.post_display_hook = lambda: self.paints.append(time.perf_counter())

    def rows_for(self, text: str, after: float) -> float | None:
        return next((t for t, search, _ in self.shown if t >= after and search == text), None)

    def counts_for(self, text: str, after: float) -> float | None:
        return next((t for t, search in self.counts if t >= after and search == text), None)

    def paint_after(self, moment: float | None) -> float | None:
        return None if moment is None else next((t for t in self.paints if t >= moment), None)


def build(listings: int, rebuild: bool) -> Path:
    """The benchmark catalogue (built once, then reused)."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"tui-{listings}.db"
    if rebuild or not path.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        started = time.perf_counter()
        db = open_db(path)
        fill_synthetic(db, listings)
        db.conn.close()
        print(f"built {path.relative_to(ROOT)} in {time.perf_counter() - started:.1f} s")
    return path


async def until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not answer in time")
        await asyncio.sleep(0.002)


async def first_paint(path: Path) -> float:
    """Seconds from creating the app to the first paint of the catalogue's rows."""
    timeline = Timeline()
    started = time.perf_counter()
    app = make_app(path)
    timeline.watch(app)
    async with app.run_test(size=SIZE, message_hook=timeline.hook):
        await until(lambda: any(rows for _, _, rows in timeline.shown) and timeline.paint_after(timeline.shown[0][0]))
        return timeline.paint_after(timeline.shown[0][0]) - started


async def typing(path: Path) -> dict[str, list[float]]:
    """Per keystroke: seconds to the new rows, to their paint and to the new counts; and
    the jump to the last row."""
    timeline = Timeline()
    app = make_app(path)
    timeline.watch(app)
    out: dict[str, list[float]] = {"rows": [], "painted": [], "counts": [], "jump": []}
    async with app.run_test(size=SIZE, message_hook=timeline.hook) as pilot:
        await until(lambda: timeline.counts)
        search = app.screen.query_one("#search", Input)
        for word in WORDS:
            await pilot.press("slash")
            for index in range(len(word)):
                await asyncio.sleep(TYPING_PAUSE)
                text = word[: index + 1]
                sent = time.perf_counter()
                await pilot.press(word[index] if word[index] != " " else "space")
                await until(lambda: timeline.paint_after(timeline.rows_for(text, sent))
                            and timeline.counts_for(text, sent))
                rows = timeline.rows_for(text, sent)
                out["rows"].append(rows - sent)
                out["painted"].append(timeline.paint_after(rows) - sent)
                out["counts"].append(timeline.counts_for(text, sent) - sent)
            search.value = ""
            await until(lambda: timeline.counts and timeline.counts[-1][1] == "")
            await pilot.press("escape")
        sent = time.perf_counter()
        before = len(timeline.shown)
        await pilot.press("ctrl+end")
        await until(lambda: len(timeline.shown) > before and timeline.paint_after(timeline.shown[-1][0]))
        out["jump"].append(timeline.paint_after(timeline.shown[-1][0]) - sent)
    return out


def import_seconds() -> float:
    """Seconds to import the TUI in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import agentdex.tui.app; print(time.perf_counter() - t)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(done.stdout.strip())


def row(label: str, values: list[float], unit: str, target: str = "") -> str:
    scale = 1000 if unit == "ms" else 1
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    cells = [f"{statistics.median(values) * scale:,.1f}", f"{p90 * scale:,.1f}", f"{ordered[-1] * scale:,.1f}"]
    return f"{label:<36} {cells[0]:>9} {cells[1]:>9} {cells[2]:>9}  {unit:<3} {len(values):>5}  {target}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5, help="fresh apps for the first-paint time")
    parser.add_argument("--rebuild", action="store_true", help="build the catalogue again")
    args = parser.parse_args()
    path = build(args.listings, args.rebuild)
    total = count_listings(open_db(path, readonly=True))
    imports = [import_seconds() for _ in range(args.repeat)]
    paints = [asyncio.run(first_paint(path)) for _ in range(args.repeat)]
    keys = asyncio.run(typing(path))
    size = path.stat().st_size / 1e6
    print(f"\nagentdex TUI on {total:,} listings ({path.relative_to(ROOT)}, {size:,.0f} MB), "
          f"terminal {SIZE[0]}x{SIZE[1]}, words typed: {', '.join(WORDS)}")
    print(f"{'measure':<36} {'median':>9} {'p90':>9} {'max':>9}  {'':<3} {'n':>5}  target")
    print(row("import the TUI (fresh process)", imports, "s"))
    print(row("time to first paint", paints, "s", "≤ 1.0 s"))
    print(row("keystroke → table refreshed", keys["rows"], "ms", "≤ 50 ms (median)"))
    print(row("keystroke → table painted", keys["painted"], "ms"))
    print(row("keystroke → counts updated", keys["counts"], "ms"))
    print(row("ctrl+end → last rows painted", keys["jump"], "ms"))


if __name__ == "__main__":
    main()
