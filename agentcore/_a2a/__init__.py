"""A2A (Agent2Agent protocol): agents served over it, and remote agents as drivers."""
