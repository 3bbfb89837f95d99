"""Performing one effect request inside a DBOS step: a model call, a tool call.

Each function returns what the effect produced as *inputs* of the conversation (stream
events, a ``tool_result``), stamped here (a replay must see the same timestamps, so the
clock is read inside the step, whose output DBOS records). Nothing here touches the
journal or the conversation state: the workflow folds what a step returns.

- ``call_model``: the driver's stream events, in order. A driver that raises, or whose
  stream ends without ``message_stop``, is answered as the in-process runtime answers it
  (``driver_failure``; ``cut_short``). While it streams, batches of
  events are handed to ``publish`` (live deltas for readers, before the step ends), and
  ``aborted()`` is asked every ``check_every`` seconds: when it says yes, the stream is
  closed and the events so far are returned with ``cut=True`` (the workflow then folds
  the abort, and the loop flushes the partial reply). Nothing retries here: the loop's
  ``model_retries`` is the retry policy in force (build SDK drivers with retries off).
- ``call_tool``: the tool run by ``run_tool`` (validation, timeout, errors as error
  results), with ``idempotency_key()`` answering the call's key while it runs.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from .._core.content import ToolCallPart
from .._core.driver import ModelRequest
from .._core.errors import ErrorCode
from .._core.events import ErrorReceived, MessageStop, ToolResult
from .._edges.clock import stamped
from .._edges.driver import Driver, close_stream, cut_short
from .._loop.events import ElicitationAnswer, ElicitationRequest
from .._loop.tools import Tool
from .._runtime.perform import driver_failure
from .._runtime.tool_runner import AbortSignal, ToolContext, run_tool

__all__ = ["call_model", "call_tool", "idempotency_key", "keyed"]

_KEY: contextvars.ContextVar[str] = contextvars.ContextVar("agentcore_durable_key")


def idempotency_key() -> str:
    """The idempotency key of the durable tool call running now: the same for every
    execution of that call (a worker that dies mid-call has it run again, with this key),
    different for every other call. Pass it to the service the tool changes (a payment
    API's idempotency key, a UNIQUE column) to make the call's effect exactly-once.
    ``LookupError`` outside a durable tool call."""
    try:
        return _KEY.get()
    except LookupError:
        raise LookupError(
            "idempotency_key() is only set while a durable worker runs a tool call"
        ) from None


@contextlib.contextmanager
def keyed(key: str | None) -> Iterator[None]:
    """Inside, ``idempotency_key()`` answers ``key`` (``None``: nothing changes)."""
    if key is None:
        yield
        return
    token = _KEY.set(key)
    try:
        yield
    finally:
        _KEY.reset(token)


async def call_model(
    driver: Driver,
    request: ModelRequest,
    clock: Callable[[], int],
    publish: Callable[[list[Any]], Awaitable[None]] | None = None,
    aborted: Callable[[], Awaitable[bool]] | None = None,
    *,
    publish_every: float = 0.05,
    check_every: float = 0.25,
) -> tuple[list[Any], bool]:
    """The events of one model call and whether an abort cut it (module docstring)."""
    events: list[Any] = []
    batch: list[Any] = []
    stream = None
    cut = False
    published = checked = time.monotonic()
    try:
        stream = driver.receive(request)
        async for raw in stream:
            event = stamped(raw, clock())
            events.append(event)
            if type(event) is ErrorReceived:
                break
            if publish is None and aborted is None:
                continue
            batch.append(event)
            now = time.monotonic()
            if publish is not None and now - published >= publish_every:
                await publish(batch)
                batch, published = [], now
            if aborted is not None and now - checked >= check_every:
                checked = now
                if await aborted():
                    cut = True
                    break
    except Exception as exc:  # a failing driver never takes the worker down
        events.append(driver_failure(exc, clock()))
    finally:
        if stream is not None:
            await close_stream(stream)
    if publish is not None and batch:
        await publish(batch)
    if not cut and (not events or type(events[-1]) not in (MessageStop, ErrorReceived)):
        events.append(cut_short(clock()))
    return events, cut


async def call_tool(
    tools: Mapping[str, Tool],
    call: ToolCallPart,
    key: str,
    clock: Callable[[], int],
    messages: Sequence[Any] = (),
    deps: Any = None,
    elicit: Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]] | None = None,
) -> ToolResult:
    """One tool call's result (never raises but for cancellation); ``key`` is what
    ``idempotency_key()`` answers while the tool runs, ``elicit`` its ``ctx.elicit``.
    Progress reports are dropped (a durable step records its result, not its progress)."""
    call_id = call.tool_call_id
    tool = tools.get(call.tool_name)
    if tool is None:
        text = f"Tool {call.tool_name!r} is not available on this worker."
        details = {"error_code": ErrorCode.TOOL_NOT_FOUND.value}
        return ToolResult(call_id, text, True, details, timestamp=clock())
    ctx: ToolContext[Any] = ToolContext(
        call_id, call.tool_name, AbortSignal(), messages, _drop, deps=deps, elicit=elicit
    )
    try:
        with keyed(key):
            outcome = await run_tool(tool, call.input, ctx)
    except Exception as exc:  # a bug while running a tool still answers its call
        text = f"Tool {call.tool_name!r} failed: {type(exc).__name__}: {exc}"
        details = {"error_code": ErrorCode.TOOL_EXECUTION_ERROR.value}
        return ToolResult(call_id, text, True, details, timestamp=clock())
    return ToolResult(
        call_id, outcome.content, outcome.is_error, outcome.details, timestamp=clock()
    )


def _drop(_progress: Any) -> None:
    """Progress of a durable tool call: not recorded (``call_tool``)."""
