"""FindAgent manifests: the example corpus, every rule of the spec with a passing and a
failing case, normalisation into a Listing, and the repository layout (``parse_repo``).

A new regression case is a file, not code: drop ``<name>.json`` into
``tests/examples/invalid/findagent`` with a sibling ``<name>.expect.json``
(``{"findings": [{"path", "code", "severity"?, "message_contains"?}]}``; severity defaults to
``error``). A valid example without an expect file must produce no finding at all.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentdex import formats
from agentdex.formats import _findagent_bundles, _findagent_rails, codes, findagent
from agentdex.models import ParseResult
from example_corpus import EXAMPLES, EXPECT_SUFFIX, assert_findings, example_files, load_expect

VALID_DIR = EXAMPLES / "valid" / "findagent"
INVALID_DIR = EXAMPLES / "invalid" / "findagent"
SPEC_EXAMPLE = VALID_DIR / "spec-example.json"
DELETE = object()  # an edit that removes the key


# -- helpers ------------------------------------------------------------------------------------
def triples(result: ParseResult) -> set[tuple[str, str, str]]:
    """Every finding as (severity, path, code)."""
    return {(f.severity, f.path, f.code) for f in result.findings}


def edit(doc: dict, path: str, value: Any) -> None:
    """Set (or with ``DELETE`` remove) the value at a finding-style path such as ``tools[0].name``."""
    keys: list[str | int] = [int(k[1:-1]) if k.startswith("[") else k for k in re.findall(r"\[\d+\]|[^.\[\]]+", path)]
    node: Any = doc
    for key in keys[:-1]:
        node = node[key]
    if value is DELETE:
        del node[keys[-1]]
    elif isinstance(node, list) and keys[-1] == len(node):
        node.append(value)
    else:
        node[keys[-1]] = value


def edited(base: dict, edits: dict[str, Any]) -> dict:
    doc = copy.deepcopy(base)
    for path, value in edits.items():
        edit(doc, path, value)
    return doc


def run_case(base: dict, edits: dict[str, Any], expected: list[tuple[str, str, str]]) -> ParseResult:
    """Validate ``base`` with ``edits``; the findings must be exactly ``expected``."""
    result = findagent.validate_document(edited(base, edits))
    assert_findings(result, [{"severity": s, "path": p, "code": c} for s, p, c in expected])
    assert result.valid == (not any(s == "error" for s, _, _ in expected))
    return result


def spec_example() -> dict:
    return json.loads(SPEC_EXAMPLE.read_text("utf-8"))


# -- the example corpus -------------------------------------------------------------------------
VALID_FILES = example_files(VALID_DIR)
INVALID_FILES = example_files(INVALID_DIR)


@pytest.mark.parametrize("path", VALID_FILES, ids=[p.stem for p in VALID_FILES])
def test_valid_example(path: Path) -> None:
    result = findagent.parse(path.read_bytes())
    assert result.valid, [f.to_dict() for f in result.findings]
    assert result.listing is not None and result.listing.format == "findagent"
    assert_findings(result, (load_expect(path) or {"findings": []})["findings"])


@pytest.mark.parametrize("path", INVALID_FILES, ids=[p.stem for p in INVALID_FILES])
def test_invalid_example(path: Path) -> None:
    expected = load_expect(path)
    assert expected is not None, f"{path.name} needs a sibling expect file"
    result = findagent.parse(path.read_bytes())
    assert not result.valid
    assert_findings(result, expected["findings"])


def test_every_expect_file_has_its_example() -> None:
    for folder in (VALID_DIR, INVALID_DIR):
        for expect in folder.glob("*" + EXPECT_SUFFIX):
            assert expect.with_name(expect.name[: -len(EXPECT_SUFFIX)] + ".json").exists(), expect.name


def test_the_spec_example_is_copied_verbatim(shared: Path) -> None:
    spec = (shared / "specs" / "findagent-manifest.md").read_text("utf-8")
    assert SPEC_EXAMPLE.read_text("utf-8").strip() in spec


def test_the_spec_example_validates_clean() -> None:
    result = findagent.parse(SPEC_EXAMPLE.read_bytes())
    assert result.findings == []


# -- the core ------------------------------------------------------------------------------------
def core() -> dict:
    """An agent with actions that exercises most rules and is clean as given."""
    return {
        "schema_version": "1.1",
        "name": "Issue Helper",
        "description": "Searches and files issues in the tracker.",
        "system_prompt": "You help people find and file issues.",
        "example_prompts": ["Find open bugs about login."],
        "tools": [
            {
                "name": "search_issues",
                "description": "Search issues by a free-text query.",
                "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
                "annotations": {"readOnlyHint": True},
                "action": {
                    "type": "http",
                    "method": "GET",
                    "url": "https://api.tracker.example/search?q={q}",
                    "auth_ref": "token",
                },
            },
            {
                "name": "create_issue",
                "description": "Create an issue with a title.",
                "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}},
                "annotations": {"destructiveHint": False},
                "action": {
                    "type": "http",
                    "method": "POST",
                    "url": "https://api.tracker.example/issues",
                    "headers": {"Accept": "application/json"},
                    "body_template": {"title": "{title}"},
                    "auth_ref": "token",
                },
            },
        ],
        "credential_slots": [
            {
                "ref": "token",
                "label": "Tracker API token",
                "env": "TRACKER_TOKEN",
                "allowed_hosts": ["tracker.example"],
            },
        ],
        "guardrails": {
            "input": {"max_length": 4000, "deny_patterns": ["ignore previous"], "pii_redaction": ["email"]},
            "output": {"secret_leak_scan": True},
            "actions": {"create_issue": {"approval": "human", "rate_limit": "10/hour", "requires": ["search_issues"]}},
        },
        "metadata": {"homepage": "https://tracker.example", "support_email": "help@tracker.example"},
    }


def test_core_base_is_clean() -> None:
    run_case(core(), {}, [])


E, W = "error", "warning"

# (id, edits, expected findings). Each rule has at least one passing and one failing row.
CORE_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    # name / description / system_prompt / example_prompts
    ("name-required", {"name": DELETE}, [(E, "name", "required")]),
    ("name-string", {"name": 5}, [(E, "name", "type")]),
    ("description-optional", {"description": DELETE}, []),
    ("description-string", {"description": ["x"]}, [(E, "description", "type")]),
    ("system-prompt-optional-with-tools", {"system_prompt": DELETE}, []),
    ("system-prompt-string", {"system_prompt": {"text": "x"}}, [(E, "system_prompt", "type")]),
    ("instructions-only-agent", {"tools": DELETE, "guardrails": DELETE}, []),
    (
        "agent-that-does-nothing",
        {"tools": DELETE, "guardrails": DELETE, "system_prompt": DELETE},
        [(W, "system_prompt", "one_of_required")],
    ),
    ("example-prompts-strings", {"example_prompts": ["a", "b"]}, []),
    ("example-prompts-array", {"example_prompts": "Find bugs"}, [(E, "example_prompts", "type")]),
    ("example-prompts-items", {"example_prompts": ["ok", 3]}, [(E, "example_prompts[1]", "type")]),
    # schema_version
    ("schema-version-1.2", {"schema_version": "1.2"}, []),
    ("schema-version-number", {"schema_version": 1.1}, [(E, "schema_version", "type")]),
    ("schema-version-newer-minor", {"schema_version": "1.9"}, [(W, "schema_version", "unsupported_version")]),
    ("schema-version-major", {"schema_version": "2.0"}, [(E, "schema_version", "unsupported_version")]),
    # tool name
    (
        "tool-name-charset",
        {"tools[0].name": "Search-Issues_2", "guardrails.actions.create_issue.requires": ["Search-Issues_2"]},
        [],
    ),
    ("tool-name-64", {"tools[0].name": "a" * 64, "guardrails.actions.create_issue.requires": ["a" * 64]}, []),
    (
        "tool-name-65",
        {"tools[0].name": "a" * 65, "guardrails.actions.create_issue.requires": ["a" * 65]},
        [(E, "tools[0].name", "pattern")],
    ),
    (
        "tool-name-space",
        {"tools[0].name": "search issues", "guardrails.actions.create_issue.requires": DELETE},
        [(E, "tools[0].name", "pattern")],
    ),
    (
        "tool-name-empty",
        {"tools[0].name": "", "guardrails.actions.create_issue.requires": DELETE},
        [(E, "tools[0].name", "pattern")],
    ),
    (
        "tool-name-required",
        {"tools[0].name": DELETE, "guardrails.actions.create_issue.requires": DELETE},
        [(E, "tools[0].name", "required")],
    ),
    (
        "tool-name-unique",
        {"tools[1].name": "search_issues", "guardrails.actions": DELETE},
        [(E, "tools[1].name", "unique")],
    ),
    # tool description
    ("tool-description-10", {"tools[0].description": "Search it."}, []),
    ("tool-description-9", {"tools[0].description": "Search it"}, [(E, "tools[0].description", "min_length")]),
    ("tool-description-500", {"tools[0].description": "x" * 500}, []),
    ("tool-description-501", {"tools[0].description": "x" * 501}, [(E, "tools[0].description", "max_length")]),
    ("tool-description-required", {"tools[0].description": DELETE}, [(E, "tools[0].description", "required")]),
    # schemas
    ("input-schema-optional", {"tools[1].input_schema": DELETE, "tools[1].action.body_template": "{}"}, []),
    ("input-schema-object", {"tools[0].input_schema": "string"}, [(E, "tools[0].input_schema", "type")]),
    (
        "input-schema-type-object",
        {"tools[0].input_schema": {"type": "string"}},
        [(E, "tools[0].input_schema.type", "const")],
    ),
    (
        "input-schema-valid-json-schema",
        {"tools[0].input_schema.properties.q": {"type": "strng"}},
        [(E, "tools[0].input_schema.properties.q.type", "schema")],
    ),
    ("output-schema", {"tools[0].output_schema": {"type": "array", "items": {"type": "string"}}}, []),
    ("output-schema-invalid", {"tools[0].output_schema": {"type": 5}}, [(E, "tools[0].output_schema.type", "schema")]),
    ("output-schema-object", {"tools[0].output_schema": []}, [(E, "tools[0].output_schema", "type")]),
    # response_kind
    ("response-kind", {"tools[0].response_kind": "binary"}, []),
    ("response-kind-enum", {"tools[0].response_kind": "xml"}, [(E, "tools[0].response_kind", "enum")]),
    # annotations
    (
        "annotations-all",
        {
            "tools[0].annotations": {
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": True,
                "interactiveHint": False,
                "execution": "app",
            }
        },
        [],
    ),
    (
        "annotations-boolean",
        {"tools[0].annotations.idempotentHint": "yes"},
        [(E, "tools[0].annotations.idempotentHint", "type")],
    ),
    (
        "annotations-interactive-boolean",
        {"tools[0].annotations.interactiveHint": 1},
        [(E, "tools[0].annotations.interactiveHint", "type")],
    ),
    ("annotations-execution-client", {"tools[0].annotations.execution": "client"}, []),
    (
        "annotations-execution-enum",
        {"tools[0].annotations.execution": "server"},
        [(E, "tools[0].annotations.execution", "enum")],
    ),
    ("annotations-object", {"tools[0].annotations": [True]}, [(E, "tools[0].annotations", "type")]),
    (
        "annotations-unknown",
        {"tools[0].annotations.sideEffects": True},
        [(W, "tools[0].annotations.sideEffects", "unknown_key")],
    ),
    # security floor
    ("floor-get-read-only", {}, []),
    (
        "floor-post-read-only",
        {"tools[1].annotations.readOnlyHint": True},
        [(W, "tools[1].annotations.readOnlyHint", "security_floor")],
    ),
    (
        "floor-destructive-read-only",
        {"tools[0].annotations.destructiveHint": True},
        [(W, "tools[0].annotations.readOnlyHint", "security_floor")],
    ),
    # tools count
    ("tools-array", {"tools": {"search": {}}, "guardrails": DELETE}, [(E, "tools", "type")]),
    ("tool-object", {"tools[1]": "create_issue", "guardrails": DELETE}, [(E, "tools[1]", "type")]),
    ("tool-unknown-key", {"tools[0].timeout": 5}, [(W, "tools[0].timeout", "unknown_key")]),
    # action kind
    ("action-optional", {"tools[0].action": DELETE}, []),
    ("action-kind-alias", {"tools[0].action.type": DELETE, "tools[0].action.kind": "http"}, []),
    ("action-type-and-kind-agree", {"tools[0].action.kind": "http"}, []),
    (
        "action-type-and-kind-differ",
        {"tools[0].action.kind": "prompt-template"},
        [(E, "tools[0].action.kind", "alias_conflict")],
    ),
    ("action-kind-required", {"tools[0].action.type": DELETE}, [(E, "tools[0].action.type", "required")]),
    ("action-kind-enum", {"tools[0].action.type": "shell"}, [(E, "tools[0].action.type", "enum")]),
    ("action-object", {"tools[0].action": "GET https://x"}, [(E, "tools[0].action", "type")]),
    # http action
    ("method-patch", {"tools[1].action.method": "PATCH"}, []),
    ("method-delete", {"tools[1].action.method": "DELETE"}, []),
    ("method-enum", {"tools[1].action.method": "FETCH"}, [(E, "tools[1].action.method", "enum")]),
    ("method-lowercase", {"tools[1].action.method": "post"}, [(E, "tools[1].action.method", "enum")]),
    ("method-required", {"tools[1].action.method": DELETE}, [(E, "tools[1].action.method", "required")]),
    ("url-required", {"tools[1].action.url": DELETE}, [(E, "tools[1].action.url", "required")]),
    ("url-absolute", {"tools[1].action.url": "/issues"}, [(E, "tools[1].action.url", "url")]),
    ("url-placeholder-ok", {"tools[1].action.url": "https://api.tracker.example/issues/{title}"}, []),
    (
        "url-placeholder-unknown",
        {"tools[0].action.url": "https://api.tracker.example/search?q={query}"},
        [(E, "tools[0].action.url", "placeholder")],
    ),
    ("url-placeholder-without-schema", {"tools[0].input_schema": DELETE}, [(E, "tools[0].action.url", "placeholder")]),
    ("headers-strings", {"tools[1].action.headers": {"X-Client": "agentdex"}}, []),
    ("headers-object", {"tools[1].action.headers": ["Accept: */*"]}, [(E, "tools[1].action.headers", "type")]),
    (
        "headers-values",
        {"tools[1].action.headers": {"X-Retries": 3}},
        [(E, "tools[1].action.headers.X-Retries", "type")],
    ),
    ("body-template-string", {"tools[1].action.body_template": '{"title": "{title}"}'}, []),
    ("body-template-type", {"tools[1].action.body_template": 7}, [(E, "tools[1].action.body_template", "type")]),
    (
        "http-action-unknown-key",
        {"tools[1].action.timeout_ms": 100},
        [(W, "tools[1].action.timeout_ms", "unknown_key")],
    ),
    # auth_ref and audience
    (
        "auth-ref-optional",
        {"tools[0].action.auth_ref": DELETE, "tools[0].action.url": "https://open.example/s?q={q}"},
        [],
    ),
    ("auth-ref-unknown", {"tools[0].action.auth_ref": "tokn"}, [(E, "tools[0].action.auth_ref", "auth_ref")]),
    ("audience-exact", {"credential_slots[0].allowed_hosts": ["api.tracker.example"]}, []),
    ("audience-subdomain", {"credential_slots[0].allowed_hosts": ["tracker.example"]}, []),
    (
        "audience-other-host",
        {"tools[0].action.url": "https://evil.example/search?q={q}"},
        [(E, "tools[0].action.url", "host_not_allowed")],
    ),
    (
        "audience-suffix-is-not-subdomain",
        {"tools[0].action.url": "https://nottracker.example/search?q={q}"},
        [(E, "tools[0].action.url", "host_not_allowed")],
    ),
    (
        "audience-host-from-input",
        {"tools[0].action.url": "https://{q}.tracker.example/search"},
        [(E, "tools[0].action.url", "host_not_allowed")],
    ),
    (
        "audience-plain-http",
        {"tools[0].action.url": "http://api.tracker.example/search?q={q}"},
        [(W, "tools[0].action.url", "https")],
    ),
    # install_host
    (
        "install-host",
        {
            "credential_slots[0].allowed_hosts": [],
            "credential_slots[0].install_host": True,
            "credential_slots[0].host_example": "gitlab.mycorp.com",
            "tools[0].action.url": "https://{install_host}/api/v4/search?q={q}",
            "tools[1].action.url": "https://{install_host}/api/v4/issues",
        },
        [],
    ),
    (
        "install-host-placeholder-needs-slot",
        {"tools[0].action.url": "https://{install_host}/api/v4/search?q={q}"},
        [(E, "tools[0].action.url", "placeholder")],
    ),
    (
        "install-host-placeholder-any-slot",
        {
            "tools[0].action.auth_ref": DELETE,
            "tools[0].action.url": "https://{install_host}/s?q={q}",
            "credential_slots[1]": {"ref": "host", "label": "Your server", "install_host": True},
        },
        [],
    ),
    (
        "install-host-slot-fixed-url",
        {
            "credential_slots[0].allowed_hosts": [],
            "credential_slots[0].install_host": True,
            "tools[1].action.url": "https://{install_host}/api/v4/issues",
        },
        [(E, "tools[0].action.url", "host_not_allowed")],
    ),
    (
        "install-host-with-hosts",
        {"credential_slots[0].install_host": True},
        [
            (E, "credential_slots[0].allowed_hosts", "exclusive"),
            (E, "tools[0].action.url", "host_not_allowed"),
            (E, "tools[1].action.url", "host_not_allowed"),
        ],
    ),
    (
        "host-example-without-install-host",
        {"credential_slots[0].host_example": "gitlab.mycorp.com"},
        [(W, "credential_slots[0].host_example", "ignored")],
    ),
    # credential slots
    (
        "slots-array",
        {"credential_slots": {"token": {}}},
        [
            (E, "credential_slots", "type"),
            (E, "tools[0].action.auth_ref", "auth_ref"),
            (E, "tools[1].action.auth_ref", "auth_ref"),
        ],
    ),
    (
        "slot-ref-required",
        {"credential_slots[1]": {"label": "x", "allowed_hosts": ["a.example"]}},
        [(E, "credential_slots[1].ref", "required")],
    ),
    (
        "slot-ref-unique",
        {"credential_slots[1]": {"ref": "token", "label": "x", "allowed_hosts": ["a.example"]}},
        [(E, "credential_slots[1].ref", "unique")],
    ),
    ("slot-label-required", {"credential_slots[0].label": DELETE}, [(E, "credential_slots[0].label", "required")]),
    ("slot-env-optional", {"credential_slots[0].env": DELETE}, []),
    ("slot-env-upper-snake", {"credential_slots[0].env": "tracker_token"}, [(E, "credential_slots[0].env", "pattern")]),
    (
        "slot-allowed-hosts-missing",
        {"credential_slots[0].allowed_hosts": DELETE},
        [(E, "credential_slots[0].allowed_hosts", "no_audience")],
    ),
    (
        "slot-allowed-hosts-empty",
        {"credential_slots[0].allowed_hosts": []},
        [(E, "credential_slots[0].allowed_hosts", "no_audience")],
    ),
    (
        "slot-allowed-hosts-are-hosts",
        {"credential_slots[0].allowed_hosts": ["https://tracker.example/"]},
        [(E, "credential_slots[0].allowed_hosts[0]", "pattern")],
    ),
    ("slot-allowed-hosts-with-port", {"credential_slots[0].allowed_hosts": ["tracker.example:8443"]}, []),
    ("slot-type-secret", {"credential_slots[0].type": "secret"}, []),
    ("slot-type-json", {"credential_slots[0].type": "json"}, []),
    ("slot-type-enum", {"credential_slots[0].type": "password"}, [(E, "credential_slots[0].type", "enum")]),
    ("slot-required-false", {"credential_slots[0].required": False}, []),
    ("slot-required-boolean", {"credential_slots[0].required": "no"}, [(E, "credential_slots[0].required", "type")]),
    ("slot-scheme-basic", {"credential_slots[0].auth_scheme": "basic"}, []),
    ("slot-scheme-raw", {"credential_slots[0].auth_scheme": "raw"}, []),
    (
        "slot-scheme-header",
        {
            "credential_slots[0].auth_scheme": "header",
            "credential_slots[0].header_name": "X-API-KEY",
            "credential_slots[0].prefix": "Token ",
        },
        [],
    ),
    (
        "slot-scheme-header-needs-name",
        {"credential_slots[0].auth_scheme": "header"},
        [(E, "credential_slots[0].header_name", "required")],
    ),
    (
        "slot-header-name-form",
        {"credential_slots[0].auth_scheme": "header", "credential_slots[0].header_name": "X API"},
        [(E, "credential_slots[0].header_name", "pattern")],
    ),
    (
        "slot-header-name-without-header-scheme",
        {"credential_slots[0].header_name": "X-API-KEY"},
        [(W, "credential_slots[0].header_name", "ignored")],
    ),
    (
        "slot-scheme-enum",
        {"credential_slots[0].auth_scheme": "digest"},
        [(E, "credential_slots[0].auth_scheme", "enum")],
    ),
    ("slot-acquisition-paste", {"credential_slots[0].auth_acquisition": "paste"}, []),
    (
        "slot-acquisition-enum",
        {"credential_slots[0].auth_acquisition": "magic"},
        [(E, "credential_slots[0].auth_acquisition", "enum")],
    ),
    (
        "slot-oauth",
        {
            "credential_slots[0].auth_acquisition": "oauth",
            "credential_slots[0].provider": "github",
            "credential_slots[0].allowed_hosts": [],
        },
        [],
    ),
    (
        "slot-oauth-needs-provider",
        {"credential_slots[0].auth_acquisition": "oauth", "credential_slots[0].allowed_hosts": DELETE},
        [(E, "credential_slots[0].provider", "required")],
    ),
    (
        "slot-oauth-no-hosts",
        {"credential_slots[0].auth_acquisition": "oauth", "credential_slots[0].provider": "github"},
        [(E, "credential_slots[0].allowed_hosts", "exclusive")],
    ),
    (
        "slot-oauth-no-install-host",
        {
            "credential_slots[0].auth_acquisition": "oauth",
            "credential_slots[0].provider": "github",
            "credential_slots[0].allowed_hosts": [],
            "credential_slots[0].install_host": True,
        },
        [(E, "credential_slots[0].install_host", "exclusive")],
    ),
    (
        "slot-provider-without-oauth",
        {"credential_slots[0].provider": "github"},
        [(W, "credential_slots[0].provider", "ignored")],
    ),
    (
        "slot-install-host-boolean",
        {"credential_slots[0].install_host": "yes"},
        [(E, "credential_slots[0].install_host", "type")],
    ),
    ("slot-description", {"credential_slots[0].description": "Paste a token with the issues scope."}, []),
    (
        "slot-description-string",
        {"credential_slots[0].description": 5},
        [(E, "credential_slots[0].description", "type")],
    ),
    (
        "slot-secret-value",
        {"credential_slots[0].value": "ghp_abcdef"},
        [(E, "credential_slots[0].value", "secret_value")],
    ),
    ("slot-unknown-key", {"credential_slots[0].scopes": ["repo"]}, [(W, "credential_slots[0].scopes", "unknown_key")]),
    (
        "slot-json-google-token-hosts",
        {
            "credential_slots[0].type": "json",
            "credential_slots[0].allowed_hosts": [
                "analyticsdata.googleapis.com",
                "oauth2.googleapis.com",
                "www.googleapis.com",
                "accounts.google.com",
                "tracker.example",
            ],
        },
        [],
    ),
    (
        "slot-json-google-missing-token-host",
        {
            "credential_slots[0].type": "json",
            "credential_slots[0].allowed_hosts": ["analyticsdata.googleapis.com", "tracker.example"],
        },
        [(W, "credential_slots[0].allowed_hosts", "token_host")],
    ),
    (
        "slot-secret-google-needs-no-token-host",
        {
            "credential_slots[0].type": "secret",
            "credential_slots[0].allowed_hosts": ["generativelanguage.googleapis.com", "tracker.example"],
        },
        [],
    ),
    # guardrails
    ("guardrails-optional", {"guardrails": DELETE}, []),
    ("guardrails-object", {"guardrails": ["pii"]}, [(E, "guardrails", "type")]),
    ("input-max-length", {"guardrails.input.max_length": 0}, [(E, "guardrails.input.max_length", "minimum")]),
    ("input-max-length-integer", {"guardrails.input.max_length": "4k"}, [(E, "guardrails.input.max_length", "type")]),
    (
        "input-deny-patterns",
        {"guardrails.input.deny_patterns": "ignore previous"},
        [(E, "guardrails.input.deny_patterns", "type")],
    ),
    ("input-pii-list", {"guardrails.input.pii_redaction": ["credit_card", "iban", "national_id"]}, []),
    (
        "input-pii-strings",
        {"guardrails.input.pii_redaction": [True]},
        [(E, "guardrails.input.pii_redaction[0]", "type")],
    ),
    ("input-unknown", {"guardrails.input.block_urls": True}, [(W, "guardrails.input.block_urls", "unknown_key")]),
    ("output-secret-scan-true", {"guardrails.output.secret_leak_scan": True}, []),
    ("output-secret-scan-absent", {"guardrails.output": {}}, []),
    (
        "output-secret-scan-false",
        {"guardrails.output.secret_leak_scan": False},
        [(E, "guardrails.output.secret_leak_scan", "mandatory_guardrail")],
    ),
    (
        "output-pii-and-schema",
        {"guardrails.output.pii_redaction": ["phone"], "guardrails.output.schema": {"type": "object"}},
        [],
    ),
    (
        "output-schema-invalid",
        {"guardrails.output.schema": {"required": "id"}},
        [(E, "guardrails.output.schema.required", "schema")],
    ),
    (
        "actions-unknown-tool",
        {"guardrails.actions.delete_repo": {"approval": "human_strict"}},
        [(E, "guardrails.actions.delete_repo", "unknown_tool")],
    ),
    ("approval-strict", {"guardrails.actions.create_issue.approval": "human_strict"}, []),
    ("approval-none", {"guardrails.actions.create_issue.approval": "none"}, []),
    (
        "approval-enum",
        {"guardrails.actions.create_issue.approval": "auto"},
        [(E, "guardrails.actions.create_issue.approval", "enum")],
    ),
    ("max-amount", {"guardrails.actions.create_issue.max_amount": 2500}, []),
    (
        "max-amount-number",
        {"guardrails.actions.create_issue.max_amount": "25"},
        [(E, "guardrails.actions.create_issue.max_amount", "type")],
    ),
    (
        "max-amount-negative",
        {"guardrails.actions.create_issue.max_amount": -1},
        [(E, "guardrails.actions.create_issue.max_amount", "minimum")],
    ),
    ("rate-limit-units", {"guardrails.actions.create_issue.rate_limit": "5/second"}, []),
    ("rate-limit-day", {"guardrails.actions.create_issue.rate_limit": "100/day"}, []),
    (
        "rate-limit-form",
        {"guardrails.actions.create_issue.rate_limit": "10 per hour"},
        [(E, "guardrails.actions.create_issue.rate_limit", "pattern")],
    ),
    (
        "rate-limit-unit",
        {"guardrails.actions.create_issue.rate_limit": "10/week"},
        [(E, "guardrails.actions.create_issue.rate_limit", "pattern")],
    ),
    (
        "rate-limit-zero",
        {"guardrails.actions.create_issue.rate_limit": "0/hour"},
        [(E, "guardrails.actions.create_issue.rate_limit", "pattern")],
    ),
    ("idempotent", {"guardrails.actions.create_issue.idempotent": False}, []),
    (
        "idempotent-boolean",
        {"guardrails.actions.create_issue.idempotent": "false"},
        [(E, "guardrails.actions.create_issue.idempotent", "type")],
    ),
    (
        "requires-unknown",
        {"guardrails.actions.create_issue.requires": ["search"]},
        [(E, "guardrails.actions.create_issue.requires[0]", "unknown_tool")],
    ),
    (
        "requires-array",
        {"guardrails.actions.create_issue.requires": "search_issues"},
        [(E, "guardrails.actions.create_issue.requires", "type")],
    ),
    (
        "requires-self",
        {"guardrails.actions.create_issue.requires": ["create_issue"]},
        [(W, "guardrails.actions.create_issue.requires[0]", "requires_self")],
    ),
    (
        "action-rail-object",
        {"guardrails.actions.create_issue": "human"},
        [(E, "guardrails.actions.create_issue", "type")],
    ),
    (
        "action-rail-unknown",
        {"guardrails.actions.create_issue.notify": True},
        [(W, "guardrails.actions.create_issue.notify", "unknown_key")],
    ),
    # metadata
    (
        "metadata-full",
        {
            "metadata": {
                "license": "MIT",
                "homepage": "https://tracker.example",
                "docs_url": "https://tracker.example/docs",
                "support_url": "https://tracker.example/help",
                "privacy_url": "https://tracker.example/privacy",
                "terms_url": "https://tracker.example/terms",
                "icon": "https://tracker.example/icon.png",
                "support_email": "help@tracker.example",
                "author": {"name": "Tracker Ltd", "url": "https://tracker.example"},
            }
        },
        [],
    ),
    ("metadata-homepage-https", {"metadata.homepage": "http://tracker.example"}, [(E, "metadata.homepage", "https")]),
    ("metadata-docs-https", {"metadata.docs_url": "http://tracker.example/docs"}, [(E, "metadata.docs_url", "https")]),
    ("metadata-icon-https", {"metadata.icon": "http://tracker.example/icon.png"}, [(E, "metadata.icon", "https")]),
    ("metadata-icon-url", {"metadata.icon": "icon.png"}, [(E, "metadata.icon", "url")]),
    (
        "metadata-author-url-https",
        {"metadata.author": {"name": "T", "url": "http://tracker.example"}},
        [(E, "metadata.author.url", "https")],
    ),
    ("metadata-author-name-only", {"metadata.author": "Tracker Ltd"}, []),
    ("metadata-support-email", {"metadata.support_email": "help at tracker"}, [(E, "metadata.support_email", "email")]),
    ("metadata-license-string", {"metadata.license": ["MIT"]}, [(E, "metadata.license", "type")]),
    ("metadata-unknown-https", {"metadata.discord": "https://discord.gg/x"}, [(W, "metadata.discord", "unknown_key")]),
    (
        "metadata-unknown-http",
        {"metadata.discord": "http://discord.gg/x"},
        [(W, "metadata.discord", "unknown_key"), (E, "metadata.discord", "https")],
    ),
    ("metadata-object", {"metadata": "https://tracker.example"}, [(E, "metadata", "type")]),
    # listing fields and aliases
    (
        "listing-fields",
        {
            "tagline": "Issues, found and filed.",
            "version": "2.0.1",
            "changelog": "Adds search.",
            "category": "developer-tools",
            "additional_category_slugs": ["productivity"],
            "tags": ["issues", "tracker"],
            "exec": "user-local",
            "targets": ["cursor", "cli"],
        },
        [],
    ),
    ("tagline-string", {"tagline": 5}, [(E, "tagline", "type")]),
    ("tagline-alias", {"one_liner": "Issues, found and filed."}, []),
    ("tagline-alias-conflict", {"tagline": "A", "one_liner": "B"}, [(W, "one_liner", "alias_conflict")]),
    ("tagline-alias-same", {"tagline": "A", "short_description": "A"}, []),
    ("version-string", {"version": 2}, [(E, "version", "type")]),
    ("changelog-alias", {"release_notes": "Adds search."}, []),
    ("changelog-string", {"changelog": ["a"]}, [(E, "changelog", "type")]),
    ("category-alias", {"primary_category": "developer-tools"}, []),
    ("category-string", {"category": ["developer-tools"]}, [(E, "category", "type")]),
    ("additional-categories-alias", {"secondary_categories": ["productivity"]}, []),
    (
        "additional-categories-array",
        {"additional_category_slugs": "productivity"},
        [(E, "additional_category_slugs", "type")],
    ),
    ("tags-alias", {"keywords": ["issues"]}, []),
    ("tags-array", {"tags": "issues"}, [(E, "tags", "type")]),
    ("tags-strings", {"tags": ["issues", 7]}, [(E, "tags[1]", "type")]),
    ("example-prompts-alias", {"example_prompts": DELETE, "conversation_starters": ["Find bugs."]}, []),
    ("exec-string", {"exec": True}, [(E, "exec", "type")]),
    ("targets-array", {"targets": "cursor"}, [(E, "targets", "type")]),
    ("kind-mcp-tool", {"kind": "mcp-tool"}, []),
    ("kind-enum", {"kind": "mcp-server"}, [(E, "kind", "enum")]),
    ("kind-autonomous", {"kind": "autonomous-agent"}, [(W, "kind", "reserved_kind")]),
    ("delivery-stdio", {"delivery": {"mcp": {"stdio": {"command": "findagent-mcp", "args": ["run", "x"]}}}}, []),
    (
        "delivery-stdio-command",
        {"delivery": {"mcp": {"stdio": {"args": ["run"]}}}},
        [(E, "delivery.mcp.stdio.command", "required")],
    ),
    ("delivery-url", {"delivery": {"mcp": {"url": "https://mcp.tracker.example/mcp"}}}, []),
    (
        "delivery-url-https",
        {"delivery": {"mcp": {"url": "http://mcp.tracker.example/mcp"}}},
        [(E, "delivery.mcp.url", "https")],
    ),
    ("delivery-object", {"delivery": "stdio"}, [(E, "delivery", "type")]),
    ("delivery-unknown", {"delivery": {"npm": "x"}}, [(W, "delivery.npm", "unknown_key")]),
    ("unknown-top-level", {"pricing": "free"}, [(W, "pricing", "unknown_key")]),
    ("code-bundle-key-on-mcp-tool", {"entrypoint": {"path": "x.js"}}, [(W, "entrypoint", "ignored")]),
    ("skills-bundle-key-on-mcp-tool", {"router_skill_id": "x"}, [(W, "router_skill_id", "ignored")]),
]


@pytest.mark.parametrize("case_id, edits, expected", CORE_CASES, ids=[c[0] for c in CORE_CASES])
def test_core_rule(case_id: str, edits: dict, expected: list) -> None:
    run_case(core(), edits, expected)


def test_tools_up_to_40() -> None:
    tool = {"name": "t", "description": "A tool that does one thing."}
    forty = [dict(tool, name=f"t{i}") for i in range(40)]
    run_case(core(), {"tools": forty, "guardrails": DELETE}, [])
    run_case(core(), {"tools": forty + [dict(tool, name="t40")], "guardrails": DELETE}, [(E, "tools", "max_items")])


def test_prompt_template_action() -> None:
    base = core()
    template = {
        "type": "prompt-template",
        "template": "Summarise {q}. If the input is too thin, answer INSUFFICIENT CONTEXT.",
    }
    run_case(base, {"tools[0].action": template}, [])
    run_case(base, {"tools[0].action": {"kind": "prompt-template", "prompt": "Summarise {q}."}}, [])
    run_case(base, {"tools[0].action": {"type": "prompt-template"}}, [(E, "tools[0].action.template", "required")])
    run_case(
        base,
        {"tools[0].action": dict(template, template="Summarise {topic}.")},
        [(W, "tools[0].action.template", "placeholder")],
    )
    run_case(base, {"tools[0].action": dict(template, method="GET")}, [(W, "tools[0].action.method", "unknown_key")])


# -- normalisation ------------------------------------------------------------------------------
def test_spec_example_normalises_into_a_listing() -> None:
    listing = findagent.parse(SPEC_EXAMPLE.read_bytes(), origin="example.com").listing
    assert (listing.format, listing.origin, listing.name) == ("findagent", "example.com", "GA Report Builder")
    assert listing.one_liner == "Weekly traffic summaries, straight to your sheet."
    assert listing.description == "Pulls a traffic summary and writes it to a sheet."
    assert listing.homepage == "https://example.com/ga-report-builder"
    assert listing.guide_url == "https://example.com/docs"
    assert (listing.publisher_name, listing.publisher_url) == ("Jane Doe", "https://example.com")
    assert listing.publisher_contact == "mailto:support@example.com"
    assert listing.categories == ["analytics", "marketing"]
    assert listing.tags == ["ga4", "reporting", "analytics"]
    [tool] = listing.tools
    assert (tool.name, tool.read_only, tool.source) == ("get_traffic_summary", True, "manifest")
    assert tool.annotations == {"readOnlyHint": True}
    assert tool.input_schema["properties"]["range"] == {"type": "string"}
    assert tool.detail["action"] == {
        "kind": "http",
        "method": "GET",
        "auth_ref": "analytics_token",
        "url": "https://api.example.com/v1/traffic?range={range}",
    }
    extra = listing.extra
    assert extra["kind"] == "mcp-tool" and extra["category"] == "analytics"
    assert extra["additional_category_slugs"] == ["marketing"]
    assert extra["version"] == "1.2.0" and extra["exec"] == "user-local"
    assert extra["targets"] == ["claude-desktop", "cursor", "cli"]
    assert extra["delivery"]["mcp"]["stdio"] == {"command": "findagent-mcp", "args": ["run", "ga-report-builder"]}
    assert extra["credential_slots"][0]["allowed_hosts"] == ["api.example.com"]
    assert extra["example_prompts"] == ["Summarize last week's traffic."]
    assert extra["metadata"]["license"] == "MIT"
    json.dumps(listing.to_dict())  # plain JSON data


def test_security_floor_makes_a_mutating_tool_not_read_only() -> None:
    result = run_case(
        core(),
        {"tools[1].annotations.readOnlyHint": True},
        [(W, "tools[1].annotations.readOnlyHint", "security_floor")],
    )
    search, create = result.listing.tools
    assert search.read_only is True
    assert create.read_only is False and create.annotations["readOnlyHint"] is True


def test_read_only_needs_the_hint() -> None:
    listing = findagent.validate_document(edited(core(), {"tools[0].annotations": DELETE})).listing
    assert [t.read_only for t in listing.tools] == [False, False]


def test_credential_slots_in_the_listing_never_hold_a_secret() -> None:
    result = findagent.validate_document(
        edited(core(), {"credential_slots[0].value": "ghp_live_secret", "credential_slots[0].token": "ghp_live_secret"})
    )
    assert not result.valid
    assert "ghp_live_secret" not in json.dumps(result.listing.to_dict())
    slot = result.listing.extra["credential_slots"][0]
    assert slot == {
        "ref": "token",
        "label": "Tracker API token",
        "env": "TRACKER_TOKEN",
        "type": "string",
        "required": True,
        "auth_scheme": "bearer",
        "auth_acquisition": "paste",
        "install_host": False,
        "allowed_hosts": ["tracker.example"],
    }


def test_guardrails_in_the_listing_always_scan_for_secrets() -> None:
    listing = findagent.validate_document(edited(core(), {"guardrails.output": DELETE})).listing
    rails = listing.extra["guardrails"]
    assert rails["output"] == {"secret_leak_scan": True}
    assert rails["actions"]["create_issue"] == {
        "approval": "human",
        "rate_limit": "10/hour",
        "requires": ["search_issues"],
    }


def test_an_invalid_metadata_block_is_dropped_from_the_listing() -> None:
    doc = edited(core(), {"metadata.icon": "http://tracker.example/i.png"})
    listing = findagent.validate_document(doc).listing
    assert listing.homepage is None and listing.publisher_contact is None
    assert "metadata" not in listing.extra
    assert findagent.validate_document(core()).listing.homepage == "https://tracker.example"


def test_an_alias_fills_the_listing_and_the_own_name_wins() -> None:
    listing = findagent.validate_document(edited(core(), {"one_liner": "From the alias", "keywords": ["k"]})).listing
    assert listing.one_liner == "From the alias" and listing.tags == ["k"]
    listing = findagent.validate_document(edited(core(), {"tagline": "Own", "one_liner": "Alias"})).listing
    assert listing.one_liner == "Own"


def test_autonomous_agent_is_treated_as_mcp_tool() -> None:
    listing = findagent.validate_document(edited(core(), {"kind": "autonomous-agent"})).listing
    assert listing.extra["kind"] == "mcp-tool" and listing.extra["declared_kind"] == "autonomous-agent"


def test_delivery_url_becomes_the_mcp_url() -> None:
    doc = edited(core(), {"delivery": {"mcp": {"url": "https://mcp.tracker.example/mcp"}}})
    listing = findagent.validate_document(doc).listing
    assert listing.mcp_url == "https://mcp.tracker.example/mcp"


# -- skills bundles ------------------------------------------------------------------------------
def skills_bundle() -> dict:
    return {
        "schema_version": "1.1",
        "kind": "skills-bundle",
        "name": "Document skills",
        "description": "Skills for reading and writing office documents.",
        "skills": [
            {"id": "pdf", "name": "pdf", "description": "Read and fill PDF forms.", "tags": ["pdf"]},
            {"id": "docx", "name": "docx", "description": "Edit Word documents.", "path": "skills/docx/SKILL.md"},
        ],
        "skills_source": {"kind": "r2", "key": "bundles/document-skills.zip"},
        "router_skill_id": "pdf",
    }


SKILLS_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("base", {}, []),
    ("skills-required", {"skills": DELETE, "router_skill_id": DELETE}, [(E, "skills", "required")]),
    ("skill-name-hyphens", {"skills[0].name": "pdf-forms-2"}, []),
    ("skill-name-64", {"skills[0].name": "a" * 64}, []),
    ("skill-name-65", {"skills[0].name": "a" * 65}, [(E, "skills[0].name", "pattern")]),
    ("skill-name-uppercase", {"skills[0].name": "PDF"}, [(E, "skills[0].name", "pattern")]),
    ("skill-name-underscore", {"skills[0].name": "pdf_forms"}, [(E, "skills[0].name", "pattern")]),
    ("skill-name-double-hyphen", {"skills[0].name": "pdf--forms"}, [(E, "skills[0].name", "pattern")]),
    ("skill-name-leading-hyphen", {"skills[0].name": "-pdf"}, [(E, "skills[0].name", "pattern")]),
    ("skill-name-required", {"skills[0].name": DELETE}, [(E, "skills[0].name", "required")]),
    ("skill-description-missing", {"skills[0].description": DELETE}, [(W, "skills[0].description", "required")]),
    ("skill-description-1024", {"skills[0].description": "x" * 1024}, []),
    ("skill-description-1025", {"skills[0].description": "x" * 1025}, [(W, "skills[0].description", "max_length")]),
    ("skill-description-string", {"skills[0].description": 3}, [(E, "skills[0].description", "type")]),
    ("skill-folder-mismatch", {"skills[1].path": "skills/word/SKILL.md"}, [(W, "skills[1].name", "name_mismatch")]),
    (
        "skill-unique",
        {"skills[1].id": "pdf", "skills[1].name": "pdf", "skills[1].path": DELETE},
        [(E, "skills[1].id", "unique")],
    ),
    ("skill-object", {"skills[1]": "docx"}, [(E, "skills[1]", "type")]),
    ("skill-unknown-key", {"skills[0].license": "MIT"}, [(W, "skills[0].license", "unknown_key")]),
    ("skills-source-optional", {"skills_source": DELETE}, []),
    ("skills-source-kind", {"skills_source.kind": "s3"}, [(E, "skills_source.kind", "enum")]),
    ("skills-source-key", {"skills_source.key": DELETE}, [(E, "skills_source.key", "required")]),
    ("router-by-name", {"router_skill_id": "docx"}, []),
    ("router-unknown", {"router_skill_id": "xlsx"}, [(E, "router_skill_id", "unknown_skill")]),
    ("code-bundle-key-on-skills", {"runtime": {"kind": "node"}}, [(W, "runtime", "ignored")]),
]


@pytest.mark.parametrize("case_id, edits, expected", SKILLS_CASES, ids=[c[0] for c in SKILLS_CASES])
def test_skills_bundle_rule(case_id: str, edits: dict, expected: list) -> None:
    run_case(skills_bundle(), edits, expected)


def test_skills_up_to_40_and_more_is_refused() -> None:
    skill = {"description": "A skill."}
    forty = [dict(skill, id=f"s{i}", name=f"s{i}") for i in range(40)]
    run_case(skills_bundle(), {"skills": forty, "router_skill_id": "s0"}, [])
    run_case(
        skills_bundle(),
        {"skills": forty + [dict(skill, id="s40", name="s40")], "router_skill_id": "s0"},
        [(E, "skills", "max_items")],
    )


def test_skills_bundle_listing_keeps_skills_not_tools() -> None:
    listing = findagent.validate_document(skills_bundle()).listing
    assert listing.tools == []
    assert [s["name"] for s in listing.extra["skills"]] == ["pdf", "docx"]
    assert listing.extra["skills_source"] == {"kind": "r2", "key": "bundles/document-skills.zip"}
    assert listing.extra["router_skill_id"] == "pdf"


# -- code bundles --------------------------------------------------------------------------------
def code_bundle() -> dict:
    return {
        "schema_version": "1.2",
        "kind": "code-bundle",
        "name": "Crate check",
        "entrypoint": {"path": "src/agent.ts"},
        "runtime": {"kind": "node", "version": "22"},
        "mcp": {"mode": "wrap"},
        "skills": [
            {
                "id": "check_crate",
                "name": "check_crate",
                "description": "Check one crate.",
                "input_schema": {"type": "object", "properties": {"crate": {"type": "string"}}, "required": ["crate"]},
            }
        ],
    }


CODE_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("base", {}, []),
    ("entrypoint-required", {"entrypoint": DELETE}, [(E, "entrypoint", "required")]),
    ("runtime-required", {"runtime": DELETE}, [(E, "runtime", "required")]),
    ("mcp-required", {"mcp": DELETE}, [(E, "mcp", "required")]),
    ("entrypoint-export", {"entrypoint.export": "main"}, []),
    ("entrypoint-path-required", {"entrypoint.path": DELETE}, [(E, "entrypoint.path", "required")]),
    ("entrypoint-path-inside", {"entrypoint.path": "../outside.js"}, [(E, "entrypoint.path", "unsafe_path")]),
    ("entrypoint-path-relative", {"entrypoint.path": "/srv/agent.js"}, [(E, "entrypoint.path", "unsafe_path")]),
    ("entrypoint-object", {"entrypoint": "src/agent.ts"}, [(E, "entrypoint", "type")]),
    ("node-24", {"runtime.version": "24"}, []),
    ("node-22-minor", {"runtime.version": "22.11.0"}, []),
    ("node-no-version", {"runtime.version": DELETE}, []),
    ("node-20", {"runtime.version": "20"}, [(E, "runtime.version", "unsupported_runtime")]),
    ("node-version-garbage", {"runtime.version": "latest"}, [(E, "runtime.version", "unsupported_runtime")]),
    ("python-3.13", {"runtime": {"kind": "python", "version": "3.13"}}, []),
    ("python-3.13-number", {"runtime": {"kind": "python", "version": 3.13}}, []),
    (
        "python-3.12",
        {"runtime": {"kind": "python", "version": "3.12"}},
        [(E, "runtime.version", "unsupported_runtime")],
    ),
    ("runtime-kind-enum", {"runtime.kind": "deno"}, [(E, "runtime.kind", "enum")]),
    ("runtime-kind-required", {"runtime.kind": DELETE}, [(E, "runtime.kind", "required")]),
    ("mcp-native", {"mcp": {"mode": "native", "command": "node", "args": ["dist/server.js"]}}, []),
    ("mcp-native-command", {"mcp": {"mode": "native", "args": ["dist/server.js"]}}, [(E, "mcp.command", "required")]),
    (
        "mcp-native-args",
        {"mcp": {"mode": "native", "command": "node", "args": "dist/server.js"}},
        [(E, "mcp.args", "type")],
    ),
    ("mcp-mode-enum", {"mcp.mode": "proxy"}, [(E, "mcp.mode", "enum")]),
    ("mcp-mode-required", {"mcp": {}}, [(E, "mcp.mode", "required")]),
    ("mcp-wrap-command", {"mcp.command": "node"}, [(W, "mcp.command", "ignored")]),
    ("serve-both", {"serve": ["hosted", "local"]}, []),
    ("serve-enum", {"serve": ["cloud"]}, [(E, "serve[0]", "enum")]),
    ("allowed-hosts", {"allowed_hosts": ["crates.io", "static.crates.io"]}, []),
    ("allowed-hosts-form", {"allowed_hosts": ["https://crates.io"]}, [(E, "allowed_hosts[0]", "pattern")]),
    ("build", {"build_command": "npm run build", "install_cwd": "packages/agent"}, []),
    ("build-command-string", {"build_command": ["npm", "run", "build"]}, [(E, "build_command", "type")]),
    ("install-cwd-inside", {"install_cwd": "../other"}, [(E, "install_cwd", "unsafe_path")]),
    ("ui-path", {"ui": "ui/index.html"}, []),
    ("ui-object", {"ui": {"path": "ui/index.html"}}, []),
    ("ui-inside", {"ui": "/var/www/index.html"}, [(E, "ui", "unsafe_path")]),
    ("env-list", {"env": [{"name": "LOG_LEVEL", "description": "debug, info or warn"}]}, []),
    ("env-map", {"env": {"LOG_LEVEL": "debug, info or warn"}}, []),
    ("env-upper-snake", {"env": [{"name": "logLevel", "description": "x"}]}, [(E, "env[0].name", "pattern")]),
    ("env-map-upper-snake", {"env": {"log-level": "x"}}, [(E, "env.log-level", "pattern")]),
    ("env-secret", {"env": [{"name": "GITHUB_TOKEN", "description": "x"}]}, [(W, "env[0].name", "secret_env")]),
    ("skill-ids-are-tool-names", {"skills[0].id": "check crate"}, [(E, "skills[0].id", "pattern")]),
    ("skill-id-or-name", {"skills[0].id": DELETE, "skills[0].name": DELETE}, [(E, "skills[0].id", "required")]),
    (
        "skill-schema-ref-local",
        {
            "skills[0].input_schema.$defs": {"c": {"type": "string"}},
            "skills[0].input_schema.properties.crate": {"$ref": "#/$defs/c"},
        },
        [],
    ),
    (
        "skill-schema-ref-remote",
        {"skills[0].input_schema.properties.crate": {"$ref": "https://x.example/s.json"}},
        [(W, "skills[0].input_schema", "schema_dropped")],
    ),
    (
        "skill-schema-too-large",
        {"skills[0].input_schema.description": "x" * 8000},
        [(W, "skills[0].input_schema", "schema_dropped")],
    ),
    (
        "skill-schema-too-deep",
        {
            "skills[0].input_schema.properties.crate": json.loads(
                '{"type":"object","properties":{"a":' * 6 + '{"type":"string"}' + "}}" * 6
            )
        },
        [(W, "skills[0].input_schema", "schema_dropped")],
    ),
    (
        "skill-schema-not-object",
        {"skills[0].input_schema": {"type": "array"}},
        [(W, "skills[0].input_schema", "schema_dropped")],
    ),
    ("skill-description-long", {"skills[0].description": "x" * 501}, [(W, "skills[0].description", "max_length")]),
    ("guardrail-on-a-skill", {"guardrails": {"actions": {"check_crate": {"rate_limit": "30/minute"}}}}, []),
    (
        "guardrail-on-unknown",
        {"guardrails": {"actions": {"run_full": {"rate_limit": "30/minute"}}}},
        [(E, "guardrails.actions.run_full", "unknown_tool")],
    ),
    (
        "slots-reused",
        {
            "credential_slots": [
                {"ref": "gh", "label": "GitHub token", "allowed_hosts": ["api.github.com"], "required": False}
            ]
        },
        [],
    ),
    ("skills-bundle-key-on-code", {"skills_source": {"kind": "r2", "key": "k"}}, [(W, "skills_source", "ignored")]),
]


@pytest.mark.parametrize("case_id, edits, expected", CODE_CASES, ids=[c[0] for c in CODE_CASES])
def test_code_bundle_rule(case_id: str, edits: dict, expected: list) -> None:
    run_case(code_bundle(), edits, expected)


def test_code_bundle_skills_become_tools() -> None:
    listing = findagent.validate_document(code_bundle()).listing
    [tool] = listing.tools
    assert (tool.name, tool.description, tool.source) == ("check_crate", "Check one crate.", "manifest")
    assert tool.input_schema["required"] == ["crate"]
    bundle = listing.extra["code_bundle"]
    assert bundle["entrypoint"] == {"path": "src/agent.ts", "export": "handler"}
    assert bundle["serve"] == ["hosted"] and bundle["mcp"] == {"mode": "wrap"}


def test_a_schema_over_a_limit_is_left_out_not_clipped() -> None:
    doc = edited(code_bundle(), {"skills[0].input_schema.description": "x" * 8000})
    [tool] = findagent.validate_document(doc).listing.tools
    assert tool.input_schema is None


# -- the real world ------------------------------------------------------------------------------
def test_real_findagent_manifests(shared: Path) -> None:
    paths = sorted((shared / "realworld" / "findagent").glob("*.json"))
    assert paths
    for path in paths:
        result = findagent.parse(path.read_bytes())
        assert result.valid, (path.name, [f.to_dict() for f in result.findings])
        assert result.findings == [], path.name
        listing = result.listing
        assert listing.extra["kind"] == "code-bundle" and listing.extra["schema_version"] == "1.2"
        names = {t.name for t in listing.tools}
        # the six entry tools the FindAgent code-agent contract asks for
        assert {"plan_inputs", "open_form", "run_form", "run_full", "list_capabilities", "discover_intent"} <= names
        assert listing.extra["code_bundle"]["runtime"]["kind"] in ("node", "python")
        assert listing.extra["code_bundle"]["allowed_hosts"] == ["crates.io"]
        assert formats.detect(json.loads(path.read_bytes())) == "findagent"


# -- bytes and detection -------------------------------------------------------------------------
def test_bad_bytes_become_findings() -> None:
    assert [(f.path, f.code) for f in findagent.parse(b"{not json").findings] == [("", "not_json")]
    assert [(f.path, f.code) for f in findagent.parse(b"[]").findings] == [("", "not_object")]
    big = json.dumps({"name": "x", "system_prompt": "y" * findagent.MAX_BYTES}).encode()
    assert [(f.path, f.code) for f in findagent.parse(big).findings] == [("", "too_large")]
    near = json.dumps({"name": "x", "system_prompt": "y" * (findagent.MAX_BYTES - 100)}).encode()
    assert findagent.parse(near).valid


def test_looks_like() -> None:
    assert findagent.looks_like(spec_example())
    assert findagent.looks_like({"name": "x", "system_prompt": "y"})
    assert findagent.looks_like({"name": "x", "tools": []})
    assert findagent.looks_like({"name": "x", "kind": "code-bundle"})
    assert findagent.looks_like({"name": "x", "schema_version": "1.2"})
    assert not findagent.looks_like({"name": "x"})
    assert not findagent.looks_like({"system_prompt": "y", "tools": []})
    assert not findagent.looks_like({"agent_app": "1", "name": "x", "tools": []})
    assert not findagent.looks_like({"anchor": "0.1", "name": "x", "tools": []})
    assert not findagent.looks_like({"format": "adapp/v1", "name": "x", "tools": []})
    dxt = {"dxt_version": "0.1", "name": "x", "version": "1.0.0", "server": {}, "tools": [{"name": "a"}]}
    assert not findagent.looks_like(dxt)
    mcpb = {"manifest_version": "0.2", "name": "x", "server": {}, "tools": [{"name": "a"}]}
    assert not findagent.looks_like(mcpb)
    assert not findagent.looks_like(["name", "tools"])


def test_validate_document_refuses_a_non_object_without_raising() -> None:
    result = findagent.validate_document(["name", "tools"])  # type: ignore[arg-type]
    assert triples(result) == {("error", "", "not_object")} and result.listing is None


def test_a_schema_is_checked_against_its_own_draft() -> None:
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
    }
    run_case(core(), {"tools[0].output_schema": draft4}, [])
    run_case(
        core(),
        {"tools[0].output_schema": dict(draft4, **{"$schema": "https://json-schema.org/draft/2020-12/schema"})},
        [(E, "tools[0].output_schema.properties.n.exclusiveMinimum", "schema")],
    )
    run_case(
        core(),
        {"tools[0].output_schema": {"$schema": 5, "type": "object"}},
        [(E, "tools[0].output_schema.$schema", "schema")],
    )


def test_detect_picks_findagent_for_the_spec_example() -> None:
    assert formats.detect(spec_example()) == "findagent"
    assert formats.parse_json(SPEC_EXAMPLE.read_bytes()).format == "findagent"


# -- repository layout ---------------------------------------------------------------------------
def as_bytes(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def instructions_only(name: str, **more: Any) -> dict:
    return {"schema_version": "1.1", "name": name, "system_prompt": "You help.", **more}


DXT = {
    "dxt_version": "0.1",
    "name": "crate-check",
    "version": "0.3.0",
    "author": {"name": "A"},
    "server": {"type": "node", "entry_point": "dist/mcp/server.js"},
    "tools": [{"name": "run_full"}],
}


def test_repo_root_findagent_json() -> None:
    result = findagent.parse_repo({"findagent.json": SPEC_EXAMPLE.read_bytes()})
    assert result.valid and result.findings == [] and result.listing.name == "GA Report Builder"


def test_repo_dot_findagent_folder_and_prefixed_paths() -> None:
    doc = edited(spec_example(), {"tools[0].name": "get traffic"})
    result = findagent.parse_repo({".findagent/findagent.json": as_bytes(doc)})
    assert [(f.path, f.code) for f in result.findings] == [(".findagent/findagent.json:tools[0].name", "pattern")]
    assert result.listing.name == "GA Report Builder"


def test_repo_bad_bytes_in_a_folder_file_are_prefixed() -> None:
    result = findagent.parse_repo({".findagent/findagent.json": b"{"})
    assert [(f.path, f.code) for f in result.findings] == [(".findagent/findagent.json:", "not_json")]
    assert result.listing is None and not result.valid


def test_repo_root_wins_over_the_folder() -> None:
    result = findagent.parse_repo(
        {
            "findagent.json": as_bytes(instructions_only("Root")),
            ".findagent/findagent.json": as_bytes(instructions_only("Folder")),
        }
    )
    assert result.listing.name == "Root" and result.valid
    assert triples(result) == {("warning", ".findagent/findagent.json:", "conflict")}


def test_repo_second_file_with_actions_is_refused() -> None:
    result = findagent.parse_repo(
        {"findagent.json": as_bytes(instructions_only("Root")), ".findagent/findagent.json": SPEC_EXAMPLE.read_bytes()}
    )
    assert triples(result) == {("error", ".findagent/findagent.json:tools", "conflict")}
    assert result.listing.name == "Root" and result.listing.tools == []  # never merged


def test_repo_manifest_json_v11_alone_is_read() -> None:
    doc = spec_example() | {"schema_version": "1.1"}
    result = findagent.parse_repo({"manifest.json": as_bytes(doc)})
    assert result.valid and result.findings == [] and result.listing.name == "GA Report Builder"
    bad = edited(doc, {"metadata.homepage": "http://example.com"})
    result = findagent.parse_repo({"manifest.json": as_bytes(bad)})
    assert triples(result) == {("error", "manifest.json:metadata.homepage", "https")}


def test_repo_findagent_json_wins_over_manifest_json_with_actions() -> None:
    files = {
        "findagent.json": SPEC_EXAMPLE.read_bytes(),
        "manifest.json": as_bytes(edited(spec_example(), {"schema_version": "1.1", "name": "Other"})),
    }
    result = findagent.parse_repo(files)
    assert triples(result) == {("error", "manifest.json:tools", "conflict")}
    assert result.listing.name == "GA Report Builder" and len(result.listing.tools) == 1


def test_repo_findagent_json_beside_a_v11_manifest_json_without_actions() -> None:
    files = {"findagent.json": SPEC_EXAMPLE.read_bytes(), "manifest.json": as_bytes(instructions_only("Other"))}
    result = findagent.parse_repo(files)
    assert result.valid and triples(result) == {("warning", "manifest.json:", "conflict")}


def test_repo_dxt_manifest_json_alone_is_not_findagent() -> None:
    result = findagent.parse_repo({"manifest.json": as_bytes(DXT)})
    assert not result.valid and result.listing is None
    assert triples(result) == {("error", "manifest.json:schema_version", "not_findagent")}


@pytest.mark.parametrize("version", ["1.2", "1.0", 1.1, None])
def test_repo_manifest_json_needs_exactly_1_1(version: Any) -> None:
    doc = instructions_only("X") | {"schema_version": version}
    result = findagent.parse_repo({"manifest.json": as_bytes(doc)})
    assert triples(result) == {("error", "manifest.json:schema_version", "not_findagent")}


def test_repo_dxt_manifest_beside_findagent_json_is_the_normal_layout() -> None:
    result = findagent.parse_repo({"findagent.json": SPEC_EXAMPLE.read_bytes(), "manifest.json": as_bytes(DXT)})
    assert result.valid and result.findings == []


def test_repo_unreadable_manifest_json_alone() -> None:
    result = findagent.parse_repo({"manifest.json": b"\xef\xbb\xbf{}"})
    assert triples(result) == {
        ("error", "manifest.json:", "bom"),
        ("error", "manifest.json:schema_version", "not_findagent"),
    }


def test_repo_broken_findagent_json_still_wins() -> None:
    files = {"findagent.json": b"{broken", "manifest.json": as_bytes(instructions_only("Fallback"))}
    result = findagent.parse_repo(files)
    assert not result.valid and result.listing is None
    assert ("error", "", "not_json") in triples(result)


def test_repo_with_no_manifest() -> None:
    result = findagent.parse_repo({"README.md": b"# hi"})
    assert triples(result) == {("error", "findagent.json", "no_manifest")} and result.listing is None


def test_repo_paths_are_normalised_and_files_capped() -> None:
    assert findagent.parse_repo({"./findagent.json": SPEC_EXAMPLE.read_bytes()}).valid
    assert findagent.parse_repo({".findagent\\findagent.json": SPEC_EXAMPLE.read_bytes()}).valid
    big = as_bytes(instructions_only("Big", description="x" * findagent.MAX_BYTES))
    result = findagent.parse_repo({".findagent/findagent.json": big})
    assert triples(result) == {("error", ".findagent/findagent.json:", "too_large")}


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
REPO_FILES = st.dictionaries(
    st.sampled_from(["findagent.json", ".findagent/findagent.json", "manifest.json", "README.md"]),
    st.binary(max_size=200)
    | st.sampled_from([SPEC_EXAMPLE.read_bytes(), as_bytes(DXT), as_bytes(instructions_only("X")), b"{}", b"[]"]),
    max_size=4,
)


@FUZZ
@given(REPO_FILES)
def test_parse_repo_never_raises(files: dict[str, bytes]) -> None:
    result = findagent.parse_repo(files)
    assert all(f.code in codes.CODES for f in result.findings)
    assert result.listing is not None or not result.valid
    json.dumps(result.to_dict())


# -- every code is documented and exercised ------------------------------------------------------
def literal_codes(module: Any) -> set[str]:
    """The finding codes a module passes literally to ``error``/``warn``/``Finding``."""
    tree = ast.parse(Path(module.__file__).read_text("utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) > 1:
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            index = 2 if name == "Finding" else 1
            if (
                name in ("error", "warn", "Finding")
                and len(node.args) > index
                and isinstance(node.args[index], ast.Constant)
            ):
                found.add(node.args[index].value)
    return found


def test_every_code_is_documented_and_has_a_case() -> None:
    emitted = set().union(*(literal_codes(m) for m in (findagent, _findagent_rails, _findagent_bundles)))
    assert emitted and emitted <= codes.CODES.keys(), emitted - codes.CODES.keys()
    exercised = {c for table in (CORE_CASES, SKILLS_CASES, CODE_CASES) for _, _, exp in table for _, _, c in exp}
    for path in VALID_FILES + INVALID_FILES:
        exercised |= {e["code"] for e in (load_expect(path) or {"findings": []})["findings"]}
    exercised |= {"conflict", "not_findagent", "no_manifest", "not_object"}  # tests of their own above
    assert emitted - exercised == set(), "codes without a failing case"
