"""Write docs/checks.md and the Datasette descriptions of the check_status columns from
agentdex/checks.py (the one catalogue of verification checks).

Run ``python scripts/gen_checks_doc.py`` after adding a check; ``--check`` exits 1 when a
file is out of date instead of writing it. tests/test_docs_checks.py keeps them equal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agentdex.checks import CHECKS, GROUPS, STATUSES, in_group

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "checks.md"
METADATA_FILES = (ROOT / "datasette_metadata.json", ROOT / "agentdex" / "datasette_metadata.json")
COMMAND = "python scripts/gen_checks_doc.py"

HEADER = f"""# Verification checks

Every crawl (and `agentdex verify`) checks the claims each listing makes and stores one
result per check as `{{name, status, detail}}`. The `name` is a stable word you can match
on; the `detail` says what was seen, for people, and may change. Verification only reads:
it never calls an MCP tool, never submits feedback and never pays.

<!-- Generated from agentdex/checks.py by `{COMMAND}`; do not edit by hand. -->

| status | meaning |
| --- | --- |
"""


def _cell(text: str) -> str:
    # A pipe would end the table cell; a line break would end the row.
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """The full text of docs/checks.md: the statuses, then one table per group."""
    out = [HEADER] + [f"| `{status}` | {_cell(meaning)} |\n" for status, meaning in STATUSES.items()]
    for group, meaning in GROUPS.items():
        out.append(f"\n## {group}\n\n{meaning}\n\n| check | passes when |\n| --- | --- |\n")
        out += [f"| `{name}` | {_cell(CHECKS[name].meaning)} |\n" for name in in_group(group)]
    return "".join(out)


def render_metadata(text: str) -> str:
    """``text`` (a datasette_metadata.json) with the check_status column of every check
    described by its catalogue meaning."""
    metadata = json.loads(text)
    columns = metadata["databases"]["agentdex"]["tables"]["check_status"]["columns"]
    columns.update({info.column: info.meaning for info in CHECKS.values()})
    return json.dumps(metadata, indent=2, ensure_ascii=False) + "\n"


def _outputs() -> dict[Path, str]:
    return {DOC: render(), **{path: render_metadata(path.read_text("utf-8")) for path in METADATA_FILES}}


def main(argv: list[str]) -> int:
    """Write the files, or with ``--check`` report whether they are current."""
    stale = [path for path, text in _outputs().items() if not path.exists() or path.read_text("utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date; run: {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    for path, text in _outputs().items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(CHECKS)} checks to docs/{DOC.name} and the check_status columns of datasette_metadata.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
