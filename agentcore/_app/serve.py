"""``agentcore serve``: agents over HTTP with a web page, SSE, AG-UI and Vercel streams.

::

    agentcore serve [--host 127.0.0.1] [--port 8000] [--model PROVIDER/MODEL [--base-url URL]]
                    [--journal-dir DIR] [--token TOKEN] [--allow-origin ORIGIN ...]
                    [--allow-host NAME ...] [--database-url URL [--definition NAME]]
                    [--a2a [--a2a-url URL]]

Without ``--model`` agents run the embedded scripted model, so it works on a fresh
machine, offline; a ``--model`` that cannot run (its key missing, an unknown provider)
stops the command before it serves, as ``chat`` and ``code`` do. With
``--database-url``, the agents are durable: ``agentcore worker`` processes on that
database run them, each new agent runs definition ``--definition`` (or the ``model`` its
creation names), and every agent the database holds is served. Off loopback a bearer
token is required (generated and printed when not given); a frontend served from another
origin needs ``--allow-origin``. With ``--a2a`` the same server serves its agents over A2A
at ``/a2a/`` (docs/a2a.md). See docs/serve.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .._core.errors import ConfigurationError
from .._edges.driver import Driver
from .._journal.journal import Journal
from .._runtime.agent import Agent
from .cli import add_base_url, listen, model_at, model_refused, register_command
from .serve_model import DEMO_AGENT, DEMO_MODEL, demo_options, demo_registry

__all__ = ["agent_options", "agent_per_conversation", "check_model", "tree_options"]


def agent_options(default: str | None, delay: float, base_url: str | None = None) -> Any:
    """``ServeConfig.agent_options``: a named model resolves through the driver registry
    (at ``base_url`` when given) when its agent is created, so a model that cannot run
    (no key, an unknown provider) is refused then (``ConfigurationError``), never in the
    middle of a run; none (or the demo's name) is the embedded scripted model."""

    def options(model: str | None) -> Mapping[str, Any]:
        chosen = model or default
        if chosen is None or chosen == DEMO_MODEL:
            return demo_options(delay)
        built = model_at(chosen, base_url)  # the agent owns it: it came from its factory

        def driver(name: str) -> Driver:
            return built if name == chosen else model_at(name, base_url)

        return {"model": chosen, "driver_factory": driver}

    return options


def agent_per_conversation(
    options: Callable[[str | None], Mapping[str, Any]], journal: Journal | None
) -> Callable[[str], Awaitable[Agent]]:
    """Each conversation's agent (its own driver: ``options`` builds one per call),
    resumed when the journal holds its lane: what ``a2a-serve`` and ``mcp-serve`` serve."""

    async def make(conversation_id: str) -> Agent:
        made = dict(options(None))
        if journal is not None and journal.last_seq(conversation_id):
            return await Agent.resume(journal, agent_id=conversation_id, **made)
        return Agent(**made, journal=journal, agent_id=conversation_id)

    return make


def check_model(model: str, base_url: str | None) -> None:
    """Build ``model``'s driver once, so a missing key or an unknown provider is said
    before the server starts (``ConfigurationError``), not on the page at the first
    message."""
    driver = model_at(model, base_url)
    asyncio.run(driver.aclose())


def tree_options(model: str | None, delay: float) -> dict[str, Any]:
    """``ServeConfig`` fields for agents that may spawn sub-agents: with the embedded model
    (no ``model``), the demo's tree (``demo_registry``), else none."""
    if model is not None and model != DEMO_MODEL:
        return {}
    return {"registry": demo_registry(delay), "agent_type": DEMO_AGENT}


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--model", help="PROVIDER/MODEL for new agents (default: the embedded model)"
    )
    add_base_url(parser)
    parser.add_argument("--journal-dir", help="keep journals here and resume them on restart")
    parser.add_argument(
        "--token",
        default=os.environ.get("AGENTCORE_SERVE_TOKEN"),
        help="bearer token for the API (default $AGENTCORE_SERVE_TOKEN; generated off loopback)",
    )
    parser.add_argument(
        "--allow-origin",
        "--cors-origin",
        dest="allow_origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="a frontend's origin (e.g. http://localhost:3000) that may drive the agents; "
        "CORS is answered for it (repeatable)",
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="a Host name to serve besides IP addresses and localhost (e.g. behind a proxy; "
        "repeatable; '*' for any)",
    )
    parser.add_argument("--max-body", type=int, default=1 << 20, help="request body limit, bytes")
    parser.add_argument("--delay", type=float, default=0.02, help="embedded model: s per event")
    parser.add_argument(
        "--database-url", help="serve durable agents: the workers' postgresql:// database"
    )
    parser.add_argument("--definition", help="durable agents: the definition new agents run")
    parser.add_argument(
        "--a2a",
        action="store_true",
        help="serve the agents over A2A too, at /a2a/ (needs the a2a extra)",
    )
    parser.add_argument(
        "--a2a-url", help="the A2A URL clients reach (default http://HOST:PORT/a2a/)"
    )


def _run(args: argparse.Namespace) -> int:
    if args.definition is not None and args.database_url is None:
        print(
            "agentcore serve: --definition is the definition durable agents run: give "
            "--database-url too",
            file=sys.stderr,
        )
        return 2
    if args.base_url is not None and args.model in (None, DEMO_MODEL):
        print(
            "agentcore serve: --base-url is the address of --model's provider: name the model",
            file=sys.stderr,
        )
        return 2
    if args.model not in (None, DEMO_MODEL) and args.database_url is None:
        try:
            check_model(args.model, args.base_url)
        except ConfigurationError as exc:
            return model_refused("serve", exc)
    try:
        from .._serve.app import ServeConfig
        from .._serve.server import run
    except ImportError as exc:
        print(
            f"agentcore serve needs its extra: pip install 'agentcore-engine[serve]' ({exc})",
            file=sys.stderr,
        )
        return 2
    sock = listen("serve", args.host, args.port)
    if sock is None:
        return 2
    with sock:
        port = sock.getsockname()[1]
        try:
            mounts = _a2a_mounts(args, port)
        except ConfigurationError as exc:
            print(f"agentcore serve: {exc.message}", file=sys.stderr)
            return 2
        try:
            config = ServeConfig(
                agent_options(args.model, args.delay, args.base_url),
                journal_dir=pathlib.Path(args.journal_dir) if args.journal_dir else None,
                token=args.token or None,
                allow_origins=tuple(args.allow_origin),
                allow_hosts=tuple(args.allow_host),
                max_body=args.max_body,
                database_url=args.database_url,
                definition=args.definition,
                mounts=mounts,
                **({} if args.database_url else tree_options(args.model, args.delay)),
            )
        except ConfigurationError as exc:
            print(f"agentcore serve: {exc.message}", file=sys.stderr)
            return 2
        run(config, args.host, port, sock=sock)
    return 0


def _a2a_mounts(args: argparse.Namespace, port: int) -> tuple[tuple[str, Any], ...]:
    """``--a2a``: the A2A app mounted at ``/a2a`` (``agentcore a2a-serve``'s, on this
    server's agents, at ``port``, the one bound); ``ConfigurationError`` when it cannot be."""
    if not args.a2a:
        return ()
    if args.database_url is not None:
        raise ConfigurationError(
            "--a2a serves the agents of this process; drop it or --database-url (durable "
            "agents are not served over A2A yet)"
        )
    try:
        from .._a2a.server import serve_mount
    except ImportError as exc:
        raise ConfigurationError(
            f"--a2a needs the A2A extra: pip install 'agentcore-engine[a2a]' ({exc})"
        ) from None
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = args.a2a_url or f"http://{shown}:{port}/a2a/"
    return (("/a2a", serve_mount(url)),)


register_command(
    "serve", "serve agents over HTTP (SSE, AG-UI, Vercel) with a web page", _configure, _run
)
