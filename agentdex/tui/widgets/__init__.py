"""Reusable TUI widgets, each with its own DEFAULT_CSS, and the builders of what they show."""
