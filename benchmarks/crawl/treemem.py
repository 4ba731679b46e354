"""The memory of a process and every process below it, sampled while it runs (Linux).

A crawl with ``--processes N`` is N + 2 processes (the saving one, the crawling ones and
multiprocessing's resource tracker). Each one's own peak (VmHWM, ``ru_maxrss``) cannot say
how much memory they held *together*: their peaks need not coincide, and the pages they
share (the interpreter, libssl, libsqlite) are counted once per process. So a thread reads
``/proc/PID/smaps_rollup`` of the whole tree every ``interval`` seconds and keeps the
largest sums of

- RSS: what ``ps`` shows, added up (shared pages counted in every process that maps them);
- PSS: each shared page divided between the processes sharing it, the memory the tree
  actually holds.

A peak shorter than the interval can be missed; the figures are a lower bound of the true
peaks, where ``VmHWM + N × the largest child's ru_maxrss`` is an upper bound.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

PROC = Path("/proc")


def parent_pids() -> dict[int, int]:
    """Every process's parent, from ``/proc/PID/stat`` (processes that exit mid-scan are skipped)."""
    parents = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            stat = (PROC / entry.name / "stat").read_text()
        except OSError:
            continue
        # The command name (field 2) is in parentheses and may hold spaces: split after it.
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def tree(root: int) -> list[int]:
    """``root`` and every process descending from it."""
    parents = parent_pids()
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def rollup_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB; (0, 0) once it is gone."""
    rss = pss = 0
    try:
        text = (PROC / str(pid) / "smaps_rollup").read_text()
    except OSError:
        return 0, 0
    for line in text.splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss, pss


class TreeMemory:
    """Samples a process tree's summed RSS and PSS in a thread; ``with`` starts and stops it."""

    # A whole scan of /proc for the tree's processes (about 1.7 ms with 66 processes) is made
    # every RESCAN-th sample only: the crawl's processes start in its first second, and the
    # sampler shares the cores it measures (at every sample it took about 4% of one core).
    RESCAN = 10

    def __init__(self, root: int, interval: float = 0.1) -> None:
        self.root, self.interval = root, interval
        self.pids: list[int] = []
        self.peak_rss_kb = self.peak_pss_kb = self.most_processes = self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        """One reading of the tree; the peaks keep the largest sums seen."""
        if self.samples % self.RESCAN == 0:
            self.pids = tree(self.root)
        sizes = [rollup_kb(pid) for pid in self.pids]
        self.peak_rss_kb = max(self.peak_rss_kb, sum(rss for rss, _ in sizes))
        self.peak_pss_kb = max(self.peak_pss_kb, sum(pss for _, pss in sizes))
        self.most_processes = max(self.most_processes, sum(1 for rss, _ in sizes if rss))
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def figures(self) -> dict[str, float]:
        """The peaks in MB (2**20 bytes), the largest number of live processes and the sample count."""
        return {
            "tree_peak_rss_mb": self.peak_rss_kb / 1024,
            "tree_peak_pss_mb": self.peak_pss_kb / 1024,
            "tree_processes": self.most_processes,
            "tree_samples": self.samples,
        }
