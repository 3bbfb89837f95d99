"""AgentStateMachine: every row of the transition table, handlers, and a stateful model check."""

from __future__ import annotations

import itertools
import pathlib
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from agentcore.events import (
    ConversationClose,
    ConversationEnd,
    ConversationInterrupted,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    ErrorOccurred,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolPlanned,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)
from agentcore.machine import create_mealy_machine
from agentcore.state_machine import (
    TRANSITIONS,
    WHILE_TOOLS_PENDING,
    AgentState,
    AgentStateMachine,
    StateChange,
)

S = AgentState
KINDS = [
    "conversation_start",
    "conversation_thinking",
    "conversation_responding",
    "tool_planned",
    "tool_executing",
    "tool_completed",
    "tool_failed",
    "conversation_interrupted",
    "conversation_end",
    "conversation_close",
    "error_occurred",
]


def make(kind: str, tool: str = "t1") -> Any:
    """One state-layer event of ``kind`` (tool events about ``tool``)."""
    return {
        "conversation_start": lambda: ConversationStart("m1"),
        "conversation_thinking": ConversationThinking,
        "conversation_responding": ConversationResponding,
        "tool_planned": lambda: ToolPlanned(tool, "search"),
        "tool_executing": lambda: ToolExecuting(tool, "search"),
        "tool_completed": lambda: ToolCompleted(tool, "search"),
        "tool_failed": lambda: ToolFailed(tool, "search", "boom"),
        "conversation_interrupted": lambda: ConversationInterrupted("user"),
        "conversation_end": lambda: ConversationEnd("completed"),
        "conversation_close": lambda: ConversationClose("error"),
        "error_occurred": lambda: ErrorOccurred("bad", "PROVIDER_ERROR"),
    }[kind]()


ROUTES: dict[AgentState, list[str]] = {
    S.IDLE: [],
    S.THINKING: ["conversation_start"],
    S.RESPONDING: ["conversation_start", "conversation_responding"],
    S.PLANNING_TOOL: ["conversation_start", "tool_planned"],
    S.AWAITING_TOOL_RESULT: ["conversation_start", "tool_planned", "tool_executing"],
    S.ERROR: ["error_occurred"],
}


def machine_in(state: AgentState) -> AgentStateMachine:
    machine = AgentStateMachine()
    for kind in ROUTES[state]:
        machine.process(make(kind))
    assert machine.state is state
    return machine


# The specification, written out independently of the code's table.
BUSY = [S.THINKING, S.RESPONDING, S.PLANNING_TOOL, S.AWAITING_TOOL_RESULT]
EXPECTED_ROWS = {
    **{(s, "conversation_start"): S.THINKING for s in S},
    (S.THINKING, "conversation_responding"): S.RESPONDING,
    (S.THINKING, "tool_planned"): S.PLANNING_TOOL,
    (S.RESPONDING, "conversation_thinking"): S.THINKING,
    (S.RESPONDING, "tool_planned"): S.PLANNING_TOOL,
    (S.PLANNING_TOOL, "tool_planned"): S.PLANNING_TOOL,
    (S.PLANNING_TOOL, "conversation_thinking"): S.THINKING,
    (S.PLANNING_TOOL, "conversation_responding"): S.RESPONDING,
    (S.PLANNING_TOOL, "tool_executing"): S.AWAITING_TOOL_RESULT,
    (S.AWAITING_TOOL_RESULT, "tool_executing"): S.AWAITING_TOOL_RESULT,
    (S.AWAITING_TOOL_RESULT, "tool_completed"): S.THINKING,
    (S.AWAITING_TOOL_RESULT, "tool_failed"): S.THINKING,
    (S.AWAITING_TOOL_RESULT, "conversation_thinking"): S.THINKING,
    (S.AWAITING_TOOL_RESULT, "conversation_responding"): S.RESPONDING,
    **{(s, "conversation_interrupted"): S.IDLE for s in BUSY},
    **{(s, "conversation_end"): S.IDLE for s in BUSY},
    **{(s, "conversation_close"): S.IDLE for s in BUSY},
    **{(s, "error_occurred"): S.ERROR for s in [S.IDLE, *BUSY]},
}


def test_the_code_table_is_the_specification() -> None:
    assert TRANSITIONS == EXPECTED_ROWS


@pytest.mark.parametrize(("key", "target"), sorted(EXPECTED_ROWS.items()))
def test_each_row(key: tuple[AgentState, str], target: AgentState) -> None:
    state, kind = key
    machine = machine_in(state)
    changes: list[StateChange] = []
    machine.on_state_change(changes.append)
    event = make(kind)
    assert machine.process(event) is target
    assert machine.state is target
    if target is state:
        assert changes == []
    else:
        assert changes == [StateChange(state, target, event)]


IGNORED = sorted(set(itertools.product(S, KINDS)) - set(EXPECTED_ROWS))


@pytest.mark.parametrize(("state", "kind"), IGNORED)
def test_pairs_outside_the_table_are_ignored(state: AgentState, kind: str) -> None:
    machine = machine_in(state)
    pending = machine.pending_tools
    changes: list[StateChange] = []
    machine.on_state_change(changes.append)
    assert machine.process(make(kind, tool="other")) is state
    assert changes == []
    assert machine.pending_tools == pending


@pytest.mark.parametrize(("key", "target"), sorted(WHILE_TOOLS_PENDING.items()))
def test_a_result_with_other_tools_pending_keeps_awaiting(
    key: tuple[AgentState, str], target: AgentState
) -> None:
    state, kind = key
    machine = AgentStateMachine()
    for event in [
        make("conversation_start"),
        make("tool_planned", "a"),
        make("tool_planned", "b"),
        make("tool_executing", "a"),
        make("tool_executing", "b"),
    ]:
        machine.process(event)
    assert machine.state is state and machine.pending_tools == {"a", "b"}
    assert machine.process(make(kind, "a")) is target
    assert machine.pending_tools == {"b"}
    assert machine.process(make(kind, "a")) is target  # a duplicate answer changes nothing
    assert machine.process(make(kind, "b")) is S.THINKING
    assert machine.pending_tools == frozenset()


def test_an_early_result_is_not_waited_for_later() -> None:
    machine = AgentStateMachine()
    for event in [
        make("conversation_start"),
        make("tool_planned", "early"),
        make("tool_planned", "late"),
        make("tool_completed", "early"),  # answered while the model still streams
    ]:
        machine.process(event)
    assert machine.state is S.PLANNING_TOOL and machine.pending_tools == {"late"}
    machine.process(make("tool_executing", "late"))
    assert machine.process(make("tool_completed", "late")) is S.THINKING


def test_error_is_sticky_until_a_new_start() -> None:
    machine = machine_in(S.THINKING)
    machine.process(make("error_occurred"))
    machine.process(ConversationEnd("error"))
    assert machine.state is S.ERROR
    machine.process(make("conversation_start"))
    assert machine.state is S.THINKING


def test_events_outside_the_state_layer_are_ignored() -> None:
    machine = machine_in(S.THINKING)
    assert machine.process(TextDelta("hi", 0)) is S.THINKING
    assert machine.process("not an event") is S.THINKING


def test_reset_returns_to_idle_and_tells_handlers() -> None:
    machine = machine_in(S.AWAITING_TOOL_RESULT)
    changes: list[StateChange] = []
    machine.on_state_change(changes.append)
    machine.reset()
    assert machine.state is S.IDLE and machine.pending_tools == frozenset()
    assert changes == [StateChange(S.AWAITING_TOOL_RESULT, S.IDLE, None)]
    machine.reset()
    assert len(changes) == 1  # no change, no call


def test_a_failing_handler_does_not_stop_the_others() -> None:
    machine = AgentStateMachine()
    seen: list[str] = []

    def broken(change: StateChange) -> None:
        raise RuntimeError("handler down")

    machine.on_state_change(broken)
    machine.on_state_change(lambda c: seen.append(c.current))
    with pytest.raises(ExceptionGroup) as info:
        machine.process(make("conversation_start"))
    assert [str(e) for e in info.value.exceptions] == ["handler down"]
    assert seen == [S.THINKING]
    assert machine.state is S.THINKING  # the transition happened anyway


def test_on_handler_error_collects_failures_without_raising() -> None:
    errors: list[tuple[str, StateChange]] = []
    machine = AgentStateMachine(on_handler_error=lambda e, c: errors.append((str(e), c)))

    def broken(change: StateChange) -> None:
        raise RuntimeError("handler down")

    machine.on_state_change(broken)
    event = make("conversation_start")
    assert machine.process(event) is S.THINKING
    assert errors == [("handler down", StateChange(S.IDLE, S.THINKING, event))]


def test_unsubscribing_inside_a_handler_is_safe() -> None:
    machine = AgentStateMachine()
    calls: list[str] = []
    unsubscribers: dict[str, Any] = {}

    def first(change: StateChange) -> None:
        calls.append("first")
        unsubscribers["first"]()  # itself
        unsubscribers["second"]()  # a later one, mid-notification

    unsubscribers["first"] = machine.on_state_change(first)
    unsubscribers["second"] = machine.on_state_change(lambda c: calls.append("second"))
    machine.on_state_change(lambda c: calls.append("third"))
    machine.process(make("conversation_start"))
    machine.process(make("conversation_responding"))
    assert calls == ["first", "third", "third"]
    unsubscribers["first"]()  # idempotent


def test_a_handler_added_mid_notification_starts_with_the_next_change() -> None:
    machine = AgentStateMachine()
    calls: list[AgentState] = []

    def adder(change: StateChange) -> None:
        if change.current is S.THINKING:
            machine.on_state_change(lambda c: calls.append(c.current))

    machine.on_state_change(adder)
    machine.process(make("conversation_start"))
    assert calls == []
    machine.process(make("conversation_responding"))
    assert calls == [S.RESPONDING]


def test_the_same_handler_twice_is_called_twice_and_unsubscribed_separately() -> None:
    machine = AgentStateMachine()
    calls: list[AgentState] = []
    off = machine.on_state_change(calls.append)
    machine.on_state_change(calls.append)
    machine.process(make("conversation_start"))
    off()
    machine.process(make("conversation_responding"))
    assert len(calls) == 3


def test_handler_must_be_callable() -> None:
    with pytest.raises(TypeError, match="handler must be callable"):
        AgentStateMachine().on_state_change(None)  # type: ignore[arg-type]


def test_repr() -> None:
    assert repr(machine_in(S.PLANNING_TOOL)) == (
        "AgentStateMachine(state='planning_tool', pending=1)"
    )


class StateMachineModel(RuleBasedStateMachine):
    """Random event sequences, resets and (un)subscriptions against simple invariants."""

    def __init__(self) -> None:
        super().__init__()
        self.machine = AgentStateMachine()
        self.changes: list[StateChange] = []
        self.machine.on_state_change(self.changes.append)
        self.extra: list[tuple[Any, list[StateChange], int]] = []
        self.pending: set[str] = set()  # independent model of pending tools

    @rule(kind=st.sampled_from(KINDS), tool=st.sampled_from(["a", "b", "c"]))
    def feed(self, kind: str, tool: str) -> None:
        before = self.machine.state
        event = make(kind, tool)
        after = self.machine.process(event)
        if kind in ("tool_completed", "tool_failed"):
            self.pending.discard(tool)
        if (before, kind) not in TRANSITIONS:
            assert after is before
            return
        if kind in ("tool_planned", "tool_executing"):
            self.pending.add(tool)
        if kind == "conversation_start" or after in (S.IDLE, S.ERROR):
            self.pending.clear()
        if before is S.ERROR:
            assert kind == "conversation_start" or after is S.ERROR

    @rule()
    def reset(self) -> None:
        self.machine.reset()
        self.pending.clear()

    @rule()
    def subscribe(self) -> None:
        seen: list[StateChange] = []
        off = self.machine.on_state_change(seen.append)
        self.extra.append((off, seen, len(self.changes)))

    @precondition(lambda self: bool(self.extra))
    @rule(data=st.data())
    def unsubscribe(self, data: st.DataObject) -> None:
        off, seen, start = self.extra.pop(data.draw(st.integers(0, len(self.extra) - 1)))
        off()
        assert seen == self.changes[start:]

    @invariant()
    def pending_matches_the_model(self) -> None:
        assert self.machine.pending_tools == self.pending

    @invariant()
    def awaiting_means_something_is_pending(self) -> None:
        if self.machine.state is S.AWAITING_TOOL_RESULT:
            assert self.machine.pending_tools
        if self.machine.state in (S.IDLE, S.ERROR):
            assert not self.machine.pending_tools

    @invariant()
    def changes_form_a_chain_ending_in_the_current_state(self) -> None:
        current = S.IDLE
        for change in self.changes:
            assert change.previous is current and change.current is not current
            current = change.current
        assert current is self.machine.state

    @invariant()
    def subscribers_saw_every_change_since_subscribing(self) -> None:
        for _, seen, start in self.extra:
            assert seen == self.changes[start:]


StateMachineModel.TestCase.settings = settings(max_examples=100, stateful_step_count=40)
TestStateMachineModel = StateMachineModel.TestCase


def render_transition_table() -> str:
    """The docs' table, drawn from the code's tables (rows by state, then event kind)."""
    lines = ["| from | event | to | when |", "|---|---|---|---|"]
    for state in S:
        for kind in KINDS:
            key = (state, kind)
            if key in WHILE_TOOLS_PENDING:
                target = WHILE_TOOLS_PENDING[key]
                lines.append(f"| `{state}` | `{kind}` | `{target}` | other tools still pending |")
            if key in TRANSITIONS:
                when = "last pending tool answered" if key in WHILE_TOOLS_PENDING else ""
                lines.append(f"| `{state}` | `{kind}` | `{TRANSITIONS[key]}` | {when} |")
    return "\n".join(lines)


def test_docs_table_matches_the_code() -> None:
    text = (pathlib.Path(__file__).parents[2] / "docs" / "machine.md").read_text(encoding="utf-8")
    documented = text.split("<!-- transition-table:start -->\n")[1].split(
        "\n<!-- transition-table:end -->"
    )[0]
    assert documented == render_transition_table(), (
        "docs/machine.md is out of date; replace its table with:\n" + render_transition_table()
    )


def follow(stream: list[Any]) -> tuple[AgentStateMachine, list[str]]:
    """Feed a stream through the default machine and its outputs to a state machine."""
    machine = create_mealy_machine()
    agent = AgentStateMachine()
    seen: list[str] = []
    agent.on_state_change(lambda change: seen.append(change.current.value))
    for event in stream:
        for output in machine.process("a", event):
            agent.process(output)
    return agent, seen


def opening() -> list[Any]:
    return [
        UserMessage("u1", "hi"),
        MessageStart("m1", "claude-x"),
        ThinkingDelta("hmm", 0),
        TextDelta("Looking", 1),
        ToolUseStart("c1", "search", 2),
        InputJsonDelta("{}", 2),
        ToolUseStop("c1", 2),
        ToolUseStart("c2", "search", 3),
        InputJsonDelta("{}", 3),
        ToolUseStop("c2", 3),
        MessageStop("tool_use"),
    ]


def test_follows_the_agent_processor_through_a_turn_with_parallel_tools() -> None:
    agent, seen = follow(
        [
            *opening(),
            ToolResult("c1", "ok"),
            ToolResult("c2", "bad", is_error=True),
            MessageStart("m2", "claude-x"),
            TextDelta("Done", 0),
            MessageStop("end_turn"),
        ]
    )
    assert seen == [
        "thinking",
        "responding",
        "planning_tool",
        "awaiting_tool_result",
        "thinking",
        "responding",
        "idle",
    ]
    assert agent.pending_tools == frozenset()


def test_follows_an_interrupt_back_to_idle() -> None:
    agent, seen = follow([*opening(), ToolResult("c1", "ok"), Interrupt()])
    assert seen[-2:] == ["awaiting_tool_result", "idle"]
    assert agent.pending_tools == frozenset()


def test_follows_an_error_and_stays_there_until_the_next_turn() -> None:
    stream = [*opening()[:4], ErrorReceived("overloaded", "OVERLOADED")]
    agent, seen = follow(stream)
    assert seen[-1] == "error" and agent.state is S.ERROR
    again, seen2 = follow([*stream, UserMessage("u2", "again")])
    assert seen2[-2:] == ["error", "thinking"] and again.state is S.THINKING
