"""The network settings as command-line options: each read from its field of
:class:`~agentdex.crawler.options.NetworkOptions` (flag, help, range, environment variable,
config key and default), never written out here, so a new setting is one more field there.

A command takes them with :func:`network_settings` and one parameter annotated
:class:`GivenSettings`, which stands for the generated options in its ``--help`` and
receives what was given.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from agentdex.cli_support import fail
from agentdex.config import SettingField, config_given, load_settings, setting_fields
from agentdex.crawler.options import NetworkOptions
from agentdex.errors import InputError

CONFIG_HELP = (
    "Network options not given as flags are read from AGENTDEX_* environment variables, then from "
    "the TOML file $AGENTDEX_CONFIG (default ~/.config/agentdex/config.toml, under $XDG_CONFIG_HOME "
    "when set)."
)

Command = TypeVar("Command", bound=Callable[..., Any])


@dataclass(frozen=True)
class GivenSettings:
    """The settings a command was given as flags or environment variables, by field name."""

    model: type[NetworkOptions] = NetworkOptions
    values: Mapping[str, Any] = field(default_factory=dict)

    def configured(self) -> bool:
        """Whether any setting is given, by flag, environment or config file."""
        try:
            return bool(self.values) or config_given()
        except InputError as exc:
            fail(str(exc), 2)

    def options(self, **others: Any) -> NetworkOptions:
        """The options: flag (or environment variable), else config file, else default;
        ``others`` set the fields that are no setting. A refused value is an exit 2."""
        try:
            return load_settings(self.model, self.values, **others)
        except InputError as exc:
            fail(str(exc), 2)


NOT_GIVEN = GivenSettings()  # the default of a command's GivenSettings parameter: typer never sees it


def network_settings(
    *, model: type[NetworkOptions] = NetworkOptions, exclude: Collection[str] = ()
) -> Callable[[Command], Command]:
    """Give a command an option for each setting of ``model`` (but the fields named in
    ``exclude``), in place of its :class:`GivenSettings` parameter, which receives them."""

    def decorate(command: Command) -> Command:
        signature = inspect.signature(command, eval_str=True)
        [holder] = [p for p in signature.parameters.values() if p.annotation is GivenSettings]
        fields = [f for f in setting_fields(model) if f.name not in exclude]
        if unknown := set(exclude) - {f.name for f in setting_fields(model)}:
            raise TypeError(f"{command.__name__} excludes {sorted(unknown)}, which are no settings of {model.__name__}")
        params = [new for p in signature.parameters.values() for new in (map(_option, fields) if p is holder else [p])]

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            given = {f.name: value for f in fields if (value := kwargs.pop(f.name)) not in (None, [])}
            return command(**kwargs, **{holder.name: GivenSettings(model, given)})

        run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return typing.cast(Command, run)

    return decorate


def _option(field: SettingField) -> inspect.Parameter:
    """The typer option of a setting: ``None`` when not given, so that the config file and
    the default come next."""
    kind = field.type
    python = list[str] if typing.get_origin(kind) is list else kind if kind in (bool, int, float, Path) else str
    option = typer.Option(
        f"{field.flag}/--no-{field.flag[2:]}" if python is bool else field.flag,
        metavar=field.setting.metavar,
        envvar=field.env,
        help=_help(field),
        min=field.setting.ge,
        max=field.setting.le,
    )
    return inspect.Parameter(
        field.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=Annotated[python | None, option]
    )


def _help(field: SettingField) -> str:
    default = field.default_words()
    return f"{field.setting.help}; else config key {field.key}" + (f"; default {default}" if default else "") + "."
