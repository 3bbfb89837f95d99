"""Tool calls awaiting their result: one table, one rule (``agentcore._core.pending``).

The message assembler and the state-event processor both need to know which calls await
their result; they keep it by the same rules, so inside ``agent_processor`` the two
tables are equal while a conversation runs, and the state-event processor's is only ever
a part of the assembler's once an interrupt or an error made it forget its calls.

Tests the private modules ``agentcore._core.assembler``, ``agentcore._core.pending``,
``agentcore._core.state_events``: the one table of calls awaiting their result.
"""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._core.assembler import BASE
from agentcore._core.pending import NOTHING_AWAITED, answered, awaited
from agentcore._core.state_events import AWAITING, has_pending_tools
from agentcore.events import ErrorReceived, Interrupt, ToolResult
from agentcore.processors import agent_processor, create_initial_agent_engine_state, layers_of
from agentcore.testing import Turn, broken_streams, turns


def _tables(state: Any) -> tuple[dict[str, str], dict[str, str]]:
    assembler, states, _ = layers_of(state)
    return dict(assembler[BASE].pending), dict(states[AWAITING])


@settings(max_examples=200, deadline=None)
@given(st.lists(turns(), min_size=1, max_size=3))
def test_the_assembler_and_the_state_events_await_the_same_calls(runs: list[Turn]) -> None:
    state: Any = create_initial_agent_engine_state()
    for turn in runs:
        for event in turn.events:
            state, _ = agent_processor(state, event)
            assembler, states = _tables(state)
            assert assembler == states
            assert has_pending_tools(layers_of(state)[1]) >= bool(assembler)


@settings(max_examples=200, deadline=None)
@given(st.lists(broken_streams(), min_size=1, max_size=3))
def test_after_a_forget_the_state_events_await_a_part_of_the_assembler_s_calls(
    streams: list[list[Any]],
) -> None:
    state: Any = create_initial_agent_engine_state()
    forgot = False
    for event in (e for stream in streams for e in stream):
        state, _ = agent_processor(state, event)
        forgot = forgot or type(event) in (Interrupt, ErrorReceived)
        assembler, states = _tables(state)
        if forgot:
            assert states.items() <= assembler.items()
        else:
            assert states == assembler


def test_a_result_answers_an_awaited_call_once() -> None:
    table = awaited(NOTHING_AWAITED, "c1", "search")
    table, name = answered(table, "c1")
    assert name == "search" and table == NOTHING_AWAITED
    assert answered(table, "c1") == (table, None)
    assert answered(table, 7) == (table, None)


def test_a_late_result_after_an_interrupt_is_accepted_but_not_announced() -> None:
    from agentcore.events import MessageStart, ToolUseStart, ToolUseStop

    state: Any = create_initial_agent_engine_state()
    for event in (
        MessageStart("m", "x"),
        ToolUseStart("c1", "search", 0),
        ToolUseStop("c1", 0),
        Interrupt("user"),
    ):
        state, _ = agent_processor(state, event)
    assert _tables(state) == ({"c1": "search"}, {})
    state, outputs = agent_processor(state, ToolResult("c1", "cancelled", is_error=True))
    assert [o.type for o in outputs] == ["tool_result_message"]
