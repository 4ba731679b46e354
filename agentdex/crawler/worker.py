"""A crawling process of ``crawl --processes N``: ``python -m agentdex.crawler.worker JOB_FD RESULT_FD``.

Started by :mod:`agentdex.crawler.processes`, which gives it its share of the origins
through ``JOB_FD`` and saves what it sends through ``RESULT_FD``; not a command for users.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """Crawl the share read from the first descriptor; the exit code."""
    if len(argv) != 2 or not all(arg.isdigit() for arg in argv):
        print("agentdex.crawler.worker is started by `agentdex crawl --processes N`, not by hand", file=sys.stderr)
        return 2
    from agentdex.crawler.processes import child_main

    return child_main(int(argv[0]), int(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
