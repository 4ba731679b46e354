"""Inferred listings from SKILL.md + agent.md / llms.txt + mcp.json (agent-app spec,
"Bootstrap listings without a manifest")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentdex import formats
from agentdex.formats import inferred
from agentdex.formats.codes import CODES

BASE = "https://pantry.example.com"
SKILL = b"---\nname: pantry\ndescription: Tracks what is in your kitchen.\n---\n\n# Pantry\n"
GUIDE = b"# Pantry for agents\n\nUse the API at https://api.pantry.example.com/v1.\n"


def infer(**files: bytes | None):
    """``infer`` with file names spelled as keywords (agent_md -> agent.md)."""
    names = {"skill": "SKILL.md", "agent_md": "agent.md", "llms_txt": "llms.txt", "mcp_json": "mcp.json"}
    return inferred.infer({names[k]: v for k, v in files.items()}, origin="pantry.example.com", base_url=BASE)


def codes_at(result, path: str) -> list[str]:
    return [f.code for f in result.findings if f.path == path]


def errors(result) -> list[tuple[str, str]]:
    return [(f.path, f.code) for f in result.findings if f.severity == "error"]


def skill(frontmatter: str, body: str = "# Body\n") -> bytes:
    return f"---\n{frontmatter}\n---\n{body}".encode()


def mcp_json(doc: object) -> bytes:
    return json.dumps(doc).encode()


# -- the module's shape ------------------------------------------------------------------------
def test_module_shape_and_registration():
    assert inferred.NAME == "inferred"
    assert formats.get("inferred") is inferred
    assert inferred.looks_like({"name": "x", "description": "y"}) is False


# -- a complete bootstrap ----------------------------------------------------------------------
def test_complete_bootstrap_gives_a_valid_inferred_listing():
    result = infer(
        skill=SKILL,
        agent_md=GUIDE,
        llms_txt=b"# Pantry\n",
        mcp_json=mcp_json({"mcpServers": {"pantry": {"type": "http", "url": "https://mcp.pantry.example.com/mcp"}}}),
    )
    listing = result.listing
    assert result.valid and result.format == "inferred" and listing.format == "inferred"
    assert (listing.origin, listing.name, listing.description) == (
        "pantry.example.com",
        "pantry",
        "Tracks what is in your kitchen.",
    )
    assert listing.guide_url == "https://pantry.example.com/agent.md"
    assert listing.llms_txt_url == "https://pantry.example.com/llms.txt"
    assert listing.skill_url == "https://pantry.example.com/SKILL.md"
    assert (listing.mcp_url, listing.mcp_transport) == ("https://mcp.pantry.example.com/mcp", "streamable-http")
    assert result.document["manifest"] == "inferred"
    assert result.document["mcp"] == {"url": "https://mcp.pantry.example.com/mcp", "transport": "streamable-http"}
    assert result.document["sources"] == {"guide": "agent.md", "mcp_url": "mcp.json"}


def test_the_inferred_warning_is_always_there_and_never_invalidates():
    result = infer(skill=SKILL, agent_md=GUIDE)
    warning = [f for f in result.findings if f.code == "inferred"]
    assert len(warning) == 1 and warning[0].severity == "warning" and warning[0].path == ""
    assert "real" in warning[0].message and "manifest" in warning[0].message
    assert result.valid
    broken = infer(skill=b"no frontmatter", agent_md=GUIDE)
    assert "inferred" in codes_at(broken, "") and not broken.valid


# -- which files are needed ------------------------------------------------------------------
def test_no_skill_and_no_guide_is_a_clear_error_without_a_listing():
    result = infer(mcp_json=mcp_json({"url": "https://mcp.example.com/mcp"}))
    assert not result.valid and result.listing is None
    assert errors(result) == [("", "no_bootstrap")]
    assert "SKILL.md" in result.findings[0].message and "agent.md" in result.findings[0].message
    assert inferred.infer({}).listing is None
    assert inferred.infer({"SKILL.md": None, "agent.md": None}).findings[0].code == "no_bootstrap"


def test_missing_skill_is_required_error_at_skill_md():
    result = infer(agent_md=GUIDE)
    assert errors(result) == [("SKILL.md", "required")]
    assert result.listing.guide_url == "https://pantry.example.com/agent.md"
    assert result.listing.skill_url is None


def test_missing_guide_is_required_error_at_agent_md():
    result = infer(skill=SKILL)
    assert errors(result) == [("agent.md", "required")]
    assert result.listing.name == "pantry" and result.listing.guide_url is None


def test_parse_treats_bytes_as_a_lone_skill_md():
    result = inferred.parse(SKILL, origin="pantry.example.com")
    assert result.listing.name == "pantry" and result.listing.origin == "pantry.example.com"
    assert errors(result) == [("agent.md", "required")]


def test_unknown_keys_and_non_bytes_values_are_ignored():
    result = inferred.infer(
        {"SKILL.md": SKILL, "agent.md": GUIDE, "AGENTS.md": b"x", ".well-known/x": 3}, base_url=BASE
    )
    assert result.valid and result.listing.name == "pantry"
    assert inferred.infer({"SKILL.md": 12, "agent.md": ["x"]}).findings[0].code == "no_bootstrap"


# -- guide and llms.txt ------------------------------------------------------------------------
def test_llms_txt_is_the_guide_when_there_is_no_agent_md():
    result = infer(skill=SKILL, llms_txt=b"# Pantry\n> Kitchen inventory.\n")
    assert result.valid
    assert result.listing.guide_url == "https://pantry.example.com/llms.txt"
    assert result.listing.llms_txt_url == "https://pantry.example.com/llms.txt"


def test_agent_md_is_the_guide_when_both_exist():
    result = infer(skill=SKILL, agent_md=GUIDE, llms_txt=b"# Pantry\n")
    assert result.listing.guide_url.endswith("/agent.md")
    assert result.listing.llms_txt_url.endswith("/llms.txt")
    assert infer(skill=SKILL, agent_md=GUIDE).listing.llms_txt_url is None


def test_an_unreadable_guide_is_an_error_in_that_file():
    assert infer(skill=SKILL, agent_md=GUIDE).valid
    result = infer(skill=SKILL, agent_md=b"\xff\xfe\x00g\x00u\x00i\x00d\x00e")
    assert errors(result) == [("agent.md:", "encoding")]
    assert errors(infer(skill=SKILL, agent_md=b"  \n")) == [("agent.md:", "empty")]


def test_an_unreadable_llms_txt_beside_agent_md_is_only_a_warning():
    result = infer(skill=SKILL, agent_md=GUIDE, llms_txt=b"\x00\x01\x02binary")
    assert result.valid and "binary" in codes_at(result, "llms.txt:")


def test_base_url_comes_from_origin_when_not_given():
    result = inferred.infer({"SKILL.md": SKILL, "agent.md": GUIDE}, origin="pantry.example.com")
    assert result.listing.guide_url == "https://pantry.example.com/agent.md"
    result = inferred.infer({"SKILL.md": SKILL, "agent.md": GUIDE}, base_url="https://pantry.example.com/")
    assert result.listing.skill_url == "https://pantry.example.com/SKILL.md"
    local = inferred.infer({"SKILL.md": SKILL, "agent.md": GUIDE})
    assert local.valid and local.listing.guide_url is None and local.listing.skill_url is None


# -- SKILL.md frontmatter ----------------------------------------------------------------------
def test_frontmatter_reads_the_agent_skills_and_clawhub_forms():
    text = (
        "---\r\nname: mova\r\ndescription: >\r\n  Runs decisions\r\n  through MOVA.\r\nversion: 0.1.0\r\n\r\n"
        "metadata:\r\n  openclaw:\r\n    requires:\r\n      env: [KEY]\r\n---\r\n# Body\r\n"
    )
    value, findings = inferred.parse_frontmatter(text)
    assert findings == []
    assert value["name"] == "mova" and value["description"] == "Runs decisions through MOVA.\n"
    assert value["metadata"] == {"openclaw": {"requires": {"env": ["KEY"]}}}


def test_frontmatter_missing_is_an_error_at_the_file():
    value, findings = inferred.parse_frontmatter("# Just markdown\n\nname: x\n", prefix="SKILL.md:")
    assert value is None and [(f.path, f.code, f.severity) for f in findings] == [("SKILL.md:", "frontmatter", "error")]
    result = infer(skill=b"# Moved\n\nSee elsewhere.\n", agent_md=GUIDE)
    assert errors(result) == [("SKILL.md:", "frontmatter")] and result.listing.name is None


def test_frontmatter_not_closed_is_an_error():
    assert inferred.parse_frontmatter("---\nname: x\ndescription: y\n---\n")[1] == []
    value, findings = inferred.parse_frontmatter("---\nname: x\ndescription: y\n")
    assert value is None and findings[0].code == "frontmatter" and "not closed" in findings[0].message


def test_invalid_yaml_is_an_error_naming_the_line():
    value, findings = inferred.parse_frontmatter("---\nname: x\ndescription: [unclosed\n---\n")
    assert value is None and findings[0].code == "frontmatter"
    assert "line" in findings[0].message


def test_frontmatter_must_be_a_mapping():
    assert inferred.parse_frontmatter("---\nname: x\n---\n")[0] == {"name": "x"}
    value, findings = inferred.parse_frontmatter("---\n- name\n- description\n---\n")
    assert value is None and "mapping" in findings[0].message


def test_empty_frontmatter_reports_both_required_fields():
    result = infer(skill=b"---\n---\n# Body\n", agent_md=GUIDE)
    assert sorted(errors(result)) == [("SKILL.md:description", "required"), ("SKILL.md:name", "required")]


def test_yaml_that_would_build_objects_is_refused():
    value, findings = inferred.parse_frontmatter("---\nname: !!python/object/apply:os.system ['true']\n---\n")
    assert value is None and findings[0].code == "frontmatter"


def test_alias_expansion_is_bounded():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    value, findings = inferred.parse_frontmatter("---\n" + "\n".join(lines) + "\n---\n")
    assert value is None and "expands" in findings[0].message
    value, findings = inferred.parse_frontmatter("---\nname: x\nloop: &a [*a]\n---\n")  # refers to itself
    assert value is None and findings[0].code == "frontmatter"
    small = "---\nbase: &b {x: 1}\nother: *b\n---\n"
    assert inferred.parse_frontmatter(small)[0] == {"base": {"x": 1}, "other": {"x": 1}}


def test_frontmatter_values_become_plain_json_data():
    value, _ = inferred.parse_frontmatter("---\nname: x\nupdated: 2025-01-02\n2: two\ntrue: yes\n---\n")
    assert value == {"name": "x", "updated": "2025-01-02", "2": "two", "true": True}
    json.dumps(value)


def test_a_utf8_bom_is_allowed_in_markdown():
    result = infer(skill=b"\xef\xbb\xbf" + SKILL, agent_md=b"\xef\xbb\xbf" + GUIDE)
    assert result.valid and result.listing.name == "pantry"


def test_binary_skill_md_is_an_error_at_the_file():
    result = infer(skill=b"\x00\x01\x02\x03" * 20, agent_md=GUIDE)
    assert errors(result) == [("SKILL.md:", "binary")]


def test_name_required_and_typed():
    assert infer(skill=skill("name: pantry\ndescription: d"), agent_md=GUIDE).listing.name == "pantry"
    assert errors(infer(skill=skill("description: d"), agent_md=GUIDE)) == [("SKILL.md:name", "required")]
    assert errors(infer(skill=skill("name: 123\ndescription: d"), agent_md=GUIDE)) == [("SKILL.md:name", "type")]
    assert errors(infer(skill=skill("name: '  '\ndescription: d"), agent_md=GUIDE)) == [("SKILL.md:name", "min_length")]


def test_name_is_limited_to_64_characters():
    assert infer(skill=skill(f"name: {'a' * 64}\ndescription: d"), agent_md=GUIDE).valid
    result = infer(skill=skill(f"name: {'a' * 65}\ndescription: d"), agent_md=GUIDE)
    assert errors(result) == [("SKILL.md:name", "max_length")] and result.listing.name is None


def test_name_outside_the_agent_skills_form_is_a_warning():
    assert codes_at(infer(skill=skill("name: pdf-tools\ndescription: d"), agent_md=GUIDE), "SKILL.md:name") == []
    result = infer(skill=skill("name: PDF Tools\ndescription: d"), agent_md=GUIDE)
    assert result.valid and codes_at(result, "SKILL.md:name") == ["pattern"]
    assert result.listing.name == "PDF Tools"


def test_description_required_and_typed():
    assert errors(infer(skill=skill("name: x"), agent_md=GUIDE)) == [("SKILL.md:description", "required")]
    assert errors(infer(skill=skill("name: x\ndescription: [a, b]"), agent_md=GUIDE)) == [
        ("SKILL.md:description", "type")
    ]
    assert errors(infer(skill=skill("name: x\ndescription:"), agent_md=GUIDE)) == [("SKILL.md:description", "required")]


def test_a_long_description_is_a_warning_and_is_shortened():
    exact = infer(skill=skill(f"name: x\ndescription: {'d' * 1000}"), agent_md=GUIDE)
    assert exact.listing.description == "d" * 1000 and codes_at(exact, "SKILL.md:description") == []
    long = infer(skill=skill(f"name: x\ndescription: {'d' * 1068}"), agent_md=GUIDE)
    assert long.valid and codes_at(long, "SKILL.md:description") == ["max_length"]
    assert len(long.listing.description) == 1000 and long.listing.description.endswith("…")


# -- the MCP endpoint: mcp.json ----------------------------------------------------------------
@pytest.mark.parametrize(
    "doc",
    [
        {
            "mcpServers": {
                "local": {"command": "npx", "args": ["x"]},
                "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
            }
        },
        {"mcpServers": {"w": {"serverUrl": "https://mcp.example.com/mcp"}}},
        {"mcpServers": {"g": {"httpUrl": "https://mcp.example.com/mcp"}}},
        {"servers": {"v": {"type": "http", "url": "https://mcp.example.com/mcp"}}, "inputs": []},
        {"url": "https://mcp.example.com/mcp"},
        {"mcpServers": [{"name": "a", "url": "https://mcp.example.com/mcp"}]},
    ],
    ids=["mcpServers-url", "serverUrl", "httpUrl", "vscode-servers", "top-level-url", "list"],
)
def test_mcp_json_shapes(doc):
    result = infer(skill=SKILL, agent_md=GUIDE, mcp_json=mcp_json(doc))
    assert result.listing.mcp_url == "https://mcp.example.com/mcp"
    assert codes_at(result, "mcp.json:") == []


@pytest.mark.parametrize(
    "doc",
    [
        {"mcpServers": {"local": {"command": "uv", "args": ["run", "server.py"]}}},
        {"servers": {"t": {"type": "http", "url": "https://${input:app}.azurewebsites.net/mcp"}}},
        {"servers": {"t": {"type": "http", "url": "http://0.0.0.0:7071/mcp"}}},
        {"mcpServers": {"s": {"type": "sse", "url": "https://mcp.example.com/sse"}}},
        {"name": "io.github.x/y", "repository": {"url": "https://github.com/x/y"}},
    ],
    ids=["stdio", "template", "plain-http", "sse", "server-json"],
)
def test_mcp_json_without_a_remote_server_is_a_warning(doc):
    result = infer(skill=SKILL, agent_md=GUIDE, mcp_json=mcp_json(doc))
    assert result.listing.mcp_url is None and result.valid
    assert codes_at(result, "mcp.json:") == ["no_mcp_url"]


def test_unreadable_mcp_json_is_a_warning():
    result = infer(skill=SKILL, agent_md=GUIDE, mcp_json=b'{"mcpServers": {,}')
    assert result.valid and codes_at(result, "mcp.json:") == ["not_json"]
    assert [f.severity for f in result.findings if f.path == "mcp.json:"] == ["warning"]


def test_mcp_json_wins_over_the_guide():
    guide = b"MCP endpoint: https://guide.example.com/mcp\n"
    result = infer(skill=SKILL, agent_md=guide, mcp_json=mcp_json({"url": "https://json.example.com/mcp"}))
    assert result.listing.mcp_url == "https://json.example.com/mcp"
    fallback = infer(skill=SKILL, agent_md=guide, mcp_json=mcp_json({"mcpServers": {}}))
    assert fallback.listing.mcp_url == "https://guide.example.com/mcp"
    assert fallback.listing.extra["sources"]["mcp_url"] == "agent.md"


# -- the MCP endpoint: the guide ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text, url",
    [
        ("Connect to https://mcp.example.com/mcp.", "https://mcp.example.com/mcp"),
        ("Server: <https://api.example.com/v1/mcp/>", "https://api.example.com/v1/mcp/"),
        ("Streamable HTTP at `https://api.example.com/mcp/stream`", "https://api.example.com/mcp/stream"),
        ("**MCP endpoint:** `https://tools.example.com/rpc`", "https://tools.example.com/rpc"),
        ("The MCP server URL is https://tools.example.com/v2", "https://tools.example.com/v2"),
        ("See https://example.com/docs and then https://example.com/mcp", "https://example.com/mcp"),
    ],
)
def test_guide_mcp_urls_that_are_taken(text, url):
    assert inferred.mcp_url_from_text(text) == url
    result = infer(skill=SKILL, agent_md=text.encode())
    assert result.listing.mcp_url == url and result.listing.extra["sources"]["mcp_url"] == "agent.md"


@pytest.mark.parametrize(
    "text",
    [
        "Read https://example.com/docs/guide and https://example.com/api",
        "- [MCP Support Updates](https://docs.example.com/release_notes/tags/mcp): notes",
        "- MCP: https://example.com/docs/user_manual/ai/mcp/",
        "Template: https://{host}/mcp or https://${HOST}/mcp",
        "Local: http://localhost:3000/mcp",
        "The mcp server is great: https://example.com/about",
        "",
    ],
)
def test_guide_urls_that_are_not_mcp_endpoints(text):
    assert inferred.mcp_url_from_text(text) is None
    assert infer(skill=SKILL, agent_md=(text or "guide").encode()).listing.mcp_url is None


def test_a_url_called_an_mcp_endpoint_wins_over_an_earlier_shaped_one():
    text = "Example: https://example.com/mcp\n\nMCP endpoint: https://real.example.com/rpc\n"
    assert inferred.mcp_url_from_text(text) == "https://real.example.com/rpc"


def test_llms_txt_is_searched_when_it_is_the_guide():
    result = infer(skill=SKILL, llms_txt=b"# App\n\n- MCP URL: https://mcp.example.com/v1\n")
    assert result.listing.mcp_url == "https://mcp.example.com/v1"


# -- the finding table -------------------------------------------------------------------------
def test_every_code_inferred_emits_is_documented():
    samples = [
        infer(),
        infer(skill=b"x", agent_md=b"\x00" * 10),
        infer(skill=skill("name: A B\ndescription: " + "d" * 1001)),
        infer(skill=b"---\n[\n---\n", agent_md=GUIDE, mcp_json=b"[]"),
        infer(skill=SKILL, agent_md=GUIDE, mcp_json=mcp_json({})),
        infer(skill=skill("name: 1"), agent_md=GUIDE),
    ]
    emitted = {f.code for result in samples for f in result.findings}
    assert {
        "no_bootstrap",
        "frontmatter",
        "inferred",
        "pattern",
        "max_length",
        "required",
        "no_mcp_url",
        "type",
        "binary",
        "not_object",
    } <= emitted
    assert emitted <= CODES.keys()


# -- the example corpus ------------------------------------------------------------------------
EXAMPLES = Path(__file__).resolve().parent / "examples" / "valid" / "inferred"
EXPECTED_MCP = {
    "pantry": ("https://mcp.pantry.example.com/mcp", "mcp.json"),
    "llms-only": ("https://tides.example.org/v1/stream", "llms.txt"),
}


def test_every_valid_example_folder_infers_a_clean_listing():
    folders = sorted(p for p in EXAMPLES.iterdir() if p.is_dir())
    assert {p.name for p in folders} == set(EXPECTED_MCP)
    for folder in folders:
        files = {p.name: p.read_bytes() for p in folder.iterdir() if p.name in inferred.FILES}
        result = inferred.infer(files, origin=f"{folder.name}.example.com")
        assert result.valid and [f.code for f in result.findings] == ["inferred"], folder.name
        assert (result.listing.mcp_url, result.listing.extra["sources"]["mcp_url"]) == EXPECTED_MCP[folder.name]
        assert result.listing.guide_url.endswith("/agent.md" if "agent.md" in files else "/llms.txt")
