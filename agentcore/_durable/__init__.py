"""_durable: agents as DBOS workflows on PostgreSQL; see docs/durable.md."""
