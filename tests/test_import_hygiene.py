"""Imports point one way: the library never pulls in the UI toolkits; and every package
agentdex imports is one it declares (none arrives only because another package needs it)."""

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = [
    "agentdex.formats",
    "agentdex.plans",
    "agentdex.crawler.crawl",
    "agentdex.crawler.verify",
    "agentdex.db",
    "agentdex.validate",
    "agentdex.changes",
    "agentdex.feedback",
    "agentdex.checks",
    "agentdex.render",
    "agentdex.showing",
    "agentdex.demo",
]


@pytest.mark.slow
def test_library_modules_do_not_import_ui_toolkits():
    # rich is left out here: httpx itself imports it for its own CLI when it is installed.
    # That our modules never import rich directly is the import-linter contract below.
    code = (
        "import importlib, sys\n"
        f"for m in {LIBRARY!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'typer'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.slow
def test_a_crawling_process_imports_no_pydantic():
    # pydantic and the models built at import cost each crawling process about 7 MB of its peak
    # (docs/benchmarks.md, issue 35: the rise measured at 1b67c5c, where formats.server_json built
    # the registry API's models at import); the crawler loads it when a registry page is read.
    code = (
        "import sys, agentdex.crawler.crawl, agentdex.crawler.worker\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.slow
def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# Distribution name -> the module it is imported as, where they differ.
IMPORT_NAMES = {"pyyaml": "yaml", "dnspython": "dns", "sqlite-utils": "sqlite_utils"}
# Declared without an import of ours: httpcore uses sniffio (see the comment in pyproject.toml).
IMPORTED_BY_DEPENDENCIES = {"sniffio"}


def declared_distributions(extra: str | None = None) -> set[str]:
    """The normalised names (PEP 503) of the distributions pyproject.toml depends on (with
    ``extra``: those that extra adds)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = project["optional-dependencies"][extra] if extra else project["dependencies"]
    return {_normalise(re.split(r"[<>=!~ ;\[]", d, maxsplit=1)[0]) for d in declared}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_top_level_modules(package: Path, *, skip: Path | None = None) -> set[str]:
    """Every top-level module name ``package``'s source imports, at any depth (imports
    inside functions and ``try`` blocks included), relative imports and the files below
    ``skip`` (and the modules behind an extra, :data:`EXTRA_MODULES`) left out."""
    names = set()
    paths = [package] if package.is_file() else package.rglob("*.py")
    for path in paths:
        if skip is not None and path.is_relative_to(skip):
            continue
        if path in EXTRA_MODULES and path != package:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


SAMPLEWEB = ROOT / "agentdex" / "sampleweb"
# Modules behind an extra of their own (a base install never imports them): module -> extra.
EXTRA_MODULES = {
    ROOT / "agentdex" / "tool_scoring.py": "quality",
    ROOT / "agentdex" / "crawler" / "eventloop.py": "fast",
}


def _distributions(modules: set[str]) -> set[str]:
    """The installed distributions providing the third-party ``modules`` (every one must be installed)."""
    third_party = sorted(name for name in modules if name not in sys.stdlib_module_names and name != "agentdex")
    providers = importlib.metadata.packages_distributions()
    unknown = [name for name in third_party if name not in providers]
    assert unknown == [], f"imported by agentdex/ but not installed at all: {unknown}"
    return {_normalise(dist) for name in third_party for dist in providers[name]}


def test_every_package_agentdex_imports_is_declared():
    # A package that arrives only as another one's dependency goes the day that one drops it
    # (or is uninstalled): agentdex then fails at import time on a user's machine.
    library = _distributions(imported_top_level_modules(ROOT / "agentdex", skip=SAMPLEWEB))
    missing = sorted(library - declared_distributions())
    assert missing == [], f"imported by agentdex/ but not declared in pyproject.toml's dependencies: {missing}"
    assert {"httpx", "httptools"} <= library
    assert "h11" not in library  # the transport parses with httptools (agentdex/crawler/h1.py)
    assert "httpcore" not in library  # the crawler's transport is its own (netstream.py, h1.py)
    assert "anyio" not in library  # one async vocabulary: asyncio (the tests' plugin comes with the test extra)


def test_the_sample_web_imports_only_what_the_demo_extra_adds():
    # agentdex/sampleweb (the demo and sampleweb commands) may use the demo extra too; nothing
    # else may, or a base install would fail at import time.
    sampleweb = _distributions(imported_top_level_modules(SAMPLEWEB))
    missing = sorted(sampleweb - declared_distributions() - declared_distributions("demo"))
    assert missing == [], f"imported by agentdex/sampleweb but declared neither as a dependency nor in demo: {missing}"
    library = _distributions(imported_top_level_modules(ROOT / "agentdex", skip=SAMPLEWEB))
    assert declared_distributions("demo") <= sampleweb - library, "the demo extra holds a package the library imports"
    assert (
        "agentdex[demo]"
        in tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]["test"]
    ), "the test extra must install the demo extra (the suite runs the sample web)"


@pytest.mark.parametrize("module", sorted(EXTRA_MODULES), ids=lambda p: p.name)
def test_a_module_behind_an_extra_imports_only_what_that_extra_adds(module):
    extra = EXTRA_MODULES[module]
    found = _distributions(imported_top_level_modules(module))
    missing = sorted(found - declared_distributions() - declared_distributions(extra))
    assert missing == [], f"imported by {module.name} but declared neither as a dependency nor in {extra}: {missing}"
    assert declared_distributions(extra) <= found, f"the {extra} extra holds a package {module.name} does not import"
    test_extra = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]["test"]
    assert f"agentdex[{extra}]" in test_extra, f"the test extra must install the {extra} extra"


def test_the_sample_webs_refusal_names_every_module_of_the_demo_extra():
    from agentdex.sampleweb import EXTRA_MODULES

    modules = {name for name in imported_top_level_modules(SAMPLEWEB) if name not in sys.stdlib_module_names}
    providers = importlib.metadata.packages_distributions()
    demo = declared_distributions("demo")
    assert set(EXTRA_MODULES) == {m for m in modules if {_normalise(d) for d in providers.get(m, ())} & demo}


def test_every_declared_dependency_is_imported_by_agentdex():
    names = (
        declared_distributions() | declared_distributions("demo") | declared_distributions("quality")
    ) - IMPORTED_BY_DEPENDENCIES
    source = "\n".join(p.read_text("utf-8") for p in (ROOT / "agentdex").rglob("*.py"))
    unused = sorted(
        n for n in names if not re.search(rf"^\s*(import|from) {re.escape(IMPORT_NAMES.get(n, n))}\b", source, re.M)
    )
    assert unused == [], f"declared in pyproject.toml but imported nowhere in agentdex/: {unused}"


CRAWLER = ROOT / "agentdex" / "crawler"


def crawler_imports() -> dict[str, set[str]]:
    """Each module of agentdex/crawler and the crawler modules it imports, at any depth
    (an import inside a function counts: a lazy import still makes a circle)."""
    modules = {path.stem for path in CRAWLER.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in modules:
        found = set()
        for node in ast.walk(ast.parse((CRAWLER / f"{name}.py").read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "agentdex.crawler":
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentdex.crawler."):
                found.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("agentdex.crawler."))
        graph[name] = found & modules
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle of ``graph``: a path back to where it started."""
    found = []

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if nxt == path[0]:
                found.append([*path, nxt])
            elif nxt not in path and nxt > path[0]:  # each circle once, from its smallest module
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return found


def test_no_import_circle_inside_the_crawler():
    # The layers contract in pyproject.toml names the crawler's modules; this also covers a
    # module added since, before anyone places it in a layer.
    graph = crawler_imports()
    assert {"crawl", "stage", "options", "processes"} <= graph.keys()
    assert circles(graph) == []
    assert circles({"crawl": {"processes"}, "processes": {"stage", "crawl"}, "stage": set()}) == [
        ["crawl", "processes", "crawl"]
    ]
