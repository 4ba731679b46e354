"""Auth posture without following a flow: gated.test of the cross-check sample web, its MCP
endpoint (the `mcp` SDK's server behind the sample web's OAuth and bearer gates, or a JSON
answer) switched through every posture between crawls; the kind stored, counted by `census
--json`, given by `census --endpoints --json`; a private-address authorization server refused
and recorded; no request ever carries a credential or reaches an authorization endpoint."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler import auth_posture
from agentdex.crawler.mcp_probe import Probe, metadata_urls
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

MCP = "https://mcp.gated.test/mcp"
# The variant of mcp.gated.test and the kind each crawl must record.
POSTURES = [
    ("", "none"),
    ("v2", "oauth_cimd"),
    ("v3", "oauth_dcr"),
    ("v4", "bearer"),
    ("v5", "api_key"),
    ("v6", "payment"),
    ("v7", "oauth"),
    ("v8", "oauth"),
    ("v9", "unknown"),
]


@pytest.fixture(scope="module")
def postures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("auth")
    seen, census = [], []
    with SampleWeb(CROSSCHECK_ROOT) as web:
        for variant, _ in POSTURES:
            path = folder / f"{variant or 'base'}.db"
            web.set_variant("mcp.gated.test", variant)
            args = ["--db", str(path)]
            done = CliRunner().invoke(app, ["crawl", "gated.test", *args, *web.cli_args(), "--timeout", "60"])
            assert done.exit_code == 0, done.output
            with sqlite3.connect(path) as db:
                kind = db.execute("SELECT auth_kind FROM endpoint_probes WHERE role = 'mcp'").fetchone()[0]
                data = db.execute("SELECT data FROM checks WHERE name = 'mcp.initialize'").fetchone()[0]
                seen.append((kind, json.loads(data)))
            data = CliRunner().invoke(app, ["census", "--json", *args]).stdout
            rows = CliRunner().invoke(app, ["census", "--endpoints", "--json", *args]).stdout
            census.append((json.loads(data), json.loads(rows)))
        yield seen, census, list(web.requests_log)


@pytest.mark.slow
def test_each_posture_is_recorded_as_its_kind(postures):
    seen, _, _ = postures
    assert [kind for kind, _ in seen] == [kind for _, kind in POSTURES]


@pytest.mark.slow
def test_the_census_counts_auth_kinds_and_lists_each_endpoints(postures):
    _, census, _ = postures
    for (_, kind), (data, rows) in zip(POSTURES, census, strict=True):
        counted = {row["kind"]: row["count"] for row in data["auth"]}
        assert [row["kind"] for row in data["auth"]] == list(auth_posture.KINDS)
        assert counted[kind] == 1 and sum(counted.values()) == data["total"] == 1
        assert [row["auth_kind"] for row in rows if row["url"] == MCP] == [kind]


@pytest.mark.slow
def test_a_private_address_authorization_server_is_refused_and_recorded(postures):
    seen, _, log = postures
    metadata = seen[6][1]["metadata"]
    assert metadata["authorization_servers"] == ["https://10.0.0.1"]
    [refused] = metadata["refused"]
    assert refused["url"] == "https://10.0.0.1/.well-known/oauth-authorization-server"
    assert "10.0.0.1" in refused["why"]
    assert seen[1][1]["metadata"]["client_id_metadata_document_supported"] is True
    assert seen[2][1]["metadata"]["registration_endpoint"] == "https://auth.gated.test/dcr/register"


@pytest.mark.slow
def test_the_metadata_is_read_in_each_well_known_form(postures):
    _, _, log = postures
    requested = {(r.host, r.path) for r in log}
    # The path-suffixed metadata (v3) was found; the authorization servers' metadata read.
    assert ("mcp.gated.test", "/.well-known/oauth-protected-resource/mcp") in requested
    assert ("auth.gated.test", "/.well-known/openid-configuration/dcr") in requested
    assert ("auth.gated.test", "/.well-known/oauth-authorization-server") in requested


@pytest.mark.slow
def test_no_request_carries_a_credential_or_starts_a_flow(postures):
    _, _, log = postures
    assert log
    assert not [r for r in log if "authorization" in {k.lower() for k in r.headers}]
    assert not [r for r in log if r.host == "auth.gated.test" and "/.well-known/" not in r.path]
    assert not [r for r in log if r.method not in ("GET", "HEAD", "POST")]


def test_where_metadata_is_looked_for():
    assert metadata_urls("https://m.test/a/mcp", None) == [
        "https://m.test/.well-known/oauth-protected-resource/a/mcp",
        "https://m.test/.well-known/oauth-protected-resource",
    ]
    named = "https://elsewhere.test/meta"  # the challenge's URL alone, as MCP 2025-11-25 says
    assert metadata_urls("https://m.test/mcp", named) == [named]
    assert auth_posture.server_metadata_urls("https://as.test/tenant") == [
        "https://as.test/.well-known/oauth-authorization-server/tenant",
        "https://as.test/.well-known/openid-configuration/tenant",
        "https://as.test/tenant/.well-known/openid-configuration",
    ]


@pytest.mark.parametrize(
    ("probe", "kind"),
    [
        (Probe("ok"), "none"),
        (Probe("payment_required", http_status=402), "payment"),
        (Probe("auth_required", auth_scheme="bearer"), "bearer"),
        (Probe("auth_required", auth_scheme="apikey"), "unknown"),  # no header named: nothing documented
        (Probe("auth_required", auth_scheme="apikey", metadata={"api_key_header": "X-API-Key"}), "api_key"),
        (Probe("auth_required", auth_scheme="basic"), "unknown"),
        (Probe("auth_required", auth_scheme="oauth"), "oauth"),
        (Probe("auth_required", metadata={"authorization_servers": ["x"], "registration_endpoint": "r"}), "oauth_dcr"),
        (
            Probe(
                "auth_required",
                metadata={"registration_endpoint": "r", "client_id_metadata_document_supported": True},
            ),
            "oauth_cimd",
        ),
        (Probe("timeout"), "unknown"),
    ],
)
def test_one_kind_of_each_answer(probe, kind):
    assert auth_posture.kind_of(probe) == kind
