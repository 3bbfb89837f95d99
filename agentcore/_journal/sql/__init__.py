"""SQL journals: ``SqlJournal`` on SQLite and PostgreSQL, its schema, session index, snapshots."""
