"""Sub-agents: agent definitions, their registry, spawning, and programmatic steps."""
