"""``agentdex metadata``: the Datasette metadata for a catalogue of any file name.

Datasette keys metadata by database name, which it takes from the file name, so the
shipped ``datasette_metadata.json`` (keyed ``agentdex``) applies only to ``agentdex.db``.
This command writes the same metadata keyed for the catalogue given. Registered on
:data:`agentdex.cli.app` as :mod:`agentdex.cli_catalogue`'s commands are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentdex.cli_support import DbOpt, db_path, fail
from agentdex.errors import DatabaseError

commands = typer.Typer()


@commands.command()
def metadata(
    named: Annotated[
        Path | None,
        typer.Argument(metavar="DB", help="The catalogue file, as --db names it (kept for earlier scripts)."),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write to this file instead of printing.")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Print the Datasette metadata for the catalogue (then: datasette DB --metadata FILE).
    The catalogue is --db, as for every other command."""
    from agentdex.serve import database_name, metadata_for

    if named is not None and db is not None and named != db:
        fail(f"two catalogues named: {named} and --db {db}; give one", 2)
    path = db_path(db or named)
    if not path.is_file():
        fail(f"no catalogue at {path}; give the file Datasette will serve", 2)
    try:
        text = metadata_for(path)
    except DatabaseError as exc:
        fail(str(exc), 2)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}", 2)
    typer.echo(
        f"wrote {output}: metadata for the database {database_name(path)!r}; run: datasette {path} --metadata {output}"
    )
