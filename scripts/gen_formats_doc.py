"""Write the format lists of datasette_metadata.json from the format registry
(agentdex/formats/__init__.py), so a new format is named there without editing them (the
``listings`` columns that name formats, and the discovery documents of ``known_absences``),
the ``listings`` table's facets and the ``find_listings`` canned query from the listing
filters (agentdex/db/listing_query.py), so a new filter is a facet and a form field there.

Run ``python scripts/gen_formats_doc.py`` after adding a format; ``--check`` exits 1 when a
file is out of date instead of writing it. tests/test_docs_formats.py keeps them equal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agentdex import formats
from agentdex.db.listing_query import CANNED_QUERY, canned_query, facets
from agentdex.db.views import absence_kinds

ROOT = Path(__file__).resolve().parent.parent
METADATA_FILES = (ROOT / "datasette_metadata.json", ROOT / "agentdex" / "datasette_metadata.json")
COMMAND = "python scripts/gen_formats_doc.py"


def crawled_formats() -> tuple[str, ...]:
    """Every format a crawl reads from an origin, in registry order: the manifests at their
    well-known paths, the listing built from origin files, the discovery documents."""
    return tuple(
        name
        for name, spec in formats.REGISTRY.items()
        if spec.well_known or spec.origin_files or name in formats.VALIDATE_DISCOVERY
    )


def column_texts() -> dict[str, str]:
    """The descriptions of the ``listings`` columns that list formats, by column."""
    return {
        "format": f"The manifest format the listing comes from: {formats.choices()}; where an origin publishes "
        f"no manifest, the discovery document its listing was read from: {formats.choices(formats.LISTING_DISCOVERY)}; "
        "empty when neither was found.",
        "consistency_sources": "The documents compared (format names: "
        + ", ".join(crawled_formats())
        + ") and the live answers (live MCP tools/list), as a JSON list.",
    }


def absence_texts() -> dict[str, str]:
    """The descriptions of the ``known_absences`` columns that list formats, by column."""
    return {"kind": f"The discovery document ({', '.join(absence_kinds())}) or registry page."}


def render_metadata(text: str) -> str:
    """``text`` (a datasette_metadata.json) with its format lists derived from the registry
    and the listings facets and the listing query (first of the queries) from the listing filters."""
    metadata = json.loads(text)
    database = metadata["databases"]["agentdex"]
    others = {name: spec for name, spec in database["queries"].items() if name != CANNED_QUERY}
    database["queries"] = {CANNED_QUERY: canned_query(), **others}
    tables = database["tables"]
    tables["listings"]["columns"].update(column_texts())
    tables["listings"]["facets"] = facets()
    tables["known_absences"]["columns"].update(absence_texts())
    return json.dumps(metadata, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Write the files, or with ``--check`` report whether they are current."""
    outputs = {path: render_metadata(path.read_text("utf-8")) for path in METADATA_FILES}
    stale = [path for path, text in outputs.items() if path.read_text("utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date; run: {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote the format lists of {len(outputs)} datasette_metadata.json files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
