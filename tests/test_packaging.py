"""The wheel ships every file the package reads at run time: a user who installs agentdex
from a wheel (not from a checkout) runs the same demo, sample web, schemas and metadata."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tracked_files() -> list[str]:
    """The files of the checkout that git tracks (what a clean clone has)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout ({exc})")
    return [name for name in out.stdout.decode("utf-8").split("\0") if name]


@pytest.mark.slow
def test_the_wheel_ships_every_file_of_the_package(tmp_path):
    files = tracked_files()
    source = tmp_path / "source"
    for name in files:  # a copy, so the build leaves nothing behind in the checkout
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = (tmp_path / "dist").glob("agentdex-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    package = {name for name in files if name.startswith("agentdex/")}
    assert sorted(package - shipped) == []
    assert any(name.startswith("agentdex/sampleweb/web/pantry.test/.well-known/") for name in shipped)
    entry_points = next(n for n in shipped if n.endswith(".dist-info/entry_points.txt"))
    assert "agentdex = agentdex.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
