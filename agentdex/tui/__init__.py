"""The Textual TUI (``agentdex tui``): :func:`agentdex.tui.app.run_tui` and
:func:`agentdex.tui.app.make_app`. Nothing outside this package imports Textual."""
