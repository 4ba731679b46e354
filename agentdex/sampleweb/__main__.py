"""``python -m agentdex.sampleweb [--synthetic N] [--port P] [--root DIR]``: serve the
sample web until Ctrl-C and print the arguments agentdex needs to reach it."""

from __future__ import annotations

import argparse

from agentdex.sampleweb.server import run_forever


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve."""
    parser = argparse.ArgumentParser(prog="python -m agentdex.sampleweb", description=__doc__)
    parser.add_argument("--synthetic", type=int, default=0, metavar="N", help="also serve N generated origins")
    parser.add_argument("--port", type=int, default=0, help="HTTPS port (default: a free one)")
    parser.add_argument("--root", default=None, help="a folder in the web/ layout instead of the bundled one")
    args = parser.parse_args(argv)
    run_forever(synthetic=args.synthetic, port=args.port, print_fn=lambda line: print(line, flush=True), root=args.root)


if __name__ == "__main__":
    main()
