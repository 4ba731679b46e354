"""A2A 1.0 on the crawl (issue 33, item 4): an origin serving a 0.3 and a 1.0 card side by
side (at its two well-known paths, or one card in both shapes) has them cross-checked
(``a2a_card.cross_check``), the findings stored with its card; every interface a 1.0 card
lists gets a safe GET and a health row as other endpoints do, also when the card stands
beside a manifest. Real HTTPS (the sample web)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.sampleweb import SampleWeb

pytestmark = pytest.mark.slow  # starts the sample web

ORIGINS = ["t-a2aboth.test", "t-a2adual.test", "t-endpointcard.test"]


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    db = tmp_path_factory.mktemp("a2a") / "c.db"
    with SampleWeb() as web:
        result = CliRunner().invoke(app, ["crawl", *ORIGINS, "--db", str(db), *web.cli_args()])
        assert result.exit_code == 0, result.output
        yield db, list(web.requests_log)


def rows(db: Path, sql: str, *args: object) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


def codes(db: Path, origin: str) -> list[tuple[str, str]]:
    sql = (
        "SELECT path, code FROM findings WHERE origin = ? AND format = 'a2a_card' AND code != 'unknown_key' "
        "ORDER BY code"
    )
    return rows(db, sql, origin)


def test_a_0_3_and_a_1_0_card_side_by_side_are_cross_checked(crawled):
    db, log = crawled
    assert codes(db, "t-a2aboth.test") == [("skills", "skills_differ"), ("version", "version_differs")]
    message = rows(db, "SELECT message FROM findings WHERE origin = 't-a2aboth.test' AND code = 'version_differs'")
    assert message == [("the 0.3 card's version is '1.4.0', the 1.0 card's '2.0.0'",)]
    documents = dict(rows(db, "SELECT url, kind FROM documents WHERE origin = 't-a2aboth.test'"))
    assert documents["https://t-a2aboth.test/.well-known/agent-card.json"] == "a2a_card"  # the listing's card
    assert "https://t-a2aboth.test/.well-known/agent.json" in documents  # kept for the next crawl's cross-check


def test_one_card_in_both_shapes_is_cross_checked_with_itself(crawled):
    db, log = crawled
    assert codes(db, "t-a2adual.test") == [("supportedInterfaces", "a2a_endpoint_differs")]
    # the other path was asked too (a 404: a quiet absence, no document)
    assert [r.path for r in log if r.host == "t-a2adual.test" and r.path == "/.well-known/agent.json"] == [
        "/.well-known/agent.json"
    ]
    assert rows(db, "SELECT kind FROM documents WHERE origin = 't-a2adual.test'") == [("a2a_card",)]


def test_every_1_0_interface_gets_a_health_row_checked_as_endpoints_are(crawled):
    db, log = crawled
    probes = dict(rows(db, "SELECT url, state FROM endpoint_probes WHERE role = 'a2a' AND origin = 't-a2aboth.test'"))
    assert probes == {"https://t-a2aboth.test/a2a": "ok", "https://t-a2aboth.test/a2a/rest": "ok"}
    dead = rows(db, "SELECT state FROM endpoint_probes WHERE role = 'a2a' AND url = 'https://gone.invalid/a2a'")
    assert dead == [("dead",)]  # an interface that does not resolve
    # a card beside a manifest: its interface is asked too, with a safe GET (never a message)
    beside = rows(db, "SELECT state FROM endpoint_probes WHERE role = 'a2a' AND origin = 't-endpointcard.test'")
    assert beside == [("ok",)]
    asked = {(r.method, r.path) for r in log if r.host in ("t-a2aboth.test", "t-endpointcard.test") and "a2a" in r.path}
    assert asked == {("GET", "/a2a"), ("GET", "/a2a/rest")}
