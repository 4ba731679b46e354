"""Settings declared once, and the config file that sets them.

A setting is a field of a settings model (a dataclass: :class:`agentdex.crawler.options.NetworkOptions`)
annotated with a :class:`Setting`: its help, its range, how a written value becomes the field's
type and what it refuses. Everything else is read from that field: its config key (the field's
name, or ``Setting.key``), its flag (``--connect-to``), its environment variable
(``AGENTDEX_CONNECT_TO``), its default; the CLI builds its options from them
(:mod:`agentdex.cli_network`), and the config file is validated against them (pydantic, any
other key refused). Precedence: flag > environment > this file > default (flags and
environment variables are read by the CLI).

The file: ``$AGENTDEX_CONFIG``, else ``$XDG_CONFIG_HOME/agentdex/config.toml``
(``~/.config/agentdex/config.toml``)::

    ca_bundle = "certs/lab-ca.pem"        # relative to the file's folder
    connect_to = ["*.test:127.0.0.1:8443"] # or one string, separated by spaces or commas
    dns_server = "127.0.0.1:5353"
    registry = "https://registry.example"
    concurrency = 32
    allow_private = true
    timeout = 20.0

Nothing here imports pydantic until a value is validated (about 55 ms of CPU:
``benchmarks/bench_cli_start.py``), so building the options costs a command given no setting
(``agentdex tui``'s first paint) no pydantic.
"""

from __future__ import annotations

import dataclasses
import os
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from agentdex.errors import InputError, pydantic_words

CONFIG_ENV = "AGENTDEX_CONFIG"
CONFIG_BYTES = 64 * 1024  # the file holds a few keys; a --connect-to list of a thousand rules fits
ENV_PREFIX = "AGENTDEX_"

Model = TypeVar("Model")


@dataclass(frozen=True)
class Setting:
    """What a field of a settings model means to a user, as ``Annotated`` metadata.

    ``parse`` turns a value as written (a flag's or a variable's string, the file's value)
    into the field's type, and leaves one of that type as it is; ``check`` refuses a value of
    the field's type (:class:`InputError`, one sentence) or returns it normalised. Both run
    wherever the value comes from: a flag, the environment, the file or Python.
    """

    help: str
    metavar: str | None = None
    key: str | None = None  # the config key, flag and variable name, when not the field's name
    ge: float | None = None
    le: float | None = None
    parse: Callable[[Any], Any] | None = None
    check: Callable[[Any], Any] | None = None
    default_text: str | None = None  # the help's "default ..." when the value does not say it

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        """The field's pydantic schema: its type within ``ge``/``le``, ``parse`` before and
        ``check`` after (pydantic's hook, called only when a value is validated)."""
        from pydantic import AfterValidator, BeforeValidator, Field

        meta: list[Any] = [Field(ge=self.ge, le=self.le)]
        if self.parse is not None:
            meta.append(BeforeValidator(_as_value_error(self.parse)))
        if self.check is not None:
            meta.append(AfterValidator(_as_value_error(self.check)))
        return handler.generate_schema(Annotated[(source, *meta)])


def _as_value_error(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``function`` with its :class:`InputError` as the ``ValueError`` pydantic reports."""

    def run(value: Any) -> Any:
        try:
            return function(value)
        except InputError as exc:
            raise ValueError(str(exc)) from exc

    return run


@dataclass(frozen=True)
class SettingField:
    """One setting of a model, with what the CLI and the file read from it."""

    name: str  # the attribute
    setting: Setting
    annotation: Any  # the field's whole type, Annotated with its Setting
    default: Any

    @property
    def key(self) -> str:
        """The config file's key (``timeout``)."""
        return self.setting.key or self.name

    @property
    def flag(self) -> str:
        """The command-line flag (``--timeout``)."""
        return "--" + self.key.replace("_", "-")

    @property
    def env(self) -> str:
        """The environment variable (``AGENTDEX_TIMEOUT``)."""
        return ENV_PREFIX + self.key.upper()

    @property
    def type(self) -> Any:
        """The field's type without ``None`` and metadata: ``int``, ``Path``, ``list[...]``."""
        base = typing.get_args(self.annotation)[0]
        kinds = [t for t in typing.get_args(base) if t is not type(None)] if _is_optional(base) else [base]
        return kinds[0] if len(kinds) == 1 else base

    def default_words(self) -> str | None:
        """The default as the help says it, or ``None`` when there is nothing to say."""
        if self.setting.default_text is not None:
            return self.setting.default_text
        if isinstance(self.default, bool):
            return "yes" if self.default else "no"
        if self.default is None or self.default == []:
            return None
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)


def _is_optional(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


_FIELDS: dict[type, tuple[SettingField, ...]] = {}  # by model: read once a process


def setting_fields(model: type) -> tuple[SettingField, ...]:
    """The fields of ``model`` (a dataclass) that carry a :class:`Setting`, in order."""
    if model not in _FIELDS:
        _FIELDS[model] = _read_fields(model)
    return _FIELDS[model]


def _read_fields(model: type) -> tuple[SettingField, ...]:
    hints = typing.get_type_hints(model, include_extras=True)
    found = []
    for field in dataclasses.fields(model):
        settings = [m for m in getattr(hints[field.name], "__metadata__", ()) if isinstance(m, Setting)]
        if settings:
            default = field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
            found.append(SettingField(field.name, settings[0], hints[field.name], default))
    return tuple(found)


def check_settings(obj: Any) -> None:
    """Parse and check every setting of ``obj`` in place (a model's ``__post_init__``).

    :raises InputError: a value its setting refuses, said as of its flag
    """
    for field in setting_fields(type(obj)):
        value = getattr(obj, field.name)
        if value is None:
            continue
        try:
            for step in (field.setting.parse, field.setting.check):
                value = value if step is None else step(value)
        except InputError as exc:
            said = str(exc)
            raise InputError(said if said.startswith("--") else f"{field.flag}: {said}") from exc
        setattr(obj, field.name, value)


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


def _read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML, read under budgets: at most ``CONFIG_BYTES`` (read no further), nested
    no deeper than Python's parser can go (``tomllib`` recurses once a level)."""
    import tomllib  # when there is a file: a start without one does not load the parser

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


def config_given(env: Mapping[str, str] | None = None) -> bool:
    """Whether a config file sets anything (read, not yet validated: no pydantic).

    :raises InputError: the file named cannot be read or is not TOML
    """
    path = config_path(env)
    return path is not None and bool(_read_toml(path))


def _file_model(model: type) -> Any:
    """The pydantic model of ``model``'s settings in a file: one field a key, no other key
    (built from the fields when a file is read, once a process)."""
    from pydantic import ConfigDict, create_model

    if model not in _FILE_MODELS:
        fields: dict[str, Any] = {f.key: (f.annotation, None) for f in setting_fields(model)}
        _FILE_MODELS[model] = create_model(f"{model.__name__}File", __config__=ConfigDict(extra="forbid"), **fields)
    return _FILE_MODELS[model]


_FILE_MODELS: dict[type, Any] = {}


def read_config(model: type, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings of ``model`` the config file sets, by field name, validated (a relative
    path taken from the file's folder); ``{}`` without a file.

    :raises InputError: the file cannot be read, is not TOML, or a key is unknown or its value
        refused (one sentence naming the file and the key)
    """
    from pydantic import ValidationError

    path = config_path(env)
    if path is None:
        return {}
    data = _read_toml(path)
    fields = {f.key: f for f in setting_fields(model)}
    for key, value in data.items():
        if key in fields and fields[key].type is Path and isinstance(value, str):
            data[key] = str(path.parent / Path(value).expanduser())
    try:
        read = _file_model(model).model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InputError(f"config file {path}, key {key!r}: {pydantic_words(first['msg'])}") from exc
    return {fields[key].name: getattr(read, key) for key in read.model_fields_set}


def load_settings(
    model: type[Model], given: Mapping[str, Any], env: Mapping[str, str] | None = None, **others: Any
) -> Model:
    """A ``model`` with each setting from ``given`` (flags and environment variables, by field
    name), else the config file, else its default; ``others`` set fields that are no setting.

    :raises InputError: the file's reasons (:func:`read_config`), or a given value its setting
        refuses
    """
    return model(**{**read_config(model, env), **given, **others})
