"""`agentdex tools score`: TDQS's scored rubric through a model endpoint the user names, run by
the reference implementation (tdqs). The endpoint is a real OpenAI-compatible HTTP server on
loopback that answers the rubric's two prompts (the tool and the tool set) with fixed scores and
writes down what it was asked, so a test sees every model call agentdex made and that the lint
never made one."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import tdqs
from typer.testing import CliRunner

from agentdex.cli import app

pytestmark = pytest.mark.slow  # a model endpoint listening on loopback

TOOLS = {
    "tools": [
        {
            "name": "search",
            "description": "Search the catalogue by keyword; returns at most 20 items.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Words."}}},
            "annotations": {"readOnlyHint": True},
        },
        {"name": "get_item", "description": "Return one item by its id.", "inputSchema": {"type": "object"}},
    ]
}


def _justified(keys: tuple[str, ...], score: int) -> dict:
    return {key: {"score": score, "justification": f"{key} is clear."} for key in keys}


TOOL_ANSWER = {
    "annotation_contradiction": False,
    "scores": _justified(tuple(d.key for d in tdqs.TOOL_DIMENSIONS), 4),
    "summary": "Clear enough.",
}
SET_ANSWER = {
    "scores": _justified(tuple(d.key for d in tdqs.COHERENCE_DIMENSIONS), 5),
    "shadowing_risks": [],
    "summary": "A coherent set.",
}


class Model(BaseHTTPRequestHandler):
    asked: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Model.asked.append({"path": self.path, "auth": self.headers.get("authorization"), "body": body})
        system = body["messages"][0]["content"]
        answer = SET_ANSWER if system == tdqs.SERVER_COHERENCE_SYSTEM_PROMPT else TOOL_ANSWER
        reply = json.dumps({"choices": [{"message": {"content": json.dumps(answer)}}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model() -> Iterator[str]:
    Model.asked = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Model)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    return path


def test_score_asks_the_named_endpoint_once_a_tool_and_once_for_the_set(model, tmp_path, monkeypatch):
    monkeypatch.setenv("TDQS_API_KEY", "k-test")
    result = CliRunner().invoke(
        app, ["tools", "score", str(tools_file(tmp_path)), "--endpoint", model, "--model", "m1", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(t["name"], t["tdqs"], t["tier"]) for t in report["tools"]] == [
        ("search", 4.0, "A"),
        ("get_item", 4.0, "A"),
    ]
    assert report["serverScore"]["overallTier"] and report["model"] == "m1" and report["specVersion"] == "1.2"
    assert len(Model.asked) == 3  # two tools and the set, nothing more
    assert {a["path"] for a in Model.asked} == {"/v1/chat/completions"}
    assert {a["auth"] for a in Model.asked} == {"Bearer k-test"} and {a["body"]["model"] for a in Model.asked} == {"m1"}
    text = CliRunner().invoke(app, ["tools", "score", str(tools_file(tmp_path)), "--endpoint", model, "--model", "m1"])
    assert "search  4.0 (A)" in text.stdout and "server: " in text.stdout


def test_lint_never_calls_a_model(model, tmp_path):
    result = CliRunner().invoke(app, ["tools", "lint", str(tools_file(tmp_path))])
    assert result.exit_code == 0 and Model.asked == []


def test_no_key_and_an_endpoint_that_does_not_answer_are_one_line_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("TDQS_API_KEY", raising=False)
    args = ["tools", "score", str(tools_file(tmp_path)), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m1"]
    unset = CliRunner().invoke(app, args)
    assert unset.exit_code == 2 and "TDQS_API_KEY" in unset.output
    monkeypatch.setenv("TDQS_API_KEY", "k-test")
    result = CliRunner().invoke(
        app, ["tools", "score", str(tools_file(tmp_path)), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m1"]
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith("agentdex: ") and len(result.output.strip().splitlines()) == 1


def test_score_of_a_catalogued_origin_sends_the_tools_its_server_listed(model, tmp_path, monkeypatch):
    from agentdex.db import save_origin
    from agentdex.formats._discovery import tool_from_mcp
    from db_records import ORIGIN, new_catalogue, pantry_crawl

    monkeypatch.setenv("TDQS_API_KEY", "k-test")
    path = tmp_path / "c.db"
    db = new_catalogue(path)
    save_origin(db, pantry_crawl(mcp_tools=[tool_from_mcp(t, source="mcp") for t in TOOLS["tools"]]), None)
    args = ["tools", "score", ORIGIN, "--db", str(path), "--endpoint", model, "--model", "m1", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert [t["name"] for t in json.loads(result.stdout)["tools"]] == ["search", "get_item"]
    prompts = " ".join(a["body"]["messages"][1]["content"] for a in Model.asked)
    assert "Search the catalogue by keyword" in prompts and "Return one item by its id." in prompts
