"""Middleware: an onion of async functions over the typed actions of a run.

``async def middleware(action, next) -> action``. The runtime sends four actions through
the onion, and ``await next(action)`` returns what the rest of the onion (and in the end
the agent) made of it:

====================  =========================================  ======================
sent                  ``next`` returns                           short-circuit with
====================  =========================================  ======================
``LoopStartAction``   the action the run starts with             (not calling ``next``
                                                                 drops the run:
                                                                 ``MessageRejectedError``)
``ModelCallAction``   ``ModelResponseAction`` or ``ErrorAction``  a ``ModelResponseAction``
``ToolCallAction``    ``ToolResultAction``                       a ``ToolResultAction``
``LoopEndAction``     the same action (a middleware may return   —
                      one with another ``result``)
====================  =========================================  ======================

A middleware may observe (log, time, count), rewrite what goes in (``next`` with a
changed action: the prompt, the request, the arguments) or what comes out of a tool
call, short-circuit (a cache answers a model call; a stub answers a tool call) or raise.
What a short-circuit returns is fed to the conversation as the inputs it stands for (the
stream events of the cached reply, the ``tool_result``), so it is journaled and a replay
does not need the middleware. A model's reply is streamed to presenters as it arrives:
it can be observed after ``next``, not rewritten (short-circuit to replace it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, TypeVar

import attrs

from .._core.content import TextPart, ThinkingPart, ToolCallPart
from .._core.driver import ModelRequest
from .._core.events import (
    AssistantMessage,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
)
from .._loop.events import RunEndReason

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

__all__ = [
    "Action",
    "ErrorAction",
    "LoopEndAction",
    "LoopEndReason",
    "LoopStartAction",
    "Middleware",
    "ModelCallAction",
    "ModelResponseAction",
    "Next",
    "PluginKind",
    "ToolCallAction",
    "ToolResultAction",
    "declare",
    "declared_kind",
    "events_of",
    "middleware",
    "through",
]

LoopEndReason: TypeAlias = RunEndReason
"""The loop's own end reason (``Finish.reason``, ``agent_end``): one vocabulary."""


@frozen
class LoopStartAction:
    """A run is about to start with ``messages`` (a prompt's or a received message)."""

    type: ClassVar[str] = "loop_start"
    messages: tuple[Any, ...]
    options: Mapping[str, Any] = attrs.field(factory=dict)
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@frozen
class LoopEndAction:
    """A run ended: ``result`` (an ``AgentResult``, or the ``Reply`` of ``receive``) and
    why, as the loop said it (``agent_end``): ``reason`` and the error ``code`` (``None``
    for a completed run)."""

    type: ClassVar[str] = "loop_end"
    result: Any
    reason: LoopEndReason
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    code: str | None = attrs.field(default=None, kw_only=True)


@frozen
class ModelCallAction:
    """The model is about to be called with ``request`` (the context already transformed)."""

    type: ClassVar[str] = "model_call"
    request: ModelRequest
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@frozen
class ModelResponseAction:
    """The model's reply (``message.usage`` is its usage)."""

    type: ClassVar[str] = "model_response"
    message: AssistantMessage
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@frozen
class ToolCallAction:
    """A tool call is about to run (after the extensions' ``before_tool_call`` hooks)."""

    type: ClassVar[str] = "tool_call"
    call: ToolCallPart
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@frozen
class ToolResultAction:
    """A tool call's result, about to enter the conversation; ``duration`` in seconds."""

    type: ClassVar[str] = "tool_result"
    call: ToolCallPart
    result: ToolResult
    duration: float = 0.0
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@frozen
class ErrorAction:
    """A model call failed: ``code`` and ``message`` as in ``error_received``."""

    type: ClassVar[str] = "error"
    source: Literal["model", "tool", "internal"]
    code: str
    message: str
    retryable: bool = False
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


Action: TypeAlias = (
    LoopStartAction
    | LoopEndAction
    | ModelCallAction
    | ModelResponseAction
    | ToolCallAction
    | ToolResultAction
    | ErrorAction
)
_P = TypeVar("_P")
Next: TypeAlias = Callable[[Any], Awaitable[Any]]
Middleware: TypeAlias = Callable[[Any, Next], Awaitable[Any]]
"""``async def mw(action, next) -> action`` (see the module docstring)."""

PluginKind: TypeAlias = Literal["middleware", "extension"]
_KIND = "__agentcore_plugin__"


def declare(plugin: _P, kind: PluginKind) -> _P:
    """Mark ``plugin`` as a ``kind``: what ``agent.use`` registers it as."""
    setattr(plugin, _KIND, kind)
    return plugin


def declared_kind(plugin: Any) -> str | None:
    """The kind ``plugin`` declared (``declare``, ``@middleware``, ``@extension``), if any."""
    return getattr(plugin, _KIND, None)


def middleware(fn: _P) -> _P:
    """Declare ``fn`` a middleware (``async def mw(action, next)``), so that
    ``agent.use(fn)`` adds it as one."""
    return declare(fn, "middleware")


def through(
    middleware: Sequence[Middleware],
    action: Any,
    innermost: Next,
    expect: type[Any] | tuple[type[Any], ...],
) -> Awaitable[Any]:
    """Send ``action`` through ``middleware`` (first = outermost) to ``innermost``: await
    what this returns.

    Raises ``TypeError`` naming the middleware when one returns something that is not an
    action of the kinds ``expect`` allows (a forgotten ``return`` gives ``None``).

    The chain is built per action, inside out, so no closure refers to itself: an action
    leaves no reference cycle behind (one per action made the garbage collector run ten
    times as often). It cannot be built once per middleware tuple: ``innermost`` is the
    call's own, and ``next`` may be awaited from any task."""
    chain = innermost
    for mw in reversed(middleware):
        chain = _layer(mw, chain, expect, action.type)
    return chain(action)


def _layer(
    mw: Middleware, inner: Next, expect: type[Any] | tuple[type[Any], ...], kind: str
) -> Next:
    async def step(value: Any) -> Any:
        returned = await mw(value, inner)
        if not isinstance(returned, expect):
            raise TypeError(
                f"middleware {getattr(mw, '__qualname__', mw)!r} returned {returned!r} "
                f"for a {kind} action; expected {_names(expect)}"
            )
        return returned

    return step


def _names(expect: type[Any] | tuple[type[Any], ...]) -> str:
    kinds = expect if isinstance(expect, tuple) else (expect,)
    return " or ".join(k.__name__ for k in kinds)


def events_of(message: AssistantMessage, timestamp: int) -> list[Any]:
    """The stream events that assemble into ``message`` (a short-circuited reply is fed
    as these, so the journal holds what a driver would have sent)."""
    events: list[Any] = [MessageStart(message.message_id, message.model, timestamp=timestamp)]
    for index, part in enumerate(message.parts):
        if type(part) is TextPart:
            events.append(TextDelta(part.text, index, timestamp=timestamp))
        elif type(part) is ThinkingPart:
            events.append(
                ThinkingDelta(
                    part.text, index, part.signature, part.redacted_data, timestamp=timestamp
                )
            )
        elif type(part) is ToolCallPart:
            raw = part.raw_input or json.dumps(dict(part.input))
            events += [
                ToolUseStart(part.tool_call_id, part.tool_name, index, timestamp=timestamp),
                InputJsonDelta(raw, index, timestamp=timestamp),
                ToolUseStop(part.tool_call_id, index, timestamp=timestamp),
            ]
    stop = message.stop_reason or ("tool_use" if message.tool_calls else "end_turn")
    events += [
        MessageDelta(stop, message.usage, timestamp=timestamp),
        MessageStop(stop, timestamp=timestamp),
    ]
    return events
