"""The example corpus in tests/examples/: ``<folder>/<name>.json`` documents, each with an
optional sibling ``<name>.expect.json`` listing the findings it must produce."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from agentdex.models import ParseResult

EXAMPLES = Path(__file__).resolve().parent / "examples"
EXPECT_SUFFIX = ".expect.json"


def example_files(folder: Path) -> list[Path]:
    """The example documents of a folder (expect files excluded), in name order."""
    return sorted(p for p in folder.glob("*.json") if not p.name.endswith(EXPECT_SUFFIX))


def expect_path(example: Path) -> Path:
    """``foo.json`` -> ``foo.expect.json``."""
    return example.with_name(example.name[: -len(".json")] + EXPECT_SUFFIX)


def load_expect(example: Path) -> dict | None:
    """The declared expectations of an example, or ``None`` when it has none."""
    path = expect_path(example)
    return json.loads(path.read_text("utf-8")) if path.exists() else None


def assert_findings(result: ParseResult, expected: list[dict]) -> None:
    """The result's findings are exactly the expected (severity, path, code) triples, and
    each ``message_contains`` is in the message of its finding."""
    got = Counter((f.severity, f.path, f.code) for f in result.findings)
    want = Counter((e.get("severity", "error"), e["path"], e["code"]) for e in expected)
    detail = "\n".join(f"  {f.severity} {f.path!r} {f.code}: {f.message}" for f in result.findings)
    assert got == want, f"findings differ from the expect file; got:\n{detail}"
    for e in expected:
        if "message_contains" in e:
            messages = [f.message for f in result.findings if (f.path, f.code) == (e["path"], e["code"])]
            assert any(e["message_contains"] in m for m in messages), messages
