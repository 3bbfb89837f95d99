"""Answering a server's requests: sampling with a driver, elicitation through a seam.

A server may ask the client to run its model (``sampling/createMessage``) or to ask the
user something (``elicitation/create``). Both are off unless the application opts in:
sampling by giving the ``MCPServer`` a driver; elicitation by using the server in an
agent (``Agent(toolsets=[server])``: the tool call that caused the question asks through
the run's pause) or by giving it an ``on_elicitation`` handler. A failing driver or
handler answers the server with an error; it never reaches the session that carries the
request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeAlias

import mcp_types as mt
from mcp.client.session import ClientRequestContext, ElicitationFnT, SamplingFnT

from .._edges.driver import Driver, collect_reply
from .._loop.events import ElicitationAnswer, ElicitationRequest
from .convert import sampling_request, sampling_stop_reason
from .errors import Redactor

__all__ = ["ElicitationHandler", "elicitation_callback", "sampling_callback"]

log = logging.getLogger("agentcore.mcp")


ElicitationHandler: TypeAlias = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""``async handler(request) -> ElicitationAnswer``; it may take as long as the user does
(``ToolContext.elicit`` is one)."""


def sampling_callback(driver: Driver, server: str, redact: Redactor) -> SamplingFnT:
    """The SDK callback that answers ``sampling/createMessage`` with ``driver``.

    The messages become a ``ModelRequest``; the driver's reply, read by the message
    assembler (``collect_reply``), is the answer, with the model its ``message_start``
    named. Requests run one at a time
    (a driver serves one call at a time). An ``error_received`` event, a raise, or
    content agentcore cannot forward answers the server with an error.
    """
    lock = asyncio.Lock()

    async def answer(
        context: ClientRequestContext, params: mt.CreateMessageRequestParams
    ) -> mt.CreateMessageResult | mt.CreateMessageResultWithTools | mt.ErrorData:
        try:
            request = sampling_request(params)
        except ValueError as exc:
            return mt.ErrorData(code=mt.INVALID_PARAMS, message=str(exc))
        try:
            async with lock:
                message, error = await collect_reply(driver, request)
        except Exception as exc:  # a failing driver answers the server, never crashes it
            log.warning("MCP server %r: sampling driver raised %s", server, type(exc).__name__)
            return _refuse(f"the client's model failed: {type(exc).__name__}: {exc}", redact)
        if error is not None:
            return _refuse(f"the client's model failed: {error.message}", redact)
        if message is None:
            text, model, stop = "", driver.name, None
        else:  # a stream cut before message_stop has no stop reason
            stop = None if message.incomplete else message.stop_reason
            text, model = message.text, message.model
        return mt.CreateMessageResult(
            role="assistant",
            content=mt.TextContent(type="text", text=text),
            model=model,
            stop_reason=sampling_stop_reason(stop),
        )

    return answer


def _refuse(message: str, redact: Redactor) -> mt.ErrorData:
    return mt.ErrorData(code=mt.INTERNAL_ERROR, message=redact(message))


def elicitation_callback(
    route: Callable[[], ElicitationHandler | None], server: str, redact: Redactor
) -> ElicitationFnT:
    """The SDK callback that answers ``elicitation/create`` with the answer of the handler
    ``route()`` picks for it.

    No handler, a raising one, or one returning something other than an
    ``ElicitationAnswer`` answers the server with an error.
    """

    async def answer(
        context: ClientRequestContext, params: mt.ElicitRequestParams
    ) -> mt.ElicitResult | mt.ErrorData:
        handler = route()
        if handler is None:
            return _refuse(
                f"nobody can answer MCP server {server!r}'s question: no call in flight can "
                "ask the user, or several can and the session (2025, over stdio) does not "
                "say which; and no on_elicitation handler is set",
                redact,
            )
        try:
            if isinstance(params, mt.ElicitRequestURLParams):
                request = ElicitationRequest(server, params.message, "url", None, params.url)
            else:
                schema = params.requested_schema
                request = ElicitationRequest(server, params.message, "form", schema)
        except ValueError as exc:  # a schema that is not JSON
            return mt.ErrorData(code=mt.INVALID_PARAMS, message=redact(str(exc)))
        try:
            reply = await handler(request)
        except Exception as exc:
            log.warning("MCP server %r: elicitation handler raised %s", server, type(exc).__name__)
            return _refuse(
                f"the client could not ask the user: {type(exc).__name__}: {exc}", redact
            )
        if not isinstance(reply, ElicitationAnswer):
            return _refuse(
                f"the elicitation handler returned {type(reply).__name__}, "
                "not an ElicitationAnswer",
                redact,
            )
        content = reply.content
        try:
            return mt.ElicitResult(
                action=reply.action, content=dict(content) if isinstance(content, Mapping) else None
            )
        except ValueError as exc:  # content MCP cannot carry (nested objects...)
            return _refuse(f"the user's answer cannot be sent: {exc}", redact)

    return answer
