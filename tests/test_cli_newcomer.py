"""Issue 21, the CLI half ("the newcomer, round 2"), through the real CLI on the sample web:
every enumerated or parsed value refused with its choices, ``forget``, ``list`` output like
sqlite-utils and gh (table, TSV, CSV, NDJSON, --fields), ``stats``, ``crawl --quiet`` and an
honest error count, network options from the environment and a config file, ``plan`` and
``show`` saying why, help without Python types, completion, ``serve`` on a busy port and
``sampleweb``'s one wildcard, seeds file and SIGTERM cleanup."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.demo import summary_lines
from agentdex.render import LIST_FIELDS
from agentdex.sampleweb.server import SampleWeb
from conftest import cli_env
from ptyread import read_until_closed

ORIGINS = ["pantry.test", "tidewater.test", "badmanifest.test", "loop.test", "freeprizes.test", "closed.test"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Catalogue:
    web: SampleWeb
    path: Path
    closed: str  # the --connect-to rule sending closed.test to a port nobody listens on

    def net_args(self) -> list[str]:
        return [*self.web.cli_args(), "--connect-to", self.closed, "--registry", "https://registry.test"]

    def copy(self, folder: Path) -> Path:
        target = folder / "copy.db"
        with sqlite3.connect(self.path) as source, sqlite3.connect(target) as copy:
            source.backup(copy)
        return target


def cli(*args, env: dict | None = None, input: str | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env, input=input)


def as_json(*args):
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    folder = tmp_path_factory.mktemp("newcomer")
    with SampleWeb() as web:
        cat = Catalogue(web, folder / "catalogue.db", f"closed.test:127.0.0.1:{free_port()}")
        result = cli("crawl", *ORIGINS, "--db", cat.path, *cat.net_args(), "--timeout", "60")
        assert result.exit_code == 0, result.output
        yield cat


def run_in_terminal(args: list[str], cwd: Path, answer: bytes = b"", **extra: str) -> tuple[int, str]:
    """``python -m agentdex ARGS`` with a terminal (a pty) as stdin, stdout and stderr
    (``extra``: more environment variables)."""
    controller, terminal = pty.openpty()
    env = {**cli_env(), "COLUMNS": "160", "TERM": "xterm", **extra}
    if "NO_COLOR" not in extra:  # the caller's own setting must not decide the test
        env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "agentdex", *args], stdin=terminal, stdout=terminal, stderr=terminal, env=env, cwd=cwd
    )
    os.close(terminal)
    if answer:
        os.write(controller, answer)
    shown = read_until_closed(controller)
    return process.wait(timeout=60), shown.replace("\r\n", "\n")


# --- values that are not choices are refused -------------------------------------------------


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["list", "--status", "bogus"], "'no_manifest'"),
        (["list", "--format", "bogus"], "'findagent'"),
        (["list", "--pricing", "bogus"], "'freemium'"),
        (["list", "--sort", "bogus"], "'last_changed_at'"),
        (["list", "--category", "bogus"], "no listing has category 'bogus'; choose one of: "),
        (["events", "--since", "zzz"], "2026-12-01T10:00:00Z"),
        (["events", "--since", "2026-13-45"], "month must be in 1..12"),
        (["events", "--origin", "host!!"], "cannot be a host name"),
        (["list", "--fields", "origin,bogus"], "choose from: origin, name, format"),
        (["list", "--csv", "--nl"], "choose one output: --csv or --nl"),
    ],
)
def test_a_value_that_is_not_a_choice_is_refused_with_the_choices(catalogue, args, named):
    result = cli(*args, "--db", catalogue.path)
    assert result.exit_code == 2, result.output
    assert named in result.stderr and "Traceback" not in result.output
    assert "0 of 0 shown" not in result.output and "no events" not in result.output


def test_a_category_of_the_spec_or_of_a_listing_is_taken(catalogue):
    pantry = as_json("show", "pantry.test", "--db", catalogue.path)["categories"]
    assert [r["origin"] for r in as_json("list", "--category", pantry[0], "--db", catalogue.path)["listings"]] == [
        "pantry.test"
    ]
    assert as_json("list", "--category", "education", "--db", catalogue.path)["total"] == 0  # in the spec


def two_hours_east(utc: str) -> str:
    """The instant ``utc`` (``…Z``) written in +02:00, to the second (the day may change)."""
    return datetime.fromisoformat(utc).astimezone(timezone(timedelta(hours=2))).isoformat(timespec="seconds")


def test_since_takes_a_time_zone_and_a_date(catalogue):
    newest = as_json("events", "--db", catalogue.path)[0]["at"]  # 2026-12-04T17:22:13.427Z
    just_after = newest[:19] + "+00:00"
    assert as_json("events", "--since", newest[:10], "--db", catalogue.path)  # the day they happened
    # the same instant written two hours east: nothing is lost or gained by the zone
    assert as_json("events", "--since", two_hours_east(newest), "--db", catalogue.path) == as_json(
        "events", "--since", just_after, "--db", catalogue.path
    )
    assert as_json("events", "--since", "2999-01-01", "--db", catalogue.path) == []


def test_since_in_another_zone_crosses_midnight(catalogue, tmp_path):
    # A fixed clock for the events, whatever the hour the crawl ran: the newest at 23:30 UTC,
    # which is 01:30 the next day two hours east; --since reads both as the same instant.
    path = catalogue.copy(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET at = '2026-12-04T12:00:00.000Z'")
        conn.execute("UPDATE events SET at = '2026-12-04T23:30:00.000Z' WHERE id = (SELECT max(id) FROM events)")
    east = two_hours_east("2026-12-04T23:30:00.000Z")
    assert east == "2026-12-05T01:30:00+02:00"
    late = as_json("events", "--since", east, "--db", path)
    assert [e["at"] for e in late] == ["2026-12-04T23:30:00.000Z"]
    assert late == as_json("events", "--since", "2026-12-04T23:30:00Z", "--db", path)
    assert as_json("events", "--since", "2026-12-05T01:30:01+02:00", "--db", path) == []


# --- forget -----------------------------------------------------------------------------------


def origin_rows(path: Path, origin: str) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        tables = [
            t
            for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if any(c[1] == "origin" for c in conn.execute(f"PRAGMA table_info([{t}])"))
        ]
        return {t: conn.execute(f"SELECT count(*) FROM [{t}] WHERE origin = ?", [origin]).fetchone()[0] for t in tables}


def test_forget_removes_an_origin_with_everything_that_depends_on_it(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    before = origin_rows(path, "pantry.test")
    assert before["events"] and before["snapshots"] and before["checks"] and before["documents"]
    with sqlite3.connect(path) as conn:
        own = {
            sha
            for (sha,) in conn.execute(
                "SELECT body_sha256 FROM snapshots WHERE origin = 'pantry.test' AND "
                "body_sha256 NOT IN (SELECT body_sha256 FROM snapshots WHERE origin != "
                "'pantry.test' AND body_sha256 IS NOT NULL)"
            )
        }
    result = cli("forget", "https://Pantry.test/", "--yes", "--db", path)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("forgot 1 origin(s): pantry.test (")
    assert set(origin_rows(path, "pantry.test").values()) == {0}
    with sqlite3.connect(path) as conn:
        assert (
            own
            and not conn.execute(
                f"SELECT count(*) FROM blobs WHERE sha256 IN ({','.join('?' * len(own))})", list(own)
            ).fetchone()[0]
        )
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert "pantry.test" not in [r["origin"] for r in as_json("list", "--db", path)["listings"]]
    assert as_json("list", "--search", "pantry", "--db", path)["total"] == 0  # the search index forgot it too
    assert as_json("show", "tidewater.test", "--db", path)["status"] == "listed"  # the others stay
    assert cli("show", "pantry.test", "--db", path).exit_code == 1


def test_forget_refuses_without_a_terminal_or_yes_and_an_unknown_origin(catalogue, tmp_path):
    path = catalogue.copy(tmp_path)
    piped = cli("forget", "pantry.test", "--db", path)
    assert piped.exit_code == 2 and "pass --yes" in piped.stderr
    unknown = cli("forget", "pantry.test", "nosuch.test", "--yes", "--db", path)
    assert unknown.exit_code == 1 and "not in the catalogue: nosuch.test; nothing was removed" in unknown.stderr
    assert origin_rows(path, "pantry.test")["events"] > 0


@pytest.mark.parametrize(("answer", "code", "kept"), [(b"y\n", 0, False), (b"n\n", 1, True)])
def test_forget_asks_on_a_terminal(catalogue, tmp_path, answer, code, kept):
    path = catalogue.copy(tmp_path)
    returned, shown = run_in_terminal(["forget", "tidewater.test", "--db", str(path)], tmp_path, answer)
    assert "Forget tidewater.test and all their history? [y/N]" in shown
    assert returned == code, shown
    assert (origin_rows(path, "tidewater.test")["listings"] == 1) is kept


# --- list outputs -----------------------------------------------------------------------------


def test_list_on_a_pipe_prints_tab_separated_lines_and_the_count_on_stderr(catalogue):
    result = cli("list", "--sort", "origin", "--db", catalogue.path)
    assert result.exit_code == 0
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [r[0] for r in rows] == sorted(ORIGINS)
    assert all(len(r) == 5 for r in rows)  # origin, format, status, name, next_due_at
    assert ["tidewater.test", "anchor", "listed", "Tidewater Data"] == rows[-1][:4]
    assert result.stderr.strip() == f"{len(ORIGINS)} of {len(ORIGINS)} shown"
    assert "\x1b" not in result.stdout and "[bold red]Free![/]" in result.stdout  # crawled text stays text


def test_list_fields_csv_and_nl(catalogue):
    picked = cli("list", "--fields", "origin,status", "--status", "listed", "--sort", "origin", "--db", catalogue.path)
    assert picked.stdout.splitlines() == ["freeprizes.test\tlisted", "pantry.test\tlisted", "tidewater.test\tlisted"]
    table = list(
        csv.reader(
            io.StringIO(
                cli(
                    "list", "--csv", "--fields", "origin,categories,has_mcp", "--sort", "origin", "--db", catalogue.path
                ).stdout
            )
        )
    )
    assert table[0] == ["origin", "categories", "has_mcp"] and len(table) == 1 + len(ORIGINS)
    pantry = next(row for row in table if row[0] == "pantry.test")
    assert pantry[2] == "true" and pantry[1]
    lines = cli("list", "--nl", "--db", catalogue.path).stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == len(ORIGINS) and set(records[0]) == {"origin", "format", "status", "name", "next_due_at"}
    assert as_json("list", "--fields", "origin", "--db", catalogue.path)["listings"][0] == {
        "origin": records[0]["origin"]
    }
    assert "\x1b" not in "".join(lines)


def test_list_on_a_terminal_is_a_table_with_headers(catalogue, tmp_path):
    code, shown = run_in_terminal(["list", "--sort", "origin", "--db", str(catalogue.path)], tmp_path)
    assert code == 0
    assert "\x1b" not in shown  # the crawled name's colour never reaches the terminal
    lines = shown.splitlines()
    assert re.match(r"\s*origin\s+format\s+status\s+name\s+next_due_at", lines[0]), shown
    assert any(re.match(r"\s*tidewater\.test\s+anchor\s+listed\s+Tidewater Data", line) for line in lines)
    assert lines[-1] == f"{len(ORIGINS)} of {len(ORIGINS)} shown"
    assert "\t" not in shown and "[bold red]Free![/] [@click=app.quit]x[/] WINNER" in shown


def test_every_list_field_can_be_printed(catalogue):
    record = as_json("list", "--fields", ",".join(LIST_FIELDS), "--db", catalogue.path)["listings"][0]
    assert list(record) == list(LIST_FIELDS)


# --- stats --------------------------------------------------------------------------------------


def test_stats_prints_counts_first_then_the_first_of_each_section_and_how_to_see_the_rest(catalogue):
    """Issue 40: no demo wording, each section capped where it says so, with the command that
    lists the rest."""
    result = cli("stats", "--db", catalogue.path, "--top", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{len(ORIGINS)} origins: 3 listed, 1 invalid, 1 no_manifest, 1 unreachable"
    assert "broken on purpose" not in result.stdout and "demo" not in result.stdout
    db = f"--db {catalogue.path}"
    assert "Not listed, by status (agentdex list --status STATUS --fields origin,status_detail " + db in result.stdout
    assert "  unreachable                     1  closed.test" in lines
    newest = lines.index("Newest changes:")
    assert lines[newest + 2] == f"  … and 2 more event(s) (agentdex events {db})"
    failing = next(i for i, line in enumerate(lines) if line.startswith("Failing checks: "))
    more = lines[failing + 2]
    assert more.startswith("  … and ") and more.endswith(
        f"(agentdex list --failing-checks --fields origin,checks_failed {db})"
    )
    assert summary_lines(catalogue.path)[1:] != lines  # the demo's printout is the demo's


def test_stats_counts_every_listing_of_a_large_catalogue(tmp_path):
    """It read at most 10,000 listings without saying so."""
    from agentdex.db import open_db
    from agentdex.db.synthetic import fill_synthetic

    path = tmp_path / "large.db"
    db = open_db(path)
    fill_synthetic(db, 10_050)
    db.conn.close()
    result = cli("stats", "--db", path)
    assert result.exit_code == 0 and result.stdout.startswith("10050 origins: ")
    data = as_json("stats", "--db", path)
    assert len(data["not_listed"]) == data["listings"] - data["by_status"]["listed"]


def test_stats_json_is_every_failing_check_and_origin_not_listed(catalogue):
    data = as_json("stats", "--db", catalogue.path)
    assert data["listings"] == len(ORIGINS) and data["by_status"]["listed"] == 3
    assert data["events_by_kind"] == {"listed": 3}
    assert {b["origin"]: b["status"] for b in data["not_listed"]} == {
        "badmanifest.test": "invalid",
        "loop.test": "no_manifest",
        "closed.test": "unreachable",
    }
    assert all(set(f) == {"origin", "name", "detail"} for f in data["failing"])


# --- crawl: --quiet, errors counted honestly -------------------------------------------------------


@pytest.mark.slow
def test_a_quiet_crawl_of_listed_origins_reports_no_errors_and_a_failure_still_counts(tmp_path):
    with SampleWeb(synthetic=20) as web:
        hosts = [h for h in web.hosts if h.endswith(".synthetic.test")]
        result = cli("crawl", *hosts, "-q", "--db", tmp_path / "c.db", *web.cli_args())
        assert result.exit_code == 0, result.output
        assert result.stderr == ""
        head, counts = result.stdout.splitlines()
        assert head.endswith(" origin(s) in " + head.split(" in ", 1)[1]) and "— 20 listed" in head
        assert re.fullmatch(r"\d+ request\(s\), 0 failed; 20 change event\(s\) \(agentdex events\)", counts), counts
        closed = f"closed.test:127.0.0.1:{free_port()}"
        run = cli(
            "crawl",
            "closed.test",
            "--quiet",
            "--db",
            tmp_path / "c.db",
            *web.cli_args(),
            "--connect-to",
            closed,
            "--timeout",
            "60",
            "--json",
        )
        assert run.exit_code == 1 and "no origin could be reached" in run.stderr  # issue 40: not a success
        failed = json.loads(run.stdout)
        assert failed["errors"] >= 1 and failed["by_status"] == {"unreachable": 1}


# --- network options from the environment and a config file ------------------------------------------


def net_env(web: SampleWeb) -> dict[str, str]:
    return {
        "AGENTDEX_CONNECT_TO": ", ".join(web.connect_to_args()),
        "AGENTDEX_CA_BUNDLE": str(web.ca_pem),
        "AGENTDEX_DNS_SERVER": web.dns_address,
        "AGENTDEX_REGISTRY": "https://registry.test",
        "AGENTDEX_CONFIG": "",
    }


def test_network_options_come_from_the_environment(catalogue, tmp_path):
    result = cli("crawl", "pantry.test", "--db", tmp_path / "c.db", "--json", env=net_env(catalogue.web))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["by_status"] == {"listed": 1}


def test_network_options_come_from_a_config_file_with_flag_over_env_over_file(catalogue, tmp_path):
    web = catalogue.web
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.pem").write_bytes(web.ca_pem.read_bytes())
    config = tmp_path / "config.toml"
    rules = ", ".join(f'"{rule}"' for rule in web.connect_to_args())
    config.write_text(
        f'ca_bundle = "certs/ca.pem"\nconnect_to = [{rules}]\ndns_server = "{web.dns_address}"\n'
        'registry = "https://registry.test"\nconcurrency = 4\n',
        "utf-8",
    )
    env = {"AGENTDEX_CONFIG": str(config)}
    alone = cli("crawl", "pantry.test", "--db", tmp_path / "a.db", "--json", env=env)
    assert alone.exit_code == 0 and json.loads(alone.stdout)["by_status"] == {"listed": 1}, alone.output
    # the environment beats the file: a bundle that is not there is refused
    env_wins = cli(
        "crawl", "pantry.test", "--db", tmp_path / "b.db", env={**env, "AGENTDEX_CA_BUNDLE": str(tmp_path / "none.pem")}
    )
    assert env_wins.exit_code == 2 and "none.pem" in env_wins.stderr
    # and a flag beats the environment
    flag_wins = cli(
        "crawl",
        "pantry.test",
        "--db",
        tmp_path / "b.db",
        "--ca-bundle",
        web.ca_pem,
        "--json",
        env={**env, "AGENTDEX_CA_BUNDLE": str(tmp_path / "none.pem")},
    )
    assert flag_wins.exit_code == 0, flag_wins.output


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("concurency = 4\n", "key 'concurency': Extra inputs are not permitted"),
        ('concurrency = "many"\n', "key 'concurrency': Input should be a valid integer"),
        ("concurrency = 0\n", "key 'concurrency': Input should be greater than or equal to 1"),
        ("connect_to = [1]\n", "key 'connect_to.0'"),
        ("ca_bundle = \n", "cannot be read as TOML"),
    ],
)
def test_a_bad_config_file_is_one_sentence_naming_the_file_and_the_key(tmp_path, text, words):
    config = tmp_path / "config.toml"
    config.write_text(text, "utf-8")
    result = cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(config)})
    assert result.exit_code == 2, result.output
    assert words in result.stderr and str(config) in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_config_file_defaults_to_the_xdg_place_and_a_missing_named_one_is_refused(catalogue, tmp_path):
    folder = tmp_path / "xdg" / "agentdex"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("timeout = 0.1\n", "utf-8")  # out of range: proves it was read
    result = cli(
        "crawl",
        "pantry.test",
        "--db",
        tmp_path / "c.db",
        env={"AGENTDEX_CONFIG": "", "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
    )
    assert result.exit_code == 2 and "key 'timeout'" in result.stderr
    missing = cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(tmp_path / "no.toml")})
    assert missing.exit_code == 2 and "which is not a file" in missing.stderr


@pytest.mark.parametrize("command", ["crawl", "verify", "tui"])
def test_help_names_the_environment_variables_and_the_config_file(command):
    text = cli(command, "--help").stdout
    for name in (
        "AGENTDEX_CONNECT_TO",
        "AGENTDEX_CA_BUNDLE",
        "AGENTDEX_DNS_SERVER",
        "AGENTDEX_REGISTRY",
        "AGENTDEX_CONCURRENCY",
        "AGENTDEX_ALLOW_PRIVATE",
        "config key ca_bundle",
    ):
        assert name in text, name
    assert "config.toml" in cli("crawl", "--help").stdout


# --- plan and show say why -------------------------------------------------------------------


def test_plan_of_an_invalid_listing_warns(catalogue):
    result = cli("plan", "badmanifest.test", "--host", "claude_code", "--db", catalogue.path)
    assert result.exit_code == 0 and result.stdout.startswith("Claude Code (claude_code)")
    assert re.search(r"warning: the manifest of badmanifest\.test is invalid \(\d+ error\(s\)\)", result.stderr)
    plan = as_json("plan", "badmanifest.test", "--host", "claude_code", "--db", catalogue.path)
    assert plan["listing_status"] == "invalid" and "is invalid" in plan["warning"]
    assert as_json("plan", "pantry.test", "--host", "claude_code", "--db", catalogue.path)["warning"] is None


@pytest.mark.parametrize(("origin", "why"), [("closed.test", "unreachable"), ("loop.test", "no_manifest")])
def test_plan_of_an_origin_without_a_manifest_says_why_and_fails(catalogue, origin, why):
    result = cli("plan", origin, "--db", catalogue.path)
    assert result.exit_code == 1 and result.stdout == ""
    assert f"no install plan for {origin}: its status is {why}" in result.stderr


def test_show_of_an_unreachable_listing_gives_the_last_fetch_error(catalogue):
    text = cli("show", "closed.test", "--db", catalogue.path).stdout
    assert re.search(r"last fetch error \(.+\): https://closed\.test/\S*: .*(refused|connect)", text, re.I), text
    data = as_json("show", "closed.test", "--db", catalogue.path)
    assert data["last_error"]["error_code"] and data["last_error"]["url"].startswith("https://closed.test/")
    assert as_json("show", "pantry.test", "--db", catalogue.path)["last_error"] is None


# --- help, completion, serve --------------------------------------------------------------------------


def test_usage_lines_name_arguments_as_users_write_them_and_every_option_has_help():
    for name, command in get_command(app).commands.items():
        text = cli(name, "--help").stdout
        assert not re.search(r"\{\w+\}|<list\[|<path>|<str>|<int range>|<float range>|<int>", text), (name, text)
        for param in command.params:
            assert getattr(param, "help", None), f"agentdex {name}: {param.name} has no help"
    assert cli("crawl", "--help").stdout.startswith("Usage: root crawl [OPTIONS] [ORIGIN]...")
    assert "--sort <name|origin|format|status|pricing|" in cli("list", "--help").stdout


@pytest.mark.slow
def test_shell_completion_is_offered():
    assert "--install-completion" in cli("--help").stdout
    shown = subprocess.run(
        [sys.executable, "-m", "agentdex", "--show-completion", "bash"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert shown.returncode == 0 and "complete -o default -F _agentdex_completion agentdex" in shown.stdout


def test_serve_on_a_busy_port_says_so_in_one_sentence(catalogue):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "agentdex", "serve", "--db", str(catalogue.path), "--port", str(port)],
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=60,
        )
    assert result.returncode == 2
    assert result.stderr == f"agentdex: port {port} on 127.0.0.1 is in use; choose another with --port\n"


# --- sampleweb --------------------------------------------------------------------------------------


def start_sampleweb(args: list[str], cwd: Path) -> tuple[subprocess.Popen, list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentdex", "sampleweb", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        cwd=cwd,
    )
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if "Ctrl-C" in line:
            break
    return proc, lines


@pytest.mark.slow
def test_sampleweb_synthetic_prints_one_wildcard_writes_seeds_and_cleans_up_on_sigterm(tmp_path):
    seeds = tmp_path / "seeds.txt"
    proc, lines = start_sampleweb(["--synthetic", "5", "--seeds-out", str(seeds)], tmp_path)
    try:
        text = "\n".join(lines)
        ca = Path(re.search(r"CA certificate: (\S+)", text).group(1))
        assert ca.is_file()
        args_line = lines[lines.index("Pass these to agentdex crawl / verify:") + 1]
        assert args_line.count("--connect-to") == 1 and "--connect-to '*.synthetic.test:127.0.0.1:" in args_line
        assert "Origins to crawl (5): site-00001.synthetic.test, " in text and "pantry.test" not in text
        assert seeds.read_text().splitlines() == [f"site-{i:05d}.synthetic.test" for i in range(1, 6)]
        net = re.findall(r"(--[\w-]+) '?([^' ]+)'?", args_line)
        crawled = as_json(
            "crawl", "--seeds", seeds, "--db", tmp_path / "c.db", "-q", *[x for pair in net for x in pair]
        )
        assert crawled["by_status"] == {"listed": 5}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0, proc.stderr.read()[-2000:]
        assert not ca.exists() and not ca.parent.exists()  # the CA key went with its folder
    finally:
        proc.kill()


@pytest.mark.slow
def test_sampleweb_bundled_is_one_wildcard_too(tmp_path):
    proc, lines = start_sampleweb([], tmp_path)
    try:
        args_line = lines[lines.index("Pass these to agentdex crawl / verify:") + 1]
        assert args_line.count("--connect-to") == 1 and "--connect-to '*.test:127.0.0.1:" in args_line
        origins = next(line for line in lines if line.startswith("Origins to crawl"))
        assert "pantry.test" in origins and "mcp.pantry.test" not in origins
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)  # a cap only: stopping the whole sample web takes a loaded machine a while


def test_tui_reads_the_same_config_file(tmp_path):
    # A bad file stops `agentdex tui` before the app starts, with the same sentence as crawl.
    config = tmp_path / "config.toml"
    config.write_text('dns_server = "nowhere"\n', "utf-8")
    result = cli("tui", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(config)})
    assert result.exit_code == 2 and f"config file {config}, key 'dns_server': expected ADDR:PORT" in result.stderr


def test_check_words_are_the_stored_ones_coloured_on_a_terminal_only(catalogue, tmp_path):
    """Issue 40: ``ok``/``FAIL`` in the CLI against ``pass``/``fail`` in the TUI and Datasette,
    and no colour (``FAIL`` looked like ``ok``). NO_COLOR and a pipe get the words alone."""
    code, shown = run_in_terminal(["show", "badmanifest.test", "--db", str(catalogue.path)], tmp_path)
    assert code == 0 and "\x1b[1;31mfail\x1b[0m " in shown and "\x1b[32mpass\x1b[0m " in shown, shown
    code, plain_shown = run_in_terminal(
        ["show", "badmanifest.test", "--db", str(catalogue.path)], tmp_path, NO_COLOR="1"
    )
    assert code == 0 and "\x1b[" not in plain_shown and "\n  fail " in plain_shown
    piped = cli("show", "badmanifest.test", "--db", catalogue.path).stdout
    assert "\x1b[" not in piped and "\n  fail " in piped and "FAIL" not in piped and "  ok " not in piped
