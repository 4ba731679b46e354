"""The Textual TUI (``agentdex tui``): :func:`agentdex.tui.app.run_tui` and
:func:`agentdex.tui.app.make_app`. Nothing outside this package imports Textual."""

import os

# Textual paints at most 60 frames a second, so the table for a keystroke waits up to a
# frame behind the echo of the letter typed; at 120 the median search keystroke in a real
# terminal went from 58 to 43 ms (benchmarks/bench_tui.py). A frame is drawn only when
# something changed, so an idle TUI costs nothing more. Textual reads this once, on import;
# a value the user set wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
