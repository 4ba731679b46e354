"""One declaration a network setting (issue 34): a field of NetworkOptions with its Setting is
its flag, help, range, environment variable and config key, read by every command that goes
to the web and by the crawler. A made-up setting, added to a subclass, is seen everywhere."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from dataclasses import dataclass
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.cli_network import NOT_GIVEN, GivenSettings, network_settings
from agentdex.cli_support import plain_help
from agentdex.config import Setting, setting_fields
from agentdex.crawler.options import NetworkOptions, Shard
from agentdex.errors import InputError


@dataclass
class Tuned(NetworkOptions):
    """The crawler's options with one setting more, declared as a real one would be."""

    retries: Annotated[int, Setting("Times a failed request is asked again", metavar="N", ge=0, le=9)] = 2


tuned = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False)  # as agentdex.cli.app


@tuned.command()
@network_settings(model=Tuned)
def show(settings: GivenSettings = NOT_GIVEN) -> None:
    """Print the options a command built."""
    net = settings.options()
    typer.echo(json.dumps({"retries": net.retries, "concurrency": net.concurrency, "kind": type(net).__name__}))


plain_help(tuned)


def run(*args: str, config: str | None = None, tmp_path=None, **env: str):
    """``show`` with ``args``, the environment ``env`` and, given ``config``, that config file."""
    environ = {"AGENTDEX_CONFIG": "", "XDG_CONFIG_HOME": "", **env}
    if config is not None:
        path = tmp_path / "config.toml"
        path.write_text(config, "utf-8")
        environ["AGENTDEX_CONFIG"] = str(path)
    return CliRunner().invoke(tuned, list(args), env=environ)


def test_a_made_up_setting_is_an_option_with_its_help_range_and_variable():
    text = CliRunner().invoke(tuned, ["--help"], terminal_width=200, env={"COLUMNS": "200"}).stdout
    line = next(line for line in text.splitlines() if "--retries" in line)
    assert "--retries N" in line and "Times a failed request is asked again; else config key retries" in line
    assert "default 2." in line and "[env var: AGENTDEX_RETRIES; 0<=x<=9]" in line
    assert "--concurrency N" in text  # the model's own settings come with it


def test_a_made_up_setting_is_read_flag_over_environment_over_file_over_default(tmp_path):
    def retries(*args: str, **kw) -> int:
        result = run(*args, tmp_path=tmp_path, **kw)
        assert result.exit_code == 0, result.output
        said = json.loads(result.stdout)
        assert said["kind"] == "Tuned"
        return said["retries"]

    assert retries() == 2
    assert retries(config="retries = 3\n") == 3
    assert retries(config="retries = 3\n", AGENTDEX_RETRIES="4") == 4
    assert retries("--retries", "5", config="retries = 3\n", AGENTDEX_RETRIES="4") == 5


def test_a_made_up_setting_out_of_its_range_is_one_sentence_wherever_it_is_written(tmp_path):
    flag = run("--retries", "12", tmp_path=tmp_path)
    assert (
        flag.exit_code == 2
        and "Invalid value for '--retries'" in flag.output
        and "less than or equal to 9" in flag.output
    )
    variable = run(tmp_path=tmp_path, AGENTDEX_RETRIES="12")
    assert variable.exit_code == 2 and "AGENTDEX_RETRIES" in variable.output
    file = run(config="retries = 12\n", tmp_path=tmp_path)
    assert file.exit_code == 2 and "Traceback" not in file.output
    assert f"config file {tmp_path / 'config.toml'}, key 'retries': Input should be less than or equal to 9" in (
        file.stderr
    )


def test_a_made_up_setting_reaches_the_crawlers_options(tmp_path, monkeypatch):
    (tmp_path / "config.toml").write_text("retries = 7\nconcurrency = 3\n", "utf-8")
    monkeypatch.setenv("AGENTDEX_CONFIG", str(tmp_path / "config.toml"))
    net = GivenSettings(Tuned, {}).options(origin_budget=9.0)
    assert isinstance(net, NetworkOptions) and (net.retries, net.concurrency, net.origin_budget) == (7, 3, 9.0)
    # as a crawl with --processes hands it to its children
    assert pickle.loads(pickle.dumps(net)).retries == 7
    assert net.fetcher().concurrency == 3


# -- the real settings ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["crawl", "verify", "seeds", "tui"])
def test_every_setting_is_an_option_of_every_command_that_goes_to_the_web(command):
    text = CliRunner().invoke(app, [command, "--help"], terminal_width=300, env={"COLUMNS": "300"}).stdout
    for field in setting_fields(NetworkOptions):
        if field.name == "shard" and command != "crawl":
            assert "--shard" not in text
            continue
        assert field.flag in text and field.env in text and f"config key {field.key}" in text, field.name


def test_a_dns_server_is_refused_by_one_check_wherever_it_is_written(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('dns_server = "nowhere"\n', "utf-8")
    why = "expected ADDR:PORT (a port of ASCII digits, 1-65535), e.g. 127.0.0.1:5353"
    for args, env in (
        (["--dns-server", "nowhere"], {}),
        ([], {"AGENTDEX_DNS_SERVER": "nowhere"}),
        ([], {"AGENTDEX_CONFIG": str(config)}),
    ):
        result = CliRunner().invoke(
            app, ["crawl", "example.com", "--db", str(tmp_path / "c.db"), *args], env={"AGENTDEX_CONFIG": "", **env}
        )
        assert result.exit_code == 2 and why in result.stderr, (args, env, result.output)
        assert len(result.stderr.strip().splitlines()) == 1
    with pytest.raises(InputError, match="expected ADDR:PORT"):
        NetworkOptions(dns_server="nowhere")
    assert not (tmp_path / "c.db").exists()


def test_a_shard_comes_from_the_environment_too(tmp_path, monkeypatch):
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "2")
    monkeypatch.setenv("AGENTDEX_CONFIG", "")
    monkeypatch.setenv("AGENTDEX_SHARD", "auto/4")
    assert GivenSettings(NetworkOptions, {}).options().shard is None  # the variable is the CLI's to read
    refused = CliRunner().invoke(
        app, ["crawl", "example.com", "--db", str(tmp_path / "c.db")], env={"AGENTDEX_SHARD": "1/0"}
    )
    assert refused.exit_code == 2 and "--shard 1/0: the count must be from 1" in refused.stderr
    (tmp_path / "config.toml").write_text('shard = "auto/4"\n', "utf-8")
    monkeypatch.setenv("AGENTDEX_CONFIG", str(tmp_path / "config.toml"))
    assert GivenSettings(NetworkOptions, {}).options().shard == Shard(2, 4)


@pytest.mark.slow
def test_the_settings_import_neither_pydantic_nor_the_network_stack():
    """The options built from the settings cost ``agentdex tui``'s first paint no pydantic:
    it is imported when a value is validated."""
    for module in ("agentdex.cli_network", "agentdex.cli"):  # the settings, then every command's imports
        code = f"import sys, {module}; print({{m.split('.')[0] for m in sys.modules}} & {{'pydantic', 'httpx'}})"
        found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert found.strip() == "set()", module
