"""Install plans: golden files per host and auth kind, plus the promises a user relies on."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from agentdex.models import Listing
from agentdex.plans import HOST_IDS, SPEC_HOSTS, guide_mentions, host_id, plan_for, plans_for, similar_host

GOLDEN = Path(__file__).parent / "golden" / "plans"
UPDATE = os.environ.get("AGENTDEX_UPDATE_GOLDEN") == "1"


def listing(**overrides) -> Listing:
    base = dict(
        format="agent_app",
        origin="pantry.example.com",
        name="Pantry",
        mcp_url="https://mcp.pantry.example.com/mcp",
        mcp_transport="streamable-http",
        mcp_auth=["oauth"],
        guide_url="https://pantry.example.com/agent.md",
        skill_url="https://pantry.example.com/SKILL.md",
        instructions="Pantry tracks your kitchen; use it for groceries. Guide: https://pantry.example.com/agent.md",
        hosts=[
            {"host": "claude_code", "status": "tested", "notes": None},
            {"host": "chatgpt", "status": "unsupported", "notes": "no OAuth yet"},
        ],
    )
    base.update(overrides)
    return Listing(**base)


CASES = {
    "oauth": listing(),
    "bearer": listing(mcp_auth=["bearer"]),
    "none": listing(mcp_auth=["none"], skill_url=None, instructions=None, hosts=[]),
    "http_only": listing(
        mcp_url=None,
        mcp_transport=None,
        mcp_auth=[],
        http_base="https://api.pantry.example.com/v1",
        http_openapi="https://api.pantry.example.com/v1/openapi.json",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_plans_match_golden_files(case):
    plans = {host: plan.to_dict() for host, plan in plans_for(CASES[case]).items()}
    path = GOLDEN / f"{case}.json"
    text = json.dumps(plans, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if UPDATE:
        path.write_text(text, "utf-8")
    assert path.exists(), f"missing {path.name}: run AGENTDEX_UPDATE_GOLDEN=1 pytest tests/test_plans.py"
    assert json.loads(path.read_text("utf-8")) == plans, (
        f"plans for {case} changed; review, then AGENTDEX_UPDATE_GOLDEN=1 pytest tests/test_plans.py"
    )


def test_every_catalogue_host_has_a_plan():
    assert set(SPEC_HOSTS) | {"cursor", "vscode", "windsurf", "gemini_cli"} == set(HOST_IDS)


def test_server_name_is_origin_with_hyphens():
    plan = plan_for(listing(), "claude_code")
    assert plan.server_name == "pantry-example-com"
    assert plan.steps[0].content == (
        "claude mcp add --transport http --scope user pantry-example-com https://mcp.pantry.example.com/mcp"
    )


def test_bearer_on_web_hosts_says_unsupported_instead_of_guessing():
    for host in ("chatgpt", "claude"):
        plan = plan_for(listing(mcp_auth=["bearer"]), host)
        assert plan.supported is False
        assert "bearer" in plan.steps[0].content.lower()
        assert "mcpServers" not in json.dumps(plan.to_dict())


def test_bearer_token_comes_from_an_environment_variable():
    plan = plan_for(listing(mcp_auth=["bearer"]), "codex")
    assert "--bearer-token-env-var PANTRY_EXAMPLE_COM_TOKEN" in plan.steps[0].content
    config = json.loads(plan_for(listing(mcp_auth=["bearer"]), "claude_code").steps[0].content)
    assert (
        config["mcpServers"]["pantry-example-com"]["headers"]["Authorization"] == "Bearer ${PANTRY_EXAMPLE_COM_TOKEN}"
    )


def test_undocumented_hosts_do_not_guess():
    for host in ("openai_dots", "muse", "instinct"):
        plan = plan_for(listing(), host)
        assert not plan.supported and plan.steps[0].kind == "note"
        assert "no documentation" in plan.steps[0].content


def test_host_status_from_listing_or_not_stated():
    assert plan_for(listing(), "claude_code").host_status == "tested"
    chatgpt = plan_for(listing(), "chatgpt")
    assert (chatgpt.host_status, chatgpt.host_notes) == ("unsupported", "no OAuth yet")
    assert plan_for(listing(), "codex").host_status == "not stated"


def test_instruction_line_is_verbatim():
    text = CASES["oauth"].instructions
    plan = plan_for(CASES["oauth"], "claude_code")
    assert plan.instruction == text
    assert any(s.content == text for s in plan.steps)


def test_http_only_listing_points_at_guide_and_api_base():
    plan = plan_for(CASES["http_only"], "cursor")
    assert plan.kind == "http_api"
    assert "https://api.pantry.example.com/v1" in plan.steps[0].content
    assert "https://pantry.example.com/agent.md" in plan.steps[0].content


def test_hostile_url_cannot_inject_shell():
    evil = "https://evil.example.com/mcp';touch${IFS}pwned;'"
    plan = plan_for(listing(mcp_url=evil), "claude_code")
    argv = shlex.split(plan.steps[0].content)
    assert argv[-1] == evil and argv[:3] == ["claude", "mcp", "add"]


def test_vscode_key_must_start_with_a_letter():
    plan = plan_for(listing(origin="1password.example.com"), "vscode")
    arg = json.loads(shlex.split(plan.steps[0].content)[-1])
    assert arg["name"] == "mcp-1password-example-com"


def test_guide_wins_when_it_names_another_url_or_command():
    guide = "# Pantry\nConnect to https://mcp.pantry.example.com/v2/mcp\n\n    claude mcp add --transport http pantry https://x.example.com/mcp\n"
    plan = plan_for(listing(), "claude_code", guide_text=guide)
    assert plan.guide_says["mcp_urls"][0] == "https://mcp.pantry.example.com/v2/mcp"
    assert plan.guide_says["install_commands"] == ["claude mcp add --transport http pantry https://x.example.com/mcp"]
    assert any("guide wins" in n for n in plan.notes)
    same = plan_for(listing(), "claude_code", guide_text="Use https://mcp.pantry.example.com/mcp")
    assert same.guide_says == {} and not any("guide wins" in n for n in same.notes)


def test_guide_mentions_ignores_non_mcp_urls():
    assert guide_mentions("See https://pantry.example.com/docs and https://x.test/mcp.")["mcp_urls"] == [
        "https://x.test/mcp"
    ]


@pytest.mark.parametrize(
    ("typed", "host"),
    [
        ("claude_code", "claude_code"),
        ("claude-code", "claude_code"),
        ("Claude Code", "claude_code"),
        ("CLAUDE CODE", "claude_code"),
        ("VS Code", "vscode"),
        ("vs-code", "vscode"),
        ("vscode", "vscode"),
        ("VS Code (GitHub Copilot)", "vscode"),
        ("Gemini CLI", "gemini_cli"),
        ("gemini-cli", "gemini_cli"),
        ("OpenAI Codex", "codex"),
        (" cursor ", "cursor"),
        ("Claude", "claude"),
        ("Other MCP hosts", "other"),
    ],
)
def test_hosts_are_found_by_the_names_people_type(typed, host):
    assert host_id(typed) == host


def test_every_host_is_found_by_its_id_and_its_display_name():
    from agentdex.plans.hosts import HOSTS

    for host, spec in HOSTS.items():
        assert host_id(host) == host_id(host.replace("_", "-")) == host_id(spec.name) == host


def test_a_name_that_is_no_host_is_refused_and_a_typo_gets_a_guess():
    assert host_id("claude-cod") is None and host_id("") is None and host_id("code") is None
    assert similar_host("claude-cod") == "claude_code" and similar_host("windsurff") == "windsurf"
    assert similar_host("zzz") is None
