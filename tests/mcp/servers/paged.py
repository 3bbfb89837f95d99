"""A low-level SDK server that lists its seven tools two per page."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import Server

NAMES = [f"tool_{i}" for i in range(7)]
SCHEMA = {"type": "object", "properties": {}}


async def list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    start = int(params.cursor) if params is not None and params.cursor else 0
    page = [
        types.Tool(name=n, description=f"number {n}", input_schema=SCHEMA)
        for n in NAMES[start : start + 2]
    ]
    more = start + 2 < len(NAMES)
    return types.ListToolsResult(tools=page, next_cursor=str(start + 2) if more else None)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = types.TextContent(type="text", text=f"called {params.name}")
    return types.CallToolResult(content=[text])


server = Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)

if __name__ == "__main__":
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
