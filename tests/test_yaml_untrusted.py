"""The one loader of untrusted YAML (agentdex/formats/_yaml.py), for SKILL.md frontmatter and
OpenAPI documents alike: a bomb, an over-deep or oversized document is a finding or a failed
check with its reason; a real OpenAPI YAML still parses. End to end, the http.openapi check of
a crawl over the loopback HTTPS server says the same."""

from __future__ import annotations

import asyncio

import pytest

from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.crawler.verify import OPENAPI_LIMITS, openapi_document
from agentdex.db import get_listing, open_db
from agentdex.formats._yaml import YamlLimits, load_yaml
from agentdex.formats.inferred import parse_frontmatter
from freshweb import manifest
from netfixtures import Reply, Request, TLSServer, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401

PETSTORE = "OAI__OpenAPI-Specification__examples__v3.0__petstore.yaml"


def yaml_bomb(levels: int = 9) -> str:
    """The "billion laughs": each level a list of nine aliases of the level before."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, levels + 1):
        lines.append(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def big_openapi(paths: int) -> str:
    """An ordinary OpenAPI 3.0 document in YAML with ``paths`` operations."""
    head = "openapi: 3.0.3\ninfo:\n  title: Big\n  version: '1.0'\npaths:\n"
    op = (
        "  /things/{n}/item:\n    get:\n      operationId: getThing{n}\n      summary: Get thing number {n}\n"
        "      parameters:\n        - name: id\n          in: query\n          schema:\n            type: string\n"
        "      responses:\n        '200':\n          description: The thing {n}.\n"
    )
    return head + "".join(op.replace("{n}", str(i)) for i in range(paths))


def test_a_real_openapi_yaml_parses(shared) -> None:
    doc, problem = openapi_document((shared / "realworld" / "openapi" / PETSTORE).read_bytes())
    assert problem is None and doc["openapi"] == "3.0.0" and "/pets" in doc["paths"]


def test_a_yaml_bomb_is_refused_with_its_reason() -> None:
    doc, problem = openapi_document(yaml_bomb().encode())
    assert doc is None and problem == "the YAML expands to more values than agentdex reads (aliases or nesting)"


def test_the_same_bomb_in_a_skill_frontmatter_is_a_finding() -> None:
    skill = "---\nname: bomb\ndescription: d\n" + yaml_bomb() + "---\n# Skill\n"
    value, findings = parse_frontmatter(skill, prefix="SKILL.md:")
    assert value is None and [(f.code, f.path) for f in findings] == [("frontmatter", "SKILL.md:")]
    assert "expands to more values" in findings[0].message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: " + "[" * 200 + "]" * 200 + "\n", "expands to more values"),  # nesting past the depth
        ("x: &x [*x]\n", "expands to more values"),  # an alias of itself
        ("name: !!python/object/apply:os.system ['id']\n", "not valid YAML"),
        ("a: [unclosed\n", "not valid YAML"),
    ],
)
def test_hostile_yaml_gets_a_reason(text: str, words: str) -> None:
    value, problem = load_yaml(text, what="the YAML", limits=YamlLimits(chars=10_000))
    assert value is None and problem is not None and words in problem


def test_an_oversized_document_is_refused_before_parsing() -> None:
    text = big_openapi(20)
    value, problem = load_yaml(text, what="the YAML", limits=YamlLimits(chars=len(text) - 1))
    assert (
        value is None and problem == f"the YAML is {len(text):,} characters; agentdex reads at most {len(text) - 1:,}"
    )


def test_a_one_megabyte_openapi_yaml_parses_within_the_limits() -> None:
    text = big_openapi(4000)
    assert len(text) > 1_000_000 and len(text) <= OPENAPI_LIMITS.chars
    doc, problem = openapi_document(text.encode())
    assert problem is None and len(doc["paths"]) == 4000


# --- end to end: the http.openapi check of a crawl ----------------------------------------------


def _manifest(host: str) -> dict:
    """freshweb's manifest, declaring an OpenAPI document."""
    return {**manifest(host), "http": {"base": f"https://{host}/json", "openapi": f"https://{host}/openapi.yaml"}}


def test_the_openapi_check_reports_a_bomb_and_passes_a_real_document(tls_server: TLSServer, tmp_path, shared) -> None:  # noqa: F811
    documents = {
        "bomb.sample.test": yaml_bomb().encode(),
        "pets.sample.test": (shared / "realworld" / "openapi" / PETSTORE).read_bytes(),
        "big.sample.test": big_openapi(4000).encode(),
    }

    async def serve_manifest(request: Request) -> Reply:
        return json_reply(_manifest(request.host))

    async def openapi(request: Request) -> Reply:
        return Reply(200, documents[request.host], content_type="application/yaml")

    async def guide(request: Request) -> Reply:
        return Reply(200, b"# Tidewatch\n", content_type="text/markdown")

    tls_server.routes.update(
        {"/.well-known/agent-app.json": serve_manifest, "/openapi.yaml": openapi, "/agent.md": guide}
    )
    db = open_db(tmp_path / "catalogue.db")
    net = NetworkOptions(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path)
    asyncio.run(crawl(db, list(documents), net, verify=True))
    checks = {
        host: next(c for c in get_listing(db, host)["checks"] if c["name"] == "http.openapi") for host in documents
    }
    assert (checks["bomb.sample.test"]["status"], checks["bomb.sample.test"]["detail"]) == (
        "fail",
        "not an OpenAPI 3.x document: the YAML expands to more values than agentdex reads (aliases or nesting)",
    )
    assert (checks["pets.sample.test"]["status"], checks["pets.sample.test"]["detail"]) == (
        "pass",
        "OpenAPI 3.0.0, 2 path(s)",
    )
    assert (checks["big.sample.test"]["status"], checks["big.sample.test"]["detail"]) == (
        "pass",
        "OpenAPI 3.0.3, 4000 path(s)",
    )
