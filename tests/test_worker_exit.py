"""A run with xdist ends without a traceback after its green result (issue 40): execnet sends
its own worker a SIGINT when the worker still runs 5 s after the run was told to end, as a
busy machine makes happen, and the KeyboardInterrupt landed in hypothesis's gc callback.
tests/conftest.py has a finished worker ignore it.

Runs pytest with two workers in a process of its own on a folder holding this suite's
conftest.py and a plugin that keeps each worker busy (collecting garbage) past execnet's 5 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

# A worker's end made slow, as on a busy machine: collecting garbage (so hypothesis's gc
# callback runs) for 8 s, past execnet's 5.
BUSY_END = """
import gc
import time


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):
        return
    started = time.monotonic()
    while time.monotonic() - started < 8:
        gc.collect()
"""

TESTS = """
from hypothesis import given, strategies as st


@given(st.integers())
def test_a(x):
    assert x == x


def test_b():
    assert True
"""


PYTEST = ["-m", "pytest", "-n", "2", "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "busy_end"]


def run_pytest(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *PYTEST],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.slow
def test_a_slow_worker_end_prints_no_keyboard_interrupt(tmp_path):
    (tmp_path / "busy_end.py").write_text(BUSY_END, "utf-8")
    (tmp_path / "test_end.py").write_text(TESTS, "utf-8")
    # Without the suite's conftest.py execnet's SIGINT shows, when the machine lets it land
    # in the worker's gc loop: on a busy one it may land elsewhere, or not in time, so the
    # control arm only has to pass; the run with conftest.py below is what is asserted.
    bare = run_pytest(tmp_path)
    assert "2 passed" in bare.stdout, bare.stdout + bare.stderr
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    done = run_pytest(tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "2 passed" in done.stdout, output
    assert "KeyboardInterrupt" not in output and "Traceback" not in output, output
