"""_sessions: journals and sessions in SQLite and PostgreSQL; see docs/sessions.md."""
