"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

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


@pytest.fixture
def shared() -> Path:
    """The shared/ folder with specs and real-world documents."""
    if SHARED is None:
        pytest.skip("shared/ is not beside this checkout")
    return SHARED
