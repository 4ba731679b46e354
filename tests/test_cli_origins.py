"""Origins as users type them: IDNA 2008 / UTS 46 host names (checked against the Unicode
conformance vectors the ``idna`` package ships, see tests/idna/SOURCES.md), and text that
cannot be a host refused at every entry point (``crawl``, a ``--seeds`` file, ``show``, the
TUI's crawl dialog) before anything is looked up or stored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import idna
import pytest
from textual.widgets import Input
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.origins import normalise_origin
from agentdex.errors import InputError
from agentdex.sampleweb.server import SampleWeb
from agentdex.tui.app import make_app
from test_tui_support import SIZE, no_cursor_blink, rendered, settle  # noqa: F401

VECTORS = json.loads((Path(__file__).parent / "idna" / "uts46_vectors.json").read_text("utf-8"))
NOT_HOSTS = [
    "host!!",
    "pantry .test",
    "a..b.test",
    "-lead.test",
    "x" * 64 + ".test",
    "a\u200db.test",
    "1.2.3",
    "0x7f.1",
    "[not-v6]",
    "user@pantry.test",
    "pantry.test:0",
    ".",
]


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.parametrize(("typed", "expected"), VECTORS["valid"])
def test_every_valid_uts46_conformance_vector_gets_its_ascii_form(typed, expected):
    assert normalise_origin(typed) == expected


def test_every_invalid_uts46_conformance_vector_is_refused():
    accepted = []
    for typed in VECTORS["invalid"]:
        try:
            accepted.append((typed, normalise_origin(typed)))
        except InputError:
            pass
    assert accepted == []


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("faß.de", "xn--fa-hia.de"),  # IDNA 2003 (Python's codec) made this fass.de, another domain
        ("FASS.DE", "fass.de"),
        ("βόλος.com", "xn--nxasmm1c.com"),  # the final sigma stays ς (IDNA 2003: σ)
        ("ΒΌΛΟΣ.com", "xn--nxasmq6b.com"),  # a capital Σ maps to σ, wherever it stands
        ("https://Pantry.TEST:8443/x?y", "pantry.test:8443"),
        ("pantry.test.", "pantry.test"),  # the root's dot names the same host
        ("ड्\u200dx.test", "xn--x-ivd6kv54g.test"),  # a joiner after a virama is allowed
        ("１２７.０.０.１:8443", "127.0.0.1:8443"),
        ("[2001:DB8:0:0::1]:8443", "[2001:db8::1]:8443"),
    ],
)
def test_hosts_are_mapped_as_idna_2008_and_uts_46_say(typed, expected):
    assert normalise_origin(typed) == expected


@pytest.mark.parametrize("name", ["faß.de", "βόλος.com", "ड्\u200dx.test", "bücher.example"])
def test_the_ascii_form_decodes_back_to_the_typed_name(name):
    stored = normalise_origin(name)
    assert stored.isascii() and idna.decode(stored) == name
    assert normalise_origin(stored) == stored  # punycode typed back is the same origin


@pytest.mark.parametrize("typed", NOT_HOSTS)
def test_what_cannot_be_a_host_is_refused_with_a_reason(typed):
    with pytest.raises(InputError, match="not an origin|empty origin"):
        normalise_origin(typed)


@pytest.mark.parametrize("typed", ["host!!", "a\u200db.test", "1.2.3"])
def test_crawl_refuses_it_before_looking_anything_up_or_storing_it(tmp_path, typed):
    path = tmp_path / "c.db"
    result = cli("crawl", typed, "--db", path)
    assert result.exit_code == 2 and "not an origin" in result.stderr and "Traceback" not in result.output
    assert not path.exists() or sqlite3.connect(path).execute("SELECT count(*) FROM listings").fetchone() == (0,)


def test_a_seeds_file_with_a_non_host_names_its_line_and_skips_it(tmp_path):
    # A bad line of a million never ends the crawl: it is told with its number and skipped.
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# nothing else\nhost!!\nlocalhost\n", "utf-8")
    result = cli("crawl", "--seeds", seeds, "--db", tmp_path / "c.db", "--json")
    assert result.exit_code == 0, result.output
    told = result.stderr.splitlines()
    assert "seeds.txt, line 2: not an origin: 'host!!'" in told[0] and told[0].endswith("; skipped")
    assert "line 3: localhost is no public origin" in told[1] and "--allow-private" in told[1]
    assert json.loads(result.stdout) | {"seconds": 0} == json.loads(result.stdout) | {
        "origins": 0,
        "refused_lines": 2,
        "seconds": 0,
    }
    assert sqlite3.connect(tmp_path / "c.db").execute("SELECT count(*) FROM listings").fetchone() == (0,)


@pytest.mark.slow
def test_an_idn_is_crawled_and_shown_under_its_idna_2008_name(tmp_path):
    path = tmp_path / "c.db"
    with SampleWeb() as web:  # faß.de is not on it: its name must still be the one stored
        result = cli("crawl", "FAß.de", "--db", path, "--no-verify", *web.cli_args(), "--timeout", "60")
    assert result.exit_code == 1 and "no origin could be reached" in result.stderr, result.output  # and stored
    listed = json.loads(cli("list", "--db", path, "--json").stdout)["listings"]
    assert [r["origin"] for r in listed] == ["xn--fa-hia.de"]
    assert json.loads(cli("show", "faß.de", "--db", path, "--json").stdout)["origin"] == "xn--fa-hia.de"
    assert cli("show", "fass.de", "--db", path).exit_code == 1  # another domain


async def test_the_tui_crawl_dialog_refuses_a_non_host_with_the_same_reason(tmp_path):
    app = make_app(tmp_path / "c.db", None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        app.screen.query_one("#origins", Input).value = "pantry.test host!!"
        await pilot.press("enter")
        shown = rendered(app.screen.query_one("#crawl-error"))
        assert "'host!!' cannot be a host name" in shown
        assert not app.jobs
