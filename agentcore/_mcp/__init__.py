"""MCP client: tools, resources, prompts and sampling from Model Context Protocol servers.

Shell code on the official ``mcp`` SDK (the ``mcp`` extra). Public names are re-exported
from ``agentcore.mcp``; see docs/mcp.md.
"""
