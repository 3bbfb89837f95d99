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
with its message).

How it survives a process stop: before acting on a yield, the driver journals it as a
``StepsYield`` record, with what the generator was sent (``"start"``, ``"tools"``,
``"step"``, ``"complete"``) and the ``seq`` of the agent state it was computed from. A
resumed agent re-runs the generator from the start and sends it, yield after yield, what
it was sent live: rebuilt from the journal (the state folded up to that ``seq``, the tool
results and replies journaled there), nothing performed again. Each yield must equal its
record (``StepsDivergedError`` otherwise); where the records end, it goes on live. A
model call the stop cut off is issued again, so what the generator was sent during it is
sent again (``steps_replay.walk`` leaves it out, as the loop leaves the cut reply out).
The contract: the generator yields the same given what it receives.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Final, TypeAlias

import attrs

from .._core.content import TextContent, Usage
from .._core.driver import ModelRequest
from .._core.errors import ProtocolError
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
from .._core.secrets import scrub_event
from .._edges.driver import BaseDriver, Driver
from .._journal.journal import Journal
from .._loop.conversation import AgentSnapshot
from .._loop.steps_record import StepsYield
from .._runtime.agent import Agent
from .._runtime.options import as_model_driver
from .._runtime.plugins import resolve_model
from .steps_replay import DONE, Asked, Mode, reply_of, walk

__all__ = [
    "LazyDriver",
    "STEP",
    "STEP_ALL",
    "StepContext",
    "StepResult",
    "StepsDivergedError",
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


class StepsDivergedError(ProtocolError):
    """A resumed agent's ``handle_steps`` generator yielded, at ``position``, something
    else than the journal recorded there: it is not deterministic given what it receives
    (docs/subagents.md, "Programmatic steps"). ``recorded`` and ``replayed`` are the two
    yields as compared (tool calls without their ids)."""

    def __init__(self, agent_id: str, position: int, recorded: Any, replayed: Any) -> None:
        super().__init__(
            f"agent {agent_id!r}: on resume, its handle_steps generator's yield #{position} "
            f"was {replayed!r} where the journal recorded {recorded!r}; a handle_steps "
            "generator must yield the same given what it receives (no clock, randomness or "
            "outside state in its decisions)"
        )
        self.agent_id = agent_id
        self.position = position
        self.recorded = recorded
        self.replayed = replayed


_Mode: TypeAlias = Mode
_DONE: Final = object()
_Calls: TypeAlias = tuple[tuple[str, "ToolCall"], ...]
_Plan: TypeAlias = str | _Calls
"""A yield ready to act on: ``STEP``, ``STEP_ALL``, ``DONE``, or tool calls with their ids."""


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


def _sent(
    answer: str,
    state: AgentSnapshot,
    calls: Sequence[str],
    reply: AssistantMessage | None = None,
) -> StepResult:
    """What the generator is sent for ``answer`` (a ``StepsYield``'s), from the agent's
    ``state``: the results of the tool ``calls`` it yielded last, or ``state`` with the
    ``reply`` that ended the model's turn. Live and on resume alike."""
    if answer == "tools":
        return StepResult(state, _results(state.messages, calls))
    if answer == "step":
        return StepResult(state)
    if reply is not None:
        state = attrs.evolve(state, messages=(*state.messages, reply))
    return StepResult(state, steps_complete=True)


def _results(messages: Sequence[Any], calls: Sequence[str]) -> tuple[ToolResultMessage, ...]:
    """The results of ``calls`` in ``messages``, in the order of ``calls``."""
    wanted = set(calls)
    found: dict[str, ToolResultMessage] = {}
    for m in reversed(messages):
        if isinstance(m, ToolResultMessage) and m.tool_call_id in wanted:
            found[m.tool_call_id] = m
            if len(found) == len(wanted):
                break
    return tuple(found[i] for i in calls if i in found)


def _wire(plan: _Plan) -> Any:
    """A plan as its record holds it."""
    if isinstance(plan, str):
        return plan
    return [
        {"tool_call_id": call_id, "tool_name": c.tool_name, "input": dict(c.input)}
        for call_id, c in plan
    ]


def _compared_record(action: Any) -> Any:
    """A record's yield as a replayed one is compared with it: tool calls without ids."""
    if isinstance(action, str):
        return action
    return _jsonable([{"tool_name": c["tool_name"], "input": c["input"]} for c in action])


def _compared(action: Any) -> Any:
    """A replayed yield as it is compared with its record (``_compared_record``): as the
    journal would hold it (with secrets scrubbed, as every input is)."""
    try:
        record = scrub_event(StepsYield(0, "start", _wire(_planned(action, str)), 0))
    except (TypeError, ValueError):  # no yield the driver accepts, or none a record holds
        return repr(action)
    return _compared_record(record.action)


def _planned(action: Any, new_id: Callable[[], str]) -> _Plan:
    """A yield made ready to act on: tool calls get their ids (``steps_<new_id()>``).
    Raises ``TypeError`` for a yield that is none of those the module docstring lists."""
    if action is _DONE:
        return DONE
    calls = _calls_of(action)
    if calls is not None:
        return tuple((f"steps_{new_id()}", call) for call in calls)
    if action in (STEP, STEP_ALL):
        return str(action)
    raise TypeError(
        f"handle_steps yielded {action!r}; yield a ToolCall (or a list of them), STEP or STEP_ALL"
    )


def _jsonable(value: Any) -> Any:
    """``value`` as it reads back from JSON (a tuple is a list); its repr when not JSON."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


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

    ``state()`` reads the agent's state and ``last_seq()`` the ``seq`` of its lane's last
    journal entry (0 without a journal); ``run_started()`` must be called at each
    ``agent_start`` of the agent (the generator starts with each new run, unless a
    ``STEP`` carries it over); ``new_id()`` names the calls and messages it makes.
    ``prepare(prompt, params)`` gives the next run's generator its context (by default
    the prompt is the history's last user message). ``needs_run`` is true when the
    generator waits for a new run (a ``STEP`` yielded after the model ended its turn).
    ``restore()`` rebuilds the generator of a resumed agent from its journal.
    """

    def __init__(
        self,
        handle_steps: Callable[[StepContext], Any],
        model: LazyDriver,
        state: Callable[[], AgentSnapshot],
        new_id: Callable[[], str],
        model_name: str = "",
        *,
        last_seq: Callable[[], int] = lambda: 0,
    ) -> None:
        self._handle_steps = handle_steps
        self._model = model
        self._state = state
        self._last_seq = last_seq
        self._new_id = new_id
        self.model = model_name
        """The model id of the real driver (prices are looked up by it)."""
        self._gen: _Generator | None = None
        self._yields = 0
        """How many times the generator in use has yielded (the next record's position)."""
        self._mode: _Mode = "idle"
        self._runs = 0
        """Runs the agent started (``run_started``)."""
        self._begun = 0
        """The value of ``_runs`` when the generator in use began its run."""
        self._context: tuple[str, Mapping[str, Any] | None] | None = None
        self._calls: tuple[str, ...] = ()
        self._pending: _Plan = STEP
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

    # -- resume ---------------------------------------------------------------------------

    async def restore(self, journal: Journal, agent: Agent) -> None:
        """Rebuild the generator of ``agent`` (just resumed from ``journal``): re-run it
        from the start, sending it what it was sent live (read from the journal, never
        performed again), and check each yield against the journal's record. Raises
        ``StepsDivergedError`` at the first yield that differs."""
        entries = ((e.seq, e.event) for e in journal.entries(agent.agent_id))
        found = walk(entries, agent.processor, agent.initial_state())
        self._runs, self._begun = found.runs, found.begun
        if found.asked:
            await self._replay(agent.agent_id, found.asked)
            self._mode, self._pending, self._calls = found.mode, found.pending, found.calls
        else:
            self._mode = "done"

    async def _replay(self, agent_id: str, asked: Sequence[Asked]) -> None:
        context = asked[0].record.context
        prompt, params = (context["prompt"], context["params"]) if context else ("", None)
        gen = self._gen = _Generator(
            self._handle_steps(StepContext(prompt, params, asked[0].state))
        )
        calls: tuple[str, ...] = ()
        for position, step in enumerate(asked):
            record = step.record
            value = None if position == 0 else _sent(record.answer, step.state, calls, step.reply)
            try:
                replayed = _compared(await gen.send(value))
            except Exception as exc:
                replayed = f"raised {type(exc).__name__}: {exc}"
            recorded = _compared_record(record.action)
            if replayed != recorded:
                await self.stop()
                raise StepsDivergedError(agent_id, position, recorded, replayed)
            if isinstance(record.action, list):
                calls = tuple(c["tool_call_id"] for c in record.action)
        self._yields = len(asked)

    # -- model calls ----------------------------------------------------------------------

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._call(request)

    async def _call(self, request: ModelRequest) -> AsyncIterator[Any]:
        self._interrupted = False
        run = self._runs
        plan: _Plan
        if self._mode == "restart":
            plan = self._pending
        elif run != self._begun:
            plan, record = await self._begin()
            yield record
        elif self._mode == "all":
            plan = STEP_ALL
        elif self._mode == "tools" or self._mode == "step":
            plan, record = await self._ask(self._mode, self._state(), self._last_seq())
            yield record
        else:  # the generator is done and the run goes on (a follow-up): the model answers
            async for event in self._model().receive(request):
                yield event
            return
        self._begun = run
        async for event in self._act(plan, request):
            yield event

    async def _begin(self) -> tuple[_Plan, StepsYield]:
        if self._gen is not None:
            await self._gen.close()
        state, seq = self._state(), self._last_seq()
        prompt, params = self._context or (_last_user_text(state.messages), None)
        self._context = None
        self._gen = _Generator(self._handle_steps(StepContext(prompt, params, state)))
        self._yields = 0
        context = {"prompt": prompt, "params": None if params is None else dict(params)}
        return await self._ask("start", state, seq, context=context)

    async def _ask(
        self,
        answer: str,
        state: AgentSnapshot,
        seq: int,
        reply: AssistantMessage | None = None,
        context: dict[str, Any] | None = None,
    ) -> tuple[_Plan, StepsYield]:
        """Send the generator ``answer`` (built from ``state``, read at journal ``seq``);
        its yield, planned, and the record to journal before acting on it."""
        assert self._gen is not None
        value = None if answer == "start" else _sent(answer, state, self._calls, reply)
        try:
            plan = _planned(await self._gen.send(value), self._new_id)
        except BaseException:
            self._gen, self._mode = None, "done"
            raise
        record = StepsYield(self._yields, answer, _wire(plan), seq, context)
        self._yields += 1
        return plan, record

    async def _act(self, plan: _Plan, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if isinstance(plan, tuple) or plan == DONE:
            calls = plan if isinstance(plan, tuple) else ()
            events: list[StreamEvent] = [MessageStart(f"steps_{self._new_id()}", STEPS_MODEL)]
            events += self._call_events(calls, 0)
            reason = "tool_use" if calls else "end_turn"
            for event in [*events, MessageDelta(stop_reason=reason), MessageStop(reason)]:
                yield event
            return
        self._mode = "step" if plan == STEP else "all"
        async for event in self._step(request):
            yield event

    def _call_events(self, calls: _Calls, first: int) -> list[StreamEvent]:
        """The stream of the generator's tool calls from block ``first`` on (none: it is
        done)."""
        events: list[StreamEvent] = []
        for offset, (call_id, call) in enumerate(calls):
            index = first + offset
            events.append(ToolUseStart(call_id, call.tool_name, index))
            events.append(InputJsonDelta(json.dumps(dict(call.input)), index))
            events.append(ToolUseStop(call_id, index))
        self._calls = tuple(call_id for call_id, _ in calls)
        if calls:
            self._mode = "tools"
        else:
            self._gen, self._mode = None, "done"
        return events

    async def _step(self, request: ModelRequest) -> AsyncIterator[Any]:
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
        state, seq = self._state(), self._last_seq()
        plan, record = await self._ask("complete", state, seq, reply_of(start, texts, usage))
        yield record
        if isinstance(plan, tuple):
            for event in self._call_events(plan, index + 1):
                yield event
            yield MessageDelta(stop_reason="tool_use", usage=usage)
            yield MessageStop("tool_use")
            return
        if plan == DONE:
            self._gen, self._mode = None, "done"
        else:
            self._mode, self._pending = "restart", plan
        for event in held:
            yield event


def _last_user_text(messages: Sequence[Any]) -> str:
    for m in reversed(messages):
        if getattr(m, "type", None) == "user_message":
            content = m.content
            if isinstance(content, str):
                return content
            return "".join(b.text for b in content if isinstance(b, TextContent))
    return ""
