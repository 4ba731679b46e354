"""The quick lane (``pytest -m "not slow"``, docs/testing.md): tests/conftest.py marks a test
slow by the fixtures it uses, and in the quick lane fails an unmarked test that starts a
subprocess or a server, so a new test cannot slow the lane unnoticed.

Runs pytest in a process of its own on a folder holding this suite's conftest.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

TESTS = """
import socket
import subprocess
import sys

import pytest


@pytest.fixture
def web():  # a fixture named in SLOW_FIXTURES, as a module's sample web would be
    return "a web"


def test_pure():
    assert 1 + 1 == 2


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_listens():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()


@pytest.mark.slow
def test_marked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_uses_the_web(web):
    subprocess.run([sys.executable, "-c", "pass"], check=True)
"""


def run_pytest(folder: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider", "-rA", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout + done.stderr


@pytest.mark.slow
def test_the_quick_lane_leaves_out_marked_tests_and_fails_an_unmarked_one_that_starts_a_process(tmp_path):
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_lane.py").write_text(TESTS, "utf-8")
    quick = run_pytest(tmp_path, "-m", "not slow")
    assert "2 failed, 1 passed, 2 deselected" in quick, quick
    assert "PASSED test_lane.py::test_pure" in quick
    assert "starts a subprocess" in quick and "test_starts_a_process" in quick
    assert "listens on a socket (a server)" in quick and "test_listens" in quick
    assert "add @pytest.mark.slow" in quick
    everything = run_pytest(tmp_path)  # the full lane runs them all, unguarded
    assert "5 passed" in everything, everything
