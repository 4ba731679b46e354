"""`agentdex census --confirm`: every MCP endpoint that is not open probed again through a
second HTTP stack (plain httpx, its own pools and TLS setup) that honours --connect-to,
--ca-bundle and --dns-server. On the sample web it agrees on every endpoint; an endpoint that
recovered since the crawl is listed as a disagreement with both answers."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.second_opinion import census_state
from agentdex.demo import DEMO_ORIGINS
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

EXTRA = ("t-oldsse.test", "t-paidmcp.test")  # the SSE-only and the paid endpoint


def census_args(web) -> list[str]:
    """The sample web's network options a census takes (no --registry)."""
    args = web.cli_args()
    if "--registry" in args:
        at = args.index("--registry")
        del args[at : at + 2]
    return args


@pytest.fixture(scope="module")
def confirmed(tmp_path_factory):
    path = tmp_path_factory.mktemp("confirm") / "catalogue.db"
    runner = CliRunner()
    with SampleWeb() as web:
        args = [*web.cli_args(), "--db", str(path), "--timeout", "60"]
        assert runner.invoke(app, ["crawl", *DEMO_ORIGINS, *EXTRA, *args]).exit_code == 0
        assert runner.invoke(app, ["seeds", "registry:https://registry.test", *args]).exit_code == 0
        before = len(list(web.requests_log))
        confirm = [*census_args(web), "--db", str(path), "--timeout", "60"]
        as_json = runner.invoke(app, ["census", "--confirm", "--json", *confirm])
        text = runner.invoke(app, ["census", "--confirm", *confirm])
        log = list(web.requests_log)[before:]
    assert as_json.exit_code == 0, as_json.output
    assert text.exit_code == 0, text.output
    return json.loads(as_json.stdout), text.stdout, log


@pytest.mark.slow
def test_the_second_stack_agrees_on_every_endpoint_of_the_sample_web(confirmed):
    data, _, _ = confirmed
    counts = {s["state"]: s["count"] for s in data["states"]}
    not_open = sum(n for state, n in counts.items() if state not in ("open", "template_not_expanded", "not_probed"))
    assert not_open >= 5
    found = data["confirm"]
    assert found["checked"] == found["agreed"] == not_open
    assert found["disagreements"] == []
    assert {s["state"]: s["checked"] for s in found["states"]} == {
        state: n for state, n in counts.items() if n and state not in ("open", "template_not_expanded", "not_probed")
    }
    assert {"auth_gated", "payment_required", "wrong_transport", "not_mcp", "unreachable"} <= {
        s["state"] for s in found["states"]
    }


@pytest.mark.slow
def test_the_text_names_each_state_and_the_total(confirmed):
    data, text, _ = confirmed
    n = data["confirm"]["checked"]
    assert f"second opinion (another HTTP stack) on {n} endpoint(s) not open:" in text
    assert f"{'total':<22} {n:>6} checked {n:>6} agreed" in text
    assert "disagrees:" not in text


@pytest.mark.slow
def test_the_second_opinion_went_through_its_own_stack_without_credentials(confirmed):
    _, _, log = confirmed
    assert log and all("(second opinion)" in r.headers.get("user-agent", "") for r in log)
    assert not [r for r in log if "authorization" in r.headers]
    assert not [r for r in log for m in r.jsonrpc_methods() if m == "tools/call"]


@pytest.mark.slow
def test_an_endpoint_that_recovered_is_listed_with_both_answers(tmp_path):
    path = tmp_path / "catalogue.db"
    runner = CliRunner()
    with SampleWeb(CROSSCHECK_ROOT) as web:
        web.set_variant("mcp.flapping.test", "v2")  # 503 when crawled
        args = [*web.cli_args(), "--db", str(path), "--timeout", "60"]
        assert runner.invoke(app, ["crawl", "flapping.test", *args]).exit_code == 0
        web.set_variant("mcp.flapping.test", "")  # up again when confirmed
        done = runner.invoke(app, ["census", "--confirm", "--json", *census_args(web), "--db", str(path)])
    found = json.loads(done.stdout)["confirm"]
    assert (found["checked"], found["agreed"]) == (1, 0)
    [one] = found["disagreements"]
    assert one["url"] == "https://mcp.flapping.test/mcp"
    assert (one["first"]["census"], one["first"]["state"]) == ("unreachable", "server_error")
    assert (one["second"]["census"], one["second"]["state"]) == ("open", "ok")


@pytest.mark.parametrize(
    ("state", "cause", "census"),
    [
        ("ok", None, "open"),
        ("ok", "initialized_rejected", "initialized_rejected"),
        ("auth_required", None, "auth_gated"),
        ("not_found", None, "not_mcp"),
        ("dead", "dns", "dns_gone"),
        ("dead", None, "unreachable"),
        ("blocked", None, "unreachable"),
        ("server_error", None, "unreachable"),
    ],
)
def test_the_census_state_of_a_probe_is_the_views(state, cause, census):
    assert census_state(state, cause) == census
