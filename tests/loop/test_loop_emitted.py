"""The loop's outputs built without their checks equal the ones their classes build.

Tests the private module ``agentcore._loop.emitted``: each builder, given the values of an
instance its class made (values its converters hand back unchanged, as the loop's are),
makes an equal instance of the same class with the same wire form. The loop's outputs as
a whole are held against the reference policy by ``test_tool_calls_oracle.py`` and
``test_phase_table.py``.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._loop import emitted
from agentcore.events import ConversationClose, is_event, to_dict
from agentcore.loop import (
    AgentEnd,
    AgentMessageEnd,
    AgentMessageStart,
    AgentStart,
    Finish,
    ModelUsage,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)
from agentcore.testing import instances

BUILT: dict[str, type[Any]] = {
    "agent_end": AgentEnd,
    "agent_message_end": AgentMessageEnd,
    "agent_message_start": AgentMessageStart,
    "agent_start": AgentStart,
    "conversation_close": ConversationClose,
    "finish": Finish,
    "model_usage": ModelUsage,
    "tool_execution_end": ToolExecutionEnd,
    "tool_execution_start": ToolExecutionStart,
    "turn_end": TurnEnd,
    "turn_start": TurnStart,
}


def test_every_builder_is_named_with_its_class() -> None:
    assert sorted(BUILT) == sorted(emitted.__all__)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(BUILT)).flatmap(lambda n: st.tuples(st.just(n), instances(BUILT[n]))))
def test_a_builder_makes_what_its_class_makes(case: tuple[str, Any]) -> None:
    name, made = case
    values = [getattr(made, f.name) for f in attrs.fields(type(made))]
    built = getattr(emitted, name)(*values)
    assert type(built) is type(made)
    assert built == made
    if is_event(made):
        assert to_dict(built) == to_dict(made)
