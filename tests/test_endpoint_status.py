"""The endpoint status JSON and the SVG badge that ``agentdex serve`` publishes, as a reader
meets them: a real ``agentdex serve`` process on 127.0.0.1 over a catalogue of endpoint
probes (green, yellow, red and grey badges, and an origin named to break out of markup).

- Every status JSON it answers (and its 404) validates against the published JSON Schema,
  ``agentdex/datasette_plugin/status.schema.json`` (the federation contract test's style:
  the schema is checked, its enums follow the code, and it refuses what is not the contract).
- Headless Chromium loads each badge as an embedded image and as a document: it decodes at
  the size the SVG declares, its pixels are painted in the tone of its health, and a
  screenshot is kept (``AGENTDEX_SCREENSHOTS=DIR`` keeps them for a person to look at).
- A hostile origin name is XML character data in the badge: the browser's DOM has no element
  the name brought, and its text reads back exactly.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from importlib.resources import files
from pathlib import Path
from urllib.parse import quote

import httpx
import jsonschema
import pytest

from agentdex.crawler import auth_posture, health
from agentdex.datasette_plugin.status import COLOURS
from agentdex.db import open_db
from agentdex.db.health import save_probes
from agentdex.models import EndpointProbe
from browser import PNG, browser, shots
from test_datasette_live import CHROMIUM, served

SCHEMA = json.loads(files("agentdex.datasette_plugin").joinpath("status.schema.json").read_text("utf-8"))
HOSTILE = "a\"><svg onload=alert(1)>&amp;<title>x'.test"
# origin: the outcomes of its MCP endpoint's probes, oldest first (True up, False down)
HISTORIES = {
    "good.test": [True] * 10,
    "fair.test": [False] + [True] * 9,
    "down.test": [True] * 3 + [False] * 2,
    HOSTILE: [True] * 4,
}
# origin: (the badge's value, its tone)
BADGES = {
    "good.test": ("100.0%", "good"),
    "fair.test": ("90.0%", "fair"),
    "down.test": ("60.0% down", "bad"),
    "nowhere.test": ("unknown", "none"),
}
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run does it)"
)


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def probe(origin: str, up: bool, ms: float) -> list[EndpointProbe]:
    url = f"https://mcp.{origin}/mcp"
    state, kind = ("ok", "none") if up else ("server_error", "unknown")
    method = "MCP initialize, tools/list over streamable-http, era legacy; agentdex test"
    mcp = EndpointProbe(
        "mcp", url, state, 200 if up else 503, "", era="legacy", ms=ms, verified_by=method, auth_kind=kind
    )
    page = EndpointProbe("homepage", f"https://{origin}/", "ok", 200, "", ms=ms / 2, verified_by="GET over HTTPS")
    return [mcp, page]


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    """Each origin's probes, one an hour up to a minute ago (inside every window)."""
    path = tmp_path_factory.mktemp("status") / "agentdex.db"
    db = open_db(path)
    end = datetime.now(UTC) - timedelta(minutes=1)
    for origin, history in HISTORIES.items():
        db.execute(
            "INSERT INTO listings (origin, name, status, first_seen_at, mcp_url) VALUES (?, ?, 'listed', ?, ?)",
            [origin, origin, iso(end), f"https://mcp.{origin}/mcp"],
        )
        for i, up in enumerate(history):
            save_probes(
                db, origin, probe(origin, up, 40.0 + 10 * i), None, iso(end - timedelta(hours=len(history) - i))
            )
    db.execute(  # a listing never probed: its uptime cell is a dash
        "INSERT INTO listings (origin, name, status, first_seen_at) VALUES ('quiet.test', 'quiet.test', 'listed', ?)",
        [iso(end)],
    )
    db.conn.commit()
    db.conn.close()
    return path


def validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=cls.FORMAT_CHECKER)


# --- the schema -------------------------------------------------------------------------------------


def test_the_schemas_enums_are_the_codes_own():
    endpoint = SCHEMA["$defs"]["endpoint"]["properties"]
    assert endpoint["state"]["enum"] == list(health.STATES)
    assert endpoint["auth_kind"]["enum"] == [*auth_posture.KINDS, None]
    assert set(SCHEMA["$defs"]["endpoint"]["required"]) == set(endpoint)


def test_the_schema_refuses_what_is_not_the_contract():
    good = {
        "origin": "good.test",
        "endpoints": [
            {
                "role": "mcp",
                "url": "https://mcp.good.test/mcp",
                "state": "ok",
                "auth_kind": "none",
                "healthy": True,
                "uptime_24h": 100.0,
                "uptime_7d": 100.0,
                "uptime_30d": 100.0,
                "p50_ms": 80.0,
                "p95_ms": 130.0,
                "last_verified": "2026-12-01T00:00:00.000Z",
                "verified_by": "MCP initialize, tools/list; agentdex 0.1.0",
            }
        ],
    }
    check = validator()
    assert not list(check.iter_errors(good))
    endpoint = good["endpoints"][0]
    for wrong in (
        {"state": "up"},
        {"auth_kind": "password"},
        {"uptime_30d": 101.0},
        {"p95_ms": -1},
        {"last_verified": "yesterday"},
        {"healthy": "yes"},
        {"extra": 1},
    ):
        assert list(check.iter_errors({**good, "endpoints": [endpoint | wrong]})), wrong
    assert list(check.iter_errors({**good, "endpoints": [{k: v for k, v in endpoint.items() if k != "url"}]}))


@pytest.mark.slow
def test_every_status_json_served_validates_against_the_schema(served):
    check = validator()
    for origin in [*HISTORIES, "nowhere.test"]:
        answer = httpx.get(f"{served}/-/status/{quote(origin, safe='')}.json", timeout=30)
        assert answer.headers["content-type"].startswith("application/json")
        errors = [e.message for e in check.iter_errors(answer.json())]
        assert errors == [], (origin, errors)
        assert answer.status_code == (404 if origin == "nowhere.test" else 200)
    fair = httpx.get(f"{served}/-/status/fair.test.json", timeout=30).json()
    mcp = next(e for e in fair["endpoints"] if e["role"] == "mcp")
    assert (mcp["uptime_30d"], mcp["healthy"], mcp["auth_kind"], mcp["p95_ms"]) == (90.0, True, "none", 130.0)


# --- in a browser ----------------------------------------------------------------------------------

MEASURE = """(async () => {
    document.body.innerHTML = '';
    document.body.style.cssText = 'margin: 12px; background: #fff';
    const out = {};
    for (const [name, src] of Object.entries(%s)) {
        const img = new Image();
        img.src = src;
        img.style.cssText = 'display: block; margin: 6px 0';
        document.body.append(img);
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) painted++;
        const at = (x, y) => { const o = (y * c.width + x) * 4; return [d[o], d[o + 1], d[o + 2]]; };
        out[name] = {width: img.naturalWidth, height: img.naturalHeight, painted,
                     left: at(1, 1), right: at(c.width - 2, 1)};
    }
    return out;
})()"""


def rgb(colour: str) -> list[int]:
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


def declared_width(served: str, origin: str) -> int:
    svg = httpx.get(f"{served}/-/badge/{quote(origin, safe='')}.svg", timeout=30).text
    return int(svg.split('width="', 1)[1].split('"', 1)[0])


@pytest.mark.slow
@needs_chromium
def test_each_badge_renders_in_chromium_in_the_tone_of_its_health(served, browser, shots):
    browser.viewport(480, 200)
    browser.open(served + "/-/versions")  # a page of the server: the badges are same-origin images
    sources = {origin: f"{served}/-/badge/{origin}.svg" for origin in BADGES}
    seen = browser.evaluate(MEASURE % json.dumps(sources))
    shot = browser.screenshot(shots / "badges.png", first_screen=True)
    assert shot.read_bytes().startswith(PNG) and shot.stat().st_size > 2_000
    for origin, (_, tone) in BADGES.items():
        badge = seen[origin]
        assert (badge["width"], badge["height"]) == (declared_width(served, origin), 20), origin
        assert badge["painted"] == badge["width"] * badge["height"], origin  # no blank pixel
        assert badge["left"] == rgb("#555555") and badge["right"] == rgb(COLOURS[tone]), origin


@pytest.mark.slow
@needs_chromium
def test_a_badge_opened_as_a_document_shows_its_value(served, browser, shots):
    browser.viewport(200, 40)
    browser.navigate(f"{served}/-/badge/fair.test.svg")
    texts = browser.evaluate("[...document.querySelectorAll('text')].map(t => t.textContent)")
    assert texts == ["uptime 30d", "90.0%"]
    shot = browser.screenshot(shots / "badge-fair.png", first_screen=True)
    assert shot.read_bytes()[:8] == PNG


@pytest.mark.slow
@needs_chromium
def test_a_hostile_origin_name_is_character_data_in_the_badge(served, browser, shots):
    browser.viewport(480, 60)
    browser.navigate(f"{served}/-/badge/fair.test.svg")
    plain = browser.evaluate("[...document.querySelectorAll('*')].map(e => e.localName)")
    browser.navigate(f"{served}/-/badge/{quote(HOSTILE, safe='')}.svg")
    shot = browser.screenshot(shots / "badge-hostile.png", first_screen=True)
    assert shot.read_bytes()[:8] == PNG
    seen = browser.evaluate(
        "({elements: [...document.querySelectorAll('*')].map(e => e.localName),"
        " title: document.querySelector('title').textContent,"
        " label: document.documentElement.getAttribute('aria-label'),"
        " texts: [...document.querySelectorAll('text')].map(t => t.textContent)})"
    )
    assert seen["elements"] == plain  # nothing the name brought became an element
    assert seen["title"] == seen["label"] == f"{HOSTILE}: uptime 30d 100.0%"
    assert seen["texts"] == ["uptime 30d", "100.0%"]


@pytest.mark.slow
@needs_chromium
def test_the_status_json_reads_back_in_chromium(served, browser, shots):
    browser.viewport(900, 600)
    browser.navigate(f"{served}/-/status/down.test.json")
    shot = browser.screenshot(shots / "status-down.png", first_screen=True)
    assert shot.read_bytes()[:8] == PNG
    data = json.loads(browser.evaluate("document.body.innerText"))
    assert not list(validator().iter_errors(data))
    mcp = next(e for e in data["endpoints"] if e["role"] == "mcp")
    assert (mcp["state"], mcp["healthy"], mcp["uptime_24h"], mcp["auth_kind"]) == (
        "server_error",
        False,
        60.0,
        "unknown",
    )


LISTING_ROWS = """[...document.querySelectorAll('table.rows-and-columns tbody tr')].map(tr => {
    const cell = tr.querySelector('td.col-uptime');
    return [tr.querySelector('td.col-origin').innerText, cell.innerText, getComputedStyle(cell).color];
})"""


@pytest.mark.slow
@needs_chromium
def test_the_listings_page_has_a_compact_uptime_column(served, browser, shots):
    from agentdex.datasette_plugin import UPTIME_COLUMN

    browser.viewport(1400, 500)
    page = browser.open(served + "/agentdex/listings")
    assert page["status"] == 200 and not page["errors"]
    shot = browser.screenshot(shots / "listings-uptime.png")
    assert shot.read_bytes()[:8] == PNG
    heads = browser.evaluate(
        "[...document.querySelectorAll('table.rows-and-columns thead th')].map(t => t.dataset.column)"
    )
    assert heads[heads.index("mcp_url") + 1] == UPTIME_COLUMN
    seen = {origin: (text, colour) for origin, text, colour in browser.evaluate(LISTING_ROWS)}
    tone = {t: "rgb({}, {}, {})".format(*rgb(c)) for t, c in COLOURS.items()}
    assert seen == {
        "good.test": ("100.0%", tone["good"]),
        "fair.test": ("90.0%", tone["fair"]),
        "down.test": ("60.0% down", tone["bad"]),
        HOSTILE: ("100.0%", tone["good"]),
        "quiet.test": ("–", tone["none"]),
    }
    # Columns a user chose are theirs: no column is added to them.
    browser.open(served + "/agentdex/listings?_col=name")
    assert browser.evaluate("document.querySelectorAll('td.col-uptime').length") == 0
