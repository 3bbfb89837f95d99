"""``Trace``: one fold of a session's lane, read as an eval reads it.

The journal holds inputs; what an eval compares (the requests the model was sent, the
tool calls and their results, every layer's outputs, the run's end) is what folding them
gives. ``Trace.of`` folds a lane once through a conversation machine and keeps, per
entry, the outputs it caused, effect requests included, so the model requests are the
ones the loop built (``CallModel.request``) and the tool calls the ones it ran
(``ExecuteTools``). Both sides of a diff are traced the same way, by the same machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from .._core.content import ToolCallPart
from .._core.driver import ModelRequest
from .._core.events import (
    LAYERS,
    AssistantMessage,
    ErrorReceived,
    Interrupt,
    MessageStart,
    MessageStop,
    ToolResult,
    TurnResponse,
    UserMessage,
)
from .._journal.journal import JournalEntry
from .._journal.replay import ReplayMachine, fold_steps
from .._loop.events import (
    AgentAbort,
    AgentContinue,
    AgentEnd,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AgentSteer,
    CallModel,
    ElicitationAnswer,
    ExecuteTools,
    SummariseContext,
    ToolApproval,
)

__all__ = ["RUN_INPUTS", "USER_INPUTS", "ModelStep", "ToolStep", "Trace"]

USER_INPUTS = (
    AgentPrompt,
    AgentContinue,
    AgentSteer,
    AgentFollowUp,
    AgentAbort,
    ToolApproval,
    AgentReset,
    ElicitationAnswer,
)
"""The inputs a user gives (what a re-run gives again)."""

RUN_INPUTS = (AgentPrompt, AgentContinue, ToolApproval, ElicitationAnswer, AgentReset)
"""User inputs that start (or go on with) a run: given when the agent is idle or paused;
the others (steering, follow-ups, aborts) arrive while a run goes on."""

_RUNTIME_STREAM = (UserMessage, ToolResult, Interrupt)


@attrs.frozen
class ModelStep:
    """One model call: ``request`` (None when the recording holds no request for it),
    asked for at lane position ``at``; the driver's ``events`` at lane positions
    ``indices`` (none when the call was cancelled before it streamed), and its reply."""

    number: int
    request: ModelRequest | None
    events: tuple[Any, ...]
    indices: tuple[int, ...]
    at: int
    reply: AssistantMessage | None = None
    error: ErrorReceived | None = None


@attrs.frozen
class ToolStep:
    """One tool call the loop ran (``ExecuteTools``), and its result at ``index``."""

    call: ToolCallPart
    result: ToolResult | None = None
    index: int = -1


@attrs.frozen
class Trace:
    """A traced lane: its entries, the outputs each caused (effects included), the user
    inputs, model and tool steps, and the run's end reasons (module docstring)."""

    agent_id: str
    entries: tuple[JournalEntry, ...]
    outputs: tuple[tuple[Any, ...], ...]
    inputs: tuple[tuple[int, Any], ...]
    model_steps: tuple[ModelStep, ...]
    tool_steps: tuple[ToolStep, ...]
    children: tuple[JournalEntry, ...] = ()

    @classmethod
    def of(
        cls,
        entries: Iterable[JournalEntry],
        agent_id: str,
        machine_factory: Callable[[], ReplayMachine],
        *,
        fast: bool = True,
    ) -> Trace:
        """Fold ``agent_id``'s entries of ``entries`` through a fresh machine, by the
        journal's own fold (``fold_steps``; ``fast`` is its delta fast path)."""
        lane: list[JournalEntry] = []
        children: list[JournalEntry] = []
        for entry in entries:
            (lane if entry.agent_id == agent_id else children).append(entry)
        outputs: list[tuple[Any, ...]] = []
        inputs: list[tuple[int, Any]] = []
        steps: list[ModelStep] = []
        tools: dict[str, ToolStep] = {}
        call: list[tuple[int, Any]] = []
        opened: tuple[ModelRequest | None, int] | None = None  # the call asked for, where

        def close_call() -> None:
            nonlocal opened
            if opened is not None:
                caused = outputs[call[-1][0]] if call else ()
                steps.append(_model_step(len(steps) + 1, opened, call, caused))
                call.clear()
                opened = None

        roles = _ROLES
        folded = fold_steps(lane, machine_factory(), fast=fast)
        for index, (entry, out) in enumerate(folded):
            event = entry.event
            outputs.append(out)
            kind = type(event)
            role = roles.get(kind) or roles.setdefault(kind, _role(kind))
            if role is _USER:
                inputs.append((index, event))
            elif role is not _OTHER:  # the stream of a model call
                if opened is None or (role is _START and call):
                    close_call()  # a stream nobody asked for here: a call resumed
                    opened = (None, index)
                call.append((index, event))
                if role is _END:
                    close_call()
            elif kind is ToolResult and event.tool_call_id in tools:
                step = tools[event.tool_call_id]
                tools[event.tool_call_id] = attrs.evolve(step, result=event, index=index)
            if len(out) == 1 and out[0] is event:
                continue  # a stream input echoed: nothing asked for
            for output in out:
                if isinstance(output, CallModel) and not isinstance(output, SummariseContext):
                    if type(event) is AgentResume and opened is not None and not call:
                        continue  # a resume asks again for the call it found in flight
                    close_call()
                    opened = (output.request, index)
                elif type(output) is ExecuteTools:
                    for part in output.tool_calls:
                        tools[part.tool_call_id] = ToolStep(part)
        close_call()
        return cls(
            agent_id,
            tuple(lane),
            tuple(outputs),
            tuple(inputs),
            tuple(steps),
            tuple(tools.values()),
            tuple(children),
        )

    # -- layers --------------------------------------------------------------------------

    def layer(self, name: str) -> list[Any]:
        """Every output of layer ``name`` (``message``, ``state``, ``turn``, ``loop``)."""
        return [o for out in self.outputs for o in out if LAYERS.get(_type(o)) == name]

    def of_type(self, cls: type[Any]) -> list[Any]:
        return [o for out in self.outputs for o in out if type(o) is cls]

    @property
    def ends(self) -> list[AgentEnd]:
        """Each run's end (``agent_end``), in order."""
        return self.of_type(AgentEnd)

    @property
    def final_text(self) -> str:
        """The text of the last complete assistant message ("" when there is none)."""
        for message in reversed(self.of_type(AssistantMessage)):
            if not message.incomplete:
                return str(message.text)
        return ""

    @property
    def turns(self) -> list[TurnResponse]:
        return self.of_type(TurnResponse)

    @property
    def trajectory(self) -> list[str]:
        """The names of the tool calls run, in order."""
        return [step.call.tool_name for step in self.tool_steps]

    @property
    def cost(self) -> float | None:
        """The summed cost of every turn (None when no turn had a price)."""
        costs = [t.cost for t in self.turns if t.cost is not None]
        return sum(costs) if costs else None

    @property
    def tokens(self) -> int:
        return sum(t.usage.input_tokens + t.usage.output_tokens for t in self.turns)

    @property
    def duration_ms(self) -> int:
        """From the first entry to the last, by their timestamps."""
        stamps = [getattr(e.event, "timestamp", 0) for e in self.entries]
        stamps = [s for s in stamps if s]
        return max(stamps) - min(stamps) if stamps else 0


_USER, _START, _END, _STREAM, _OTHER = "user", "start", "end", "stream", "other"
_ROLES: dict[type[Any], str] = {}
"""An input's class -> its part in a trace (``_role``), worked out once per class."""


def _role(cls: type[Any]) -> str:
    """A user input, the start or end of a model call's stream, another event of that
    stream (what a driver gives, not the runtime), or other."""
    if issubclass(cls, USER_INPUTS):
        return _USER
    if LAYERS.get(getattr(cls, "type", "")) != "stream" or issubclass(cls, _RUNTIME_STREAM):
        return _OTHER
    if issubclass(cls, MessageStart):
        return _START
    return _END if issubclass(cls, MessageStop | ErrorReceived) else _STREAM


def _type(output: Any) -> str:
    return str(getattr(output, "type", ""))


def _model_step(
    number: int,
    opened: tuple[ModelRequest | None, int],
    call: Sequence[tuple[int, Any]],
    caused: Sequence[Any],
) -> ModelStep:
    request, at = opened
    events = tuple(e for _, e in call)
    reply = next((o for o in caused if type(o) is AssistantMessage), None)
    error = events[-1] if events and isinstance(events[-1], ErrorReceived) else None
    return ModelStep(number, request, events, tuple(i for i, _ in call), at, reply, error)
