"""The event loop a crawl runs on (agentdex/crawler/eventloop.py): uvloop's where the fast
extra is installed, the standard library's where it is not or on Windows."""

from __future__ import annotations

import asyncio
import builtins
import sys

import pytest

from agentdex.crawler import eventloop


async def loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_a_crawl_runs_on_uvloop_where_it_is_installed() -> None:
    pytest.importorskip("uvloop")  # the test extra installs it (agentdex[fast])
    assert eventloop.run(loop_module()).startswith("uvloop")


def test_without_uvloop_the_standard_loop_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_uvloop(name: str, *args: object, **kwargs: object) -> object:
        if name == "uvloop":
            raise ImportError("No module named 'uvloop'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_uvloop)
    assert eventloop.loop_factory() is None
    assert eventloop.run(loop_module()).startswith("asyncio")


def test_on_windows_the_standard_loop_is_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")  # uvloop does not run there
    assert eventloop.loop_factory() is None
