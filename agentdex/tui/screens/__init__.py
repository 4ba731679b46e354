"""The TUI's screens, one a module: catalogue, listing, events, crawl, feedback, help, problem."""
