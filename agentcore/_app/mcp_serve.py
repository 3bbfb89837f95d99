"""``agentcore mcp-serve``: an agent served to MCP clients (Claude Desktop, IDEs, agents).

::

    agentcore mcp-serve [--transport stdio|http] [--host 127.0.0.1] [--port 8765]
                        [--model PROVIDER/MODEL [--base-url URL]] [--journal FILE.jsonl]
                        [--expose-tools] [--token TOKEN] [--name NAME] [--tool-name ask]

The agent is one MCP tool (``ask``: a prompt in, the answer out, the streamed text as
progress notifications); ``--expose-tools`` serves the agent's own tools too. Without
``--model`` the agent runs the embedded scripted model (offline). ``--journal`` keeps
every MCP client session's conversation in its own lane of one JSONL file. Over HTTP the
server binds 127.0.0.1 by default; off loopback a bearer token is required (generated and
printed on stderr when not given). See docs/mcp-server.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable

from .._core.errors import ConfigurationError
from .._journal.journal import JsonlJournal
from .cli import add_base_url, listen, model_refused, register_command
from .serve import agent_options, agent_per_conversation, check_model
from .serve_model import DEMO_MODEL

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http"
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind")
    parser.add_argument("--port", type=int, default=8765, help="HTTP: port (0: any free one)")
    parser.add_argument("--model", help="PROVIDER/MODEL (default: the embedded model)")
    add_base_url(parser)
    parser.add_argument("--journal", help="a JSONL journal: one lane per MCP client session")
    parser.add_argument("--expose-tools", action="store_true", help="serve the agent's tools too")
    parser.add_argument(
        "--token",
        default=os.environ.get("AGENTCORE_MCP_TOKEN"),
        help="HTTP: bearer token (default $AGENTCORE_MCP_TOKEN; generated off loopback)",
    )
    parser.add_argument("--name", default="agentcore", help="the server's name")
    parser.add_argument("--tool-name", default="ask", help="the agent tool's name")
    parser.add_argument("--delay", type=float, default=0.0, help="embedded model: s per event")


def _run(args: argparse.Namespace) -> int:
    if args.model not in (None, DEMO_MODEL):
        try:
            check_model(args.model, args.base_url)
        except ConfigurationError as exc:
            return model_refused("mcp-serve", exc)
    from .._mcp.serving import AgentMCPServer
    from .._serve.server import is_loopback, new_token

    options = agent_options(args.model, args.delay, args.base_url)
    journal = JsonlJournal(args.journal) if args.journal else None
    tools = list(options(None).get("tools", ())) if args.expose_tools else []
    make = agent_per_conversation(options, journal)
    server = AgentMCPServer(make, name=args.name, tool_name=args.tool_name, tools=tools)
    import anyio

    async def serving(run: Callable[[], Awaitable[None]]) -> None:
        try:
            await run()
        finally:
            await server.aclose()
            if journal is not None:
                journal.close()

    if args.transport == "stdio":
        anyio.run(serving, server.run_stdio)
        return 0
    import uvicorn

    token = args.token or None
    if not is_loopback(args.host) and token is None:
        token = new_token()
        print(f"agentcore mcp-serve: bearer token: {token}", file=sys.stderr)
    sock = listen("mcp-serve", args.host, args.port)
    if sock is None:
        if journal is not None:
            journal.close()
        return 2
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"agentcore mcp-serve: http://{shown}:{port}/mcp", file=sys.stderr, flush=True)
    app = server.http_app(token=token, host=args.host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    anyio.run(serving, lambda: uvicorn.Server(config).serve(sockets=[sock]))
    return 0


register_command(
    "mcp-serve", "serve an agent to MCP clients (stdio or streamable HTTP)", _configure, _run
)
