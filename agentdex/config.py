"""The network options a user would otherwise retype on every ``crawl``, ``verify`` and
``tui``, from a TOML file: ``$AGENTDEX_CONFIG``, else ``$XDG_CONFIG_HOME/agentdex/config.toml``
(``~/.config/agentdex/config.toml``). Flags and environment variables (read by the CLI)
come first: flag > environment > this file > default.

    ca_bundle = "certs/lab-ca.pem"        # relative to the file's folder
    connect_to = ["*.test:127.0.0.1:8443"] # or one string, separated by spaces or commas
    dns_server = "127.0.0.1:5353"
    registry = "https://registry.example"
    concurrency = 32
    allow_private = true
    timeout = 20.0
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentdex.errors import InputError, pydantic_words
from agentdex.headers import port_number

if TYPE_CHECKING:
    from pydantic import BaseModel

CONFIG_ENV = "AGENTDEX_CONFIG"
CONFIG_BYTES = 64 * 1024  # the file holds seven keys; a --connect-to list of a thousand rules fits


def split_list(text: str) -> list[str]:
    """``"a:1:2, b:3:4 c:5:6"`` -> three items: a list in one string, as in an
    environment variable, separated by whitespace or commas."""
    return [part for part in re.split(r"[\s,]+", text) if part]


def config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The config file in use: ``$AGENTDEX_CONFIG`` (which must exist), else the XDG one
    when it exists, else ``None``."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        path = Path(env[CONFIG_ENV]).expanduser()
        if not path.is_file():
            raise InputError(f"${CONFIG_ENV} names {path}, which is not a file")
        return path
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")
    path = base / "agentdex" / "config.toml"
    return path if path.is_file() else None


@cache
def config_model() -> type[BaseModel]:
    """The pydantic model of the file, built on first use: importing pydantic takes about
    0.1 s, which a command run without a config file (``agentdex tui``'s first paint) does
    not pay."""
    from pydantic import BaseModel, ConfigDict, Field, field_validator

    class NetworkConfig(BaseModel):
        """The keys a config file may set (any other key is a mistake worth a message)."""

        model_config = ConfigDict(extra="forbid")

        ca_bundle: Path | None = None
        connect_to: list[str] = Field(default_factory=list)
        dns_server: str | None = None
        registry: str | None = None
        concurrency: int | None = Field(default=None, ge=1, le=512)
        allow_private: bool | None = None
        timeout: float | None = Field(default=None, ge=0.5, le=600)

        @field_validator("connect_to", mode="before")
        @classmethod
        def _split(cls, value: Any) -> Any:
            return split_list(value) if isinstance(value, str) else value

        @field_validator("dns_server")
        @classmethod
        def _addr_port(cls, value: str | None) -> str | None:
            if value is not None and (":" not in value or port_number(value.rpartition(":")[2]) is None):
                raise ValueError("expected ADDR:PORT (a port of ASCII digits, 1-65535), e.g. 127.0.0.1:5353")
            return value

    return NetworkConfig


def _read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML, read under budgets: at most ``CONFIG_BYTES`` (read no further), nested
    no deeper than Python's parser can go (``tomllib`` recurses once a level)."""
    try:
        with path.open("rb") as fh:
            data = fh.read(CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(f"config file {path} cannot be read: {exc.strerror or exc}") from exc
    if len(data) > CONFIG_BYTES:
        raise InputError(f"config file {path} is over {CONFIG_BYTES:,} bytes; a config file is a few lines")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"config file {path} cannot be read as TOML: {exc}") from exc
    except RecursionError as exc:
        raise InputError(f"config file {path} nests arrays or tables deeper than agentdex reads") from exc


def load_config(env: Mapping[str, str] | None = None) -> Any:
    """The config file's settings as a :func:`config_model` (all unset when there is none).

    :raises InputError: the file cannot be read, is not TOML, or a key is unknown or of
        the wrong type (one sentence naming the file and the key)
    """
    from pydantic import ValidationError

    path = config_path(env)
    if path is None:
        return config_model()()
    data = _read_toml(path)
    try:
        config: Any = config_model().model_validate(data)  # a NetworkConfig (built on first use)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InputError(f"config file {path}, key {key!r}: {pydantic_words(first['msg'])}") from exc
    if config.ca_bundle is not None and not config.ca_bundle.is_absolute():
        config.ca_bundle = path.parent / config.ca_bundle.expanduser()
    return config
