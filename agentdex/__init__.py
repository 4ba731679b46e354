"""agentdex: a local, SQLite-first catalogue of agent apps."""

__version__ = "0.1.0"
