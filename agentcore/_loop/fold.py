"""One fold for an agent: the core machine and the loop processor over the same inputs.

Every input the ``Agent`` runtime accepts goes through ``AgentFold.fold``:

- a *stream-layer* input (``user_message``, driver stream events, ``tool_result``,
  ``interrupt``, ``error_received``) runs through the core machine
  (``agent_processor``: messages, state events, turns) and, unless it is a
  ``user_message``, through the loop processor; every ``assistant_message`` the core
  assembles is then fed to the loop. For ``error_received`` and ``interrupt`` the
  flushed partial reply reaches the loop *before* the failure, so the loop keeps it.
- any other input (loop-layer commands: ``agent_prompt``, ``agent_steer``,
  ``clock_tick``, ``tool_approval``...) runs through the loop processor only.
- a call the loop answers itself (unknown tool, invalid arguments, skipped by steering,
  rejected, abandoned by an abort) is announced by ``tool_execution_end`` without any
  ``tool_result`` input. ``derived_results`` turns those into ``tool_result`` inputs for
  the runtime to feed back, and the fold runs them through the core machine only (the
  loop already has them), so the core layers see every call answered and the journal
  replays through the core alone.

The fold decides nothing itself and does no I/O: same inputs, same outputs, which is
what ``replay_journal`` relies on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._core.events import (
    LAYERS,
    AssistantMessage,
    ErrorReceived,
    Interrupt,
    ToolResult,
    UserMessage,
)
from .._core.machine import MealyMachine, create_mealy_machine
from .._core.pricing import ModelPrice
from .events import ToolExecutionEnd
from .policy import loop_processor
from .state import LoopConfig, LoopState, initial_loop_state

__all__ = ["AgentFold", "is_stream_input", "replay_journal"]


_STREAM_CLASSES: dict[type[Any], bool] = {}
_FAILURES = (ErrorReceived, Interrupt)


def is_stream_input(event: Any) -> bool:
    """Whether ``event`` is a stream-layer input (journaled and run through the core).

    The answer is cached per class when the class itself names its wire ``type``.
    """
    cls = type(event)
    stream = _STREAM_CLASSES.get(cls)
    if stream is None:
        stream = LAYERS.get(getattr(event, "type", "")) == "stream"
        if isinstance(getattr(cls, "type", None), str):
            _STREAM_CLASSES[cls] = stream
    return stream


class AgentFold:
    """The loop state and the core machine of one agent, advanced together.

    ``machine`` may be shared with an earlier fold (``Agent.reset`` keeps the core
    conversation log continuous, so the journal still replays exactly).
    """

    __slots__ = ("_loop_answered", "agent_id", "machine", "state")

    def __init__(
        self,
        config: LoopConfig,
        messages: Iterable[Any] = (),
        *,
        agent_id: str = "agent",
        prices: Mapping[str, ModelPrice] | None = None,
        machine: MealyMachine | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.state: LoopState = initial_loop_state(config, tuple(messages))
        self.machine = machine if machine is not None else create_mealy_machine(prices=prices)
        self._loop_answered: set[str] = set()

    def fold(self, event: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Fold one input; return ``(core outputs, loop outputs)`` (effects included)."""
        if not is_stream_input(event):
            self.state, loop_out = loop_processor(self.state, event)
            self._note_loop_answers(event, loop_out)
            return (), loop_out
        core = self.machine.process(self.agent_id, event)
        if isinstance(event, UserMessage):
            return core, ()
        if isinstance(event, ToolResult) and event.tool_call_id in self._loop_answered:
            self._loop_answered.discard(event.tool_call_id)
            return core, ()
        # the assembled replies reach the loop after the event, or before a failure
        failure = isinstance(event, _FAILURES)
        state, loop_out = (self.state, ()) if failure else loop_processor(self.state, event)
        for output in core:
            if isinstance(output, AssistantMessage):
                state, more = loop_processor(state, output)
                loop_out += more
        if failure:
            state, more = loop_processor(state, event)
            loop_out += more
        self.state = state
        self._note_loop_answers(event, loop_out)
        return core, loop_out

    def derived_results(self, loop_outputs: Iterable[Any]) -> list[ToolResult]:
        """``tool_result`` inputs for the calls the loop answered itself in these outputs."""
        if not self._loop_answered:
            return []
        return [
            ToolResult(
                o.tool_call_id,
                o.result.result,
                o.is_error,
                o.result.details,
                timestamp=o.timestamp,
            )
            for o in loop_outputs
            if isinstance(o, ToolExecutionEnd) and o.tool_call_id in self._loop_answered
        ]

    def _note_loop_answers(self, event: Any, loop_outputs: Iterable[Any]) -> None:
        answered_by_input = event.tool_call_id if isinstance(event, ToolResult) else None
        for o in loop_outputs:
            if isinstance(o, ToolExecutionEnd) and o.tool_call_id != answered_by_input:
                self._loop_answered.add(o.tool_call_id)


def replay_journal(
    config: LoopConfig,
    inputs: Iterable[Any],
    messages: Iterable[Any] = (),
    *,
    prices: Mapping[str, ModelPrice] | None = None,
) -> tuple[LoopState, list[Any]]:
    """Fold an agent's inputs (``agent.inputs``) through a fresh fold.

    Returns the loop state and every output in order: for each input, its core outputs
    then its loop outputs (effects too), exactly as the live runtime produced them
    (``runtime.outputs`` when ``record_outputs`` is on). ``prices`` must be the agent's
    (``agent.prices``) for the turn costs to match.
    """
    fold = AgentFold(config, messages, prices=prices)
    outputs: list[Any] = []
    for event in inputs:
        core, loop_out = fold.fold(event)
        outputs.extend(core)
        outputs.extend(loop_out)
    return fold.state, outputs
