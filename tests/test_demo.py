"""`agentdex demo`: the bundled sample web crawled twice into a fresh catalogue.

Each end-to-end run starts the real sample web (HTTPS, DNS, SDK MCP servers, x402) on
loopback, so the runs are module-scoped fixtures shared by the assertions: one through
typer's CliRunner (in this process: its threads must be gone afterwards) and one as a real
subprocess (`python -m agentdex demo --no-tui --db …`).
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex import demo, serve
from agentdex.cli import app
from agentdex.db import get_listing, list_checks, list_events, list_listings, list_tools, open_db
from agentdex.db.synthetic import fill_synthetic
from tests.conftest import ROOT

NETGUARD = ROOT / "tests" / "netguard.py"
HOSTILE_NAME = "[bold red]Free![/] [@click=app.quit]x[/] \x1b[31mWINNER\x1b[0m"
HOSTILE_SHOWN = "[bold red]Free![/] [@click=app.quit]x[/] WINNER"


def _ports(output: str) -> tuple[int, int]:
    """The sample web's HTTPS and DNS ports, as the demo printed them."""
    https = re.search(r"Sample web: https://127\.0\.0\.1:(\d+)", output)
    dns = re.search(r"DNS on 127\.0\.0\.1:(\d+)", output)
    assert https and dns, output[:2000]
    return int(https.group(1)), int(dns.group(1))


def _sockets_of(pid: int | str) -> set[str]:
    """The inodes of the sockets process ``pid`` holds open."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue  # closed while we looked
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _holds_port(port: int, protocols: tuple[str, ...], pid: int | str = "self") -> bool:
    """Whether process ``pid`` (this one by default) still holds a socket bound to ``port`` on loopback. Asked of the
    process, not of the port: with two test workers, another test's server may bind the same
    port once the demo has let it go (connecting to it would then find that server)."""
    ours = _sockets_of(pid)
    for protocol in protocols:
        for table in (f"/proc/net/{protocol}", f"/proc/net/{protocol}6"):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[9] in ours:
                    return True
    return False


def _tcp_closed(port: int) -> bool:
    return not _holds_port(port, ("tcp",))


def _udp_free(port: int) -> bool:
    return not _holds_port(port, ("udp",))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both end-to-end runs, overlapped (each spends most of its time waiting for the slow
    hosts' deadline): the demo as a real subprocess, `python -m agentdex demo --no-tui --db
    <tmp>/demo.db` (run by tests/netguard.py, which writes down its lookups and connections), and
    the demo through typer's CliRunner in this process."""
    sub_path = tmp_path_factory.mktemp("demo-sub") / "demo.db"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(  # under tests/netguard.py: its lookups and connections go to net.log
        [sys.executable, str(NETGUARD), str(sub_path.parent / "net.log"), "demo", "--no-tui", "--db", str(sub_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
    )
    try:
        cli_path = tmp_path_factory.mktemp("demo-cli") / "catalogue.db"
        # Only the threads this run started: a sample web an earlier test of this worker
        # process left stopping is that test's business, not the demo's.
        before = set(threading.enumerate())
        result = CliRunner().invoke(app, ["demo", "--no-tui", "--db", str(cli_path)])
        threads = [t.name for t in set(threading.enumerate()) - before if t.name.startswith("agentdex-sampleweb")]
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    finished = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    return {"cli": (result, cli_path, threads), "sub": (finished, sub_path)}


@pytest.fixture(scope="module")
def cli_run(runs):
    """The CliRunner run: (result, catalogue path, sample-web threads alive afterwards)."""
    return runs["cli"]


@pytest.fixture(scope="module")
def sub_run(runs):
    """The subprocess run: (CompletedProcess, catalogue path)."""
    return runs["sub"]


# --- where it connects ----------------------------------------------------------------------


def test_the_demo_never_asks_the_machine_s_resolver_nor_leaves_loopback(sub_run):
    """Issue 40: the sample web's unserved host (gone.invalid, a guide URL) is looked up at
    the sample web's DNS server, not the machine's resolver (7 lookups went there before)."""
    finished, path = sub_run
    assert finished.returncode == 0, finished.stderr
    lines = (path.parent / "net.log").read_text("utf-8").splitlines()
    assert any(line.startswith("connect 127.0.0.1 ") for line in lines)  # the guard saw the crawl
    assert [line for line in lines if line.startswith("lookup ")] == []
    elsewhere = [line for line in lines if not ipaddress.ip_address(line.split()[1]).is_loopback]
    assert elsewhere == []


# --- what it prints ------------------------------------------------------------------------


def test_the_subprocess_demo_prints_counts_findings_history_and_commands(sub_run):
    proc, path = sub_run
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in out + proc.stderr
    assert f"Catalogue: {path}" in out
    assert re.search(r"27 origins: .*\b1 delisted\b", out)
    assert re.search(r"formats: .*\b3 anchor\b.*\b1 inferred\b", out)
    assert re.search(r"32 change events: 18 listed, .*\b2 price_changed\b.*\b1 name_changed\b", out)
    # the notable checks, in the user's words
    assert "driftwood.test: fail anchor.read_only_variant — declaration is false" in out
    assert "exposes write tools delete_item" in out
    assert (
        "meridian.test: fail anchor.payments — test.meridian/rates-api: declared $0.002 but the live 402 asks $0.005"
        in out
    )
    assert "tidewater.test: pass anchor.read_only_variant" in out
    assert "tidewater.test: pass anchor.verify.dns" in out and "meridian.test: pass anchor.verify.dns" in out
    # History from the second crawl
    assert 'castaway.test: name_changed — "Castaway" → "Castaway Podcasts"' in out
    assert "pantry.test: tools_changed — MCP tools +add_to_list" in out
    assert "tidewater.test: price_changed — test.tidewater/tides: $0.01 → $0.02 a call" in out
    assert "fernpost.test: delisted" in out
    # names: two apps called Beacon, and the hostile one shown as text
    assert '"Beacon" is the name of 2 apps: beacon.test (education), beaconops.test (developer, productivity)' in out
    assert (
        "freeprizes.test: its listing carries markup and terminal escape sequences "
        f'(stored verbatim, shown only as text): "{HOSTILE_SHOWN}"'
    ) in out
    # broken on purpose
    assert "badmanifest.test: invalid — agent_app manifest with 12 error(s)" in out
    assert (
        "hopper.test: no_manifest — agent_app: https://hopper.test/.well-known/agent-app.json "
        "redirects to another origin"
    ) in out
    # the commands to go further
    for command in ("tui", "show pantry.test", "events", "serve"):
        assert f"agentdex {command} --db {path}" in out


def test_nothing_printed_carries_an_escape_or_control_character(sub_run, cli_run):
    proc, _ = sub_run
    result, _, _ = cli_run
    for text in (proc.stdout, proc.stderr, result.stdout):
        assert "\x1b" not in text and "\x07" not in text
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)


def test_progress_lines_show_each_origin_of_the_first_crawl_and_the_changes_of_the_second(sub_run):
    out = sub_run[0].stdout
    first, _, second = out.partition("Crawl 2 of 2")
    assert len(re.findall(r"^  \[\s*\d+/27\] ", first, re.M)) == 27
    assert re.search(r"^  \[\s*\d+/27\] castaway\.test\s+listed, 6 change event\(s\)$", second, re.M)
    assert re.search(r"^  \[\s*\d+/27\] fernpost\.test\s+\w+, 1 change event\(s\)$", second, re.M)
    assert not re.search(r"wayfarer\.test", second.partition("Catalogue:")[0])  # unchanged: no line


# --- what the catalogue holds ----------------------------------------------------------------


@pytest.fixture(scope="module")
def catalogue(sub_run):
    db = open_db(sub_run[1], readonly=True)
    yield db
    db.conn.close()


def test_the_catalogue_holds_every_demo_origin_by_status_and_format(catalogue):
    rows = {r["origin"]: r for r in list_listings(catalogue, limit=1000)}
    assert set(rows) == set(demo.DEMO_ORIGINS)
    agent_apps = {
        "pantry.test",
        "wayfarer.test",
        "beacon.test",
        "beaconops.test",
        "castaway.test",
        "ledgerline.test",
        "vault.test",
        "keyring.test",
        "freeprizes.test",
    }
    for origin in agent_apps:
        assert (rows[origin]["format"], rows[origin]["status"]) == ("agent_app", "listed"), origin
    for origin in ("tidewater.test", "meridian.test", "driftwood.test"):
        assert (rows[origin]["format"], rows[origin]["status"]) == ("anchor", "listed"), origin
    assert (rows["quillnotes.test"]["format"], rows["quillnotes.test"]["status"]) == ("inferred", "listed")
    assert rows["fernpost.test"]["status"] == "delisted"
    assert rows["badmanifest.test"]["status"] == "invalid"
    for origin in (
        "hopper.test",
        "loop.test",
        "sleepy.test",
        "slowdrip.test",
        "latin1.test",
        "broken.test",
        "bomb.test",
    ):
        assert rows[origin]["status"] not in ("listed", "delisted"), origin
    assert rows["ledgerline.test"]["mcp_url"] is None and rows["ledgerline.test"]["http_base"]
    assert sorted(r["origin"] for r in rows.values() if r["name"] == "Beacon") == ["beacon.test", "beaconops.test"]


def test_the_second_crawl_recorded_what_changed(catalogue):
    events = list(reversed(list_events(catalogue, limit=1000)))
    first_crawl = min(e["crawl_id"] for e in events)
    assert {e["kind"] for e in events if e["crawl_id"] == first_crawl} == {"listed"}
    later = [(e["origin"], e["kind"]) for e in events if e["crawl_id"] != first_crawl]
    assert sorted(later) == sorted(
        [
            ("castaway.test", "name_changed"),
            ("castaway.test", "guide_changed"),
            ("castaway.test", "instructions_changed"),
            ("castaway.test", "mcp_url_changed"),
            ("castaway.test", "tools_changed"),
            ("pantry.test", "guide_changed"),
            ("pantry.test", "instructions_changed"),
            ("pantry.test", "tools_changed"),
            ("castaway.test", "write_tool_added"),
            ("pantry.test", "write_tool_added"),
            ("tidewater.test", "price_changed"),
            ("tidewater.test", "price_changed"),
            ("tidewater.test", "deprecation_declared"),
            ("fernpost.test", "delisted"),
        ]
    )
    renamed = next(e for e in events if e["kind"] == "name_changed")
    assert (renamed["old"], renamed["new"]) == ("Castaway", "Castaway Podcasts")
    moved = next(e for e in events if e["kind"] == "mcp_url_changed")
    assert moved["new"] == "https://mcp.castaway.test/v2/mcp"


def test_the_lying_read_only_variant_fails_and_the_honest_one_passes(catalogue):
    driftwood = {c["name"]: c for c in list_checks(catalogue, "driftwood.test")}
    tidewater = {c["name"]: c for c in list_checks(catalogue, "tidewater.test")}
    assert driftwood["anchor.read_only_variant"]["status"] == "fail"
    assert "delete_item" in driftwood["anchor.read_only_variant"]["detail"]
    assert tidewater["anchor.read_only_variant"]["status"] == "pass"


def test_the_live_price_that_differs_from_the_declared_one_is_recorded(catalogue):
    meridian = {c["name"]: c for c in list_checks(catalogue, "meridian.test")}
    payments = meridian["anchor.payments"]
    assert payments["status"] == "fail"
    assert payments["data"]["test.meridian/rates-api"]["declared_usd"] == 0.002
    assert payments["data"]["test.meridian/rates-api"]["live_usd"] == 0.005
    assert meridian["anchor.verify.dns"]["status"] == "pass"


def test_the_hostile_listing_is_stored_verbatim(catalogue):
    row = get_listing(catalogue, "freeprizes.test")
    assert row["status"] == "listed"
    assert row["name"] == HOSTILE_NAME
    assert "\x1b]52;c;" in row["one_liner"] and "\x1b]8;;" in row["one_liner"]


def test_mcp_tools_come_with_their_annotations(catalogue):
    tools = {t["name"]: t for t in list_tools(catalogue, "wayfarer.test", source="mcp")}
    assert set(tools) == {"search_connections", "search_stays", "get_itinerary", "hold_seats", "release_hold"}
    assert tools["search_connections"]["read_only"] and not tools["hold_seats"]["read_only"]
    assert tools["release_hold"]["destructive"]


# --- servers stop ----------------------------------------------------------------------------


def test_the_subprocess_demo_stopped_its_servers(sub_run):
    https, dns = _ports(sub_run[0].stdout)
    assert f"Stopped the sample web (127.0.0.1:{https}) and its DNS server (127.0.0.1:{dns})." in sub_run[0].stdout
    # The child has exited, so the kernel closed its sockets: the line above is the news.


def test_the_cli_runner_demo_prints_the_same_and_leaves_no_server_behind(cli_run):
    result, path, threads = cli_run
    assert result.exit_code == 0, result.stdout[-3000:]
    assert f"agentdex show pantry.test --db {path}" in result.stdout
    assert "meridian.test: fail anchor.payments" in result.stdout
    assert threads == []
    https, dns = _ports(result.stdout)
    assert _tcp_closed(https) and _udp_free(dns)
    assert path.is_file()


# --- the --db rules (no sample web needed) ---------------------------------------------------------


def test_an_existing_file_that_is_not_a_catalogue_is_refused_untouched(tmp_path):
    target = tmp_path / "notes.db"
    target.write_text("my notes, not a catalogue")
    result = CliRunner().invoke(app, ["demo", "--no-tui", "--db", str(target)])
    assert result.exit_code == 2
    assert "is not an agentdex catalogue; the demo never overwrites other files" in result.output
    assert target.read_text() == "my notes, not a catalogue"


def test_a_catalogue_of_other_origins_is_refused_untouched(tmp_path):
    target = tmp_path / "real.db"
    db = open_db(target)
    fill_synthetic(db, 3)
    db.conn.close()
    before = target.read_bytes()
    result = CliRunner().invoke(app, ["demo", "--no-tui", "--db", str(target)])
    assert result.exit_code == 2
    assert "3 origin(s) outside the sample web" in result.output
    assert target.read_bytes() == before


def test_a_previous_demo_catalogue_is_replaced(sub_run, tmp_path):
    previous = tmp_path / "old-demo.db"
    shutil.copy(sub_run[1], previous)
    assert demo.prepare_db(previous) == previous
    assert not previous.exists()  # removed, to be written afresh


def test_without_db_the_catalogue_goes_to_a_new_temporary_folder():
    first, second = demo.prepare_db(None), demo.prepare_db(None)
    try:
        assert first.name == second.name == demo.DEMO_DB_NAME
        assert first.parent != second.parent and first.parent.is_dir() and not first.exists()
    finally:
        first.parent.rmdir()
        second.parent.rmdir()


@pytest.mark.slow
def test_a_busy_datasette_port_is_refused_before_anything_starts(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        with pytest.raises(serve.ServeError, match=f"port {port} on 127.0.0.1 is in use"):
            serve.free_port(port)
        result = CliRunner().invoke(
            app, ["demo", "--no-tui", "--serve", "--port", str(port), "--db", str(tmp_path / "d.db")]
        )
    assert result.exit_code == 2 and f"agentdex demo: port {port} on 127.0.0.1 is in use" in result.output
    assert "Starting the sample web" not in result.output
    assert serve.free_port(0) > 0


def test_hostile_text_is_recognised_and_plain_text_is_not():
    assert demo.hostile(HOSTILE_NAME) and demo.hostile("[link=https://x.test]hi[/link]")
    assert demo.hostile("Claim \x1b]52;c;eA==\x07")
    assert demo.hostile("Notes [draft] 2026")  # Rich would swallow [draft] as a style tag
    assert not demo.hostile("Castaway Podcasts") and not demo.hostile("Notes [1] 2026 [] ok")


def test_a_shared_name_line_shows_crawled_categories_as_plain_text():
    # A FindAgent listing's categories are free text from the manifest.
    rows = [
        {"origin": "a.test", "name": "Twin", "categories": ["notes\x1b]52;c;eA==\x07", "x\x1b[31my"]},
        {"origin": "b.test", "name": "twin", "categories": []},
    ]
    (line,) = demo.name_lines(rows)
    assert line == '"Twin" is the name of 2 apps: a.test (notes, xy), b.test (-); the origin tells them apart'


@pytest.mark.slow
def test_the_bundled_demo_origins_are_served_and_their_variants_switch_with_siblings():
    from agentdex.sampleweb import SampleWeb

    with SampleWeb(dns=False) as web:
        assert set(demo.DEMO_ORIGINS) <= set(web.hosts)
        assert demo.changing_hosts(web) == sorted(
            [
                "castaway.test",
                "fernpost.test",
                "mcp.castaway.test",
                "mcp.pantry.test",
                "pantry.test",
                "pay.tidewater.test",
                "tidewater.test",
            ]
        )


def test_datasette_publishes_the_demo_catalogue_and_stops_with_the_demo(sub_run):
    import httpx

    port = serve.free_port(0)
    with serve.in_child(sub_run[1], port) as server:
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=60)  # a first page on a loaded machine
        assert page.status_code == 200 and server.poll() is None
    assert server.poll() is not None  # the child exited: the kernel closed its port


@pytest.mark.slow
def test_a_datasette_that_cannot_start_is_a_message(tmp_path):
    with pytest.raises(serve.ServeError, match="Datasette did not start"):
        with serve.in_child(tmp_path / "missing.db", serve.free_port(0)):
            pass


@pytest.mark.slow
def test_waiting_for_ctrl_c_ends_with_an_error_when_datasette_dies_on_its_own():
    said = []
    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    assert demo._wait_for_ctrl_c(child, lambda text, **_: said.append(text)) == 1
    assert said[-1] == "Datasette stopped on its own (exit code 3)."


def test_an_unusable_db_path_is_a_message_and_exit_2_not_a_traceback(tmp_path):
    missing = CliRunner().invoke(app, ["demo", "--no-tui", "--db", str(tmp_path / "nowhere" / "demo.db")])
    folder = CliRunner().invoke(app, ["demo", "--no-tui", "--db", str(tmp_path)])
    assert (missing.exit_code, folder.exit_code) == (2, 2)
    assert "the folder" in missing.output and "does not exist" in missing.output
    assert "is a folder; give the path of a file to write" in folder.output
    assert missing.exception is None or isinstance(missing.exception, SystemExit)
    assert "Traceback" not in missing.output + folder.output


def test_the_demo_seeds_from_the_sample_registry_and_ends_with_the_census(sub_run):
    proc, path = sub_run
    out = proc.stdout
    seeding, _, crawled = out.partition("Crawl 1 of 2")
    assert (
        "Seeds: the sample MCP registry (https://registry.test, 3 page(s)) lists 11 servers naming 8 origins" in seeding
    )
    assert "test.templated/tenant: https://{tenant}.templated.test/mcp — an unexpanded URL template" in seeding
    summary = crawled.partition(f"Catalogue: {path}")[2]
    census = summary.partition("by state (agentdex census):")[2].splitlines()
    assert census[1].split() == ["state", "count", "share"] and census[13].split()[0] == "total"
    counts = {line.split()[0]: int(line.split()[1]) for line in census[2:13]}
    assert counts["template_not_expanded"] == 1 and counts["open"] >= 5 and counts["wrong_transport"] == 1
    assert sum(counts.values()) == int(census[13].split()[1]) and len(counts) == 11
    # Then the eras: the sample web's MCP servers (mcp 2.3.0) answer both.
    assert census[15].split() == ["era", "count", "share"]
    eras = {line.strip().rsplit(None, 2)[0]: int(line.split()[-2]) for line in census[16:20]}
    assert eras["dual (both eras)"] >= 5 and sum(eras.values()) == sum(counts.values())
    db = open_db(path, readonly=True)
    try:
        sources = {row[0] for row in db.execute("SELECT origin FROM seed_sources WHERE origin IS NOT NULL")}
    finally:
        db.conn.close()
    assert {"pantry.test", "tidewater.test", "castaway.test"} <= sources
