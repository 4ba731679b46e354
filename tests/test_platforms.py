"""The platforms agentdex runs on (Linux, macOS): the Linux-only call of ``crawl --processes``
(growing its pipes with F_SETPIPE_SZ) sits behind one switch, ``processes.LINUX``, and the
other path is run here by flipping it, with fcntl as macOS has it (no F_SETPIPE_SZ: reaching
for it there raised AttributeError, which ``suppress(OSError)`` let through). Off POSIX
(Windows) ``--processes`` is refused with a sentence.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sys
from pathlib import Path

import pytest

from agentdex.crawler import processes
from agentdex.crawler.crawl import crawl
from agentdex.crawler.messages import PIPE_BYTES
from agentdex.crawler.options import NetworkOptions
from agentdex.db import open_db
from agentdex.errors import InputError
from agentdex.sampleweb.server import SampleWeb

SITES = ["pantry.test", "beacon.test", "meridian.test"]


@pytest.fixture
def like_macos(monkeypatch) -> None:
    """This machine as macOS looks to processes.py: not Linux, and no F_SETPIPE_SZ in fcntl."""
    monkeypatch.setattr(processes, "LINUX", False)
    monkeypatch.delattr(fcntl, "F_SETPIPE_SZ")


def pipe_size(widened: bool) -> int:
    read, write = os.pipe()
    try:
        if widened:
            processes.widen(write)
        return fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)  # reading a pipe's size: Linux (the suite's platform)
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux branch")
def test_on_linux_a_crawling_process_pipe_is_grown() -> None:
    assert processes.LINUX
    ceiling = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    assert pipe_size(widened=True) == min(PIPE_BYTES, ceiling) > pipe_size(widened=False)


def test_off_linux_a_pipe_keeps_its_size_and_no_linux_call_is_made(like_macos) -> None:
    assert pipe_size(widened=True) == pipe_size(widened=False)


@pytest.mark.slow
def test_a_crawl_in_two_processes_runs_off_linux(like_macos, tmp_path) -> None:
    with SampleWeb() as web:
        db = open_db(tmp_path / "catalogue.db")
        summary = asyncio.run(crawl(db, SITES, web.network_options(), verify=False, processes=2))
    assert summary.origins == len(SITES) and summary.internal == 0
    assert {r["origin"]: r["status"] for r in db.query("SELECT origin, status FROM listings")} == dict.fromkeys(
        SITES, "listed"
    )


def test_off_posix_several_processes_are_refused_with_a_sentence(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(processes, "POSIX", False)
    db = open_db(tmp_path / "catalogue.db")
    with pytest.raises(InputError, match="--processes needs Linux or macOS"):
        asyncio.run(crawl(db, SITES, NetworkOptions(), verify=False, processes=2))
