"""Shared fixtures."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "examples"


def _find_shared() -> Path | None:
    # shared/ sits beside the checkout (the project's folder and CI's clone alike).
    for parent in ROOT.parents:
        candidate = parent / "shared"
        if (candidate / "specs").is_dir():
            return candidate
    return None


SHARED = _find_shared()


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (the doc generators the docs tests compare with)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cli_env() -> dict[str, str]:
    """The environment for ``python -m agentdex`` in a child process: this checkout on its
    path, and no ``$AGENTDEX_DB`` from the caller's shell (the test names its catalogue)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTDEX_DB", None)
    return env


@pytest.fixture
def shared() -> Path:
    """The shared/ folder with specs and real-world documents."""
    if SHARED is None:
        pytest.skip("shared/ is not beside this checkout")
    return SHARED
