"""Serving agents over HTTP: wire protocols, SSE framing and the ASGI app (docs/serve.md).

The protocol types and framing are pure and import nothing optional. ``create_app`` and
``run`` need the ``serve`` extra (``pip install 'agentcore-engine[serve]'``: starlette, uvicorn,
sse-starlette) and import it when called.
"""

from typing import TYPE_CHECKING, Any

from ._serve.protocol import Cursor as Cursor
from ._serve.protocol import Frame as Frame
from ._serve.protocol import RunProtocol as RunProtocol
from ._serve.protocol import RunRequest as RunRequest
from ._serve.protocol import StreamProtocol as StreamProtocol
from ._serve.protocol import comment_frame as comment_frame
from ._serve.protocol import format_event_id as format_event_id
from ._serve.protocol import parse_event_id as parse_event_id
from ._serve.protocol import sse_frame as sse_frame

if TYPE_CHECKING:
    from ._serve.app import ServeConfig as ServeConfig
    from ._serve.app import create_app as create_app
    from ._serve.feed import Feed as Feed
    from ._serve.server import run as run

__all__ = [
    "Cursor",
    "Feed",
    "Frame",
    "RunProtocol",
    "RunRequest",
    "ServeConfig",
    "StreamProtocol",
    "comment_frame",
    "create_app",
    "format_event_id",
    "parse_event_id",
    "run",
    "sse_frame",
]

_LAZY = {
    "ServeConfig": "app",
    "create_app": "app",
    "Feed": "feed",
    "run": "server",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentcore.serve' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"agentcore._serve.{module}"), name)
