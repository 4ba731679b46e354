"""The command reference and the README are kept true to the code."""

from pathlib import Path

from typer.main import get_command

from agentdex.cli import app
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent


def _generator():
    return load_script("gen_cli_doc")


def test_cli_reference_is_current():
    gen = _generator()
    assert gen.DOC.read_text("utf-8") == gen.render(), "docs/cli.md is stale: run python scripts/gen_cli_doc.py"


def test_every_command_is_in_the_readme_and_has_help():
    readme = (ROOT / "README.md").read_text("utf-8")
    for name, command in get_command(app).commands.items():
        assert f"agentdex {name}" in readme, f"README.md does not mention `agentdex {name}`"
        assert command.help, f"`agentdex {name}` has no help text"


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text("utf-8")
    block = readme.split("```sh", 1)[1].split("```", 1)[0].strip().splitlines()
    assert block[0].endswith("agentdex demo") and "pytest" in block[1]
    assert block[1] in (ROOT / ".ci" / "run").read_text("utf-8")
