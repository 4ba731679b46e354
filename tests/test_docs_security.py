"""docs/security.md names the test that proves each promise: every one must exist, and every
hostile test file must be named there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "security.md"
NAMED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_")
    }


def test_every_test_named_in_security_md_exists():
    named = NAMED.findall(DOC.read_text("utf-8"))
    assert len(named) > 40
    missing = [
        f"{file}::{name}"
        for file, name in named
        if not (ROOT / file).is_file() or name not in defined_tests(ROOT / file)
    ]
    assert missing == []


def test_every_hostile_test_file_is_named_in_security_md():
    named = {file for file, _ in NAMED.findall(DOC.read_text("utf-8"))}
    hostile = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_hostile_*.py")}
    assert hostile and hostile <= named
