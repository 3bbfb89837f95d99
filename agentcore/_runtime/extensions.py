"""Extensions: functions that bend an agent through a small API, and undo it on dispose.

``agent.use(extension)`` calls ``extension(api)`` with an ``ExtensionAPI`` and returns
``dispose``: it removes exactly the hooks, listeners and tools the extension added
through *its* API, then calls the cleanup function the extension returned (if any).

Hooks (``api.on(name, hook)``), in registration order across extensions:

- ``transform_context(messages) -> messages``: after the agent's own
  ``transform_context``, each hook gets the previous one's result. It shapes one model
  call's request only (never the history) and must be a plain, synchronous function:
  it runs where the request is built.
- ``before_tool_call(call, tool) -> Continue | Block`` (sync or async): ``Continue()``
  goes on, ``Continue(arguments)`` changes the arguments the tool gets; the first
  ``Block(result)`` wins: the tool does not run and ``result`` is what the model reads.
- ``after_tool_result(call, result) -> ToolResult`` (sync or async): each hook may
  return a changed result; the last one's enters the conversation.
- ``event(output)``: every delivered output, like ``agent.subscribe``.

A hook that raises is a failing plugin: a ``transform_context`` that raises fails that
model call (``HANDLER_ERROR``); a tool hook that raises answers the call with an error
result naming the hook. Either way it is reported on ``agent.on_error`` and the agent
goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import attrs

from .._core.content import JSONValue, ToolCallPart
from .._core.driver import Message
from .._core.events import ToolResult
from .actions import declare
from .awaitables import awaitable
from .subscriptions import Unsubscribe

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

if TYPE_CHECKING:
    from .._loop.conversation import AgentSnapshot
    from .._loop.tools import Tool

__all__ = [
    "Block",
    "Continue",
    "Extension",
    "ExtensionAPI",
    "HookName",
    "Hooks",
    "extension",
]

HookName: TypeAlias = Literal["transform_context", "before_tool_call", "after_tool_result", "event"]
_HOOK_NAMES: tuple[str, ...] = ("transform_context", "before_tool_call", "after_tool_result")


@frozen
class Continue:
    """Let the tool call run; with ``arguments``, run it with these instead."""

    arguments: Mapping[str, JSONValue] | None = None


@frozen
class Block:
    """Do not run the tool call; the model reads ``result`` (an error result by default)."""

    result: str = "The call was blocked."
    is_error: bool = True


class Hooks:
    """The hooks every extension added, in order (read by the performer at each call)."""

    __slots__ = ("after_tool_result", "before_tool_call", "transform_context")

    def __init__(self) -> None:
        self.transform_context: tuple[Callable[..., Any], ...] = ()
        self.before_tool_call: tuple[Callable[..., Any], ...] = ()
        self.after_tool_result: tuple[Callable[..., Any], ...] = ()

    def add(self, name: str, hook: Callable[..., Any]) -> Unsubscribe:
        setattr(self, name, (*getattr(self, name), hook))

        def remove() -> None:
            setattr(self, name, tuple(h for h in getattr(self, name) if h is not hook))

        return remove

    def transform(
        self, own: Callable[[tuple[Message, ...]], Sequence[Message]] | None
    ) -> ContextTransform:
        """The agent's ``transform_context`` followed by the extensions' (read per call)."""
        return ContextTransform(own, self)

    async def before(self, call: ToolCallPart, tool: Tool | None) -> ToolCallPart | Block:
        """Run the ``before_tool_call`` hooks: the call to run (maybe with new arguments),
        or the first ``Block``."""
        for hook in self.before_tool_call:
            decision = hook(call, tool)
            if awaitable(decision):
                decision = await decision
            if isinstance(decision, Block):
                return decision
            if not isinstance(decision, Continue):
                raise TypeError(
                    f"before_tool_call hook {_name(hook)} returned {decision!r}; "
                    "return Continue() or Block(result)"
                )
            if decision.arguments is not None:
                call = attrs.evolve(call, input=dict(decision.arguments))
        return call

    async def after(self, call: ToolCallPart, result: ToolResult) -> ToolResult:
        """Run the ``after_tool_result`` hooks, each on the previous one's result."""
        for hook in self.after_tool_result:
            changed = hook(call, result)
            if awaitable(changed):
                changed = await changed
            if not isinstance(changed, ToolResult):
                raise TypeError(
                    f"after_tool_result hook {_name(hook)} returned {changed!r}; "
                    "return a ToolResult (attrs.evolve(result, ...))"
                )
            result = changed
        return result


class ContextTransform:
    """The agent's own ``transform_context``, then every extension's, in order.

    Equal to another when both have the same own transform and the same hooks now: two
    agents configured alike decide alike (``LoopConfig`` equality)."""

    __slots__ = ("hooks", "own")

    def __init__(
        self, own: Callable[[tuple[Message, ...]], Sequence[Message]] | None, hooks: Hooks
    ) -> None:
        self.own, self.hooks = own, hooks

    def __call__(self, messages: tuple[Message, ...]) -> Sequence[Message]:
        if self.own is not None:
            messages = tuple(self.own(messages))
        for hook in self.hooks.transform_context:
            result = hook(messages)
            if type(result) is tuple:  # the common answer: no check, no copy
                messages = result
                continue
            if awaitable(result):
                close = getattr(result, "close", None)
                if close is not None:
                    close()
                raise TypeError(
                    f"transform_context hook {_name(hook)} is async; it must be a plain "
                    "function (it runs where the request is built)"
                )
            messages = tuple(result)
        return messages

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ContextTransform):
            return NotImplemented
        return (
            self.own == other.own and self.hooks.transform_context == other.hooks.transform_context
        )

    __hash__ = None  # type: ignore[assignment]


class ExtensionAPI:
    """What an extension may read and do (module docstring). One per ``use``: what is
    added through it is what ``dispose`` removes."""

    def __init__(self, agent: Any) -> None:
        self._agent = agent
        self._undo: list[Callable[[], object]] = []

    @property
    def state(self) -> AgentSnapshot:
        """The agent's state now (read-only)."""
        snapshot: AgentSnapshot = self._agent.state
        return snapshot

    def on(self, name: HookName, hook: Callable[..., Any]) -> Unsubscribe:
        """Add ``hook`` for ``name`` (``transform_context``, ``before_tool_call``,
        ``after_tool_result`` or ``event``); returns its own remover too."""
        if not callable(hook):
            raise TypeError(f"a {name} hook must be callable, got {hook!r}")
        if name == "event":
            remove: Unsubscribe = self._agent.subscribe(hook)
        elif name in _HOOK_NAMES:
            remove = self._agent._hooks.add(name, hook)
        else:
            raise ValueError(f"unknown hook {name!r}; known: {[*_HOOK_NAMES, 'event']}")
        self._undo.append(remove)
        return remove

    def register_tool(self, tool: Tool | Callable[..., Any]) -> Unsubscribe:
        """Give the agent a tool from now on (the next model call sees it); returns a
        function that unregisters it."""
        name: str = self._agent._register_tool(tool)

        def remove() -> None:
            self._agent._unregister_tool(name)

        self._undo.append(remove)
        return remove

    def unregister_tool(self, name: str) -> bool:
        """Remove a tool by name (any tool, not only this extension's); ``True`` if found."""
        found: bool = self._agent._unregister_tool(name)
        return found

    def steer(self, message: str | Any) -> None:
        self._agent.steer(message)

    def follow_up(self, message: str | Any) -> None:
        self._agent.follow_up(message)

    def dispose(self) -> None:
        """Undo what was added through this API, newest first (idempotent)."""
        while self._undo:
            self._undo.pop()()


Extension: TypeAlias = Callable[[ExtensionAPI], "Callable[[], object] | None"]
"""``def extension(api) -> cleanup | None``."""

_E = TypeVar("_E")


def extension(fn: _E) -> _E:
    """Declare ``fn`` an extension (``def ext(api)``), so that ``agent.use(fn)`` adds it
    as one."""
    return declare(fn, "extension")


def _name(hook: Any) -> str:
    return repr(getattr(hook, "__qualname__", hook))
