"""Every real public document under shared/realworld/ goes through agentdex without an
exception, and what agentdex reads from it matches what the file says.

The corpus and its oddities are described in shared/realworld/SOURCES.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentdex import formats
from agentdex.formats import inferred
from agentdex.models import ParseResult

BASE = "https://example.com"
FOLDERS = {
    "agent_app",
    "agent_card",
    "agent_md",
    "anchor",
    "findagent",
    "llms_txt",
    "mcp_json",
    "openapi",
    "server_cards",
    "server_json",
    "skill",
    "x402",
}
AUTO_FOLDERS = ("agent_card", "server_json", "openapi", "x402", "server_cards")
TEMPLATE_SKILL = (
    b"---\nname: template-skill\ndescription: Replace with description of the skill "
    b"and when Claude should use it.\n---\n\n# Insert instructions below\n"
)


def corpus(shared: Path, folder: str, pattern: str = "*") -> list[Path]:
    """The files of one corpus folder (never empty: the corpus is what is tested)."""
    files = sorted(p for p in (shared / "realworld" / folder).glob(pattern) if p.is_file())
    assert files, f"realworld/{folder} holds no {pattern} files"
    return files


def errors(result: ParseResult) -> set[tuple[str, str]]:
    return {(f.path, f.code) for f in result.findings if f.severity == "error"}


def codes(result: ParseResult) -> set[str]:
    return {f.code for f in result.findings}


def test_every_corpus_folder_is_covered(shared):
    present = {p.name for p in (shared / "realworld").iterdir() if p.is_dir()}
    assert present <= FOLDERS | {"adapp"}, f"new corpus folders to test: {present - FOLDERS}"


# -- SKILL.md ----------------------------------------------------------------------------------
def skill_result(path: Path) -> ParseResult:
    return inferred.infer({"SKILL.md": path.read_bytes(), "agent.md": b"# Guide\n"}, base_url=BASE)


def test_every_skill_md_goes_through_infer(shared):
    for path in corpus(shared, "skill", "*.md"):
        result = skill_result(path)
        assert result.format == "inferred" and result.listing is not None, path.name
        assert result.listing.skill_url == "https://example.com/SKILL.md"
        assert "inferred" in codes(result)


def test_skill_names_and_descriptions_are_read_exactly(shared):
    folder = shared / "realworld" / "skill"
    vercel = skill_result(folder / "skills__SKILL.md").listing
    assert (vercel.name, vercel.description) == (
        "vercel",
        "Manage Vercel deployments, projects, and domains via CLI and API.",
    )
    template = skill_result(folder / "template__SKILL.md").listing
    assert (template.name, template.description) == (
        "template-skill",
        "Replace with description of the skill and when Claude should use it.",
    )
    pdf = skill_result(folder / "pdf__SKILL.md").listing
    assert pdf.name == "pdf" and pdf.description.startswith(
        "Use this skill whenever the user wants to do anything with PDF files."
    )
    assert pdf.description.endswith("If the user mentions a .pdf file or asks to produce one, use this skill.")


def test_a_folded_clawhub_description_is_joined(shared):
    result = skill_result(shared / "realworld" / "skill" / "clawhub-root__SKILL.md")
    assert result.valid and result.listing.name == "mova-hitl-contracts"
    assert result.listing.description == (
        "Run regulated business decisions through MOVA — a Human-in-the-Loop contract runtime. Contracts "
        "pause at decision points where a human must formally approve. Every action is audited. BYOK: "
        "bring your own LLM key."
    )
    assert result.document["frontmatter"]["metadata"]["openclaw"]["primaryEnv"] == "MOVA_API_KEY"


def test_a_double_quoted_description_and_inline_json_metadata(shared):
    docx = skill_result(shared / "realworld" / "skill" / "docx__SKILL.md")
    assert docx.valid and docx.listing.description.startswith("Use this skill whenever the user wants to create, read")
    assert "'Word doc'" in docx.listing.description
    onepassword = skill_result(shared / "realworld" / "skill" / "1password__SKILL.md")
    assert onepassword.valid and onepassword.document["frontmatter"]["metadata"]["dna"]["requires"] == {"bins": ["op"]}


def test_the_over_long_claude_api_description_is_a_warning(shared):
    result = skill_result(shared / "realworld" / "skill" / "claude-api__SKILL.md")
    assert result.valid and result.listing.name == "claude-api"
    assert ("SKILL.md:description", "max_length") in {(f.path, f.code) for f in result.findings}
    assert len(result.listing.description) == 1000


def test_real_skill_files_with_problems(shared):
    folder = shared / "realworld" / "skill"
    jira = skill_result(folder / "jira__SKILL.md")
    assert errors(jira) == {("SKILL.md:name", "required")}
    assert jira.listing.description == "Work on a Jira issue with proper workflow and git behavior"
    moved = skill_result(folder / "memory-management__SKILL.md")
    assert errors(moved) == {("SKILL.md:", "frontmatter")} and moved.listing.name is None


# -- guides: agent.md and llms.txt -------------------------------------------------------------
def test_every_agent_md_is_a_guide(shared):
    for path in corpus(shared, "agent_md", "*.md"):
        result = inferred.infer({"SKILL.md": TEMPLATE_SKILL, "agent.md": path.read_bytes()}, base_url=BASE)
        assert result.valid, (path.name, result.findings)
        assert result.listing.guide_url == "https://example.com/agent.md"
        # none of them names an MCP endpoint (Traigent's mentions only a local `traigent mcp`)
        assert result.listing.mcp_url is None, path.name


def test_every_llms_txt_is_a_guide_without_an_agent_md(shared):
    for path in corpus(shared, "llms_txt"):
        result = inferred.infer({"SKILL.md": TEMPLATE_SKILL, "llms.txt": path.read_bytes()}, base_url=BASE)
        assert result.valid, (path.name, result.findings)
        assert result.listing.guide_url == result.listing.llms_txt_url == "https://example.com/llms.txt"


def test_links_to_pages_about_mcp_are_not_taken_for_endpoints(shared):
    folder = shared / "realworld" / "llms_txt"
    for name in ("BerriAI__litellm__static__llms.txt", "1Panel-dev__docs__docs__llms.txt"):
        text = (folder / name).read_text("utf-8")
        assert "/mcp" in text  # …/release_notes/tags/mcp, …/docs/user_manual/ai/mcp/
        assert inferred.mcp_url_from_text(text) is None, name


# -- mcp.json ----------------------------------------------------------------------------------
def mcp_result(path: Path) -> ParseResult:
    return inferred.infer(
        {"SKILL.md": TEMPLATE_SKILL, "agent.md": b"# Guide\n", "mcp.json": path.read_bytes()}, base_url=BASE
    )


def test_every_mcp_json_goes_through_infer(shared):
    remote = {
        "getsentry__sentry__.mcp.json": "https://mcp.sentry.dev/mcp",
        "FindAgent__agent-creators__mcp.json": "https://mcp.findagent.cloud/mcp",
    }
    for path in corpus(shared, "mcp_json", "*.json"):
        result = mcp_result(path)
        assert result.valid and result.listing is not None, path.name
        assert result.listing.mcp_url == remote.get(path.name), path.name
        if path.name not in remote:  # stdio only, a ${input:…} template, or not a mcp.json at all
            assert [f.code for f in result.findings if f.path == "mcp.json:"] == ["no_mcp_url"], path.name


def test_sentry_mcp_json_skips_the_stdio_server_before_the_remote_one(shared):
    path = shared / "realworld" / "mcp_json" / "getsentry__sentry__.mcp.json"
    servers = json.loads(path.read_bytes())["mcpServers"]
    assert list(servers)[0] == "playwright-extension" and "command" in servers["playwright-extension"]
    assert mcp_result(path).listing.mcp_url == servers["sentry"]["url"]


# -- JSON manifests ----------------------------------------------------------------------------
def test_files_named_agent_app_json_are_not_agent_app_v1(shared):
    for path in corpus(shared, "agent_app", "*.json"):
        result = formats.parse_json(path.read_bytes(), "agent_app")
        assert isinstance(result, ParseResult) and result.format == "agent_app"
        # AgentWeave and orbit documents: no agent_app key, no top-level name
        assert not result.valid and {("agent_app", "required"), ("name", "required")} <= errors(result), path.name
        assert result.listing is None or result.listing.name is None
    orbit = formats.parse_json(
        (shared / "realworld" / "agent_app" / "TNJ2026__orbit-runtime__agent-app.json").read_bytes(), "agent_app"
    )
    assert ("mcp.transport", "enum") in errors(orbit)  # "http-jsonrpc"


def test_the_file_named_anchor_json_is_not_an_anchor_manifest(shared):
    for path in corpus(shared, "anchor", "*.json"):
        result = formats.parse_json(path.read_bytes(), "anchor")
        assert result.format == "anchor" and not result.valid
        assert {("anchor", "required"), ("publisher", "required"), ("tools", "required")} <= errors(result)
        assert result.listing is None or result.listing.name is None  # an OpenTimestamps ledger names no publisher


def test_real_findagent_manifests_are_listed_with_their_name(shared):
    for path in corpus(shared, "findagent", "*.json"):
        data = path.read_bytes()
        result = formats.parse_json(data, "findagent")
        assert result.format == "findagent" and result.listing is not None, path.name
        assert result.listing.name == json.loads(data)["name"] == "Agent Template"


@pytest.mark.parametrize("folder", AUTO_FOLDERS)
def test_other_formats_get_a_finding_not_an_exception(shared, folder):
    for path in corpus(shared, folder):
        data = path.read_bytes()
        result = formats.parse_json(data, "auto")
        assert isinstance(result, ParseResult) and not result.valid and result.findings, path.name
        try:
            json.loads(data)
        except ValueError:  # petstore.yaml, the x402 placeholder text, the markdown specs
            assert codes(result) == {"not_json"}, path.name
        else:
            assert codes(result) == {"unknown_format"}, path.name
