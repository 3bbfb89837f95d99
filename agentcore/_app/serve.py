"""``agentcore serve``: agents over HTTP with a web page, SSE, AG-UI and Vercel streams.

::

    agentcore serve [--host 127.0.0.1] [--port 8000] [--model PROVIDER/MODEL]
                    [--journal-dir DIR] [--token TOKEN] [--cors-origin URL ...]
                    [--database-url URL [--definition NAME]]

Without ``--model`` (or with no key) agents run the embedded scripted model, so it works
on a fresh machine, offline. With ``--database-url``, the agents are durable: ``agentcore
worker`` processes on that database run them, each new agent runs definition
``--definition`` (or the ``model`` its creation names), and every agent the database
holds is served. Off loopback a bearer token is required (generated and printed when not
given). See docs/serve.md.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
from collections.abc import Mapping
from typing import Any

from .cli import register_command
from .serve_model import DEMO_AGENT, DEMO_MODEL, demo_options, demo_registry

__all__ = ["agent_options", "tree_options"]


def agent_options(default: str | None, delay: float) -> Any:
    """``ServeConfig.agent_options``: a named model resolves through the driver registry;
    none (or the demo's name) is the embedded scripted model."""

    def options(model: str | None) -> Mapping[str, Any]:
        chosen = model or default
        if chosen is None or chosen == DEMO_MODEL:
            return demo_options(delay)
        return {"model": chosen}

    return options


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
    parser.add_argument("--journal-dir", help="keep journals here and resume them on restart")
    parser.add_argument(
        "--token",
        default=os.environ.get("AGENTCORE_SERVE_TOKEN"),
        help="bearer token for the API (default $AGENTCORE_SERVE_TOKEN; generated off loopback)",
    )
    parser.add_argument("--cors-origin", action="append", default=[], help="allow this origin")
    parser.add_argument("--max-body", type=int, default=1 << 20, help="request body limit, bytes")
    parser.add_argument("--delay", type=float, default=0.02, help="embedded model: s per event")
    parser.add_argument(
        "--database-url", help="serve durable agents: the workers' postgresql:// database"
    )
    parser.add_argument("--definition", help="durable agents: the definition new agents run")


def _run(args: argparse.Namespace) -> int:
    try:
        from .._serve.app import ServeConfig
        from .._serve.server import run
    except ImportError as exc:
        print(
            f"agentcore serve needs its extra: pip install 'agentcore[serve]' ({exc})",
            file=sys.stderr,
        )
        return 2
    config = ServeConfig(
        agent_options(args.model, args.delay),
        journal_dir=pathlib.Path(args.journal_dir) if args.journal_dir else None,
        token=args.token or None,
        cors_origins=tuple(args.cors_origin),
        max_body=args.max_body,
        database_url=args.database_url,
        definition=args.definition,
        **({} if args.database_url else tree_options(args.model, args.delay)),
    )
    run(config, args.host, args.port)
    return 0


register_command(
    "serve", "serve agents over HTTP (SSE, AG-UI, Vercel) with a web page", _configure, _run
)
