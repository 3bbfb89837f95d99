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

The fold decides nothing itself and does no I/O: same inputs, same outputs, which is
what ``replay_journal`` relies on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._events import LAYERS, AssistantMessage, ErrorReceived, Interrupt, UserMessage
from ._loop import loop_processor
from ._loop_state import LoopConfig, LoopState, initial_loop_state
from ._machine import MealyMachine, create_mealy_machine
from ._pricing import ModelPrice

__all__ = ["AgentFold", "is_stream_input", "replay_journal"]


def is_stream_input(event: Any) -> bool:
    """Whether ``event`` is a stream-layer input (journaled and run through the core)."""
    return LAYERS.get(getattr(event, "type", "")) == "stream"


class AgentFold:
    """The loop state and the core machine of one agent, advanced together.

    ``machine`` may be shared with an earlier fold (``Agent.reset`` keeps the core
    conversation log continuous, so the journal still replays exactly).
    """

    __slots__ = ("agent_id", "machine", "state")

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

    def fold(self, event: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Fold one input; return ``(core outputs, loop outputs)`` (effects included)."""
        if not is_stream_input(event):
            self.state, loop_out = loop_processor(self.state, event)
            return (), loop_out
        core = self.machine.process(self.agent_id, event)
        if isinstance(event, UserMessage):
            return core, ()
        replies = [o for o in core if isinstance(o, AssistantMessage)]
        failure = isinstance(event, ErrorReceived | Interrupt)
        order = [*replies, event] if failure else [event, *replies]
        state, collected = self.state, list[Any]()
        for item in order:
            state, out = loop_processor(state, item)
            collected.extend(out)
        self.state = state
        return core, tuple(collected)


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
