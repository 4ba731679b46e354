"""``agentdex validate`` on the ecosystem's own reference files: the MCP registry's valid and
invalid server.json examples (verdicts checked against the registry's published 2025-12-11
schema run by jsonschema), A2A cards of the 0.3 and 1.0 shapes (0.3 ones against the
A2A 0.3 JSON Schema) and documents that are no manifest of any kind (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from typer.testing import CliRunner

from agentdex.cli import app

HERE = Path(__file__).resolve().parent / "ecosystem"
REGISTRY_EXAMPLES = sorted((HERE / "server_json").glob("*/*.json"))
CARDS = sorted(p for p in (HERE / "a2a").glob("*.json") if "schema" not in p.name)


def run(*args: str):
    result = CliRunner().invoke(app, ["validate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def official(path: Path) -> bool:
    """The registry's own schema's verdict on a file."""
    schema = json.loads((HERE / "server_json" / "server.schema.2025-12-11.json").read_text("utf-8"))
    return Draft7Validator(schema).is_valid(json.loads(path.read_text("utf-8")))


def test_there_are_eight_registry_examples_and_the_folders_agree_with_the_schema():
    assert len(REGISTRY_EXAMPLES) == 8
    assert all(official(p) == (p.parent.name == "valid") for p in REGISTRY_EXAMPLES)


@pytest.mark.parametrize("path", REGISTRY_EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("forced", [[], ["--format", "server_json"]], ids=["auto", "forced"])
def test_every_registry_example_gets_the_official_verdict(path: Path, forced: list[str]):
    result = run(str(path), "--json", *forced)
    data = json.loads(result.stdout)
    assert data["format"] == "server_json"
    assert data["valid"] is official(path)
    assert result.exit_code == (0 if official(path) else 1)
    if not official(path):  # the error is located where the schema finds it
        assert [f for f in data["findings"] if f["severity"] == "error"]


def test_the_invalid_examples_are_invalid_for_the_reason_their_name_gives():
    codes = {
        p.stem: {(f["path"], f["code"]) for f in json.loads(run(str(p), "--json").stdout)["findings"]}
        for p in REGISTRY_EXAMPLES
        if p.parent.name == "invalid"
    }
    assert ("name", "pattern") in codes["bad-name-pattern"]
    assert ("description", "max_length") in codes["description-too-long"]
    assert ("name", "required") in codes["missing-name"]
    assert ("packages[0].version", "not_allowed") in codes["package-version-latest"]
    assert any(p.startswith("packages[0].packageArguments[0]") for p, _ in codes["positional-argument-missing-value"])


# -- MCP server cards: SEP-2127's v2 fixtures (revision 056d9f28) and agentdex's own v1 cards -----
CARD_FIXTURES = sorted((HERE / "server_card").glob("v*/*/*.json"))
V1 = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
# The search index holds the SEP's fixtures at their /v2/ revision only, so the /v1/ cases are
# agentdex's own (written here, not copied from the SEP): one for each verdict the v1 schema gives
# a card, keyed as the fixtures are (family/folder/name).
OWN_V1_CARDS: dict[str, dict] = {
    "v1/valid/bare": {
        "$schema": V1,
        "name": "test.agentdex/bare-card",
        "version": "0.0.1",
        "description": "agentdex's own card with only the members v1 requires.",
    },
    "v1/valid/templated-remote": {
        "$schema": V1,
        "name": "test.agentdex/templated",
        "version": "3.0.0-beta.1",
        "description": "agentdex's own card: a remote whose URL and header take variables.",
        "title": "Templated remote",
        "remotes": [
            {
                "type": "sse",
                "url": "https://{region}.mcp.test/sse",
                "variables": {"region": {"choices": ["eu", "us"], "default": "eu"}},
                "headers": [{"name": "X-Api-Key", "isSecret": True, "value": "{key}", "variables": {"key": {}}}],
                "supportedProtocolVersions": ["2025-11-25"],
            }
        ],
        "x-agentdex-note": "v1 objects are open: a key the schema does not define is allowed",
    },
    "v1/invalid/bad-name-pattern": {
        "$schema": V1,
        "name": "bare-name-without-namespace",
        "version": "1.0.0",
        "description": "agentdex's own card whose name has no namespace.",
    },
    "v1/invalid/date-versioned-schema": {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server-card.schema.json",
        "name": "test.agentdex/dated",
        "version": "1.0.0",
        "description": "agentdex's own card naming a dated schema URL.",
    },
    "v1/invalid/missing-name": {"$schema": V1, "version": "1.2.3", "description": "agentdex's own card, no name."},
    "v1/invalid/missing-schema": {
        "name": "test.agentdex/schemaless",
        "version": "1.0.0",
        "description": "agentdex's own card without $schema.",
    },
    "v1/invalid/wrong-schema-name": {
        "$schema": "https://static.modelcontextprotocol.io/schemas/v1/mcp-card.schema.json",
        "name": "test.agentdex/wrong-file",
        "version": "1.0.0",
        "description": "agentdex's own card naming another file of the v1 family.",
    },
}
CARDS_BY_NAME = {"/".join(p.parts[-3:]).removesuffix(".json"): p for p in CARD_FIXTURES} | dict.fromkeys(OWN_V1_CARDS)
# A card with nothing but name, version and description is a server.json just as well (whose
# schema requires no $schema): auto reads it as the registry's; forced, it is a card.
AMBIGUOUS = {"v1/invalid/missing-schema": "server_json"}


def card_json(name: str) -> Any:
    path = CARDS_BY_NAME[name]
    return OWN_V1_CARDS[name] if path is None else json.loads(path.read_text("utf-8"))


def card_file(name: str, tmp_path: Path) -> Path:
    """The fixture's file, or one of agentdex's own cards written out."""
    path = CARDS_BY_NAME[name]
    if path is None:
        path = tmp_path / f"{name.rsplit('/', 1)[-1]}.json"
        path.write_text(json.dumps(OWN_V1_CARDS[name]), "utf-8")
    return path


def sep2127(name: str) -> bool:
    """The verdict of the card's own schema family (run by jsonschema, as the SEP's
    scripts/validate-examples.ts runs ajv: at ``#/$defs/ServerCard``, formats checked)."""
    from jsonschema import Draft202012Validator, FormatChecker

    family = name.split("/")[0]
    schema = json.loads((HERE / "server_card" / family / "server-card.schema.json").read_text("utf-8"))
    card = Draft202012Validator({**schema, "$ref": "#/$defs/ServerCard"}, format_checker=FormatChecker())
    return card.is_valid(card_json(name))


def test_the_card_cases_are_the_seps_v2_fixtures_and_our_v1_cards_and_the_folders_agree():
    assert len(CARD_FIXTURES) == 7 and {p.parts[-3] for p in CARD_FIXTURES} == {"v2"}
    assert len(OWN_V1_CARDS) == 7
    assert all(sep2127(name) == (name.split("/")[1] == "valid") for name in CARDS_BY_NAME)


def test_the_shipped_card_schemas_are_the_fixtures_schemas_byte_for_byte():
    import hashlib
    from importlib import resources

    from agentdex.formats.schemas import VENDORED

    for family in ("v1", "v2"):
        filename, digest = VENDORED[f"server_card_{family}"]
        shipped = resources.files("agentdex.formats.schemas").joinpath(filename).read_bytes()
        assert hashlib.sha256(shipped).hexdigest() == digest
        assert shipped == (HERE / "server_card" / family / "server-card.schema.json").read_bytes()


@pytest.mark.parametrize("name", sorted(CARDS_BY_NAME))
@pytest.mark.parametrize("forced", [[], ["--format", "server_card"]], ids=["auto", "forced"])
def test_every_card_gets_its_schemas_verdict(name: str, forced: list[str], tmp_path: Path):
    result = run(str(card_file(name, tmp_path)), "--json", *forced)
    data = json.loads(result.stdout)
    if not forced and name in AMBIGUOUS:
        assert data["format"] == AMBIGUOUS[name]
        return
    assert (data["format"], data["valid"], result.exit_code) == (
        "server_card",
        sep2127(name),
        0 if sep2127(name) else 1,
    )


def test_the_invalid_cards_are_invalid_for_the_reason_their_name_gives(tmp_path: Path):
    reasons = {
        "bad-name-pattern": ("name", "pattern"),
        "date-versioned-schema": ("$schema", "pattern"),
        "missing-name": ("name", "required"),
        "missing-schema": ("$schema", "required"),
        "wrong-schema-name": ("$schema", "pattern"),
        "with-packages": ("packages", "unknown_key"),
    }
    for name in (n for n in CARDS_BY_NAME if n.split("/")[1] == "invalid"):
        findings = json.loads(run(str(card_file(name, tmp_path)), "--json", "--format", "server_card").stdout)
        errors = {(f["path"], f["code"]) for f in findings["findings"] if f["severity"] == "error"}
        assert errors == {reasons[name.rsplit("/", 1)[-1]]}, name


# -- AI Catalog 1.0: every JSON example of the specification (Agent-Card/ai-catalog e82016ff) ----
# Each file is one example, named by the CDDL rule it illustrates (NN-slug.Rule.json).
CATALOG_EXAMPLES = sorted((HERE / "ai_catalog").glob("*.json"))
WRAPPED_ENTRY = {
    "identifier": "urn:air:example.com:test:wrapper",
    "type": "application/json",
    "url": "https://e.test/x",
}


def rule_of(path: Path) -> str:
    return path.name.split(".")[-2]


def cddl(path: Path) -> bool:
    """The verdict of the CDDL, as agentdex's JSON Schema transcription of it states it,
    on an example at the rule it illustrates."""
    from jsonschema import Draft202012Validator, FormatChecker

    from agentdex.formats.schemas import load_derived

    schema = {**load_derived("ai_catalog"), "$ref": f"#/$defs/{rule_of(path)}"}
    return Draft202012Validator(schema, format_checker=FormatChecker()).is_valid(json.loads(path.read_text("utf-8")))


def as_catalog(rule: str, part: dict) -> dict:
    """A part of a catalog (an entry, a Trust Manifest …) in the smallest catalog around it."""
    if rule == "AICatalog":
        return part
    if rule == "HostInfo":
        return {"specVersion": "1.0", "host": part, "entries": []}
    if rule == "CatalogEntry":
        return {"specVersion": "1.0", "entries": [part]}
    contributor = {"contributor": "did:web:e.test"}
    manifest = {
        "TrustManifest": part,
        "Subject": {**contributor, "subject": part},
        "TrustSchema": {**contributor, "trustSchema": part},
        "Attestation": {**contributor, "attestations": [part]},
        "ProvenanceLink": {**contributor, "provenance": [part]},
    }[rule]
    return {"specVersion": "1.0", "entries": [{**WRAPPED_ENTRY, "trustManifests": [manifest]}]}


# What the CDDL says of each example: all are valid but a payload shown without its jws, two
# excerpts, and a catalog whose entry has neither url nor data.
CATALOG_VERDICTS = {p.name: not p.name.startswith(("09-", "10-", "13-", "14-")) for p in CATALOG_EXAMPLES}


def test_the_catalog_examples_are_the_seventeen_of_the_specification_with_the_cddls_verdicts():
    assert len(CATALOG_EXAMPLES) == 17
    assert {p.name: cddl(p) for p in CATALOG_EXAMPLES} == CATALOG_VERDICTS


@pytest.mark.parametrize("path", CATALOG_EXAMPLES, ids=lambda p: p.stem)
def test_every_catalog_example_gets_the_cddls_verdict(path: Path, tmp_path: Path):
    expected, rule, target = CATALOG_VERDICTS[path.name], rule_of(path), path
    if rule != "AICatalog":  # a part: validated inside the smallest catalog around it
        target = tmp_path / "catalog.json"
        target.write_text(json.dumps(as_catalog(rule, json.loads(path.read_text("utf-8")))), "utf-8")
    for forced in ([], ["--format", "ai_catalog"]):
        result = run(str(target), "--json", *forced)
        data = json.loads(result.stdout)
        assert (data["format"], data["valid"], result.exit_code) == ("ai_catalog", expected, 0 if expected else 1)


def test_the_schema_command_prints_the_derived_catalog_schema():
    from agentdex.formats.schemas import load_derived

    result = CliRunner().invoke(app, ["schema", "ai_catalog"])
    assert result.exit_code == 0 and json.loads(result.stdout) == load_derived("ai_catalog")
    assert "e82016ff715d367e73334e356b66799c5bc81cf0" in json.loads(result.stdout)["description"]


def a2a_v03(path: Path) -> bool:
    """The A2A 0.3 schema's verdict on a card (its AgentCard definition, tag v0.3.0's)."""
    schema = json.loads((HERE / "a2a" / "a2a-v0.3.schema.json").read_text("utf-8"))
    card = {"$ref": "#/definitions/AgentCard", "definitions": schema["definitions"]}
    return Draft7Validator(card).is_valid(json.loads(path.read_text("utf-8")))


def a2a_v10(path: Path) -> bool:
    """A2A 1.0's verdict: the v1 JSON bundle with the proto's REQUIRED fields, every key
    it does not define ignored (the specification: implementations SHOULD ignore them)."""
    from jsonschema import Draft202012Validator

    from agentdex.formats._a2a_schemas import v1_schema

    errors = Draft202012Validator(v1_schema()).iter_errors(json.loads(path.read_text("utf-8")))
    return not [e for e in errors if e.validator != "additionalProperties"]


def a2a_reference(path: Path) -> tuple[str | None, bool]:
    """A card's version (by its shape) and its own schema's verdict."""
    card = json.loads(path.read_text("utf-8"))
    if "supportedInterfaces" in card:
        return "1.0", a2a_v10(path)
    if "url" in card:
        return "0.3", a2a_v03(path)
    return None, False  # a card needs url (0.3) or supportedInterfaces (1.0)


# Each card: its version and the reference verdict (exit 0 valid, 1 invalid); the two files at the
# legacy agent.json path that belong to other protocols are no card at all (exit 2). Real cards
# first, then the examples of the A2A specification and its topics (spec/; v1.0.1 unless named
# main): the sample card, a fragment in two forms, a 0.3-shaped example in a 1.0 topic page, and
# three partial cards that show supportedInterfaces.
CARD_VERDICTS = {
    "ANAMASGARD__Stitch__.well-known__agent-card.json": ("0.3", 0),
    "0xdeeper__BaseAi8004__.well-known__agent-card.json": ("0.3", 1),
    "a2aproject__A2A__pr1323__cli__testdata__valid__full.json": ("1.0", 1),  # a pre-1.0 draft (transport)
    "a2aproject__A2A__pr1323__cli__testdata__invalid__invalid-format.json": (None, 1),
    "1Mangesh1__1mangesh1.github.io__.well-known__agent-card.json": ("1.0", 0),
    "a2aproject__A2A__pr1592__examples__aiar-identity__agent-card.signed.json": ("1.0", 0),
    "Adewale-tech__telex-dictionary-agent__.well-known__agent.json": (None, 2),
    "AHP-Organization__reference-implementation__.well-known__agent.json": (None, 2),
    "spec/v1.0.1__docs__specification__8.5-sample-agent-card.json": ("1.0", 0),
    "spec/main__docs__specification__8.5-sample-agent-card.json": ("1.0", 0),
    "spec/v1.0.1__docs__specification__8.4.1-card-fragment.json": (None, 1),
    "spec/v1.0.1__docs__specification__8.4.1-card-fragment-canonical.json": (None, 1),
    "spec/v1.0.1__docs__topics__extensions__magic-8-ball.json": ("0.3", 1),
    "spec/v1.0.1__docs__topics__multi-tenancy__billing-by-path.json": ("1.0", 1),
    "spec/v1.0.1__docs__topics__multi-tenancy__support-by-path.json": ("1.0", 1),
    "spec/v1.0.1__docs__topics__multi-tenancy__billing-by-tenant.json": ("1.0", 1),
}
SPEC_CARDS = sorted((HERE / "a2a" / "spec").glob("*.json"))


def card_name(path: Path) -> str:
    return path.relative_to(HERE / "a2a").as_posix()


def test_every_card_has_a_verdict():
    assert {card_name(p) for p in CARDS + SPEC_CARDS} == set(CARD_VERDICTS)


@pytest.mark.parametrize("path", CARDS + SPEC_CARDS, ids=lambda p: card_name(p)[:48])
def test_real_cards_get_their_verdict(path: Path):
    shape, code = CARD_VERDICTS[card_name(path)]
    result = run(str(path), "--json")
    assert result.exit_code == code, result.output
    if code != 2:
        assert a2a_reference(path) == (shape, code == 0)
        assert json.loads(result.stdout)["format"] == "a2a_card"
        assert run(str(path), "--json", "--format", "a2a_card").exit_code == code
    else:
        assert "no manifest or discovery document" in result.stderr and "closest to" in result.stderr


def test_the_required_fields_are_the_protos():
    """agentdex's table of A2A 1.0's REQUIRED fields is what specification/a2a.proto marks (the
    index's revision f903eee9, whose REQUIRED markings are those of tag v1.0.1)."""
    import re

    from agentdex.formats._a2a_schemas import REQUIRED

    proto = (HERE / "a2a" / "a2a.f903eee9.proto").read_text("utf-8")
    marked: dict[str, list[str]] = {}
    for message, body in re.findall(r"^message (\w+) \{(.*?)^\}", proto, re.S | re.M):
        fields = re.findall(r"(\w+) = \d+ \[\(google\.api\.field_behavior\) = REQUIRED\]", body)
        marked[message] = [re.sub(r"_(\w)", lambda m: m.group(1).upper(), f) for f in fields]
    assert {name: marked[name] for name in REQUIRED} == REQUIRED
    card_messages = {"AgentInterface", "AgentProvider", "AgentSkill", "AgentCardSignature"}
    assert card_messages <= REQUIRED.keys()


def test_the_shipped_a2a_schemas_are_the_published_files_byte_for_byte():
    import hashlib
    from importlib import resources

    from agentdex.formats.schemas import VENDORED

    for name, copy in (("a2a_card_v0.3", "a2a-v0.3.schema.json"), ("a2a_card_v1.0", "a2a-v1.schema-bundle.json")):
        filename, digest = VENDORED[name]
        shipped = resources.files("agentdex.formats.schemas").joinpath(filename).read_bytes()
        assert hashlib.sha256(shipped).hexdigest() == digest
        assert shipped == (HERE / "a2a" / copy).read_bytes()


def test_forcing_a2a_card_on_a_lookalike_reads_it_as_a_card():
    result = run(
        str(HERE / "a2a" / "Adewale-tech__telex-dictionary-agent__.well-known__agent.json"),
        "--format",
        "a2a_card",
        "--json",
    )
    assert result.exit_code == 1 and json.loads(result.stdout)["format"] == "a2a_card"


@pytest.mark.parametrize(
    ("folder", "name", "fmt", "code"),
    [
        ("x402", "RipperMercs__tensorfeed__public__.well-known__x402", "x402_discovery", 0),
        ("x402", "auor-io__auor.io__.well-known__x402", "x402_discovery", 0),
        (
            "x402",
            "microsoft__playwright-mcp__PRref__.well-known__x402.json",
            "x402_discovery",
            0,
        ),  # a placeholder: a warning
        ("server_cards", "AgoraIO__docs-portal__public__.well-known__mcp__server-card.json", "server_card", None),
        (
            "server_cards",
            "ashwingopalsamy__ashwingopalsamy.in__public__.well-known__mcp__server-cards.json",
            "server_card",
            None,
        ),
    ],
)
def test_real_discovery_documents_are_read_as_what_they_are(shared, folder, name, fmt, code):
    result = run(str(shared / "realworld" / folder / name), "--json")
    assert json.loads(result.stdout)["format"] == fmt
    assert result.exit_code in ((0, 1) if code is None else (code,))


def test_an_x402_file_is_no_longer_taken_for_an_agent_app(tmp_path):
    path = tmp_path / "x402"
    path.write_text(json.dumps({"x402Version": 2, "items": []}))
    assert json.loads(run(str(path), "--json").stdout)["format"] == "x402_discovery"


@pytest.mark.parametrize(
    ("doc", "fmt"),
    [
        (
            {"linkset": [{"anchor": "https://a.test/api", "service-desc": [{"href": "https://a.test/openapi.json"}]}]},
            "api_catalog",
        ),
        ({"specVersion": "1.0", "host": {"displayName": "A"}, "entries": []}, "ai_catalog"),
        ({"serverInfo": {"name": "a", "version": "1"}}, "server_card"),
    ],
)
def test_each_discovery_format_is_told_by_its_keys(tmp_path, doc, fmt):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    assert json.loads(run(str(path), "--json").stdout)["format"] == fmt


def test_a_readme_is_no_manifest_and_exits_2(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# My project\n\nSome notes.\n")
    result = run(str(readme))
    assert result.exit_code == 2
    assert "README.md is no manifest" in result.stderr and "--format inferred" in result.stderr
    assert run(str(readme), "--format", "inferred").exit_code == 1  # forced, it is read as a skill


def test_a_json_document_of_no_kind_exits_2_with_the_closest_guess(tmp_path):
    path = tmp_path / "tool.json"
    path.write_text(json.dumps({"openapi": "3.1.0", "paths": {}, "info": {}}))
    result = run(str(path))
    assert result.exit_code == 2
    assert "closest to an OpenAPI document, which agentdex does not validate" in result.stderr


def test_the_schema_command_prints_each_card_schema_and_asks_which_for_the_format():
    for family in ("v1", "v2"):
        result = CliRunner().invoke(app, ["schema", f"server_card_{family}"])
        assert result.exit_code == 0
        expected = json.loads((HERE / "server_card" / family / "server-card.schema.json").read_text("utf-8"))
        assert json.loads(result.stdout) == expected
    result = CliRunner().invoke(app, ["schema", "server_card"])
    assert result.exit_code == 2 and "server_card_v1 or server_card_v2" in result.stderr


def test_the_10_sample_card_reads_its_interfaces_and_its_security_key_is_the_only_warning():
    from agentdex.formats import a2a_card

    v101, main = (
        HERE / "a2a" / "spec" / f"{ref}__docs__specification__8.5-sample-agent-card.json" for ref in ("v1.0.1", "main")
    )
    # v1.0.1's sample still wrote security (0.3's name); main's securityRequirements is A2A 1.0's.
    assert [(f["path"], f["code"]) for f in json.loads(run(str(v101), "--json").stdout)["findings"]] == [
        ("security", "unknown_key")
    ]
    assert json.loads(run(str(main), "--json").stdout)["findings"] == []
    card = a2a_card.parse(main.read_bytes()).listing
    assert card.extra["interfaces"] == [
        {"url": "https://georoute-agent.example.com/a2a/v1", "binding": "JSONRPC", "version": "1.0", "tenant": None},
        {"url": "https://georoute-agent.example.com/a2a/grpc", "binding": "GRPC", "version": "1.0", "tenant": None},
        {
            "url": "https://georoute-agent.example.com/a2a/json",
            "binding": "HTTP+JSON",
            "version": "1.0",
            "tenant": None,
        },
    ]
    assert (card.extra["card_version"], card.extra["extended_card"]) == ("1.0", True)
    tenant = json.loads(
        (HERE / "a2a" / "spec" / "v1.0.1__docs__topics__multi-tenancy__billing-by-tenant.json").read_text()
    )
    assert a2a_card.interfaces(tenant) == [
        a2a_card.Interface("https://agents.example.com/a2a", "HTTP+JSON", "1.0", "billing")
    ]


def test_the_schema_command_prints_each_a2a_schema_and_asks_which_for_the_format():
    result = CliRunner().invoke(app, ["schema", "a2a_card_v1.0"])
    expected = json.loads((HERE / "a2a" / "a2a-v1.schema-bundle.json").read_text("utf-8"))
    assert result.exit_code == 0 and json.loads(result.stdout) == expected
    result = CliRunner().invoke(app, ["schema", "a2a_card"])
    assert result.exit_code == 2 and "a2a_card_v0.3 or a2a_card_v1.0" in result.stderr
