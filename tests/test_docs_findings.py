"""docs/findings.md is generated from agentdex/formats/codes.py, and codes.py names every
code the formats package emits."""

from __future__ import annotations

import ast
from pathlib import Path

from agentdex.formats.codes import CODES
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ROOT / "agentdex" / "formats"
REGENERATE = "python scripts/gen_findings_doc.py"


def _generator():
    return load_script("gen_findings_doc")


def test_findings_doc_is_generated_from_codes() -> None:
    doc = ROOT / "docs" / "findings.md"
    current = doc.read_text("utf-8") if doc.exists() else ""
    assert current == _generator().render(), f"docs/findings.md is out of date; regenerate it with: {REGENERATE}"


def test_findings_doc_has_one_row_per_code() -> None:
    rows = [line for line in _generator().render().splitlines() if line.startswith("| `")]
    assert len(rows) == len(CODES)
    assert _generator().render({"x": "a | b\nc"}).endswith("| `x` | a \\| b c |\n")


# -- every code the formats package emits is documented ---------------------------------


def _code_positions(trees: list[ast.Module]) -> dict[str, int]:
    """Functions (and methods) with a ``code`` parameter -> its positional index.

    ``Finding(severity, path, code, message)`` is a dataclass, so it is added by hand.
    A name defined twice with ``code`` in different places is left out as ambiguous.
    """
    seen: dict[str, set[int]] = {"Finding": {2}}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
                if "code" in names:
                    seen.setdefault(node.name, set()).add(names.index("code"))
    return {name: next(iter(idx)) for name, idx in seen.items() if len(idx) == 1}


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _literal_codes(tree: ast.Module, positions: dict[str, int]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _called_name(node) not in positions:
            continue
        args = list(node.args)
        index = positions[_called_name(node)]
        candidates = [args[index]] if index < len(args) else []
        candidates += [k.value for k in node.keywords if k.arg == "code"]
        found |= {c.value for c in candidates if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return found


def emitted_codes() -> dict[str, set[str]]:
    """Every string literal passed as a finding code in agentdex/formats, by file."""
    files = sorted(FORMATS.rglob("*.py"))
    trees = {p: ast.parse(p.read_text("utf-8"), filename=str(p)) for p in files}
    positions = _code_positions(list(trees.values()))
    return {p.relative_to(ROOT).as_posix(): _literal_codes(t, positions) for p, t in trees.items()}


def test_the_scan_finds_codes() -> None:
    by_file = emitted_codes()
    assert {"leading_name", "unsupported_version"} <= by_file["agentdex/formats/agent_app.py"]
    assert {"too_large", "bom", "not_json"} <= by_file["agentdex/formats/_load.py"]
    assert {"required", "unknown_key"} <= by_file["agentdex/formats/_check.py"]


def test_every_emitted_code_is_in_codes() -> None:
    missing = {f"{file}: {code}" for file, found in emitted_codes().items() for code in found - CODES.keys()}
    assert not missing, "add these codes to agentdex/formats/codes.py, then run " + REGENERATE
