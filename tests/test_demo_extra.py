"""The sample web's packages come with the ``demo`` extra: without them ``agentdex demo`` and
``agentdex sampleweb`` say in one sentence how to install them (exit 2), and every other
command works. A missing package is simulated in a child process: ``sys.modules[name] = None``
makes its import fail as an uninstalled one does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentdex.sampleweb import EXTRA_MODULES, INSTALL_EXTRA
from tests.conftest import cli_env

EXAMPLE = Path(__file__).resolve().parent / "examples" / "valid" / "agent_app" / "at-limits.json"


def run_without(missing: tuple[str, ...], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``agentdex ARGS`` in a child process where the ``missing`` modules cannot be imported."""
    code = (
        "import sys\n"
        f"for name in {missing!r}: sys.modules[name] = None\n"
        "from agentdex.cli import main\n"
        f"sys.argv = ['agentdex', *{args!r}]\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd, env=cli_env()
    )


CASES = [(("demo", "--no-tui"), name) for name in EXTRA_MODULES] + [(("sampleweb",), "trustme")]


@pytest.mark.slow
@pytest.mark.parametrize("args, missing", CASES, ids=[f"{a[0]}-{m}" for a, m in CASES])
def test_without_the_demo_extra_the_sample_web_commands_say_how_to_install_it(args, missing, tmp_path):
    result = run_without((missing,), *args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert INSTALL_EXTRA in line
    # The module named is one of the extra's: the blocked one, or one that needs it (mcp needs httpx2).
    named = line.split(" is missing")[0].rsplit("(", 1)[1]
    assert named in EXTRA_MODULES and EXTRA_MODULES.index(named) <= EXTRA_MODULES.index(missing)
    assert list(tmp_path.iterdir()) == []  # refused before anything started or was written


@pytest.mark.slow
def test_without_the_demo_extra_a_catalogue_command_still_works(tmp_path):
    result = run_without(EXTRA_MODULES, "validate", str(EXAMPLE), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout


def test_with_the_demo_extra_nothing_is_missing():
    from agentdex.sampleweb import missing_extra

    assert missing_extra() is None
