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


# What every command shares; tests/test_newcomer_origins.py checks these against the commands.
EXIT_CODES = (
    ("0", "done (`validate`: the document is valid)"),
    (
        "1",
        "the answer is no, or the run did not do its job: an invalid document (`validate`), an origin "
        "not in the catalogue (`show`, `plan`, `events --origin`, `forget`, `verify` without `--add`), "
        "a crawl or verify that reached no origin or hit an internal error, an error-level finding "
        "(`tools lint`), a registry read cut short (`seeds`)",
    ),
    (
        "2",
        "input that cannot be used: an option value that is not a choice, an origin that is no public "
        "origin (name your own server with `--connect-to`), a file `validate` cannot read as any "
        "document, a config file or environment value in error",
    ),
    ("130", "interrupted (Ctrl-C): every finished origin is saved"),
)
CONVENTIONS = (
    "## Exit codes and output\n\nEvery command exits with one of these codes:\n\n| code | meaning |\n|---|---|\n"
    + "".join(f"| {code} | {meaning} |\n" for code, meaning in EXIT_CODES)
    + """
The answer goes to stdout, everything else (errors, refusals, progress, counts) to stderr.
Every listing command takes `--json`. On a terminal `list` and `events` print aligned
columns and check words (`pass`, `fail`, `warn`, `skip`, the words the TUI and Datasette use)
are coloured, unless `NO_COLOR` is set; on a pipe `list` and `events` print tab-separated
lines without a header (`events`: at, origin, kind, the change in words), `census --state S`
prints url, origin and detail tab-separated, `seeds` one origin a line, and nothing is
coloured.
"""
)


def help_text(args: list[str]) -> str:
    """The --help output of ``agentdex ARGS`` at a fixed width."""
    result = CliRunner().invoke(
        app, [*args, "--help"], prog_name="agentdex", terminal_width=100, env={"COLUMNS": "100", "NO_COLOR": "1"}
    )
    return result.output.rstrip() + "\n"


def settings_table() -> str:
    """Every network setting, read from its field of NetworkOptions: flag, variable, config key,
    default and range."""
    from agentdex.config import setting_fields
    from agentdex.crawler.options import NetworkOptions

    rows = "".join(map(_setting_row, setting_fields(NetworkOptions)))
    return (
        "## Network settings\n\n"
        "The commands that go to the web share these settings. Each is read from its flag, else its "
        "environment variable, else its key in the TOML file `$AGENTDEX_CONFIG` (default "
        "`~/.config/agentdex/config.toml`, under `$XDG_CONFIG_HOME` when set; a relative path in it is "
        "taken from the file's folder, any other key is refused), else its default. `--shard` is "
        "`crawl`'s only; `census` takes those its `--confirm` probes use.\n\n"
        "| flag | variable | config key | default | range | meaning |\n|---|---|---|---|---|---|\n" + rows
    )


def _setting_row(field) -> str:
    flag = f"{field.flag} {field.setting.metavar}" if field.setting.metavar else field.flag
    cells = (f"`{flag}`", f"`{field.env}`", f"`{field.key}`", field.default_words() or "", _range(field.setting))
    return "| " + " | ".join(cells) + f" | {field.setting.help}. |\n"


def _range(setting) -> str:
    low, high = ("" if bound is None else f"{bound:g}" for bound in (setting.ge, setting.le))
    return f"{low} to {high}" if low and high else f"from {low}" if low else f"up to {high}" if high else ""


def render() -> str:
    """The whole document."""
    commands = sorted(get_command(app).commands)
    parts = [
        "# agentdex command reference\n",
        "Generated from the live `--help` by `python scripts/gen_cli_doc.py`; a test keeps it current.\n",
        "```text\n" + help_text([]) + "```\n",
        CONVENTIONS,
        settings_table(),
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
