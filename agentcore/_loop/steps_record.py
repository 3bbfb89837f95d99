"""The journal record of a ``handle_steps`` generator's yield (docs/subagents.md).

An agent whose definition has ``handle_steps`` journals, in its own lane, one
``StepsYield`` per yield of its generator, right before acting on it: what the generator
was sent (``answer``, computed from the agent's state after the journal entry
``state_seq``) and what it yielded (``action``). The conversation routes it to neither
core nor loop (a user's watcher processor sees it, as every input), so it changes no
state and emits no output. It is what lets a resumed agent re-run its generator from the
start, feed it what it received, check that it yields the same, and go on live where the
journal ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import attrs

from .._core.checks import JSONValue, NonNegativeInt, checked
from .._core.events import event_type

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = ["StepsYield"]


@event_type("steps_yield", "subagent")
@frozen
@checked
class StepsYield:
    """A ``handle_steps`` generator's yield, journaled before it is acted on.

    ``position`` counts the yields of one generator (0: its first); ``answer`` is what it
    was sent to get here: ``"start"`` (it began: ``context`` holds the task's ``prompt``
    and ``params``), ``"tools"`` (the results of its tool yield), ``"step"`` (a model step
    that asked for tools), ``"complete"`` (the model ended its turn); ``state_seq`` is
    the lane's last ``seq`` when the agent state it was sent was read. ``action`` is the
    yield: ``"STEP"``, ``"STEP_ALL"``, ``"DONE"`` (it returned), or a list of tool calls
    ``{"tool_call_id", "tool_name", "input"}``.
    """

    type: ClassVar[str] = "steps_yield"
    position: NonNegativeInt
    answer: str
    action: JSONValue
    state_seq: NonNegativeInt
    context: JSONValue = None
    timestamp: int = attrs.field(default=0, kw_only=True)
