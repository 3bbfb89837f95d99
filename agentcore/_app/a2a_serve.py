"""``agentcore a2a-serve``: an agent served over the A2A protocol (Agent2Agent 1.0).

::

    agentcore a2a-serve [--host 127.0.0.1] [--port 9999] [--model PROVIDER/MODEL
                        [--base-url URL]] [--journal FILE.jsonl] [--token TOKEN]
                        [--name NAME] [--description TEXT] [--url URL]

The agent card is at ``/.well-known/agent-card.json``, JSON-RPC at ``/``. Without
``--model`` the agent runs the embedded scripted model (offline). ``--journal`` keeps each
A2A context's conversation in its own lane of one JSONL file (resumed when a client
continues it after a restart); the A2A tasks are journaled beside it
(``FILE.tasks.jsonl``), so a restarted server knows them. The server binds 127.0.0.1 by
default; off loopback a bearer token is required (generated and printed when not given),
as for ``agentcore serve``. See docs/a2a.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import sys

from .._core.errors import ConfigurationError
from .._journal.journal import JsonlJournal
from .cli import add_base_url, listen, model_refused, register_command
from .serve import agent_options, agent_per_conversation, check_model
from .serve_model import DEMO_MODEL

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=9999, help="port (default 9999; 0: any free one)"
    )
    parser.add_argument("--model", help="PROVIDER/MODEL (default: the embedded model)")
    add_base_url(parser)
    parser.add_argument("--journal", help="a JSONL journal: one lane per A2A context")
    parser.add_argument(
        "--token",
        default=os.environ.get("AGENTCORE_A2A_TOKEN"),
        help="bearer token (default $AGENTCORE_A2A_TOKEN; generated off loopback)",
    )
    parser.add_argument("--name", default="agentcore", help="the agent card's name")
    parser.add_argument(
        "--description", default="An agentcore agent.", help="the agent card's description"
    )
    parser.add_argument("--url", help="the URL clients reach (default http://HOST:PORT/)")
    parser.add_argument(
        "--allow-host", metavar="NAME", action="append", default=[], help="a Host name to serve"
    )
    parser.add_argument("--delay", type=float, default=0.0, help="embedded model: s per event")


def _run(args: argparse.Namespace) -> int:
    if args.model not in (None, DEMO_MODEL):
        try:
            check_model(args.model, args.base_url)
        except ConfigurationError as exc:
            return model_refused("a2a-serve", exc)
    try:
        import uvicorn

        from .._a2a.server import a2a_app
    except ImportError as exc:
        print(
            f"agentcore a2a-serve needs its extra: pip install 'agentcore-engine[a2a]' ({exc})",
            file=sys.stderr,
        )
        return 2
    from .._serve.server import is_loopback, new_token

    token = args.token or None
    if not is_loopback(args.host) and token is None:
        token = new_token()
        print(f"agentcore a2a-serve: bearer token: {token}", file=sys.stderr)
    sock = listen("a2a-serve", args.host, args.port)
    if sock is None:
        return 2
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = args.url or f"http://{shown}:{sock.getsockname()[1]}/"
    journal = JsonlJournal(args.journal) if args.journal else None
    tasks = JsonlJournal(tasks_path(args.journal)) if args.journal else None
    options = agent_options(args.model, args.delay, args.base_url)
    hosts = (*args.allow_host, args.host)
    app = a2a_app(
        agent_per_conversation(options, journal),
        name=args.name,
        url=url,
        description=args.description,
        token=token,
        allow_hosts=hosts,
        tasks_journal=tasks,
    )
    print(f"agentcore a2a-serve: {url}", file=sys.stderr, flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    asyncio.run(server.serve(sockets=[sock]))
    for opened in (journal, tasks):
        if opened is not None:
            opened.close()
    return 0


def tasks_path(journal: str) -> pathlib.Path:
    """Where the A2A tasks of the conversations journaled in ``journal`` are kept: a
    journal beside it (``a2a.jsonl``: ``a2a.tasks.jsonl``), so the conversations' file
    stays readable by any agentcore tool."""
    path = pathlib.Path(journal)
    return path.with_name(f"{path.stem}.tasks.jsonl")


register_command("a2a-serve", "serve an agent over the A2A protocol", _configure, _run)
