"""Presenters: sinks for the engine's outputs (logs, terminal, files, browsers, databases)."""
