"""Imports point one way: the library never pulls in the UI toolkits."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ["agentdex.formats", "agentdex.plans", "agentdex.crawler.crawl", "agentdex.crawler.verify",
           "agentdex.db", "agentdex.validate", "agentdex.changes", "agentdex.feedback", "agentdex.checks",
           "agentdex.render", "agentdex.showing", "agentdex.demo"]


def test_library_modules_do_not_import_ui_toolkits():
    # rich is left out here: httpx itself imports it for its own CLI when it is installed.
    # That our modules never import rich directly is the import-linter contract below.
    code = ("import importlib, sys\n"
            f"for m in {LIBRARY!r}: importlib.import_module(m)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'typer'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# Distribution name -> the module it is imported as, where they differ.
IMPORT_NAMES = {"pyyaml": "yaml", "dnspython": "dns", "sqlite-utils": "sqlite_utils"}
# Declared without an import of ours: httpcore uses sniffio (see the comment in pyproject.toml).
IMPORTED_BY_DEPENDENCIES = {"sniffio"}


def test_every_declared_dependency_is_imported_by_agentdex():
    import re
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    names = {re.split(r"[<>=!~ ;\[]", d, maxsplit=1)[0].lower() for d in declared} - IMPORTED_BY_DEPENDENCIES
    source = "\n".join(p.read_text("utf-8") for p in (ROOT / "agentdex").rglob("*.py"))
    unused = sorted(n for n in names if not re.search(
        rf"^\s*(import|from) {re.escape(IMPORT_NAMES.get(n, n))}\b", source, re.M))
    assert unused == [], f"declared in pyproject.toml but imported nowhere in agentdex/: {unused}"
