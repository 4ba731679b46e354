"""Anchor manifest v0.1 (specs/anchor-manifest-v0.1.md): every rule, the normalised listing,
the shipped JSON Schema, and the example corpus under tests/examples/*/anchor/."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentdex import formats
from agentdex.formats import anchor
from agentdex.formats.codes import CODES
from agentdex.validate import validate_path

EXAMPLES = Path(__file__).resolve().parent / "examples"
VALID_DIR = EXAMPLES / "valid" / "anchor"
INVALID_DIR = EXAMPLES / "invalid" / "anchor"


def examples(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if not p.name.endswith(".expect.json"))


def expected(path: Path) -> set[tuple[str, str]]:
    """The ``{path, code}`` pairs a sibling ``<name>.expect.json`` lists (none when absent)."""
    expect = path.with_name(path.stem + ".expect.json")
    if not expect.exists():
        return set()
    return {(f["path"], f["code"]) for f in json.loads(expect.read_text("utf-8"))["findings"]}


def found(result) -> set[tuple[str, str]]:
    return {(f.path, f.code) for f in result.findings}


def spec_doc() -> dict:
    return json.loads((VALID_DIR / "spec-example.json").read_text("utf-8"))


def check(doc: dict):
    return anchor.validate_document(copy.deepcopy(doc))


def with_tool(**fields) -> dict:
    """The spec's example with its one tool changed (a ``None`` value removes the key)."""
    doc = spec_doc()
    doc["tools"][0].update(fields)
    doc["tools"][0] = {k: v for k, v in doc["tools"][0].items() if v is not None}
    return doc


def tool(tool_id: str = "test.acme/api", kind: str = "http", **fields) -> dict:
    entry = {
        "id": tool_id,
        "kind": kind,
        "name": tool_id,
        "description": "A tool.",
        "endpoint": f"https://{kind}.acme.test/",
        "auth": ["none"],
    }
    entry.update(fields)
    return {k: v for k, v in entry.items() if v is not None}


def doc_with(*tools: dict) -> dict:
    doc = spec_doc()
    doc["tools"] = list(tools)
    return doc


# -- module shape ------------------------------------------------------------------------------
def test_module_shape_and_registration():
    assert anchor.NAME == "anchor"
    assert anchor.WELL_KNOWN_PATH == "/.well-known/anchor.json"
    assert formats.get("anchor") is anchor
    assert 32 * 1024 < anchor.MAX_BYTES <= 1024 * 1024


@pytest.mark.parametrize(
    "doc, meant",
    [
        ({"anchor": "0.1"}, True),
        ({"anchor": "9"}, True),
        ({"agent_app": "1"}, False),
        ({"latest_anchor": "2026-07-10T12:06:52Z"}, False),
        (["anchor"], False),
        ("anchor", False),
    ],
)
def test_looks_like_needs_an_anchor_key(doc, meant):
    assert anchor.looks_like(doc) is meant


def test_auto_detection_reads_an_anchor_manifest():
    result = formats.parse_json((VALID_DIR / "spec-example.json").read_bytes())
    assert result.format == "anchor" and result.valid


# -- the example corpus ------------------------------------------------------------------------
@pytest.mark.parametrize("path", examples(VALID_DIR), ids=lambda p: p.stem)
def test_valid_example(path):
    result = anchor.parse(path.read_bytes())
    assert result.valid, [f.to_dict() for f in result.findings]
    assert found(result) == expected(path)
    assert all(f.severity == "warning" for f in result.findings)


@pytest.mark.parametrize("path", examples(INVALID_DIR), ids=lambda p: p.stem)
def test_invalid_example(path):
    result = anchor.parse(path.read_bytes())
    assert not result.valid
    want = expected(path)
    assert want, f"{path.name} needs a sibling .expect.json"
    assert found(result) == want


def test_every_emitted_code_is_documented():
    codes = set()
    for path in examples(VALID_DIR) + examples(INVALID_DIR):
        codes |= {code for _, code in found(anchor.parse(path.read_bytes()))}
    assert codes - CODES.keys() == set()
    assert {"recommended", "verify_domain", "well_known", "spdx", "caip2", "reverse_dns"} <= codes


# -- the spec's own example --------------------------------------------------------------------
def test_spec_example_is_copied_verbatim(shared):
    spec = (shared / "specs" / "anchor-manifest-v0.1.md").read_text("utf-8")
    block = re.search(r"## Document\n\n```json\n(.*?)```", spec, re.S).group(1)
    assert json.loads(block) == spec_doc()


def test_spec_example_is_clean_and_normalised():
    result = anchor.parse((VALID_DIR / "spec-example.json").read_bytes(), origin="example.com")
    assert result.findings == []
    listing = result.listing
    assert (listing.format, listing.origin, listing.name) == ("anchor", "example.com", "Example Search")
    assert (listing.homepage, listing.publisher_url) == ("https://example.com", "https://example.com")
    assert (listing.publisher_name, listing.publisher_contact) == ("Example Search", "agents@example.com")
    assert (listing.guide_url, listing.llms_txt_url) == ("https://example.com/docs", "https://example.com/llms.txt")
    assert (listing.mcp_url, listing.mcp_transport) == ("https://mcp.example.com/mcp", "streamable-http")
    assert listing.mcp_auth == ["none", "oauth", "bearer"]
    assert listing.http_base is None
    [t] = listing.tools
    assert (t.name, t.description, t.source, t.read_only) == (
        "com.example/search",
        "Web search and page fetch for agents.",
        "manifest",
        False,
    )
    assert t.detail == {"kind": "mcp", "endpoint": "https://mcp.example.com/mcp"}
    assert listing.extra["verify"] == {
        "dnsTxt": "_anchor.example.com",
        "http": "https://example.com/.well-known/anchor.json",
    }
    assert listing.extra["updated"] == "2026-09-25"


def test_spec_example_tool_keeps_every_field_in_the_spec_spelling():
    source = spec_doc()["tools"][0]
    [entry] = anchor.parse((VALID_DIR / "spec-example.json").read_bytes()).listing.extra["anchor_tools"]
    for key, value in source.items():
        if key == "schemas":
            assert entry["schemas"] == {**value, "jsonSchema": None}
        else:
            assert entry[key] == value, key
    assert entry["packages"] == []


def test_anchor_tools_have_a_fixed_shape_for_diffing():
    [entry] = check(doc_with(tool())).listing.extra["anchor_tools"]
    assert set(entry) == set(anchor.TOOL_KEYS)
    assert (entry["readOnlyVariant"], entry["payments"], entry["deprecations"], entry["scopedVariants"]) == (
        None,
        [],
        [],
        {},
    )


def test_listing_survives_a_round_trip_through_dict():
    listing = anchor.parse((VALID_DIR / "many-kinds.json").read_bytes()).listing
    again = type(listing).from_dict(json.loads(json.dumps(listing.to_dict())))
    assert again == listing


# -- version -----------------------------------------------------------------------------------
def test_another_version_string_is_unsupported_and_stops():
    result = check({**spec_doc(), "anchor": "1.0"})
    assert found(result) == {("anchor", "unsupported_version")}
    assert result.listing is None
    assert "1.0" in result.findings[0].message and '"0.1"' in result.findings[0].message


@pytest.mark.parametrize("value", [0.1, True, ["0.1"]])
def test_version_must_be_a_string_but_validation_goes_on(value):
    result = check({**spec_doc(), "anchor": value, "updated": "soon"})
    assert found(result) == {("anchor", "type"), ("updated", "date")}
    assert result.listing is not None


# -- publisher ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "contact", ["agents@example.com", "mailto:agents@example.com?subject=hi", "https://example.com/contact"]
)
def test_contact_accepts_email_mailto_and_url(contact):
    doc = spec_doc()
    doc["publisher"]["contact"] = contact
    assert check(doc).findings == []


@pytest.mark.parametrize("contact", ["agents at example.com", "mailto:nobody", "example.com/contact"])
def test_contact_refuses_anything_else(contact):
    doc = spec_doc()
    doc["publisher"]["contact"] = contact
    assert found(check(doc)) == {("publisher.contact", "contact")}


def test_missing_recommended_publisher_fields_only_warn():
    doc = spec_doc()
    del doc["publisher"]["docs"]
    result = check(doc)
    assert result.valid and found(result) == {("publisher.docs", "recommended")}
    assert result.findings[0].severity == "warning"


def test_tool_level_recommended_fields_are_quiet():
    result = check(with_tool(status=None, changelog=None, telemetry=None, readOnlyVariant=None))
    assert result.findings == []


# -- tools -------------------------------------------------------------------------------------
def test_tools_may_be_empty():
    result = check(doc_with())
    assert result.valid and result.listing.tools == [] and result.listing.extra["anchor_tools"] == []


@pytest.mark.parametrize(
    "tool_id", ["com.example/search", "io.github.some-user/weather_mcp.v2", "ai.x/y", "Com.Example/Search"]
)
def test_reverse_dns_ids_pass(tool_id):
    assert check(with_tool(id=tool_id)).findings == []


@pytest.mark.parametrize(
    "tool_id",
    [
        "search",
        "example/search",
        "com.example",
        "com.example/",
        "com.example/a/b",
        "-com.example/x",
        "com.example-/x",
        "com.exa mple/x",
        "/com.example",
    ],
)
def test_non_reverse_dns_ids_fail(tool_id):
    assert found(check(with_tool(id=tool_id))) == {("tools[0].id", "reverse_dns")}


def test_overlong_id_fails():
    tool_id = "com.example/" + "x" * 200
    assert found(check(with_tool(id=tool_id))) == {("tools[0].id", "max_length")}


def test_duplicate_ids_are_an_error_and_the_first_entry_wins():
    result = check(doc_with(tool(name="first"), tool(name="second")))
    assert found(result) == {("tools[1].id", "unique")}
    assert [t["name"] for t in result.listing.extra["anchor_tools"]] == ["first"]


def test_tool_with_unusable_id_is_left_out_of_the_listing():
    result = check(doc_with(tool("not-an-id"), tool("test.acme/ok")))
    assert [t.name for t in result.listing.tools] == ["test.acme/ok"]


@pytest.mark.parametrize("kind", anchor.KINDS)
def test_every_kind_passes(kind):
    extra = {"transport": "streamable-http"} if kind == "mcp" else {}
    assert check(doc_with(tool(kind=kind, **extra))).findings == []


def test_local_only_tool_needs_no_endpoint():
    local = tool(kind="mcp", endpoint=None, transport="stdio", packages=[{"registry": "pypi", "name": "acme"}])
    result = check(doc_with(local))
    assert result.findings == []
    assert result.listing.mcp_url is None and result.listing.tools[0].detail == {"kind": "mcp", "endpoint": None}


@pytest.mark.parametrize("kind", ["http", "openapi", "a2a", "sdk"])
def test_transport_is_only_required_for_mcp(kind):
    assert check(doc_with(tool(kind=kind))).findings == []
    assert found(check(doc_with(tool(kind="mcp")))) == {("tools[0].transport", "required")}


@pytest.mark.parametrize(
    "auth, ok",
    [
        (["none"], True),
        (["x402", "httpsig", "pat"], True),
        (["oauth2", "api-key"], True),
        (["OAuth2"], False),
        (["bearer"], False),
    ],
)
def test_auth_catalogue(auth, ok):
    assert check(with_tool(auth=auth)).valid is ok


@pytest.mark.parametrize(
    "value, code",
    [
        ("https://example.com/ro", None),
        ("http://localhost:8080/ro", None),
        ("/mcp/readonly", "url"),
        ("mcp.example.com/readonly", "url"),
        (["https://x.test"], "type"),
    ],
)
def test_read_only_variant_is_a_url(value, code):
    result = check(with_tool(readOnlyVariant=value))
    assert found(result) == ({("tools[0].readOnlyVariant", code)} if code else set())


def test_scoped_variants_map_names_to_urls():
    result = check(with_tool(scopedVariants={"read": "https://x.test/r", "": "https://x.test/e"}))
    assert found(result) == {("tools[0].scopedVariants.", "min_length")}
    assert result.listing.extra["anchor_tools"][0]["scopedVariants"] == {"read": "https://x.test/r"}


# -- payments ----------------------------------------------------------------------------------
PAYMENT = {
    "protocol": "x402",
    "version": 2,
    "networks": ["eip155:8453"],
    "asset": "USDC",
    "priceUsd": 0.005,
    "unit": "call",
}


@pytest.mark.parametrize(
    "network",
    [
        "eip155:1",
        "eip155:8453",
        "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "bip122:000000000019d6689c085ae165831e93",
        "cosmos:cosmoshub-4",
        "abcdefgh:" + "x" * 32,
    ],
)
def test_caip2_networks_pass(network):
    assert check(with_tool(payments=[{**PAYMENT, "networks": [network]}])).findings == []


@pytest.mark.parametrize(
    "network",
    [
        "base",
        "ethereum-mainnet",
        "Eip155:1",
        "ab:1",
        "abcdefghi:1",
        "eip155:",
        ":1",
        "eip155:" + "x" * 33,
        "eip155:8453:usdc",
        "eip155:84 53",
    ],
)
def test_non_caip2_networks_fail(network):
    result = check(with_tool(payments=[{**PAYMENT, "networks": [network]}]))
    assert found(result) == {("tools[0].payments[0].networks[0]", "caip2")}


@pytest.mark.parametrize("protocol", ["mpp", "l402", "card"])
def test_networks_may_be_empty_off_chain_but_not_for_x402(protocol):
    assert check(with_tool(payments=[{**PAYMENT, "protocol": protocol, "networks": []}])).findings == []
    assert found(check(with_tool(payments=[{**PAYMENT, "networks": []}]))) == {
        ("tools[0].payments[0].networks", "min_items")
    }


@pytest.mark.parametrize(
    "price, ok", [(0, True), (0.0001, True), (25, True), (-1, False), (True, False), (None, False), ("1", False)]
)
def test_price_is_a_non_negative_number(price, ok):
    assert check(with_tool(payments=[{**PAYMENT, "priceUsd": price}])).valid is ok


@pytest.mark.parametrize("unit", anchor.UNITS)
def test_every_unit_passes(unit):
    assert check(with_tool(payments=[{**PAYMENT, "unit": unit}])).findings == []


def test_discovery_is_optional_but_must_be_a_url():
    assert check(with_tool(payments=[PAYMENT])).findings == []
    result = check(with_tool(payments=[{**PAYMENT, "discovery": "bazaar"}]))
    assert found(result) == {("tools[0].payments[0].discovery", "url")}


def test_payments_are_kept_exactly_for_the_crawler():
    result = check(with_tool(payments=[{**PAYMENT, "discovery": "https://x.test/d"}]))
    assert result.listing.extra["anchor_tools"][0]["payments"] == [{**PAYMENT, "discovery": "https://x.test/d"}]


# -- dates, booleans, licences -----------------------------------------------------------------
@pytest.mark.parametrize(
    "value, ok",
    [
        ("2026-09-25", True),
        ("2028-02-29", True),
        ("2026-12-31", True),
        ("2026-02-29", False),
        ("2026-04-31", False),
        ("2026-9-25", False),
        ("20260925", False),
        ("2026-09-25T00:00:00Z", False),
        ("25/09/2026", False),
        (" 2026-09-25", False),
    ],
)
def test_updated_and_sunset_are_calendar_dates(value, ok):
    assert check({**spec_doc(), "updated": value}).valid is ok
    doc = with_tool(deprecations=[{"what": "v1", "sunset": value}])
    assert check(doc).valid is ok


def test_updated_is_required():
    doc = spec_doc()
    del doc["updated"]
    assert found(check(doc)) == {("updated", "required")}


@pytest.mark.parametrize(
    "field, value",
    [
        ("freeTier", {"cardRequired": "false"}),
        ("freeTier", {"cardRequired": 0}),
        ("telemetry", {"collected": "true"}),
        ("telemetry", {"collected": 1}),
    ],
)
def test_booleans_must_be_json_booleans(field, value):
    assert not check(with_tool(**{field: value})).valid
    flag = next(iter(value))
    assert check(with_tool(**{field: {flag: False}})).valid


@pytest.mark.parametrize(
    "expression",
    [
        "MIT",
        "Apache-2.0",
        "mit",
        "GPL-2.0+",
        "MPL-1.1+",
        "GPL-3.0-or-later",
        "LGPL-2.1",
        "0BSD",
        "Unlicense",
        "MIT OR Apache-2.0",
        "(MIT AND BSD-3-Clause) OR Apache-2.0",
        "MIT or Apache-2.0",
        "GPL-2.0-only WITH Classpath-exception-2.0",
        "Apache-2.0 WITH LLVM-exception",
        "LicenseRef-Acme-Proprietary",
        "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2",
        "((MIT))",
    ],
)
def test_spdx_expressions_pass(expression):
    assert anchor.spdx_problem(expression) is None
    assert check(with_tool(license=expression)).findings == []


@pytest.mark.parametrize(
    "expression",
    [
        "Proprietary",
        "MIT License",
        "Apache 2.0",
        "GPLv3",
        "MIT OR",
        "AND MIT",
        "MIT AND OR Apache-2.0",
        "(MIT",
        "MIT)",
        "MIT WITH",
        "WITH Classpath-exception-2.0",
        "MIT Apache-2.0",
        "",
        "  ",
        "MIT WITH (Classpath-exception-2.0)",
        "LicenseRef-",
        "UNLICENSED",
    ],
)
def test_other_license_strings_fail(expression):
    assert anchor.spdx_problem(expression)
    assert found(check(with_tool(license=expression))) == {("tools[0].license", "spdx")}


def test_spdx_list_ships_as_package_data():
    ids = anchor.spdx_ids()
    assert len(ids) >= 100
    assert {"mit", "apache-2.0", "bsd-3-clause", "gpl-3.0-only", "mpl-2.0", "isc", "cc0-1.0"} <= ids


# -- verify ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, code",
    [
        ("_anchor.example.com", None),
        ("_anchor.example.com.", None),
        ("_anchor.www.example.com", None),  # a subdomain of the publisher's host still relates
        ("_anchor.other.test", "verify_domain"),
        ("example.com", "pattern"),
        ("_anchor.com", "pattern"),
        ("_anchor..example.com", "pattern"),
        ("anchor-verify=abc", "pattern"),
    ],
)
def test_verify_dns_txt_names(name, code):
    doc = spec_doc()
    doc["verify"]["dnsTxt"] = name
    result = check(doc)
    assert found(result) == ({("verify.dnsTxt", code)} if code else set())
    assert result.valid is (code != "pattern")


def test_verify_is_optional_and_normalised_to_empty():
    doc = spec_doc()
    del doc["verify"]
    result = check(doc)
    assert result.findings == [] and result.listing.extra["verify"] == {"dnsTxt": None, "http": None}


def test_verify_http_off_the_well_known_path_warns():
    doc = spec_doc()
    doc["verify"]["http"] = "https://example.com/anchor.json"
    result = check(doc)
    assert result.valid and found(result) == {("verify.http", "well_known")}


# -- unknown keys ------------------------------------------------------------------------------
def test_unknown_keys_warn_and_name_the_key():
    doc = with_tool(endpointt="https://typo.test")
    doc["$schema"] = "https://example.com/anchor.schema.json"
    result = check(doc)
    assert result.valid
    assert found(result) == {("$schema", "unknown_key"), ("tools[0].endpointt", "unknown_key")}
    messages = {f.path: f.message for f in result.findings}
    assert "'$schema'" in messages["$schema"] and "'endpointt'" in messages["tools[0].endpointt"]


# -- normalisation of several tools ------------------------------------------------------------
def test_mcp_and_http_shortcuts_come_from_the_first_matching_tool():
    result = check(
        doc_with(
            tool(
                "test.acme/local", "mcp", endpoint=None, transport="stdio", packages=[{"registry": "npm", "name": "a"}]
            ),
            tool("test.acme/stdio-url", "mcp", endpoint="https://odd.acme.test/", transport="stdio"),
            tool("test.acme/openapi", "openapi", schemas={"openapi": "https://api.acme.test/openapi.json"}),
            tool("test.acme/mcp", "mcp", transport="sse", auth=["pat", "httpsig", "x402", "api-key", "oauth2"]),
            tool("test.acme/http", "http"),
            tool("test.acme/mcp2", "mcp", transport="streamable-http"),
        )
    )
    listing = result.listing
    assert result.valid
    assert (listing.mcp_url, listing.mcp_transport) == ("https://mcp.acme.test/", "sse")
    assert listing.mcp_auth == ["bearer", "oauth"]  # httpsig and x402 have no peer
    assert (listing.http_base, listing.http_openapi) == (
        "https://openapi.acme.test/",
        "https://api.acme.test/openapi.json",
    )
    assert [t.name for t in listing.tools] == [t["id"] for t in listing.extra["anchor_tools"]]
    assert len(listing.tools) == 6


def test_origin_is_kept():
    assert check(spec_doc()).listing.origin is None
    assert anchor.validate_document(spec_doc(), origin="example.com").listing.origin == "example.com"


# -- bytes in ----------------------------------------------------------------------------------
def test_size_cap_refuses_larger_documents_and_fits_a_big_publisher():
    doc = doc_with(*[tool(f"test.acme/tool-{i}", payments=[PAYMENT]) for i in range(150)])
    data = json.dumps(doc).encode()
    assert len(data) < anchor.MAX_BYTES
    assert anchor.parse(data).valid
    padded = data[:-1] + b" " * (anchor.MAX_BYTES - len(data) + 1) + b"}"
    result = anchor.parse(padded)
    assert found(result) == {("", "too_large")} and result.listing is None


@pytest.mark.parametrize(
    "data, code",
    [
        (b"", "empty"),
        (b"\xef\xbb\xbf{}", "bom"),
        (b"{", "not_json"),
        (b"[]", "not_object"),
        (b'{"anchor": "0.1"' + b"\xff}", "encoding"),
    ],
)
def test_unusable_bytes_become_findings(data, code):
    result = anchor.parse(data)
    assert [(f.path, f.code) for f in result.findings] == [("", code)]


def test_escape_sequences_in_values_stay_escaped_in_messages():
    result = check(with_tool(id="\x1b[31mcom.evil/x\x1b[0m", license="\x1b]8;;x\x07MIT"))
    assert {f.code for f in result.findings} == {"reverse_dns", "spdx"}
    assert not any("\x1b" in f.message or "\x07" in f.message for f in result.findings)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from([*anchor.TOP_LEVEL, *anchor.TOOL_KEYS, *anchor.PAYMENT_KEYS, "x"]), inner, max_size=6
        )
    ),
    max_leaves=30,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(
    doc=st.dictionaries(st.sampled_from(anchor.TOP_LEVEL), JSON, max_size=5),
    tools=st.lists(st.dictionaries(st.sampled_from(anchor.TOOL_KEYS), JSON, max_size=8), max_size=3),
)
def test_no_document_makes_the_validator_raise(doc, tools):
    doc = {**doc, "anchor": "0.1", "tools": tools}
    result = anchor.validate_document(doc)
    assert result.listing is not None
    assert all(f.code in CODES for f in result.findings)


# -- the real world ----------------------------------------------------------------------------
def test_real_world_files_parse_without_a_crash(shared):
    files = sorted((shared / "realworld" / "anchor").glob("*.json"))
    assert files
    for path in files:
        result = anchor.parse(path.read_bytes())
        assert all(f.code in CODES for f in result.findings)


def test_the_bitcoin_ledger_named_anchor_json_is_not_an_anchor_manifest(shared):
    data = (shared / "realworld" / "anchor" / "dimitrilaouanis-tech__rhinogent__anchor.json").read_bytes()
    doc = json.loads(data)
    assert not anchor.looks_like(doc) and formats.detect(doc) is None
    assert formats.parse_json(data).format == "unknown"
    result = anchor.parse(data)  # read as Anchor on purpose: it says why it is not one
    errors = {(f.path, f.code) for f in result.findings if f.severity == "error"}
    assert errors == {("anchor", "required"), ("publisher", "required"), ("tools", "required"), ("updated", "required")}
    assert {f.path for f in result.findings if f.code == "unknown_key"} == set(doc)


def test_validate_command_reads_a_well_known_folder(tmp_path):
    (tmp_path / ".well-known").mkdir()
    (tmp_path / ".well-known" / "anchor.json").write_bytes((VALID_DIR / "spec-example.json").read_bytes())
    result = validate_path(tmp_path)
    assert result.format == "anchor" and result.valid
