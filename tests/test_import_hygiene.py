"""Imports point one way: the library never pulls in the UI toolkits; and every package
agentdex imports is one it declares (none arrives only because another package needs it)."""

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
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


def declared_distributions() -> set[str]:
    """The normalised names (PEP 503) of the distributions pyproject.toml depends on."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    return {_normalise(re.split(r"[<>=!~ ;\[]", d, maxsplit=1)[0]) for d in declared}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_top_level_modules(package: Path) -> set[str]:
    """Every top-level module name ``package``'s source imports, at any depth (imports
    inside functions and ``try`` blocks included), relative imports left out."""
    names = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_every_package_agentdex_imports_is_declared():
    # A package that arrives only as another one's dependency goes the day that one drops it
    # (or is uninstalled): agentdex then fails at import time on a user's machine.
    third_party = sorted(name for name in imported_top_level_modules(ROOT / "agentdex")
                         if name not in sys.stdlib_module_names and name != "agentdex")
    providers = importlib.metadata.packages_distributions()
    unknown = [name for name in third_party if name not in providers]
    assert unknown == [], f"imported by agentdex/ but not installed at all: {unknown}"
    missing = sorted({_normalise(dist) for name in third_party for dist in providers[name]} - declared_distributions())
    assert missing == [], f"imported by agentdex/ but not declared in pyproject.toml: {missing}"
    assert {"httpx", "h11", "httpcore", "anyio"} <= {_normalise(d) for n in third_party for d in providers[n]}


def test_every_declared_dependency_is_imported_by_agentdex():
    names = declared_distributions() - IMPORTED_BY_DEPENDENCIES
    source = "\n".join(p.read_text("utf-8") for p in (ROOT / "agentdex").rglob("*.py"))
    unused = sorted(n for n in names if not re.search(
        rf"^\s*(import|from) {re.escape(IMPORT_NAMES.get(n, n))}\b", source, re.M))
    assert unused == [], f"declared in pyproject.toml but imported nowhere in agentdex/: {unused}"
