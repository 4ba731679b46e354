"""adapp/v1 packages: the spec's rules, the checksum, packing, and the ZIP safety caps."""

from __future__ import annotations

import io
import json
import random
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentdex import formats
from agentdex.cli import app
from agentdex.errors import PackageError
from agentdex.formats import adapp
from agentdex.formats.codes import CODES

EXAMPLES = Path(__file__).resolve().parent / "examples" / "adapp"
SECRET = "sk-live-9f8e7d6c5b4a-DO-NOT-LEAK"


# -- helpers ---------------------------------------------------------------------------------


def tree(name: str) -> dict[str, bytes]:
    """An example source tree, as pack() takes it."""
    root = EXAMPLES / name
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def raw_zip(files: dict[str, bytes], *, infos: dict[str, zipfile.ZipInfo] | None = None) -> bytes:
    """A ZIP written as given: no checksum, no path or secret checks (for hostile packages)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            info = (infos or {}).get(name) or zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buffer.getvalue()


def package(files: dict[str, bytes]) -> bytes:
    """A ZIP of ``files`` with a correct checksum but none of pack()'s refusals, so one rule
    at a time can be broken while the checksum still holds."""
    files = dict(files)
    manifest = json.loads(files["manifest.json"])
    manifest["checksum"] = adapp.compute_checksum(files)
    files["manifest.json"] = json.dumps(manifest).encode()
    return raw_zip(files)


def manifest_of(name: str) -> dict[str, Any]:
    return json.loads(tree(name)["manifest.json"])


def variant(
    example: str, manifest: dict[str, Any] | None = None, files: dict[str, Any] | None = None
) -> adapp.ParseResult:
    """Parse example ``example`` with its manifest replaced and ``files`` set (a dict or list
    is written as JSON; None removes the file), packed with a correct checksum."""
    base = tree(example)
    if manifest is not None:
        base["manifest.json"] = json.dumps(manifest).encode()
    for path, value in (files or {}).items():
        if value is None:
            base.pop(path, None)
        else:
            base[path] = value if isinstance(value, bytes) else json.dumps(value).encode()
    return adapp.parse_package(package(base))


def with_fields(example: str, **fields: Any) -> adapp.ParseResult:
    doc = manifest_of(example)
    for key, value in fields.items():
        if value is ...:
            doc.pop(key, None)
        else:
            doc[key] = value
    return variant(example, doc)


def codes(result) -> set[tuple[str, str]]:
    return {(f.path, f.code) for f in result.findings}


def errors(result) -> set[tuple[str, str]]:
    return {(f.path, f.code) for f in result.findings if f.severity == "error"}


def crawl_file() -> dict[str, Any]:
    return json.loads(tree("web-crawler")["tools/crawl.json"])


def crawl_with(**binding: Any) -> adapp.ParseResult:
    doc = crawl_file()
    for key, value in binding.items():
        if value is ...:
            doc["http_binding"].pop(key, None)
        else:
            doc["http_binding"][key] = value
    return variant("web-crawler", files={"tools/crawl.json": doc})


# -- the spec's templates, packed for real -----------------------------------------------------


@pytest.mark.parametrize("name", ["http-template", "openapi-example", "web-crawler"])
def test_example_trees_pack_into_clean_packages(name):
    data = adapp.pack(tree(name))
    result = adapp.parse_package(data)
    assert result.findings == []
    assert result.valid and result.format == "adapp"
    assert adapp.CHECKSUM_RE.fullmatch(result.document["checksum"])


def test_http_template_normalises_into_a_listing():
    listing = adapp.parse_package(adapp.pack(tree("http-template"))).listing
    assert listing.format == "adapp" and listing.name == "Test App"
    assert listing.description == "App de teste" and listing.categories == []
    assert (listing.mcp_url, listing.mcp_transport, listing.http_base) == ("https://mcp.exemplo.com/v1", "http", None)
    [tool] = listing.tools
    assert (tool.name, tool.description, tool.source) == ("test_tool", "Test tool", "manifest")
    assert tool.input_schema == {"type": "object", "properties": {}}
    assert listing.extra["slug"] == "test-app" and listing.extra["category"] == "test"
    assert listing.extra["transport"] == "http" and listing.extra["required_secrets"] == []
    assert listing.extra["checksum"].startswith("sha256:")


def test_web_crawler_keeps_secrets_binding_and_icon():
    listing = adapp.parse_package(adapp.pack(tree("web-crawler"))).listing
    assert listing.mcp_transport == "sse"
    assert listing.extra["required_secrets"] == [
        {"key": "CRAWLER_API_KEY", "label": "Crawler API key", "required": True}
    ]
    assert listing.extra["icon"] == "icon.png"
    binding = listing.tools[0].detail["http_binding"]
    assert binding["params"] == {"start_url": "body", "limit": "query", "X-Trace": "header", "id": "path"}
    assert binding["auth"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "credential_ref": "required_secrets[0].key",
    }


def test_openapi_example_derives_tools_from_openapi_json():
    listing = adapp.parse_package(adapp.pack(tree("openapi-example"))).listing
    assert listing.http_base == "https://api.exemplo.com" and listing.mcp_url is None
    tools = {t.name: t for t in listing.tools}
    assert list(tools) == ["listItems", "createItem", "get_items_id"]
    listed = tools["listItems"]
    assert listed.input_schema["properties"]["limit"]["maximum"] == 100
    assert listed.detail["http_binding"] == {
        "version": "v1",
        "method": "GET",
        "path": "/items",
        "server": "https://api.exemplo.com",
        "params": {"limit": "query"},
    }
    created = tools["createItem"]
    assert created.input_schema["required"] == ["title"]
    assert created.input_schema["$defs"] == {"Tag": {"type": "string"}}
    assert created.detail["http_binding"]["params"] == {"title": "body", "tags": "body"}
    by_path = tools["get_items_id"]
    assert by_path.input_schema["required"] == ["id"]
    assert by_path.detail["http_binding"]["params"] == {"id": "path"}


def test_real_openapi_31_document_packs_and_derives(shared):
    spec = (shared / "realworld/openapi/OAI__OpenAPI-Specification__examples__v3.1__webhook-example.json").read_bytes()
    files = tree("openapi-example") | {"openapi.json": spec}
    result = adapp.parse_package(adapp.pack(files))
    assert result.valid, result.findings
    assert [t.name for t in result.listing.tools] == ["listPets"]
    assert result.listing.tools[0].detail["http_binding"]["params"] == {"limit": "query"}


# -- format, checksum field, identity ---------------------------------------------------------


def test_format_must_be_exactly_adapp_v1():
    assert with_fields("http-template", format="adapp/v1").valid
    newer = with_fields("http-template", format="adapp/v2")
    assert ("format", "unsupported_version") in errors(newer) and newer.listing is None
    assert ("format", "const") in errors(with_fields("http-template", format="agent-app/v1"))
    assert ("format", "required") in errors(with_fields("http-template", format=...))
    assert ("format", "type") in errors(with_fields("http-template", format=1))


def test_looks_like_recognises_any_adapp_version():
    assert adapp.looks_like({"format": "adapp/v1"}) and adapp.looks_like({"format": "adapp/v9"})
    assert not adapp.looks_like({"format": "other"}) and not adapp.looks_like({"agent_app": "1"})
    assert not adapp.looks_like(["format"])


def test_checksum_field_must_match_its_pattern():
    doc = manifest_of("http-template")
    doc["checksum"] = "sha256:" + "a" * 64
    assert ("checksum", "pattern") not in codes(adapp.validate_document(doc))
    for bad in ("sha256:" + "A" * 64, "sha256:" + "a" * 63, "md5:" + "a" * 64, "sha256:<64 hex>"):
        doc["checksum"] = bad
        assert ("checksum", "pattern") in codes(adapp.validate_document(doc)), bad
    del doc["checksum"]
    assert ("checksum", "required") in codes(adapp.validate_document(doc))


@pytest.mark.parametrize(
    "slug, ok",
    [
        ("test-app", True),
        ("a_b-9", True),
        ("x" * 100, True),
        ("Test-App", False),
        ("test app", False),
        ("", False),
        ("açaí", False),
        ("x" * 101, False),
    ],
)
def test_name_is_a_slug_of_at_most_100(slug, ok):
    result = with_fields("http-template", name=slug)
    assert result.valid is ok
    if not ok:
        assert any(path == "name" and code in ("pattern", "max_length") for path, code in errors(result))


@pytest.mark.parametrize("field, limit", [("label", 120), ("description", 500), ("category", 60)])
def test_string_limits(field, limit):
    assert with_fields("http-template", **{field: "é" * limit}).valid
    assert (field, "max_length") in errors(with_fields("http-template", **{field: "é" * (limit + 1)}))
    assert (field, "type") in errors(with_fields("http-template", **{field: 5}))


def test_label_is_required_description_and_category_may_be_null():
    assert ("label", "required") in errors(with_fields("http-template", label=...))
    assert with_fields("http-template", description=None, category=None).valid
    assert with_fields("http-template", description=..., category=..., icon=...).valid


def test_icon_must_name_a_file_in_the_package():
    assert adapp.parse_package(adapp.pack(tree("web-crawler"))).valid
    missing = variant("web-crawler", files={"icon.png": None})
    assert errors(missing) == {("icon", "missing_file")}
    assert missing.listing.extra["icon"] is None
    assert ("icon", "max_length") in errors(with_fields("web-crawler", icon="i" * 501))
    assert with_fields("web-crawler", icon=None).valid


def test_unknown_top_level_keys_are_warnings_naming_the_key():
    result = with_fields("http-template", colour="blue")
    assert result.valid
    [warning] = result.findings
    assert (warning.path, warning.code, warning.severity) == ("colour", "unknown_key", "warning")
    assert "'colour'" in warning.message


# -- transport and endpoint ---------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_and_sse_transports(transport):
    result = with_fields("http-template", transport=transport)
    assert result.valid and result.listing.mcp_transport == transport


def test_stdio_curated_is_refused_with_its_reason():
    result = with_fields("http-template", transport="stdio_curated")
    [finding] = [f for f in result.findings if f.path == "transport"]
    assert finding.code == "unsupported_transport" and finding.severity == "error"
    assert "official catalogue" in finding.message and "http, sse or openapi" in finding.message


def test_unknown_transport_is_an_enum_error():
    assert errors(with_fields("http-template", transport="stdio")) == {("transport", "enum")}
    assert errors(with_fields("http-template", transport=...)) == {("transport", "required")}


@pytest.mark.parametrize(
    "endpoint, code",
    [
        ("https://mcp.exemplo.com/v1", None),
        ("http://mcp.exemplo.com/v1", "https"),
        ("mcp.exemplo.com", "url"),
        (None, "required"),
    ],
)
def test_endpoint_is_an_https_url(endpoint, code):
    result = with_fields("http-template", endpoint=endpoint)
    assert errors(result) == ({("endpoint", code)} if code else set())


# -- tools (http / sse) ---------------------------------------------------------------------------


def test_tools_may_be_null_or_absent_for_http():
    for value in (None, ..., []):
        doc = manifest_of("http-template")
        if value is ...:
            del doc["tools"]
        else:
            doc["tools"] = value
        result = variant("http-template", doc, files={"tools/test_tool.json": None})
        assert result.valid and result.listing.tools == []


def test_tool_items_need_name_and_an_object_input_schema():
    doc = manifest_of("http-template")
    doc["tools"] = [{"name": "test_tool"}, {"inputSchema": {}}, {"name": "test_tool", "inputSchema": []}, "x"]
    result = variant("http-template", doc)
    assert {
        ("tools[0].inputSchema", "required"),
        ("tools[1].name", "required"),
        ("tools[2].inputSchema", "type"),
        ("tools[3]", "type"),
    } <= errors(result)


def test_tool_names_are_unique_and_usable_as_file_names():
    doc = manifest_of("http-template")
    doc["tools"] = [doc["tools"][0], doc["tools"][0], {"name": "../x", "inputSchema": {}}]
    result = variant("http-template", doc)
    assert errors(result) == {("tools[1].name", "unique"), ("tools[2].name", "pattern")}


def test_each_tool_needs_its_file():
    result = variant("http-template", files={"tools/test_tool.json": None})
    assert errors(result) == {("tools[0].name", "missing_file")}
    assert "tools/test_tool.json" in result.findings[0].message


def test_tools_with_openapi_transport_are_an_error():
    doc = manifest_of("openapi-example")
    doc["tools"] = [{"name": "x", "inputSchema": {}}]
    assert errors(variant("openapi-example", doc)) == {("tools", "not_allowed")}
    doc["tools"] = None
    assert variant("openapi-example", doc).valid


def test_tool_file_name_must_match():
    tool = json.loads(tree("http-template")["tools/test_tool.json"])
    tool["name"] = "other"
    result = variant("http-template", files={"tools/test_tool.json": tool})
    assert errors(result) == {("tools/test_tool.json:name", "mismatch")}


def test_tool_file_content_is_checked_with_prefixed_paths():
    tool = {"name": "test_tool", "description": 3, "inputSchema": "none", "required_secrets": {}, "extra": 1}
    result = variant("http-template", files={"tools/test_tool.json": tool})
    assert {
        ("tools/test_tool.json:description", "type"),
        ("tools/test_tool.json:inputSchema", "type"),
        ("tools/test_tool.json:required_secrets", "type"),
    } == errors(result)
    assert ("tools/test_tool.json:extra", "unknown_key") in codes(result)
    broken = variant("http-template", files={"tools/test_tool.json": b"{not json"})
    assert errors(broken) == {("tools/test_tool.json:", "not_json")}


def test_tool_file_input_schema_differing_from_the_manifest_is_a_warning():
    tool = json.loads(tree("http-template")["tools/test_tool.json"])
    tool["inputSchema"] = {"type": "object", "properties": {"q": {"type": "string"}}}
    result = variant("http-template", files={"tools/test_tool.json": tool})
    assert result.valid and codes(result) == {("tools/test_tool.json:inputSchema", "mismatch")}


# -- http_binding ------------------------------------------------------------------------------------


def test_binding_params_locations():
    assert crawl_with(params={"start_url": "body", "limit": "query", "X-Trace": "header", "id": "path"}).valid
    result = crawl_with(params={"start_url": "body", "limit": "cookie", "id": "path"})
    assert errors(result) == {("tools/crawl.json:http_binding.params.limit", "enum")}


def test_binding_params_not_in_the_input_schema_warn():
    result = crawl_with(params={"start_url": "body", "id": "path", "page": "query"})
    assert result.valid and ("tools/crawl.json:http_binding.params.page", "param") in codes(result)


def test_binding_path_placeholders_must_be_bound_to_the_path():
    result = crawl_with(params={"start_url": "body", "id": "query"})
    assert errors(result) == {("tools/crawl.json:http_binding.path", "placeholder")}


def test_the_spec_binding_example_is_valid_with_a_warning():
    """The spec's example binds id to the path of /v1/crawl, which has no {id}."""
    spec_binding = {
        "version": "v1",
        "method": "POST",
        "path": "/v1/crawl",
        "server": "https://api.exemplo.com",
        "params": {"start_url": "body", "limit": "query", "X-Trace": "header", "id": "path"},
        "auth": {"type": "apiKey", "in": "header", "name": "X-API-Key", "credential_ref": "required_secrets[0].key"},
    }
    result = crawl_with(**spec_binding)
    assert result.valid
    assert codes(result) == {("tools/crawl.json:http_binding.params.id", "param")}


@pytest.mark.parametrize(
    "field, value, code",
    [
        ("version", "v2", "unsupported_version"),
        ("version", ..., "required"),
        ("method", "FETCH", "enum"),
        ("method", "post", "enum"),
        ("method", ..., "required"),
        ("path", "v1/crawl", "pattern"),
        ("path", ..., "required"),
        ("server", "api.crawler.example", "url"),
        ("server", ..., "required"),
        ("params", ["id"], "type"),
        ("auth", "bearer", "type"),
    ],
)
def test_binding_fields(field, value, code):
    result = crawl_with(**{field: value})
    assert (f"tools/crawl.json:http_binding.{field}", code) in errors(result)


def test_binding_without_auth_and_plain_http_server():
    assert crawl_with(auth=...).valid
    plain_http = crawl_with(server="http://api.crawler.example")
    assert plain_http.valid and ("tools/crawl.json:http_binding.server", "https") in codes(plain_http)


@pytest.mark.parametrize(
    "auth, expected",
    [
        ({"type": "bearer", "credential_ref": "required_secrets[0].key"}, set()),
        ({"type": "basic", "credential_ref": "required_secrets[0].key"}, set()),
        ({"type": "apiKey", "in": "query", "name": "key", "credential_ref": "required_secrets[0].key"}, set()),
        (
            {"type": "apiKey", "credential_ref": "required_secrets[0].key"},
            {
                ("tools/crawl.json:http_binding.auth.in", "required"),
                ("tools/crawl.json:http_binding.auth.name", "required"),
            },
        ),
        (
            {"type": "oauth2", "credential_ref": "required_secrets[0].key"},
            {("tools/crawl.json:http_binding.auth.type", "enum")},
        ),
        ({"type": "bearer"}, {("tools/crawl.json:http_binding.auth.credential_ref", "required")}),
    ],
)
def test_binding_auth(auth, expected):
    assert errors(crawl_with(auth=auth)) == expected


@pytest.mark.parametrize(
    "ref",
    [
        "required_secrets[1].key",
        "required_secrets[0].label",
        "CRAWLER_API_KEY",
        "required_secrets[00].key",
        "required_secrets[-1].key",
    ],
)
def test_credential_ref_must_point_at_a_real_secret(ref):
    result = crawl_with(auth={"type": "bearer", "credential_ref": ref})
    assert errors(result) == {("tools/crawl.json:http_binding.auth.credential_ref", "credential_ref")}


def test_credential_ref_with_no_secrets_declared():
    doc = manifest_of("web-crawler")
    doc["required_secrets"] = None
    result = variant("web-crawler", doc)
    assert errors(result) == {("tools/crawl.json:http_binding.auth.credential_ref", "credential_ref")}


def test_credential_ref_points_into_the_tool_files_own_secrets_when_it_has_them():
    tool = crawl_file()
    tool["required_secrets"] = [
        {"key": "A", "label": "a", "required": True},
        {"key": "B", "label": "b", "required": False},
    ]
    tool["http_binding"]["auth"]["credential_ref"] = "required_secrets[1].key"
    assert variant("web-crawler", files={"tools/crawl.json": tool}).valid  # the manifest declares only one
    tool["http_binding"]["auth"]["credential_ref"] = "required_secrets[2].key"
    assert not variant("web-crawler", files={"tools/crawl.json": tool}).valid


# -- required_secrets -----------------------------------------------------------------------------


def test_required_secrets_shape_is_strict():
    good = [{"key": "K", "label": "L", "required": False}]
    assert with_fields("http-template", required_secrets=good).valid
    result = with_fields(
        "http-template",
        required_secrets=[
            {"key": "K", "label": "L", "required": True, "hint": "x"},
            {"key": "K2", "label": "L2", "required": "yes"},
            {"label": "L3", "required": True},
            "K4",
        ],
    )
    assert errors(result) == {
        ("required_secrets[0].hint", "unknown_key"),
        ("required_secrets[1].required", "type"),
        ("required_secrets[2].key", "required"),
        ("required_secrets[3]", "type"),
    }


def secret_package() -> bytes:
    files = tree("web-crawler")
    manifest = json.loads(files["manifest.json"])
    manifest["required_secrets"][0]["value"] = SECRET
    tool = json.loads(files["tools/crawl.json"])
    tool["required_secrets"] = [{"key": "CRAWLER_API_KEY", "label": "k", "required": True, "value": SECRET}]
    tool["http_binding"]["auth"]["token"] = SECRET
    files["manifest.json"] = json.dumps(manifest).encode()
    files["tools/crawl.json"] = json.dumps(tool).encode()
    return package(files)


def test_a_secret_value_rejects_the_package_and_is_never_repeated():
    result = adapp.parse_package(secret_package())
    assert not result.valid
    assert {
        ("required_secrets[0].value", "secret_value"),
        ("tools/crawl.json:required_secrets[0].value", "secret_value"),
        ("tools/crawl.json:http_binding.auth.token", "secret_value"),
    } <= errors(result)
    assert SECRET not in json.dumps([f.to_dict() for f in result.findings])
    assert SECRET not in json.dumps(result.document)
    assert result.document["required_secrets"][0]["value"] == adapp.REDACTED
    assert SECRET not in json.dumps(result.listing.to_dict())
    assert SECRET not in json.dumps(result.to_dict())


def test_a_secret_value_is_never_repeated_by_validate_json(tmp_path):
    path = tmp_path / "leaky.adapp"
    path.write_bytes(secret_package())
    run = CliRunner().invoke(app, ["validate", str(path), "--json"])
    assert run.exit_code == 1, run.output
    out = json.loads(run.output)
    assert out["format"] == "adapp" and out["valid"] is False
    assert "secret_value" in {f["code"] for f in out["findings"]}
    assert SECRET not in run.output
    human = CliRunner().invoke(app, ["validate", str(path)])
    assert human.exit_code == 1 and SECRET not in human.output


def test_validate_cli_accepts_a_packed_package(tmp_path):
    path = tmp_path / "app.adapp"
    path.write_bytes(adapp.pack(tree("web-crawler")))
    run = CliRunner().invoke(app, ["validate", str(path), "--json"])
    assert run.exit_code == 0, run.output
    assert json.loads(run.output) == {"format": "adapp", "valid": True, "findings": []}


def test_redact_leaves_the_callers_document_alone():
    doc = {"required_secrets": [{"key": "K", "label": "L", "required": True, "value": SECRET}]}
    out = adapp.redact(doc)
    assert out["required_secrets"][0] == {"key": "K", "label": "L", "required": True, "value": "[redacted]"}
    assert doc["required_secrets"][0]["value"] == SECRET
    lone = with_fields("http-template", required_secrets={"key": "K", "value": SECRET})
    assert ("required_secrets", "type") in errors(lone) and SECRET not in json.dumps(lone.document)


# -- openapi mode ----------------------------------------------------------------------------------


def test_openapi_transport_needs_openapi_json():
    result = variant("openapi-example", files={"openapi.json": None})
    assert errors(result) == {("transport", "openapi")}


@pytest.mark.parametrize(
    "spec, path",
    [
        ({"swagger": "2.0", "paths": {}}, "openapi.json:openapi"),
        ({"openapi": "2.0", "paths": {}}, "openapi.json:openapi"),
        ({"openapi": 3, "paths": {}}, "openapi.json:openapi"),
        ({"info": {}}, "openapi.json:openapi"),
    ],
)
def test_openapi_json_must_be_openapi_3(spec, path):
    assert errors(variant("openapi-example", files={"openapi.json": spec})) == {(path, "openapi")}


def test_openapi_json_that_is_not_json():
    assert errors(variant("openapi-example", files={"openapi.json": b"openapi: 3.0.0\n"})) == {
        ("openapi.json:", "not_json")
    }


def test_openapi_with_no_operations_warns():
    result = variant("openapi-example", files={"openapi.json": {"openapi": "3.1.0", "paths": {}}})
    assert result.valid and codes(result) == {("openapi.json:paths", "openapi")}


def test_openapi_security_generates_auth_bound_to_a_secret():
    spec = json.loads(tree("openapi-example")["openapi.json"])
    spec["security"] = [{"ApiKey": []}]
    spec["components"]["securitySchemes"] = {
        "ApiKey": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "Token": {"type": "http", "scheme": "bearer"},
    }
    spec["paths"]["/items"]["post"]["security"] = [{"Token": []}]
    spec["paths"]["/items/{id}"]["get"]["security"] = []
    doc = manifest_of("openapi-example")
    doc["required_secrets"] = [
        {"key": "TOKEN", "label": "t", "required": True},
        {"key": "API_KEY", "label": "k", "required": True},
    ]
    result = variant("openapi-example", doc, files={"openapi.json": spec})
    assert result.valid, result.findings
    auth = {t.name: t.detail["http_binding"].get("auth") for t in result.listing.tools}
    assert auth == {
        "listItems": {"type": "apiKey", "in": "header", "name": "X-Key", "credential_ref": "required_secrets[1].key"},
        "createItem": {"type": "bearer", "credential_ref": "required_secrets[0].key"},
        "get_items_id": None,
    }


def test_openapi_security_without_a_matching_secret_warns():
    spec = json.loads(tree("openapi-example")["openapi.json"])
    spec["security"] = [{"ApiKey": []}]
    spec["components"]["securitySchemes"] = {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-Key"}}
    result = variant("openapi-example", files={"openapi.json": spec})
    assert result.valid
    assert ("openapi.json:components.securitySchemes", "credential_ref") in codes(result)
    assert all("auth" not in t.detail["http_binding"] for t in result.listing.tools)


def test_openapi_recursive_schemas_stay_linear():
    spec = {
        "openapi": "3.0.0",
        "paths": {
            "/n": {
                "post": {
                    "operationId": "node",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
                }
            }
        },
        "components": {
            "schemas": {
                "Node": {
                    "type": "object",
                    "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}},
                }
            }
        },
    }
    [tool] = variant("openapi-example", files={"openapi.json": spec}).listing.tools
    assert tool.input_schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert set(tool.input_schema["$defs"]) == {"Node"}


# -- the checksum ------------------------------------------------------------------------------------


def packed_files(name: str = "web-crawler") -> dict[str, bytes]:
    return unzip(adapp.pack(tree(name)))


def test_checksum_is_verified_on_an_untouched_package():
    files = packed_files()
    assert adapp.parse_package(raw_zip(files)).valid  # rebuilt ZIP, same content


def change_manifest(files: dict[str, bytes], **fields: Any) -> dict[str, bytes]:
    doc = json.loads(files["manifest.json"])
    doc.update(fields)
    return files | {"manifest.json": json.dumps(doc, indent=2).encode()}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda f: f | {"tools/crawl.json": f["tools/crawl.json"].replace(b"Crawl a site", b"Crawl a sitE")},
        lambda f: f | {"README.md": b"added later"},
        lambda f: {k: v for k, v in f.items() if k != "icon.png"} | {"icon2.png": f["icon.png"]},
        lambda f: f | {"icon.png": f["icon.png"] + b"\0"},
        lambda f: change_manifest(f, label="Web Crawler 2"),
        lambda f: change_manifest(f, endpoint="https://evil.example/sse"),
        lambda f: change_manifest(f, colour="blue"),
        lambda f: f | {"tools/crawl.json": json.dumps(json.loads(f["tools/crawl.json"])).encode()},
    ],
    ids=[
        "tool-byte",
        "file-added",
        "file-renamed",
        "icon-byte",
        "label",
        "endpoint",
        "manifest-key-added",
        "tool-file-reformatted",
    ],
)
def test_any_change_after_packing_fails_the_checksum(tamper):
    result = adapp.parse_package(raw_zip(tamper(packed_files())))
    assert ("checksum", "checksum") in errors(result)


def test_a_removed_file_fails_the_checksum():
    files = packed_files() | {"README.md": b"notes"}
    packed = unzip(adapp.pack(files))
    assert adapp.parse_package(raw_zip(packed)).valid
    del packed["README.md"]
    assert errors(adapp.parse_package(raw_zip(packed))) == {("checksum", "checksum")}


def test_manifest_whitespace_and_key_order_do_not_change_the_checksum():
    files = packed_files()
    doc = json.loads(files["manifest.json"])
    reordered = dict(reversed(list(doc.items())))
    for text in (json.dumps(doc), json.dumps(reordered, indent=7), json.dumps(doc, separators=(" ,", " :  "))):
        assert adapp.parse_package(raw_zip(files | {"manifest.json": text.encode()})).valid


def test_a_duplicated_manifest_key_is_refused():
    """Python keeps the last of two equal keys, so a key slipped in *before* the real one
    would leave the canonical form, and the checksum, unchanged."""
    files = packed_files()
    text = files["manifest.json"].decode()
    sneaky = text.replace('"format"', '"endpoint": "https://evil.example/sse",\n  "format"', 1)
    result = adapp.parse_package(raw_zip(files | {"manifest.json": sneaky.encode()}))
    assert errors(result) == {("", "duplicate")} and "'endpoint'" in result.findings[0].message
    assert ("", "duplicate") in errors(adapp.parse(sneaky.encode()))
    assert adapp.duplicate_keys(b'{"a": {"b": 1, "b": 2}, "c": [{"d": 1}, {"d": 2}]}') == ["b"]


def test_compute_checksum_follows_the_documented_algorithm():
    import hashlib

    files = {"b.txt": b"hi", "manifest.json": b'{ "z": 1, "checksum": "x", "a": "\xc3\xa9" }', "A/": b""}
    canonical = '{"a":"é","z":1}'.encode()
    stream = b"b.txt\x002\x00hi" + b"manifest.json\x00" + str(len(canonical)).encode() + b"\x00" + canonical
    assert adapp.compute_checksum(files) == "sha256:" + hashlib.sha256(stream).hexdigest()


def test_compute_checksum_never_raises_on_odd_manifests():
    for manifest in (b"", b"\xff\xfe", b"[1]", b'{"a": "\\ud800"}'):
        assert adapp.CHECKSUM_RE.fullmatch(adapp.compute_checksum({"manifest.json": manifest}))


# -- pack -----------------------------------------------------------------------------------------------


def test_pack_is_deterministic_and_sorted():
    files = tree("web-crawler")
    first = adapp.pack(files)
    assert adapp.pack(dict(reversed(list(files.items())))) == first
    with zipfile.ZipFile(io.BytesIO(first)) as zf:
        infos = zf.infolist()
    assert [i.filename for i in infos] == ["icon.png", "manifest.json", "tools/crawl.json"]
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in infos} == {0o100644}


def test_pack_replaces_any_checksum_and_adds_a_missing_one():
    with_placeholder = unzip(adapp.pack(tree("http-template")))
    doc = json.loads(with_placeholder["manifest.json"])
    assert list(doc)[:2] == ["format", "checksum"] and adapp.CHECKSUM_RE.fullmatch(doc["checksum"])
    without = unzip(adapp.pack(tree("web-crawler")))  # its source manifest has no checksum
    assert list(json.loads(without["manifest.json"]))[:2] == ["format", "checksum"]
    stale = tree("http-template")
    stale["manifest.json"] = stale["manifest.json"].replace(b"<64 hex \xe2\x80\x94 gerado pelo empacotador>", b"0" * 64)
    assert adapp.pack(stale) == adapp.pack(tree("http-template"))


def test_pack_keeps_non_ascii_text_readable():
    files = tree("http-template")
    files["manifest.json"] = files["manifest.json"].replace(b"App de teste", "Integração".encode())
    manifest = unzip(adapp.pack(files))["manifest.json"]
    assert "Integração".encode() in manifest


@pytest.mark.parametrize(
    "files, words",
    [
        ({"tools/x.json": b"{}"}, "no manifest.json"),
        ({"manifest.json": b"{oops"}, "not valid JSON"),
        ({"manifest.json": b"{}", "../escape": b""}, "climbs out"),
        ({"manifest.json": b"{}", "/abs": b""}, "absolute"),
        ({"manifest.json": b"{}", "a\\b": b""}, "backslash"),
    ],
)
def test_pack_refuses_unusable_trees(files, words):
    with pytest.raises(PackageError, match=words):
        adapp.pack(files)


def test_pack_refuses_secret_values_without_repeating_them():
    files = tree("web-crawler")
    manifest = json.loads(files["manifest.json"])
    manifest["required_secrets"][0]["value"] = SECRET
    with pytest.raises(PackageError) as caught:
        adapp.pack(files | {"manifest.json": json.dumps(manifest).encode()})
    assert "carries a value" in str(caught.value) and SECRET not in str(caught.value)
    tool = json.loads(files["tools/crawl.json"])
    tool["required_secrets"] = [{"key": "K", "label": "L", "required": True, "value": SECRET}]
    with pytest.raises(PackageError, match="tools/crawl.json"):
        adapp.pack(files | {"tools/crawl.json": json.dumps(tool).encode()})


def test_validate_cli_packs_a_source_folder(tmp_path):
    root = EXAMPLES / "web-crawler"
    run = CliRunner().invoke(app, ["validate", str(root), "--json"])
    assert run.exit_code == 0, run.output
    assert json.loads(run.output)["valid"] is True


# -- a bare manifest.json ----------------------------------------------------------------------------


def test_bare_manifest_warns_that_the_package_cannot_be_verified():
    data = adapp.pack(tree("web-crawler"))
    result = adapp.parse(unzip(data)["manifest.json"])
    assert result.valid
    assert codes(result) == {("checksum", "unverified")}
    assert result.findings[0].severity == "warning"
    assert result.listing.tools[0].name == "crawl" and result.listing.tools[0].description == ""


def test_bare_manifest_is_detected_by_the_json_router():
    result = formats.parse_json(json.dumps(manifest_of("http-template")).encode())
    assert result.format == "adapp"
    assert ("checksum", "pattern") in errors(result)  # the template's placeholder is not a checksum
    assert adapp.validate_document([1]).findings[0].code == "not_object"


def test_bare_manifest_rules_still_apply():
    doc = manifest_of("http-template") | {"transport": "stdio_curated"}
    assert ("transport", "unsupported_transport") in errors(adapp.parse(json.dumps(doc).encode()))
    assert adapp.parse(b"").findings[0].code == "empty"


# -- ZIP safety ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, words",
    [
        ("../evil.json", "climbs out"),
        ("tools/../../evil.json", "climbs out"),
        ("/etc/passwd", "absolute"),
        ("tools\\..\\evil.json", "backslash"),
        ("C:/evil.json", "colon"),
        ("C:evil.json", "colon"),
        ("./manifest.json", "not a plain"),
        ("tools//x.json", "not a plain"),
        ("bad\x01name", "control"),
    ],
)
def test_zip_slip_entries_refuse_the_whole_package(name, words):
    data = raw_zip(packed_files() | {name: b"{}"})
    result = adapp.parse_package(data)
    assert result.listing is None and result.document is None
    [finding] = result.findings
    assert (finding.path, finding.code) == ("", "unsafe_path") and words in finding.message


def test_nul_in_an_entry_name_is_refused():
    data = raw_zip(packed_files() | {"evilXjson": b"{}"}).replace(b"evilXjson", b"evil\0json")
    result = adapp.parse_package(data)
    assert result.listing is None and result.findings[0].code == "unsafe_path"


def test_symlink_entries_are_refused():
    link = zipfile.ZipInfo("icon-link.png")
    link.create_system = 3
    link.external_attr = 0o120777 << 16
    result = adapp.parse_package(
        raw_zip(packed_files() | {"icon-link.png": b"/etc/passwd"}, infos={"icon-link.png": link})
    )
    assert result.listing is None
    assert result.findings[0].code == "unsafe_path" and "symbolic link" in result.findings[0].message


def test_duplicate_entries_are_refused():
    files = packed_files()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        with pytest.warns(UserWarning):
            zf.writestr("manifest.json", b'{"format": "adapp/v1"}')
    result = adapp.parse_package(buffer.getvalue())
    assert result.listing is None and "twice" in result.findings[0].message


def test_a_100_mb_zip_bomb_is_refused_from_its_header():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("manifest.json", packed_files()["manifest.json"])
        with zf.open("tools/bomb.json", "w") as stream:
            block = b"\0" * (1024 * 1024)
            for _ in range(100):
                stream.write(block)
    assert len(buffer.getvalue()) < 1024 * 1024
    result = adapp.parse_package(buffer.getvalue())
    assert result.listing is None
    assert [f.code for f in result.findings] == ["zip_bomb"]


def patch_sizes(data: bytes, name: bytes, size: int) -> bytes:
    """Make the local and central headers of entry ``name`` lie about its uncompressed size."""
    out = bytearray(data)
    for signature, field in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (at := out.find(signature, start)) >= 0:
            name_len_at = 26 if signature == b"PK\x03\x04" else 28
            name_len = struct.unpack_from("<H", out, at + name_len_at)[0]
            header = 30 if signature == b"PK\x03\x04" else 46
            if bytes(out[at + header : at + header + name_len]) == name:
                struct.pack_into("<I", out, at + field, size)
            start = at + 4
    return bytes(out)


def test_a_lying_header_cannot_get_past_the_cap():
    files = packed_files() | {"big.bin": b"\0" * (30 * 1024 * 1024)}
    forged = patch_sizes(raw_zip(files), b"big.bin", 1000)
    with zipfile.ZipFile(io.BytesIO(forged)) as zf:
        assert zf.getinfo("big.bin").file_size == 1000  # the header now claims 1000 bytes
    result = adapp.parse_package(forged)
    assert result.listing is None
    [finding] = result.findings
    assert finding.code == "zip_bomb" and "more than its header declares" in finding.message


def test_a_header_claiming_more_than_the_content_is_refused():
    forged = patch_sizes(raw_zip(packed_files()), b"icon.png", 5000)
    result = adapp.parse_package(forged)
    assert result.listing is None and result.findings[0].code == "zip_entry"


def test_total_size_and_entry_count_caps():
    many = packed_files() | {f"docs/{i}.txt": b"x" for i in range(adapp.MAX_ENTRIES)}
    result = adapp.parse_package(raw_zip(many))
    assert result.findings[0].code == "zip_bomb" and "entries" in result.findings[0].message
    # three entries that each declare 6 MB (under the per-file cap): 18 MB in all
    big = raw_zip(packed_files() | {f"blob{i}.txt": b"x" for i in range(3)})
    for i in range(3):
        big = patch_sizes(big, f"blob{i}.txt".encode(), 6 * 1024 * 1024)
    result = adapp.parse_package(big)
    assert [f.code for f in result.findings] == ["zip_bomb"] and "declares" in result.findings[0].message


def test_compression_ratio_cap():
    ratio = packed_files() | {"blob.bin": b"a" * (3 * 1024 * 1024)}
    result = adapp.parse_package(raw_zip(ratio))
    assert result.findings[0].code == "zip_bomb" and "to 1" in result.findings[0].message
    modest = tree("web-crawler") | {"blob.txt": random.Random(1).randbytes(2 * 1024 * 1024).hex().encode()}
    assert adapp.parse_package(package(modest)).valid  # 4 MB that compress 2 to 1


def test_corrupt_entry_data_is_reported():
    files = packed_files()
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    data = stored.getvalue().replace(b"Crawl a site", b"Crawl a sitE")
    result = adapp.parse_package(data)
    assert result.listing is None and result.findings[0].code == "zip_entry"


def test_encrypted_entries_are_refused():
    data = bytearray(raw_zip(packed_files() | {"secret.bin": b"x" * 20}))
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set "encrypted" in both headers
        at = data.rfind(signature)  # secret.bin is the last entry
        data[at + flags] |= 0x1
    result = adapp.parse_package(bytes(data))
    assert result.listing is None and result.findings[0].code == "zip_entry"
    assert "encrypted" in result.findings[0].message


@pytest.mark.parametrize(
    "data, words",
    [
        (b"", "empty"),
        (random.Random(7).randbytes(4096), "not a ZIP"),
        (json.dumps({"format": "adapp/v1"}).encode(), "JSON document"),
        (b"PK\x03\x04" + b"\0" * 40, "damaged or truncated"),
    ],
)
def test_non_zip_input(data, words):
    result = adapp.parse_package(data)
    assert result.listing is None
    [finding] = result.findings
    assert finding.code == "not_zip" and words in finding.message


def test_a_truncated_package_is_not_a_zip():
    data = adapp.pack(tree("web-crawler"))
    for cut in (10, len(data) // 2, len(data) - 5):
        assert adapp.parse_package(data[:cut]).findings[0].code == "not_zip"


def test_a_zip_without_a_root_manifest():
    result = adapp.parse_package(raw_zip({f"app/{k}": v for k, v in packed_files().items()}))
    [finding] = result.findings
    assert finding.code == "missing_file" and "in a folder" in finding.message
    assert adapp.parse_package(raw_zip({})).findings[0].code == "missing_file"


def test_a_broken_manifest_in_a_package():
    result = adapp.parse_package(raw_zip(packed_files() | {"manifest.json": b"\xef\xbb\xbf{}"}))
    assert result.listing is None and result.findings[0].code == "bom"


def test_mangled_packages_never_raise():
    data = adapp.pack(tree("web-crawler"))
    rng = random.Random(2024)
    for _ in range(300):
        mangled = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            mangled[rng.randrange(len(mangled))] = rng.randrange(256)
        result = adapp.parse_package(bytes(mangled))
        assert isinstance(result.findings, list)


def test_every_code_emitted_is_documented():
    results = [
        adapp.parse_package(secret_package()),
        with_fields("http-template", transport="stdio_curated"),
        variant("openapi-example", files={"openapi.json": None}),
        crawl_with(params={"id": "query"}),
        adapp.parse(b"{}"),
        adapp.parse_package(b"junk"),
    ]
    for result in results:
        for finding in result.findings:
            assert finding.code in CODES, finding
