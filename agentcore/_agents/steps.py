"""Programmatic steps: a ``handle_steps`` generator that scripts part of an agent's run.

``handle_steps(context)`` is a generator function (sync or ``async``). It receives a
``StepContext`` (the task's prompt and params, the agent's state) and yields:

- a ``ToolCall(tool_name, input)`` (or a list of them, run in parallel): the call is made
  as if the model had asked for it; its ``ToolResultMessage`` comes back in the
  ``StepResult`` sent into the generator;
- ``STEP``: one model call (and the tools it asks for);
- ``STEP_ALL``: model calls until the model ends its turn.

Each yield receives a ``StepResult``: the agent's state, the tool results of a tool
yield, and ``steps_complete`` (whether the model ended its turn). When the generator
returns, the run ends.

How it stays exact: the generator runs where the model is called, inside a driver
(``StepsDriver``) that wraps the agent's real one. A tool yield is streamed as an
assistant message from the model ``handle_steps`` holding that call (or, when the model
has just ended its turn, appended to that reply as one more tool call, so the history
stays one assistant message per turn); the loop runs the call as any other. ``STEP``
hands the call to the real driver. So the journal holds what the generator did as
stream events and tool results, and replays without the generator. A ``STEP`` yielded
after the model ended its turn starts a new run (prompted with the definition's step
prompt, or "Continue."); the generator's return ends the run with an empty reply, which
stays out of the history. A generator that raises fails the model call (``DRIVER_ERROR``,
with its message). A process stop ends the generator: a resumed agent goes on as a plain
one.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Final, Literal

import attrs

from .._core.content import TextPart, Usage
from .._core.driver import BaseDriver, Driver, ModelRequest
from .._core.events import (
    AssistantMessage,
    ErrorReceived,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
)
from .._loop.conversation import AgentSnapshot
from .._runtime.options import as_model_driver
from .._runtime.plugins import resolve_model

__all__ = [
    "LazyDriver",
    "STEP",
    "STEP_ALL",
    "StepContext",
    "StepResult",
    "StepsDriver",
    "ToolCall",
]

STEP: Final = "STEP"
"""Yield it to let the model make one call (and run the tools it asks for)."""
STEP_ALL: Final = "STEP_ALL"
"""Yield it to let the model go on until it ends its turn."""

STEPS_MODEL = "handle_steps"
"""The model name of the messages a generator's tool yields are streamed as."""


@attrs.frozen(slots=True)
class ToolCall:
    """A tool call a ``handle_steps`` generator makes itself."""

    tool_name: str
    input: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class StepContext:
    """What a ``handle_steps`` generator starts from: the task's ``prompt`` and
    ``params``, and the agent's state."""

    prompt: str
    params: Mapping[str, Any] | None
    agent_state: AgentSnapshot


@attrs.frozen(slots=True)
class StepResult:
    """What each yield of a ``handle_steps`` generator receives.

    ``agent_state`` is the agent's state (after a model reply that ended the turn, its
    ``messages`` end with that reply); ``tool_results`` are the results of a tool yield,
    in the order yielded; ``steps_complete`` is true once the model ended its turn.
    """

    agent_state: AgentSnapshot
    tool_results: tuple[ToolResultMessage, ...] = ()
    steps_complete: bool = False

    @property
    def tool_result(self) -> ToolResultMessage | None:
        """The result of a single tool yield (the first of several)."""
        return self.tool_results[0] if self.tool_results else None


_Mode = Literal["idle", "start", "tools", "step", "all", "restart", "done"]
_DONE: Final = object()


class _Generator:
    """A sync or async generator behind one ``send``; ``_DONE`` once it has returned."""

    __slots__ = ("_gen", "_is_async")

    def __init__(self, gen: Any) -> None:
        self._is_async = inspect.isasyncgen(gen)
        if not (self._is_async or inspect.isgenerator(gen)):
            raise TypeError(
                f"handle_steps must be a generator function (def with yield, or async def "
                f"with yield); calling it returned {gen!r}"
            )
        self._gen = gen

    async def send(self, value: Any) -> Any:
        try:
            if self._is_async:
                return await self._gen.asend(value)
            return self._gen.send(value)
        except (StopIteration, StopAsyncIteration):
            return _DONE

    async def close(self) -> None:
        if self._is_async:
            await self._gen.aclose()
        else:
            self._gen.close()


def _calls_of(action: Any) -> tuple[ToolCall, ...] | None:
    """The tool calls of a yield (a ToolCall, a ``{"tool_name", "input"}`` mapping, or a
    list of either), ``None`` for a yield that is no tool call."""
    if isinstance(action, ToolCall):
        return (action,)
    if isinstance(action, Mapping) and "tool_name" in action:
        return (ToolCall(action["tool_name"], action.get("input", {})),)
    if isinstance(action, list | tuple) and action:
        calls = [_calls_of(a) for a in action]
        if all(c is not None and len(c) == 1 for c in calls):
            return tuple(c[0] for c in calls if c is not None)
    return None


class LazyDriver:
    """The driver of a ``"provider/model"`` name, built on first use by ``factory`` (the
    ``agentcore.drivers`` plugins by default) and closed by ``aclose`` if it was built."""

    def __init__(self, model: str, factory: Callable[[str], Any] | None = None) -> None:
        self._spec = model
        self._factory = factory
        self._driver: Driver | None = None

    def __call__(self) -> Driver:
        if self._driver is None:
            self._driver = as_model_driver((self._factory or resolve_model)(self._spec))
        return self._driver

    async def aclose(self) -> None:
        driver, self._driver = self._driver, None
        if driver is not None:
            await driver.aclose()


class StepsDriver(BaseDriver):
    """The driver of an agent with ``handle_steps`` (module docstring): asks the generator
    what to do at each model call, and hands ``STEP``/``STEP_ALL`` to ``model()``.

    ``state()`` reads the agent's state; ``run_started()`` must be called at each
    ``agent_start`` of the agent (the generator starts with each new run, unless a
    ``STEP`` carries it over); ``new_id()``
    names the calls and messages it makes. ``prepare(prompt, params)`` gives the next run's
    generator its context (by default the prompt is the history's last user message).
    ``needs_run`` is true when the generator waits for a new run (a ``STEP`` yielded after
    the model ended its turn). ``resumed`` is for an agent rebuilt from its journal: the
    run in progress goes on without a generator.
    """

    def __init__(
        self,
        handle_steps: Callable[[StepContext], Any],
        model: LazyDriver,
        state: Callable[[], AgentSnapshot],
        new_id: Callable[[], str],
        model_name: str = "",
        *,
        resumed: bool = False,
    ) -> None:
        self._handle_steps = handle_steps
        self._model = model
        self._state = state
        self._new_id = new_id
        self.model = model_name
        """The model id of the real driver (prices are looked up by it)."""
        self._gen: _Generator | None = None
        self._mode: _Mode = "done" if resumed else "idle"
        self._runs = 0
        """Runs the agent started (``run_started``)."""
        self._begun = 0
        """The value of ``_runs`` when the generator in use began its run."""
        self._context: tuple[str, Mapping[str, Any] | None] | None = None
        self._calls: tuple[str, ...] = ()
        self._pending: Any = None
        self._interrupted = False

    @property
    def name(self) -> str:
        return f"handle_steps({getattr(self._handle_steps, '__qualname__', 'generator')})"

    @property
    def needs_run(self) -> bool:
        return self._mode == "restart"

    def run_started(self) -> None:
        """The agent started a run (its ``agent_start``)."""
        self._runs += 1

    def prepare(self, prompt: str, params: Mapping[str, Any] | None) -> None:
        """The context the generator of the next run starts from."""
        self._context = (prompt, params)

    def interrupt(self) -> None:
        self._interrupted = True
        if self._mode in ("step", "all"):
            self._model().interrupt()

    async def aclose(self) -> None:
        """End the generator and close the real driver if it was built."""
        await self.stop()
        await self._model.aclose()

    async def stop(self) -> None:
        """End the generator (the run ended without it: an error, an abort)."""
        gen, self._gen, self._mode = self._gen, None, "done"
        if gen is not None:
            await gen.close()

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._call(request)

    async def _call(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self._interrupted = False
        run = self._runs
        if self._mode == "restart":
            action = self._pending
        elif run != self._begun:
            await self._begin()
            action = await self._send(None)
        elif self._mode == "all":
            action = STEP_ALL
        elif self._mode == "tools":
            action = await self._send(StepResult(self._state(), self._results()))
        elif self._mode == "step":
            action = await self._send(StepResult(self._state()))
        else:  # the generator is done and the run goes on (a follow-up): the model answers
            async for event in self._model().receive(request):
                yield event
            return
        self._begun = run
        async for event in self._act(action, request):
            yield event

    async def _begin(self) -> None:
        if self._gen is not None:
            await self._gen.close()
        state = self._state()
        prompt, params = self._context or (_last_user_text(state.messages), None)
        self._context = None
        self._gen = _Generator(self._handle_steps(StepContext(prompt, params, state)))

    async def _send(self, value: Any) -> Any:
        assert self._gen is not None
        try:
            return await self._gen.send(value)
        except BaseException:
            self._gen, self._mode = None, "done"
            raise

    def _results(self) -> tuple[ToolResultMessage, ...]:
        """The results of the calls of the last tool yield, in the order yielded."""
        wanted = set(self._calls)
        found: dict[str, ToolResultMessage] = {}
        for m in reversed(self._state().messages):
            if isinstance(m, ToolResultMessage) and m.tool_call_id in wanted:
                found[m.tool_call_id] = m
                if len(found) == len(wanted):
                    break
        return tuple(found[i] for i in self._calls if i in found)

    async def _act(self, action: Any, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if action is _DONE:
            self._gen, self._mode = None, "done"
            for event in self._message(()):
                yield event
            return
        calls = _calls_of(action)
        if calls is not None:
            for event in self._message(calls):
                yield event
            return
        if action not in (STEP, STEP_ALL):
            self._gen, self._mode = None, "done"
            raise TypeError(
                f"handle_steps yielded {action!r}; yield a ToolCall (or a list of them), "
                "STEP or STEP_ALL"
            )
        self._mode = "step" if action == STEP else "all"
        async for event in self._step(request):
            yield event

    def _message(self, calls: Sequence[ToolCall]) -> list[StreamEvent]:
        """The stream of a reply from the generator: these calls, or nothing."""
        events: list[StreamEvent] = [MessageStart(f"steps_{self._new_id()}", STEPS_MODEL)]
        events += self._call_events(calls, 0)
        reason = "tool_use" if calls else "end_turn"
        return [*events, MessageDelta(stop_reason=reason), MessageStop(reason)]

    def _call_events(self, calls: Sequence[ToolCall], first: int) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        ids = []
        for offset, call in enumerate(calls):
            index, call_id = first + offset, f"steps_{self._new_id()}"
            ids.append(call_id)
            events.append(ToolUseStart(call_id, call.tool_name, index))
            events.append(InputJsonDelta(json.dumps(dict(call.input)), index))
            events.append(ToolUseStop(call_id, index))
        self._calls = tuple(ids)
        self._mode = "tools" if calls else "done"
        return events

    async def _step(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The real model's reply; when it ends the turn, the generator says what follows
        before the reply is closed (see the module docstring)."""
        held: list[StreamEvent] = []
        asked_tools, failed, index = False, False, -1
        start: MessageStart | None = None
        texts: dict[int, list[str]] = {}
        async for event in self._model().receive(request):
            cls = type(event)
            if cls is MessageDelta or cls is MessageStop:
                held.append(event)
                continue
            if isinstance(event, TextDelta):
                texts.setdefault(event.index, []).append(event.text)
            elif cls is ToolUseStart:
                asked_tools = True
            elif cls is ErrorReceived:
                failed = True
            elif isinstance(event, MessageStart):
                start = event
            index = max(index, getattr(event, "index", -1))
            yield event
        ended = bool(held) and type(held[-1]) is MessageStop
        if asked_tools or failed or not ended or self._interrupted:
            if failed or not ended or self._interrupted:
                await self.stop()
            for event in held:
                yield event
            return
        usage = next((e.usage for e in held if type(e) is MessageDelta), Usage())
        state = self._state()
        if start is not None:
            parts = [TextPart("".join(texts[i])) for i in sorted(texts)]
            reply = AssistantMessage(start.message_id, start.model, parts, usage, "end_turn")
            state = attrs.evolve(state, messages=(*state.messages, reply))
        action = await self._send(StepResult(state, steps_complete=True))
        calls = _calls_of(action)
        if calls is None:
            if action is _DONE:
                self._gen, self._mode = None, "done"
            elif action in (STEP, STEP_ALL):
                self._mode, self._pending = "restart", action
            else:
                self._gen, self._mode = None, "done"
                raise TypeError(
                    f"handle_steps yielded {action!r}; yield a ToolCall (or a list of them), "
                    "STEP or STEP_ALL"
                )
            for event in held:
                yield event
            return
        for event in self._call_events(calls, index + 1):
            yield event
        yield MessageDelta(stop_reason="tool_use", usage=usage)
        yield MessageStop("tool_use")


def _last_user_text(messages: Sequence[Any]) -> str:
    for m in reversed(messages):
        if getattr(m, "type", None) == "user_message":
            content = m.content
            if isinstance(content, str):
                return content
            return "".join(getattr(b, "text", "") for b in content)
    return ""
