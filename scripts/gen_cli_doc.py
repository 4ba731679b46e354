"""Write docs/cli.md from the live --help of every agentdex command.

python scripts/gen_cli_doc.py          # rewrite docs/cli.md
python scripts/gen_cli_doc.py --check  # exit 1 when docs/cli.md is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

from typer.main import get_command
from typer.testing import CliRunner

from agentdex.cli import app

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def help_text(args: list[str]) -> str:
    """The --help output of ``agentdex ARGS`` at a fixed width."""
    result = CliRunner().invoke(
        app, [*args, "--help"], prog_name="agentdex", terminal_width=100, env={"COLUMNS": "100", "NO_COLOR": "1"}
    )
    return result.output.rstrip() + "\n"


def render() -> str:
    """The whole document."""
    commands = sorted(get_command(app).commands)
    parts = [
        "# agentdex command reference\n",
        "Generated from the live `--help` by `python scripts/gen_cli_doc.py`; a test keeps it current.\n",
        "```text\n" + help_text([]) + "```\n",
    ]
    for name in commands:
        parts.append(f"## agentdex {name}\n\n```text\n{help_text([name])}```\n")
        group = get_command(app).commands[name]
        for sub in sorted(getattr(group, "commands", {})):  # a group's commands (agentdex tools lint)
            parts.append(f"## agentdex {name} {sub}\n\n```text\n{help_text([name, sub])}```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        sys.exit(0 if DOC.exists() and DOC.read_text("utf-8") == text else 1)
    DOC.write_text(text, "utf-8")
