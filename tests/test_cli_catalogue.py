"""The catalogue commands as a user runs them: ``crawl`` (origins as hosts, https URLs and
seeds files; plain progress lines without a terminal, a progress bar on one; a closing
summary), ``list``, ``show``, ``events``, ``verify``, ``plan`` and ``import``, each with
its ``--json`` contract.

One sample web and one CLI crawl for the module; tests that write copy the catalogue first.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.crawl import DEFAULT_REGISTRY, NetworkOptions
from agentdex.errors import InputError
from agentdex.plans import HOST_IDS
from agentdex.sampleweb.server import WEB_ROOT, SampleWeb
from ptyread import read_until_closed

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "examples"
TYPED = ["https://Pantry.test/about?x=1", "tidewater.test", "T-FLAKY.test"]  # as a user types them
SEEDS = "# origins for the CLI tests\nquillnotes.test   # inferred\n\nbadmanifest.test\nloop.test  # no manifest\n"
ORIGINS = ["pantry.test", "tidewater.test", "t-flaky.test", "quillnotes.test", "badmanifest.test", "loop.test"]


@dataclass
class Catalogue:
    web: SampleWeb
    path: Path
    crawl: object  # the CliRunner result of the first crawl

    def net_args(self) -> list[str]:
        return [*self.web.cli_args(), "--registry", "https://registry.test"]

    def copy(self, folder: Path) -> Path:
        """A copy of the catalogue (through SQLite: the latest pages may be in the WAL)."""
        target = folder / "copy.db"
        with sqlite3.connect(self.path) as source, sqlite3.connect(target) as copy:
            source.backup(copy)
        return target


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def as_json(*args: str):
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    seeds = folder / "seeds.txt"
    seeds.write_text(SEEDS)
    with SampleWeb() as web:
        path = folder / "catalogue.db"
        result = cli(
            "crawl", *TYPED, "--seeds", seeds, "--db", path, *web.cli_args(), "--registry", "https://registry.test"
        )
        assert result.exit_code == 0, result.output
        yield Catalogue(web, path, result)


# --- crawl ------------------------------------------------------------------------------------


def test_crawl_takes_hosts_https_urls_and_a_seeds_file(catalogue):
    listed = as_json("list", "--db", catalogue.path)
    assert sorted(r["origin"] for r in listed["listings"]) == sorted(ORIGINS)
    assert listed["total"] == len(ORIGINS)


def test_crawl_without_a_terminal_prints_plain_progress_lines_and_a_summary(catalogue):
    lines = catalogue.crawl.stderr.splitlines()
    assert len(lines) == len(ORIGINS)
    # done/total, the origin, its status, and the rate so far in origins a second (issue 39)
    rate = r"\(\d+(\.\d+)?/s\)"
    assert all(re.fullmatch(rf"\[\d+/6\] \S+ (listed|invalid|no_manifest) {rate}", line) for line in lines), lines
    assert [line.split()[0] for line in lines] == [f"[{i}/6]" for i in range(1, 7)]
    head, counts = catalogue.crawl.stdout.splitlines()
    assert head.startswith("crawl 1 done: 6 origin(s) in ")
    assert head.endswith("— 1 invalid, 4 listed, 1 no_manifest")
    assert re.fullmatch(
        r"\d+ request\(s\), \d+ failed( \(what failed for an origin: agentdex show ORIGIN\))?; "
        r"4 change event\(s\) \(agentdex events\)",
        counts,
    ), counts


def test_a_bare_crawl_recrawls_every_known_origin(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    summary = as_json("crawl", "--db", path, *catalogue.net_args())
    assert summary["origins"] == len(ORIGINS)
    assert summary["unchanged"] == len(ORIGINS) and summary["events"] == 0
    assert set(summary) >= {"crawl_id", "by_status", "requests", "errors", "seconds", "interrupted"}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["http://pantry.test"], "only crawls https"),
        (["pantry .test"], "not an origin"),
        ([], "nothing to crawl"),
    ],
)
def test_crawl_refuses_what_it_cannot_crawl(tmp_path, args, words):
    result = cli("crawl", *args, "--db", tmp_path / "empty.db")
    assert result.exit_code == 2 and words in result.stderr


def test_a_seeds_file_names_its_bad_line(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("ftp://nope.test\npantry.test\n")
    result = cli("crawl", "--seeds", seeds, "--db", tmp_path / "empty.db", "--timeout", "1")
    # A seeds file is streamed (issue 39): a bad line is told with its number and skipped, and
    # the crawl goes on to the lines after it (here pantry.test, unreachable without
    # --connect-to, so the run reached no origin: exit 1, not a usage error).
    assert "seeds.txt, line 1: not an https origin" in result.stderr and "skipped" in result.stderr
    assert "pantry.test unreachable" in result.stderr and result.exit_code == 1


def test_the_registry_defaults_to_the_official_one_and_must_be_https():
    assert NetworkOptions().registry == DEFAULT_REGISTRY == "https://registry.modelcontextprotocol.io"
    assert NetworkOptions(registry="https://registry.test/").registry == "https://registry.test"
    with pytest.raises(InputError, match="https URL"):
        NetworkOptions(registry="http://registry.test")


def test_crawl_on_a_terminal_shows_a_progress_bar_and_ends_with_a_summary(catalogue, tmp_path):
    # A real process whose stderr is a terminal (a pty): rich draws the bar there.
    controller, terminal = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentdex",
            "crawl",
            "pantry.test",
            "loop.test",
            "--db",
            str(tmp_path / "t.db"),
            *catalogue.net_args(),
        ],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=env,
        cwd=tmp_path,
    )
    os.close(terminal)
    text = read_until_closed(controller)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    assert "crawling" in text and re.search(r"\d+ requests, \d+ failed; finished \S+\.test", text) and "2/2" in text
    assert re.search(r"\d+\.\d origins/s", text)  # the rate beside the count
    assert "[1/2]" not in text  # not the plain lines
    assert stdout.decode().startswith("crawl 1 done: 2 origin(s)")


# --- show, list, events ---------------------------------------------------------------------------


def test_show_json_has_the_contracts_keys(catalogue):
    shown = as_json("show", "pantry.test", "--db", catalogue.path)
    assert set(shown) >= {"origin", "name", "format", "status", "manifest", "findings", "checks", "plans", "events"}
    assert (shown["origin"], shown["name"], shown["format"], shown["status"]) == (
        "pantry.test",
        "Pantry",
        "agent_app",
        "listed",
    )
    assert shown["manifest"] == json.loads((WEB_ROOT / "pantry.test/.well-known/agent-app.json").read_text())
    assert set(shown["plans"]) == set(HOST_IDS)
    assert {c["name"] for c in shown["checks"]} >= {"manifest.location", "mcp.initialize", "feedback.descriptor"}
    assert all(set(c) >= {"name", "status", "detail"} for c in shown["checks"])
    assert [(e["kind"], e["old"], e["new"]) for e in shown["events"]] == [("listed", None, "listed")]
    assert set(shown["events"][0]) >= {"kind", "at", "old", "new"}


def test_show_takes_an_origin_as_a_url_too(catalogue):
    assert as_json("show", "https://TIDEWATER.test/docs", "--db", catalogue.path)["format"] == "anchor"


def test_show_json_of_an_invalid_and_of_a_manifestless_origin(catalogue):
    invalid = as_json("show", "badmanifest.test", "--db", catalogue.path)
    assert invalid["status"] == "invalid" and invalid["manifest"]["agent_app"] == 1
    assert all(set(f) >= {"severity", "path", "code", "message"} for f in invalid["findings"])
    assert {f["code"] for f in invalid["findings"]} >= {"unknown_key", "max_length"}
    missing = as_json("show", "loop.test", "--db", catalogue.path)
    assert (missing["status"], missing["format"], missing["manifest"]) == ("no_manifest", None, None)
    assert "redirects back" in missing["status_detail"]


def test_show_json_of_an_inferred_listing_has_the_inferred_manifest(catalogue):
    shown = as_json("show", "quillnotes.test", "--db", catalogue.path)
    assert shown["format"] == "inferred"
    manifest = shown["manifest"]
    assert manifest["manifest"] == "inferred"  # marked, as the spec asks
    assert manifest["mcp"]["url"] == shown["mcp_url"] == "https://mcp.quillnotes.test/mcp"
    assert manifest["sources"]["mcp_url"] == "mcp.json"
    assert manifest["name"] == shown["name"] and manifest["guide"]["url"] == "https://quillnotes.test/agent.md"


def test_show_in_words(catalogue):
    result = cli("show", "pantry.test", "--db", catalogue.path)
    assert result.exit_code == 0
    assert result.stdout.startswith("Pantry  —  pantry.test\nformat agent_app, status listed")
    assert "Checks:" in result.stdout and "History:" in result.stdout and "\x1b" not in result.stdout


def test_show_of_an_unknown_origin_says_how_to_add_it(catalogue):
    result = cli("show", "nowhere.test", "--db", catalogue.path)
    assert result.exit_code == 1 and "agentdex crawl nowhere.test" in result.stderr


def test_list_filters_by_status_and_format(catalogue):
    listed = as_json("list", "--status", "listed", "--db", catalogue.path)
    assert sorted(r["origin"] for r in listed["listings"]) == [
        "pantry.test",
        "quillnotes.test",
        "t-flaky.test",
        "tidewater.test",
    ]
    anchors = as_json("list", "--format", "anchor", "--db", catalogue.path)["listings"]
    assert [(r["origin"], r["name"]) for r in anchors] == [("tidewater.test", "Tidewater Data")]
    words = cli("list", "--status", "invalid", "--db", catalogue.path)
    assert words.stdout.startswith("badmanifest.test\tagent_app\tinvalid\t") and words.stderr == "1 of 1 shown\n"


def test_events_lists_the_newest_first_and_filters(catalogue):
    events = as_json("events", "--db", catalogue.path)
    assert sorted(e["origin"] for e in events) == ["pantry.test", "quillnotes.test", "t-flaky.test", "tidewater.test"]
    assert all(set(e) >= {"kind", "at", "old", "new", "origin"} for e in events)
    assert [(e["at"], e["id"]) for e in events] == sorted(((e["at"], e["id"]) for e in events), reverse=True)
    assert [e["kind"] for e in as_json("events", "--origin", "pantry.test", "--db", catalogue.path)] == ["listed"]
    assert as_json("events", "--since", "2999-01-01", "--db", catalogue.path) == []


# --- verify, plan, import -----------------------------------------------------------------------


def test_verify_rechecks_and_prints_every_check(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    catalogue.web.requests_log.clear()
    result = cli("verify", "tidewater.test", "--db", path, *catalogue.net_args())
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "tidewater.test"
    assert any(
        re.fullmatch(r"  pass anchor\.verify\.dns\s+_anchor\.tidewater\.test carries anchor-verify", x) for x in lines
    )
    assert len(lines) == 1 + 23  # 18 checks for every listing, 5 for Anchor
    kinds = as_json("events", "--db", path)
    assert len(kinds) == 4  # nothing changed, so no event
    assert "initialize" in catalogue.web.requests_log.jsonrpc_methods("mcp.tidewater.test")
    assert "tools/call" not in catalogue.web.requests_log.jsonrpc_methods()


def test_verify_json_is_the_run_summary_recorded_as_a_verify_run(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    summary = as_json("verify", "pantry.test", "--db", path, *catalogue.net_args())
    assert (summary["origins"], summary["unchanged"], summary["events"]) == (1, 1, 0)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT kind, status FROM crawls ORDER BY id DESC LIMIT 1").fetchone() == (
            "verify",
            "finished",
        )


def test_plan_gives_exact_steps_for_one_host(catalogue):
    plan = as_json("plan", "pantry.test", "--host", "claude_code", "--db", catalogue.path)
    assert plan["host"] == "claude_code" and plan["steps"]
    assert "https://mcp.pantry.test/mcp" in json.dumps(plan["steps"])
    result = cli("plan", "pantry.test", "--host", "nope", "--db", catalogue.path)
    assert result.exit_code == 2 and "unknown host" in result.stderr and "claude_code (Claude Code)" in result.stderr


@pytest.mark.parametrize("typed", ["claude-code", "Claude Code", "CLAUDE_CODE"])
def test_plan_takes_the_host_as_people_spell_it_and_answers_with_its_id(catalogue, typed):
    plan = as_json("plan", "pantry.test", "--host", typed, "--db", catalogue.path)
    assert plan["host"] == "claude_code" and plan["host_name"] == "Claude Code"


def test_plan_headers_say_in_words_how_the_app_is_reached(catalogue):
    result = cli("plan", "pantry.test", "--host", "VS Code", "--db", catalogue.path)
    assert result.exit_code == 0
    head = result.stdout.splitlines()[0]
    assert head.startswith("VS Code (GitHub Copilot) (vscode): MCP, ") and " via " not in head
    words = {
        line.split(": ", 1)[1]
        for line in cli("plan", "pantry.test", "--db", catalogue.path).stdout.splitlines()
        if re.match(r"^\S.* \([a-z_]+\): ", line)
    }
    assert words and all("via" not in w for w in words)
    assert any(w.startswith("MCP, no authentication") or w.startswith("MCP, OAuth sign-in") for w in words)
    assert "documentation confidence: high" in result.stdout
    guess = cli("plan", "pantry.test", "--host", "claude-cod", "--db", catalogue.path)
    assert guess.exit_code == 2 and "did you mean claude_code?" in guess.stderr


@pytest.mark.parametrize("command", ["show", "plan"])
def test_an_argument_that_cannot_be_a_host_is_told_so_and_no_crawl_is_suggested(catalogue, command):
    result = cli(command, "zz!!", "--db", catalogue.path)
    assert result.exit_code == 2 and "cannot be a host" in result.stderr and "agentdex crawl" not in result.stderr
    dotless = cli(command, "zz", "--db", catalogue.path)
    assert dotless.exit_code == 1 and "agentdex crawl" not in dotless.stderr and "has a dot" in dotless.stderr


@pytest.mark.parametrize("command", [["list"], ["show", "pantry.test"], ["events"], ["crawl", "pantry.test"]])
def test_db_given_a_directory_says_it_is_one(tmp_path, command):
    result = cli(*command, "--db", tmp_path)
    assert result.exit_code == 2
    assert f"{tmp_path} is a directory, not a catalogue file" in result.stderr and "no catalogue" not in result.stderr
    assert "Traceback" not in result.stderr


def test_import_a_package_and_a_repository_folder(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    package = tmp_path / "crawler.adapp"
    assert cli("pack", EXAMPLES / "adapp" / "web-crawler", "-o", package).exit_code == 0
    imported = as_json("import", package, "--db", path)
    assert (imported["origin"], imported["format"], imported["valid"], imported["events"]) == (
        "mcp.crawler.example",
        "adapp",
        True,
        ["listed"],
    )
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(EXAMPLES / "valid" / "findagent" / "spec-example.json", repo / "findagent.json")
    imported = as_json("import", repo, "--origin", "https://Reports.Example/ga", "--db", path)
    assert (imported["origin"], imported["format"], imported["events"]) == ("reports.example", "findagent", ["listed"])
    formats = {r["origin"]: r["format"] for r in as_json("list", "--db", path)["listings"]}
    assert formats["mcp.crawler.example"] == "adapp" and formats["reports.example"] == "findagent"
    assert as_json("show", "reports.example", "--db", path)["name"] == "GA Report Builder"


def test_an_invalid_package_is_not_imported(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": "1.1", "name": ""}')
    result = cli("import", bad, "--db", path, "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["valid"] is False
    assert as_json("list", "--db", path)["total"] == len(ORIGINS)
