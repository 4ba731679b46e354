"""Write the catalogue schema a freshly migrated database has to tests/schema.sql.

Run it after adding a migration, review the diff, commit both:

    python scripts/dump_schema.py            # rewrite tests/schema.sql
    python scripts/dump_schema.py --check    # exit 1 when tests/schema.sql is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from sqlite_utils import Database

from agentdex.db.migrations import migrate
from agentdex.db.views import sync_views

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "tests" / "schema.sql"


def current_schema() -> str:
    """The schema of a new, fully migrated catalogue, as SQL text ending in a newline."""
    db = Database(memory=True)
    migrate(db)
    sync_views(db)  # as a writer opens it: the views built from the code's catalogues
    schema = db.schema
    db.close()
    return schema + "\n"


def main(argv: list[str]) -> int:
    schema = current_schema()
    if "--check" in argv:
        if SCHEMA_FILE.read_text(encoding="utf-8") != schema:
            print(f"{SCHEMA_FILE.name} is out of date: run `python scripts/dump_schema.py`", file=sys.stderr)
            return 1
        return 0
    SCHEMA_FILE.write_text(schema, encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
