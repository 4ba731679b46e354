"""Write docs/findings.md from agentdex/formats/codes.py (the one table of finding codes).

Run ``python scripts/gen_findings_doc.py`` after adding a code; ``--check`` exits 1 when
the file is out of date instead of writing it. tests/test_docs_findings.py keeps the two equal.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentdex.formats.codes import CODES

DOC = Path(__file__).resolve().parent.parent / "docs" / "findings.md"
COMMAND = "python scripts/gen_findings_doc.py"

HEADER = f"""# Finding codes

Every finding agentdex reports is `{{severity, path, code, message}}`. The `code` is a stable
word you can match on; the `message` is for people and may change. Errors make a manifest
invalid; warnings never do. `path` is the dotted location of the offending value
(`mcp.url`, `tags[3]`), the missing field's own path for a missing required field, and
empty for a problem with the whole document.

<!-- Generated from agentdex/formats/codes.py by `{COMMAND}`; do not edit by hand. -->

| code | meaning |
| --- | --- |
"""


def _cell(text: str) -> str:
    # A pipe would end the table cell; a line break would end the row.
    return " ".join(text.split()).replace("|", "\\|")


def render(codes: dict[str, str] = CODES) -> str:
    """The full text of docs/findings.md for ``codes`` (sorted by code)."""
    rows = "".join(f"| `{code}` | {_cell(meaning)} |\n" for code, meaning in sorted(codes.items()))
    return HEADER + rows


def main(argv: list[str]) -> int:
    """Write the file, or with ``--check`` report whether it is current."""
    text = render()
    if "--check" in argv:
        current = DOC.read_text("utf-8") if DOC.exists() else ""
        if current != text:
            print(f"{DOC.name} is out of date; run: {COMMAND}", file=sys.stderr)
            return 1
        return 0
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {len(CODES)} codes to docs/{DOC.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
