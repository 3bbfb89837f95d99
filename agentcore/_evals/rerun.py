"""Re-running a case: its user inputs again, on an agent built from a configuration.

``run_case`` builds an ``Agent`` from the configuration's options, with its own journal
and the case's agent id, and gives it the recorded user inputs in their order: prompts,
continues, approvals and elicitation answers when the agent is idle or paused, steering,
follow-ups and aborts at the point of the recording where they arrived (between the
same two model or tool events). Two stand-ins put the recording in front of the agent:

- the model is ``ReplayModel``: in ``replay`` mode the recorded stream of model call
  *n* answers call *n* when the request the loop built equals the one the recording's
  loop built (every field; message timestamps aside), bit for bit, in its recorded
  batches; a request that differs is a ``Divergence`` at that step, naming the fields,
  and the call fails (``DRIVER_ERROR``) so the run ends there. ``live`` calls the
  configuration's model every time; ``replay-then-live`` replays until the first
  divergence and calls the model from then on.
- a tool middleware answers a tool call with its recorded result when the recording ran
  a call with the same id, name and arguments (``replay_tools``: all, none, or a set of
  tool names), in the recorded order; any other call runs. A replayed call that spawned
  sub-agents brings their recorded lanes into the new journal.

Nothing here folds: the agent's ``Conversation`` does, so the new journal is what any
run of the configuration would have written.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import attrs

from .._core.driver import ModelRequest, OutputMode
from .._core.errors import AgentError, ErrorCode
from .._core.events import ErrorReceived, StreamEvent, UserMessage
from .._core.pricing import ModelPrice
from .._edges.driver import BaseDriver, Driver
from .._journal.journal import Journal, JournalEntry, MemoryJournal
from .._loop.conversation import create_conversation_machine
from .._loop.events import (
    AgentAbort,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentSteer,
    ElicitationAnswer,
    ToolApproval,
)
from .._loop.state import LoopConfig
from .._runtime.actions import ToolCallAction, ToolResultAction
from .._runtime.agent import Agent
from .._runtime.options import prices_for
from .._runtime.plugins import resolve_model
from .cases import Case, spawned_by, tree_of
from .config import Config, options_of
from .trace import RUN_INPUTS, USER_INPUTS, ModelStep, ToolStep, Trace

__all__ = [
    "MODES",
    "Divergence",
    "Mode",
    "ReplayModel",
    "Run",
    "request_changes",
    "run_case",
    "trace_of",
]

Mode: TypeAlias = Literal["replay", "live", "replay-then-live"]
MODES: tuple[Mode, ...] = ("replay", "live", "replay-then-live")


@attrs.frozen
class Divergence:
    """Where a new run first departs from its recording: model call ``step`` (1-based;
    0 when no model call), ``layer`` (``request``, ``model``, ``tool``, ``inputs``,
    ``end``), ``why`` in words and, for a request, which ``fields`` changed."""

    step: int
    layer: str
    why: str
    fields: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f"model call {self.step}" if self.step else "the start"
        return f"{self.layer} at {where}: {self.why}"


@attrs.frozen
class Run:
    """A finished re-run: its ``entries`` (the whole journal: root lane and sub-agents'),
    the ``divergence`` the runner saw while replaying (``None`` when none), the error
    that stopped it, and its wall time in seconds."""

    case: Case
    mode: Mode
    agent_id: str
    entries: tuple[JournalEntry, ...]
    divergence: Divergence | None
    wall_seconds: float
    error: str | None = None
    prices: Mapping[str, ModelPrice] | None = attrs.field(default=None, eq=False, repr=False)
    """The configuration's price table: what tracing the runs prices turns by."""
    recorded: Trace | None = attrs.field(default=None, eq=False, repr=False)
    """The recording, traced with those prices (None for a hand-written case)."""
    loop: LoopConfig | None = attrs.field(default=None, eq=False, repr=False)
    """The new agent's loop configuration: its context hooks build the traced requests."""


# -- comparing requests ----------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """``value`` as plain data with timestamps left out (they differ from run to run)."""
    if attrs.has(type(value)):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in attrs.fields(type(value))
            if f.name != "timestamp"
        }
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict) or hasattr(value, "items"):
        return {k: _plain(v) for k, v in value.items()}
    return value


def request_changes(recorded: ModelRequest, new: ModelRequest) -> tuple[str, ...]:
    """The fields of a model request that differ (``messages``, ``system_prompt``,
    ``tools``, ``model``...; a message's timestamp is not a change)."""
    if recorded == new:
        return ()
    changed = []
    for field in attrs.fields(ModelRequest):
        a, b = getattr(recorded, field.name), getattr(new, field.name)
        if a != b and _plain(a) != _plain(b):
            changed.append(field.name)
    return tuple(changed)


def _first_message_change(recorded: ModelRequest, new: ModelRequest) -> str:
    old, now = recorded.messages, new.messages
    for i, (a, b) in enumerate(zip(old, now, strict=False)):
        if _plain(a) != _plain(b):
            return f"message {i + 1} ({getattr(b, 'type', type(b).__name__)}) changed"
    return f"{len(old)} message(s) recorded, {len(now)} now"


# -- the replay --------------------------------------------------------------------------


class _Replay:
    """The shared state of one case's re-run (module docstring)."""

    def __init__(
        self,
        case: Case,
        mode: Mode,
        replay_tools: bool | Collection[str],
        live: Callable[[], Driver],
        journal: Journal,
    ) -> None:
        self.case, self.mode = case, mode
        self.replay_tools = replay_tools
        self._live_factory = live
        self._live: Driver | None = None
        self.journal = journal
        self.agent: Agent | None = None
        self.applied: set[int] = set()
        self.calls = 0
        self.divergence: Divergence | None = None
        self.stopped = False
        self._turns: dict[int, asyncio.Event] = {}

    def load(self, recorded: Trace) -> None:
        """The recording, traced through the new agent's loop configuration (its context
        hooks build the recorded requests as they build the new ones)."""
        self.recorded = recorded
        self.tools = {step.call.tool_call_id: step for step in recorded.tool_steps if step.result}
        lane = recorded.entries
        self._after: dict[int, int] = {}
        for step in recorded.model_steps:  # inputs that came right after a call's stream
            j = (step.indices[-1] if step.indices else step.at) + 1
            while j < len(lane) and _in_run(lane[j].event):
                j += 1
            self._after[step.number] = j

    # -- the model ---------------------------------------------------------------------

    def live(self) -> Driver:
        if self._live is None:
            self._live = self._live_factory()
        return self._live

    def diverge(self, divergence: Divergence) -> None:
        if self.divergence is None:
            self.divergence = divergence

    def number(self) -> int:
        """Which recorded model call this one stands for. While the runs agree the new
        lane holds what the recording's did, so it is the last call the recording asked
        for before this position (one cancelled before it streamed was never sent to a
        driver, so counting calls would not do); from a divergence on, the next one."""
        if self.divergence is not None or self.mode == "live":
            return self.calls + 1
        position = self.journal.last_seq(self.case.agent_id)
        asked = max((s.number for s in self.recorded.model_steps if s.at < position), default=0)
        return asked if asked > self.calls else self.calls + 1

    def call_start(self, number: int) -> int:
        """The lane position before which the inputs given ahead of model call
        ``number`` were recorded: its first event, or (the recording has no such call)
        the next run's start."""
        steps = self.recorded.model_steps
        if number <= len(steps):
            step = steps[number - 1]
            return step.indices[0] if step.indices else self._after[number]
        return next(
            (i for i, c in self.recorded.inputs if i not in self.applied and not _in_run(c)),
            len(self.recorded.entries),
        )

    def check(self, number: int, request: ModelRequest) -> ModelStep | None:
        """The recorded step that answers call ``number`` of ``request``, or None (and
        the divergence noted)."""
        steps = self.recorded.model_steps
        if number > len(steps):
            self.diverge(Divergence(number, "request", "the recording has no such model call"))
            return None
        step = steps[number - 1]
        if step.request is None:
            return step
        changed = request_changes(step.request, request)
        if not changed:
            return step
        why = "request changed: " + ", ".join(changed)
        if "messages" in changed:
            why += f" ({_first_message_change(step.request, request)})"
        self.diverge(Divergence(number, "request", why, changed))
        return None

    async def play(self, step: ModelStep) -> AsyncIterator[Sequence[StreamEvent]]:
        events, start = step.events, 0
        for k, index in enumerate(step.indices):
            if self._pending(index):
                if start < k:
                    yield events[start:k]
                    start = k
                self.inject_before(index)
        if start < len(events):
            yield events[start:]
        self.inject_before(self._after[step.number])

    # -- user inputs -------------------------------------------------------------------

    def _pending(self, index: int) -> bool:
        return any(
            i < index and i not in self.applied and _in_run(cmd) for i, cmd in self.recorded.inputs
        )

    def inject_before(self, index: int) -> None:
        """Give the steering, follow-ups and aborts recorded before lane position
        ``index`` that are not given yet."""
        for i, command in self.recorded.inputs:
            if i >= index:
                break
            if i not in self.applied and _in_run(command):
                self.applied.add(i)
                self._now(command)

    def _now(self, command: Any) -> None:
        agent = self.agent
        assert agent is not None
        if type(command) is AgentSteer:
            agent.steer(command.message)
        elif type(command) is AgentFollowUp:
            agent.follow_up(command.message)
        elif type(command) is AgentAbort:
            agent.abort(command.reason)

    async def give(self, command: Any) -> None:
        """Give one user input (idle or paused); a refused one is a divergence."""
        agent = self.agent
        assert agent is not None
        try:
            if type(command) is AgentPrompt:
                messages = [_message(m) for m in command.messages]
                await agent.prompt(messages, **_limits(command))
            elif type(command) is AgentContinue:
                await agent.continue_(**_limits(command))
            elif type(command) is ToolApproval:
                await self._decide(agent, command)
            elif type(command) is ElicitationAnswer:
                await agent.answer_elicitation(
                    command.elicitation_id, command.action, command.content
                )
            elif type(command) is AgentReset:
                agent.reset()
            else:
                self._now(command)
        except AgentError as exc:
            self.diverge(
                Divergence(self.calls, "inputs", f"{command.type} was refused: {exc.message}")
            )
            self.stopped = self.mode == "replay"

    async def _decide(self, agent: Agent, command: ToolApproval) -> None:
        ids = [command.tool_call_id]
        if command.tool_call_id == "*":  # a hand-written case: every call that waits
            ids = [call.tool_call_id for call in agent.state.pending_approvals]
        for call_id in ids:
            if command.approved:
                await agent.approve(call_id)
            else:
                await agent.reject(call_id, command.reason)

    # -- tools ---------------------------------------------------------------------------

    def recorded_tool(self, call: Any) -> ToolStep | None:
        replay = self.replay_tools
        if replay is False or (replay is not True and call.tool_name not in replay):
            return None
        step = self.tools.get(call.tool_call_id)
        if step is None:
            return None
        if step.call.tool_name != call.tool_name or step.call.input != call.input:
            self.diverge(
                Divergence(
                    self.calls,
                    "tool",
                    f"call {call.tool_call_id} is now {call.tool_name}({call.input}), "
                    f"recorded {step.call.tool_name}({step.call.input})",
                )
            )
            return None
        return step

    async def in_turn(self, index: int) -> None:
        """Wait until the replayed calls recorded before ``index`` (of the same batch)
        have answered, so results enter in the recorded order."""
        own = self._turns[index] = asyncio.Event()
        try:
            await asyncio.sleep(0)  # the batch's other calls claim their places
            for earlier in sorted(i for i in self._turns if i < index):
                await self._turns[earlier].wait()
        except asyncio.CancelledError:  # an abort: the calls after this one wait no more
            own.set()
            raise

    def answered(self, index: int) -> None:
        event = self._turns.get(index)
        if event is not None:  # set once the result is fed (the caller's next step)
            asyncio.get_running_loop().call_soon(event.set)

    def copy_children(self, call_id: str) -> None:
        """The recorded lanes of the sub-agents a replayed call spawned, into the new
        journal."""
        root = self.case.agent_id
        for entry in self.recorded.children:
            if spawned_by(root, entry.agent_id) == call_id:
                self.journal.append(entry.agent_id, entry.event)


def _in_run(command: Any) -> bool:
    return isinstance(command, USER_INPUTS) and not isinstance(command, RUN_INPUTS)


def _message(message: Any) -> Any:
    if type(message) is UserMessage and not message.message_id:
        return message.content  # hand-written: the agent gives it an id
    return message


def _limits(command: AgentPrompt | AgentContinue) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    for name in ("max_iterations", "max_tokens", "max_cost"):
        value = getattr(command, name)
        if value is not None:
            limits[name] = value
    if command.timeout_ms is not None:
        limits["timeout"] = command.timeout_ms / 1000
    return limits


class ReplayModel(BaseDriver):
    """The model of a re-run (module docstring): recorded streams while the requests
    match, the configuration's model when live."""

    def __init__(self, replay: _Replay) -> None:
        self._replay = replay

    @property
    def name(self) -> str:
        return "replay" if self._replay.mode == "replay" else self._replay.live().name

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        if self._replay.mode == "replay":
            return super().output_modes
        return self._replay.live().output_modes

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for batch in self.receive_batches(request):
            for event in batch:
                yield event

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        replay = self._replay
        replay.calls = number = replay.number()
        replay.inject_before(replay.call_start(number))
        if replay.mode != "live" and replay.divergence is None:
            step = replay.check(number, request)
            if step is not None:
                # no await before the recorded batches: an abort given above lands where
                # it did in the recording, after the batch the runtime was feeding
                async for batch in replay.play(step):
                    yield batch
                return
            await asyncio.sleep(0)  # an abort given above cancels this call here
            if replay.mode == "replay":
                replay.stopped = True
                why = f"replay diverged: {replay.divergence}"
                yield (ErrorReceived(why, ErrorCode.DRIVER_ERROR.value, timestamp=0),)
                return
        await asyncio.sleep(0)
        async for batch in replay.live().receive_batches(request):
            yield batch

    def interrupt(self) -> None:
        if self._replay._live is not None:
            self._replay._live.interrupt()

    async def aclose(self) -> None:
        if self._replay._live is not None:
            await self._replay._live.aclose()


def _tool_middleware(replay: _Replay) -> Callable[[Any, Any], Any]:
    async def replay_tools(action: Any, next: Any) -> Any:
        """Answer a tool call from the recording when it is the recorded call."""
        if type(action) is not ToolCallAction:
            return await next(action)
        step = replay.recorded_tool(action.call)
        if step is None:
            return await next(action)
        await replay.in_turn(step.index)
        replay.inject_before(step.index)
        replay.copy_children(action.call.tool_call_id)
        replay.answered(step.index)
        assert step.result is not None
        return ToolResultAction(action.call, step.result)

    return replay_tools


def _live_model(model: Any, factory: Callable[[str], Driver] | None) -> Callable[[], Driver]:
    def resolve() -> Driver:
        if isinstance(model, str):
            return resolve_model(model) if factory is None else factory(model)
        return model  # type: ignore[no-any-return]

    return resolve


def trace_of(
    entries: Iterable[JournalEntry],
    agent_id: str,
    prices: Mapping[str, ModelPrice] | None,
    loop: LoopConfig | None = None,
) -> Trace:
    """``Trace.of`` through a conversation machine with the price table ``prices`` and
    ``loop``'s hooks (the journal's ``agent_configured`` gives the rest)."""
    return Trace.of(entries, agent_id, lambda: create_conversation_machine(prices, config=loop))


async def run_case(
    case: Case,
    config: Config,
    *,
    mode: Mode = "replay",
    replay_tools: bool | Collection[str] = True,
    journal: Journal | None = None,
) -> Run:
    """Re-run ``case`` on ``config`` (module docstring) into ``journal`` (a new
    ``MemoryJournal`` by default); a hand-written case always runs live."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    options = options_of(config)
    journal = MemoryJournal() if journal is None else journal
    agent_id = case.agent_id
    registry, agent_type = options.pop("registry", None), options.pop("agent_type", None)
    model = options.pop("model", None)
    if model is None and registry is not None:
        model = registry.get(agent_type).model
    price, prices = prices_for(model, options.get("price"))
    if price is not None:  # the replaying model has no name to look its price up by
        options["price"] = price
    if not case.recorded:
        mode = "live"
    live = _live_model(model, getattr(registry, "driver_factory", None))
    replay = _Replay(case, mode, replay_tools, live, journal)
    middleware = [*options.pop("middleware", ()), _tool_middleware(replay)]
    options.update(journal=journal, agent_id=agent_id, middleware=middleware)
    options.pop("session_id", None)
    started = time.perf_counter()
    error: str | None = None
    if registry is not None:  # a tree: the registry builds the root
        agent = registry.create(agent_type, model=ReplayModel(replay), **options)
    else:
        agent = Agent(ReplayModel(replay), **options)
    replay.agent = agent
    loop = agent.config
    recorded = trace_of(case.entries, agent_id, prices, loop)
    if not case.recorded:
        recorded = attrs.evolve(recorded, inputs=tuple(enumerate(case.inputs)))
    replay.load(recorded)
    try:
        for index, command in recorded.inputs:
            if replay.stopped:
                break
            if index in replay.applied:
                continue
            replay.applied.add(index)
            await replay.give(command)
        await agent.wait()
    except Exception as exc:  # a failing configuration is a failed case, not a crash
        error = f"{type(exc).__name__}: {exc}"
    finally:
        await agent.aclose()
    entries = tuple(e for e in journal.entries() if tree_of(agent_id, e.agent_id))
    wall = time.perf_counter() - started
    traced = recorded if case.recorded else None
    return Run(case, mode, agent_id, entries, replay.divergence, wall, error, prices, traced, loop)
