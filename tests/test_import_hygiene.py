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
