"""How fast the TUI answers in a real terminal on a 100,000-listing catalogue.

Run from the repository root (tmux must be installed):

    .venv/bin/python benchmarks/bench_tui.py [--listings 100000] [--repeat 5] [--rebuild]

The catalogue is built once with :func:`agentdex.db.synthetic.fill_synthetic` and kept in
``benchmarks/out/tui-<listings>.db`` (``--rebuild`` builds it again). ``agentdex tui`` runs
in a tmux session of its own (120×40, tmux's defaults) exactly as a user starts it; keys go
in with ``tmux send-keys`` and the screen is read back with ``tmux capture-pane`` until it
shows the answer, so every time below is what reached the terminal, write included. Reading
the screen takes a few milliseconds (printed as the resolution): times are that coarse.

- *first paint*: from starting the command (a fresh Python process) to the first listing
  row on the screen; one fresh process per repeat.
- *search*: typing words into the search box one key at a time, a pause between keys as a
  person types; from sending the key to the table for the new text on the screen (the
  status line's ``search: …``), and to its "N shown" count.
- *filter*: choosing the next format, then the next status, in the filter lists (the
  Enter that chooses), and ticking "failing checks", to the filtered table on screen.
- *scroll*: ``down``, ``pagedown`` and ``ctrl+end``/``ctrl+home`` on the table, to the new
  cursor row in the status line.

Targets: first paint ≤ 1.0 s; keystroke → updated table median ≤ 50 ms, p95 ≤ 150 ms.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
sys.path.insert(0, str(ROOT / "tests"))  # the tmux driver the real-terminal tests use

from agentdex.db import count_listings, list_listings, open_db  # noqa: E402
from agentdex.db.synthetic import fill_synthetic  # noqa: E402
from agentdex.formats import FORMAT_NAMES as FORMATS  # noqa: E402
from agentdex.models import STATUSES  # noqa: E402
from tmux import TMUX, Terminal  # noqa: E402

WORDS = ("pantry", "swift lantern", "invoices", "kitchen", "golden forge", "podcasts")
TYPING_PAUSE = 0.12  # seconds between keys: a fast typist
SETTLE = 0.25  # seconds left between measured keys that are not typing


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


def status(text: str) -> str:
    """The catalogue's status line (the one with "in the catalogue" or "counting…")."""
    return next((ln for ln in text.splitlines() if "sorted by" in ln), "")


def timed(term: Terminal, keys: list[str], done, literal: bool = False) -> float:
    """Seconds from sending ``keys`` to the screen satisfying ``done(status line)``."""
    sent = time.perf_counter()
    term.send(*keys, literal=literal)
    term.wait_for(lambda text: done(status(text)), timeout=30)
    return time.perf_counter() - sent


def first_paint(path: Path, first_origin: str) -> float:
    term = Terminal("paint").start()
    try:
        started = term.run_tui(path)
        term.wait_for(lambda text: first_origin in text, timeout=30)
        return time.perf_counter() - started
    finally:
        term.close()


def searching(term: Terminal) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"table": [], "counts": []}
    for word in WORDS:
        term.send("/", literal=True)
        for index in range(len(word)):
            time.sleep(TYPING_PAUSE)
            text = word[: index + 1]
            if text != text.strip():  # a trailing space changes nothing to show
                term.send(word[index], literal=True)
                continue
            sent = time.perf_counter()
            term.send(word[index], literal=True)
            term.wait_for(
                lambda t, text=text: status(t).endswith(f"search: {text}") or f"search: {text} ·" in status(t)
            )
            out["table"].append(time.perf_counter() - sent)
            term.wait_for(lambda t, text=text: f"search: {text}" in status(t) and " shown" in status(t))
            out["counts"].append(time.perf_counter() - sent)
        term.send("C-u")  # empty the box
        term.wait_for(lambda t: "search:" not in status(t) and " shown" in status(t))
        term.send("Escape")
    return out


def filtering(term: Terminal) -> list[float]:
    times = []
    term.send("/", literal=True)
    term.send("Tab")  # the format list
    for values in (FORMATS, STATUSES):
        for value in values:
            time.sleep(SETTLE)
            term.send("Enter", "Down")
            time.sleep(SETTLE)
            times.append(timed(term, ["Enter"], lambda s, v=value: f"={v}" in s and " shown" in s))
        term.send("Tab")  # on to the next list
    for _ in range(4):
        term.send("Tab")  # to "failing checks"
    time.sleep(SETTLE)
    for ticked in (True, False, True, False):
        time.sleep(SETTLE)
        times.append(timed(term, ["Space"], lambda s, t=ticked: ("failing checks" in s) == t and " shown" in s))
    term.send("Escape", "x")  # back to the table, every filter cleared
    term.wait_for(lambda t: "=" not in status(t) and " shown" in status(t))
    return times


def row_number(line: str) -> int | None:
    match = re.search(r"row ([\d,]+) of", line)
    return int(match.group(1).replace(",", "")) if match else None


def scrolling(term: Terminal, total: int) -> list[float]:
    times = []
    for key, count in (("Down", 25), ("PageDown", 25), ("PageUp", 10), ("C-End", 1), ("C-Home", 1)) * 2:
        for _ in range(count):
            time.sleep(SETTLE / 2)
            before = row_number(status(term.text()))
            times.append(timed(term, [key], lambda s, b=before: row_number(s) not in (None, b)))
    return times


def capture_seconds(term: Terminal) -> float:
    samples = []
    for _ in range(20):
        started = time.perf_counter()
        term.text()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def row(label: str, values: list[float], unit: str, target: str = "") -> str:
    scale = 1000 if unit == "ms" else 1
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    cells = [f"{statistics.median(values) * scale:,.1f}", f"{p95 * scale:,.1f}", f"{ordered[-1] * scale:,.1f}"]
    return f"{label:<34} {cells[0]:>9} {cells[1]:>9} {cells[2]:>9}  {unit:<3} {len(values):>5}  {target}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes for the first-paint time")
    parser.add_argument("--rebuild", action="store_true", help="build the catalogue again")
    args = parser.parse_args()
    if TMUX is None:
        sys.exit("tmux is not installed: apt-get install tmux")
    path = build(args.listings, args.rebuild)
    total = count_listings(open_db(path, readonly=True))
    first_origin = list_listings(open_db(path, readonly=True), limit=1)[0]["origin"]
    paints = [first_paint(path, first_origin) for _ in range(args.repeat)]
    term = Terminal("keys").start()
    try:
        term.run_tui(path)
        term.wait_for(lambda text: f"{total:,} shown" in status(text), timeout=60)
        resolution = capture_seconds(term)
        search = searching(term)
        filters = filtering(term)
        scrolls = scrolling(term, total)
    finally:
        term.close()
    size = path.stat().st_size / 1e6
    print(
        f"\nagentdex TUI in tmux on {total:,} listings ({path.relative_to(ROOT)}, {size:,.0f} MB), 120x40; "
        f"reading the screen takes {resolution * 1000:.1f} ms"
    )
    print(f"{'measure':<34} {'median':>9} {'p95':>9} {'max':>9}  {'':<3} {'n':>5}  target")
    print(row("launch → first table painted", paints, "s", "≤ 1.0 s"))
    print(row("search key → table updated", search["table"], "ms", "median ≤ 50 ms, p95 ≤ 150 ms"))
    print(row("search key → counts updated", search["counts"], "ms"))
    print(row("filter key → table updated", filters, "ms", "median ≤ 50 ms, p95 ≤ 150 ms"))
    print(row("scroll key → table updated", scrolls, "ms", "median ≤ 50 ms, p95 ≤ 150 ms"))
    everything = search["table"] + filters + scrolls
    print(row("every keystroke above", everything, "ms", "median ≤ 50 ms, p95 ≤ 150 ms"))


if __name__ == "__main__":
    main()
