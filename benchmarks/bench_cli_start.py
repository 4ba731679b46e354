"""What starting the ``agentdex`` command costs before it does anything, and the network
settings' share of it: CPU time in fresh processes.

Run from the repository root:

    .venv/bin/python benchmarks/bench_cli_start.py [--repeat 15]

It prints the median and the lowest CPU time (CPU, not wall-clock time: the machine may be
busy) of ``import agentdex.cli`` (every command's options built) and of importing the
settings alone (:mod:`agentdex.cli_network`: the options generated from the fields of
NetworkOptions), then what importing pydantic and validating one small model costs: the
price of declaring the settings as a pydantic model read at start, which the settings do not
pay (they import pydantic only when a value is validated). It names the modules of pydantic
and the network stack the start loads, and fails when the settings alone load pydantic.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pydantic", "httpx", "httpcore")

START = """
import json, sys, time
def loaded():
    return sorted({name.split('.')[0] for name in sys.modules} & set(%r))
started = time.process_time()
import agentdex.%s
took = time.process_time() - started
heavy = loaded()
started = time.process_time()
from pydantic import BaseModel, ConfigDict, Field
class Settings(BaseModel):
    model_config = ConfigDict(extra='forbid')
    concurrency: int = Field(16, ge=1, le=512)
Settings.model_validate({'concurrency': 4})
print(json.dumps({'took': took, 'loaded': heavy, 'pydantic': time.process_time() - started}))
"""


def one_start(module: str) -> dict:
    """One fresh process importing ``agentdex.<module>``: its times in seconds and what it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", START % (HEAVY, module)], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return json.loads(done.stdout)


def line(what: str, seconds: list[float]) -> str:
    times = [s * 1000 for s in seconds]
    return f"{what:32} median {statistics.median(times):6.1f} ms CPU, lowest {min(times):6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="fresh processes for each measure")
    args = parser.parse_args()
    cli = [one_start("cli") for _ in range(args.repeat)]
    settings = [one_start("cli_network") for _ in range(args.repeat)]
    print(line("import agentdex.cli", [run["took"] for run in cli]))
    print(f"{'':32} loads {cli[0]['loaded'] or 'none'} of {list(HEAVY)}")
    print(line("import agentdex.cli_network", [run["took"] for run in settings]))
    print(line("pydantic and one model, after", [run["pydantic"] for run in settings]))
    if settings[0]["loaded"]:
        sys.exit(f"the settings alone load {settings[0]['loaded']}: not the start this measures")


if __name__ == "__main__":
    main()
