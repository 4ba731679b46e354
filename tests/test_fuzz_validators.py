"""Property tests: no input makes a validator raise.

Every format's entry point gets arbitrary bytes, arbitrary JSON values and mutated copies of
the valid examples under ``tests/examples/valid/``. Whatever comes in, a ParseResult comes
out whose findings are well-formed and documented, and whose listing is plain JSON data.
"""

from __future__ import annotations

import copy
import importlib
import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentdex.formats import adapp, inferred
from agentdex.formats.codes import CODES
from agentdex.models import Finding, ParseResult

EXAMPLES = Path(__file__).resolve().parent / "examples" / "valid"
ADAPP_TREES = Path(__file__).resolve().parent / "examples" / "adapp"  # package source trees
# Hundreds of generated documents a test: the full lane's, not the quick one's.
pytestmark = pytest.mark.slow

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
ENTRY_POINTS = (
    "agent_app.parse",
    "anchor.parse",
    "findagent.parse",
    "inferred.parse",
    "inferred.infer",
    "adapp.parse",
    "adapp.parse_package",
)
JSON_ENTRY_POINTS = ("agent_app.parse", "anchor.parse", "findagent.parse", "adapp.parse")
BOOTSTRAP_FILES = ("SKILL.md", "agent.md", "llms.txt", "mcp.json")


def entry_point(name: str) -> Callable[[bytes], ParseResult]:
    """The callable ``module.function`` of ``agentdex.formats``."""
    module_name, function = name.split(".")
    module = importlib.import_module(f"agentdex.formats.{module_name}")
    if name == "inferred.infer":
        return lambda data: module.infer({"SKILL.md": data, "agent.md": data}, base_url="https://example.com")
    return getattr(module, function)


def check_result(result: Any) -> None:
    """The properties every validator's answer has, whatever the input."""
    assert isinstance(result, ParseResult)
    for finding in result.findings:
        assert isinstance(finding, Finding) and finding.severity in ("error", "warning")
        assert isinstance(finding.path, str) and isinstance(finding.message, str) and finding.message
        assert finding.code in CODES, f"undocumented finding code {finding.code!r}"
    if result.listing is None:
        assert not result.valid, "no listing came out, yet no error says why"
    else:
        json.dumps(result.listing.to_dict())
    json.dumps(result.to_dict())


# -- strategies --------------------------------------------------------------------------------
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40)
)


def known_keys() -> list[str]:
    """Every object key in the valid examples: random objects use them to get past the
    first required-field checks into the deeper rules."""
    keys: set[str] = {"SKILL.md", "agent.md", "mcpServers", "url", "name", "description"}
    for path in EXAMPLES.rglob("*.json") if EXAMPLES.is_dir() else ():
        try:
            stack = [json.loads(path.read_text("utf-8"))]
        except (ValueError, UnicodeDecodeError):
            continue
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                keys.update(node)
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return sorted(keys)


KEYS = st.sampled_from(known_keys()) | st.text(max_size=12)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=6),
    max_leaves=25,
)
TYPE_FAMILIES: dict[str, st.SearchStrategy] = {
    "null": st.none(),
    "bool": st.booleans(),
    "int": st.integers(),
    "float": st.floats(allow_nan=False, allow_infinity=False),
    "str": st.text(max_size=300),
    "list": st.lists(SCALARS, max_size=4),
    "dict": st.dictionaries(st.text(max_size=10), SCALARS, max_size=4),
}


def family(value: Any) -> str:
    """The JSON type family of a value."""
    for name, kind in (
        ("null", type(None)),
        ("bool", bool),
        ("int", int),
        ("float", float),
        ("str", str),
        ("list", list),
        ("dict", dict),
    ):
        if isinstance(value, kind):
            return name
    return "str"


def slots(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair inside a JSON document."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else ()
        for key in keys:
            out.append((node, key))
            stack.append(node[key])
    return out


@st.composite
def mutated(draw: st.DrawFn, doc: Any) -> Any:
    """``doc`` with one to three keys dropped or values replaced by another JSON type."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        places = slots(doc)
        if not places:
            break
        container, key = places[draw(st.integers(0, len(places) - 1))]
        if draw(st.booleans()):
            del container[key]
        else:
            other = draw(st.sampled_from([f for f in TYPE_FAMILIES if f != family(container[key])]))
            container[key] = draw(TYPE_FAMILIES[other])
    return doc


def json_examples(fmt: str) -> list[Any]:
    """The decoded JSON documents under ``tests/examples/valid/<fmt>/`` (for adapp also the
    manifest.json of each package source tree under ``tests/examples/adapp/``)."""
    folder = EXAMPLES / fmt
    paths = sorted(folder.rglob("*.json")) if folder.is_dir() else []
    if fmt == "adapp":
        paths += sorted(ADAPP_TREES.glob("*/manifest.json"))
    docs = []
    for path in paths:
        if path.name.endswith(".expect.json"):  # the expected findings of an example, not a manifest
            continue
        try:
            docs.append(json.loads(path.read_text("utf-8")))
        except (ValueError, UnicodeDecodeError):
            continue
    return docs


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """An in-memory ZIP archive of ``files``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# -- arbitrary input ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_arbitrary_bytes_never_raise(name):
    parse = entry_point(name)

    @FUZZ
    @given(st.binary(max_size=4096) | st.text(max_size=2000).map(lambda t: t.encode("utf-8", "surrogatepass")))
    def check(data: bytes) -> None:
        check_result(parse(data))

    check()


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_arbitrary_json_never_raises(name):
    parse = entry_point(name)

    @FUZZ
    @given(JSON_VALUES)
    def check(value: Any) -> None:
        check_result(parse(json.dumps(value).encode()))

    check()


@pytest.mark.parametrize("name", JSON_ENTRY_POINTS)
def test_mutated_valid_examples_never_raise(name):
    parse = entry_point(name)
    examples = json_examples(name.split(".")[0])
    assert examples, f"tests/examples holds no valid {name.split('.')[0]} examples"

    @FUZZ
    @given(st.sampled_from(examples).flatmap(mutated))
    def check(doc: Any) -> None:
        check_result(parse(json.dumps(doc).encode()))

    check()


# -- packages and bootstrap files --------------------------------------------------------------
ZIP_NAMES = st.sampled_from(["manifest.json", "icon.png", "tools/a.json", "../evil", "/abs", "dir/", "a\\b"]) | st.text(
    st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20
)


def test_arbitrary_zip_packages_never_raise():
    contents = st.binary(max_size=300) | JSON_VALUES.map(lambda v: json.dumps(v).encode())

    @FUZZ
    @given(st.dictionaries(ZIP_NAMES, contents, max_size=5))
    def check(files: dict[str, bytes]) -> None:
        check_result(adapp.parse_package(zip_bytes(files)))

    check()


def adapp_trees() -> list[dict[str, bytes]]:
    """The package source trees under ``tests/examples/adapp/`` (path -> bytes)."""
    trees = []
    for folder in sorted(p for p in ADAPP_TREES.iterdir() if p.is_dir()) if ADAPP_TREES.is_dir() else ():
        trees.append(
            {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        )
    return [tree for tree in trees if "manifest.json" in tree]


def test_mutated_adapp_packages_never_raise():
    """Mutate a real package's manifest and, half the time, give it the right checksum so
    validation goes past the checksum into the tools."""
    trees = adapp_trees()
    assert trees, "tests/examples/adapp holds no package source trees"
    manifests = st.sampled_from(trees).flatmap(
        lambda tree: st.tuples(st.just(tree), mutated(json.loads(tree["manifest.json"])), st.booleans())
    )

    @FUZZ
    @given(manifests)
    def check(case: tuple[dict[str, bytes], Any, bool]) -> None:
        tree, doc, fix_checksum = case
        files = {**tree, "manifest.json": json.dumps(doc).encode()}
        if fix_checksum and isinstance(doc, dict):
            files["manifest.json"] = json.dumps({**doc, "checksum": adapp.compute_checksum(files)}).encode()
        check_result(adapp.parse_package(zip_bytes(files)))

    check()


SKILL_FRONTMATTER = {
    "name": "pantry",
    "description": "Tracks what is in your kitchen.",
    "license": "MIT",
    "metadata": {"openclaw": {"requires": {"env": ["PANTRY_KEY"]}}},
}


def test_arbitrary_bootstrap_file_sets_never_raise():
    text = st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass"))
    content = st.none() | st.binary(max_size=400) | text | JSON_VALUES.map(lambda v: json.dumps(v).encode())

    @FUZZ
    @given(st.dictionaries(st.sampled_from(BOOTSTRAP_FILES), content), st.none() | st.text(max_size=30))
    def check(files: dict[str, bytes | None], origin: str | None) -> None:
        check_result(inferred.infer(files, origin=origin))

    check()


def test_mutated_skill_frontmatter_never_raises():
    yaml_text = st.recursive(
        SCALARS, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3), max_leaves=15
    ).map(lambda v: yaml.safe_dump(v, allow_unicode=True))

    frontmatters = [SKILL_FRONTMATTER]
    for path in sorted((EXAMPLES / "inferred").glob("*/SKILL.md")):
        value, _ = inferred.parse_frontmatter(path.read_text("utf-8"))
        frontmatters += [value] if value else []
    dumped = st.sampled_from(frontmatters).flatmap(mutated).map(lambda v: yaml.safe_dump(v, allow_unicode=True))

    # text made of YAML's syntax characters reaches anchors, aliases, tags and flow collections
    yaml_syntax = st.text(alphabet="ab1:-&*![]{},|>?'\"# \n", max_size=80)
    # lines that random text rarely hits: self-reference, alias fan-out, tags, bad dates
    yaml_lines = st.lists(
        st.sampled_from(
            [
                "a: &a [*a]",
                "b: &b {x: *b}",
                "c: &c [1, 2]",
                "d: [*c, *c, *c]",
                "e: *c",
                "f: &f\n  - *f",
                "g: !!set {a, b}",
                "h: 2024-13-40",
                "i: !!binary Zm9v",
                "j: !!python/name:os.system",
                "? [k]\n: v",
                "name: x",
                "description: y",
                "name: [1]",
                "description: {a: 1}",
            ]
        ),
        min_size=1,
        max_size=4,
        unique=True,
    ).map("\n".join)

    @FUZZ
    @given(dumped | yaml_text | yaml_syntax | yaml_lines | st.text(max_size=300), st.text(max_size=300))
    def check(frontmatter: str, body: str) -> None:
        data = f"---\n{frontmatter}\n---\n{body}".encode("utf-8", "surrogatepass")
        check_result(inferred.infer({"SKILL.md": data, "agent.md": body.encode("utf-8", "surrogatepass")}))

    check()
