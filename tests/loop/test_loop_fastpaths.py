"""The hot-path shortcuts of the loop and its shell keep the behaviour of the slow paths.

Direct constructors must equal ``attrs.evolve``; a batch's slot bookkeeping must answer
like a map from call id; an outlet that skips dispatch with no subscriber must still
reach every subscriber that is there.

Tests the private modules ``agentcore._loop.state`` and ``agentcore._runtime.outlet``: the
hot-path shortcuts against the slow paths (and ``agentcore.stamped``, which the scripted
drivers stamp with, against ``attrs.evolve``).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyrsistent import pvector

from agentcore import Cache, ModelRequest, OutputSpec, stamped
from agentcore._loop.state import Batch, Run
from agentcore._runtime.outlet import Outlet
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolCallPart,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    AgentAbort,
    AgentPrompt,
    CancelTools,
    ContextView,
    Limits,
    LoopConfig,
    LoopState,
    ToolExecutionEnd,
    history_problems,
    initial_loop_state,
    loop_processor,
)
from agentcore.tools import define_tool


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


def _result(call_id: str) -> ToolResultMessage:
    return ToolResultMessage(call_id, "t", f"r-{call_id}", False, None, timestamp=3)


def _busy_state() -> LoopState:
    """A state whose every field differs from its default."""
    calls = (ToolCallPart("a", "t", {}), ToolCallPart("b", "t", {}))
    return LoopState(
        LoopConfig(),
        pvector([UserMessage("u", "hi")]),
        ("steer",),
        ("follow",),
        "tools",
        Run(Limits(), 1, deadline=9, iterations=2, turn=2, turn_open=True),
        Batch.of(calls),
        ("CODE", "message"),
    )


def test_direct_state_constructors_equal_evolve() -> None:
    s = _busy_state()
    batch = attrs.evolve(s.batch, running=frozenset({"a"}))
    run = Run(Limits(max_iterations=3), 7)
    assert s.with_batch(batch) == attrs.evolve(s, batch=batch)
    assert s.with_batch(None) == attrs.evolve(s, batch=None)
    assert s.with_run(run) == attrs.evolve(s, run=run)
    assert s.with_run(None) == attrs.evolve(s, run=None)


def test_batch_answer_equals_evolve() -> None:
    s = _busy_state()
    assert s.batch is not None
    batch = attrs.evolve(
        s.batch,
        runnable=s.batch.calls,
        groups=((s.batch.calls[1],),),
        running=frozenset({"a", "b"}),
        pending=("b",),
        decisions={"b": (True, None)},
    )
    answered = batch.answer("a", _result("a"))
    expected = attrs.evolve(
        batch, results=batch.results.set(0, _result("a")), running=frozenset({"b"})
    )
    assert answered == expected
    assert answered.positions is batch.positions


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=6),
    st.data(),
)
def test_batch_slots_answer_like_a_map(ids: list[str], data: st.DataObject) -> None:
    """Whatever the order and repeats of call ids, slots behave as a map id -> result."""
    batch = Batch.of(tuple(ToolCallPart(i, "t", {}) for i in ids))
    model: dict[str, ToolResultMessage] = {}
    for call_id in data.draw(st.lists(st.sampled_from(ids), max_size=8), "answers"):
        result = _result(call_id)
        if data.draw(st.booleans(), "one at a time?"):
            batch = batch.answer(call_id, result)
        else:
            batch = attrs.evolve(batch, results=batch.answered({call_id: result}))
        model[call_id] = result
    for call_id in ids:
        assert batch.result_of(call_id) == model.get(call_id)
        assert batch.name_of(call_id) == "t"


def test_repeated_call_id_is_answered_once_and_closed_everywhere() -> None:
    """A model that repeats a call id gets one run and the one result for each mention."""
    config = LoopConfig(tools=[define_tool("t", "t", {"type": "object"}, _noop)])
    s, _ = loop_processor(initial_loop_state(config), _prompt())
    calls = [ToolCallPart("x", "t", {}), ToolCallPart("x", "t", {})]
    s, _ = loop_processor(s, AssistantMessage("m", "model", calls, stop_reason="tool_use"))
    assert s.batch is not None and s.batch.running == frozenset({"x"})
    s, out = loop_processor(s, ToolResult("x", "done", timestamp=5))
    assert out == (ToolResult("x", "done", timestamp=5),)  # let in, once
    s, out = loop_processor(s, ToolResultMessage("x", "t", "done", timestamp=5))  # the core's
    assert [o.tool_call_id for o in out if isinstance(o, ToolExecutionEnd)] == ["x"]
    results = [m for m in s.messages if isinstance(m, ToolResultMessage)]
    assert [r.result for r in results] == ["done", "done"]


def _fold(state: Any, event: Any) -> tuple[Any, list[Any]]:
    """``loop_processor``, with each ``tool_result`` it lets in or makes fed back as the
    core's ``tool_result_message`` (as the conversation processor does)."""
    state, out = loop_processor(state, event)
    outputs = list(out)
    batch = state.batch
    for o in out:
        if isinstance(o, ToolResult):
            name = batch.name_of(o.tool_call_id) if batch is not None else ""
            state, more = _fold(state, ToolResultMessage.answering(o, name))
            outputs.extend(more)
    return state, outputs


def _prompt() -> AgentPrompt:
    return AgentPrompt([UserMessage("u1", "go")], timestamp=1)


def test_abort_answers_unstarted_and_running_calls_from_slots() -> None:
    config = LoopConfig(
        tools=[define_tool("t", "t", {"type": "object"}, _noop, sequential=True)],
        limits=Limits(),
    )
    s, _ = loop_processor(initial_loop_state(config), _prompt())
    calls = [ToolCallPart(i, "t", {}) for i in ("p", "q", "r")]
    s, _ = loop_processor(s, AssistantMessage("m", "model", calls, stop_reason="tool_use"))
    s, _ = _fold(s, ToolResult("p", "one", timestamp=5))
    s, out = _fold(s, AgentAbort(timestamp=6))
    # the loop answers the running q (cancelled) and the unstarted r itself
    answers = [o for o in out if isinstance(o, ToolResult)]
    assert [(a.tool_call_id, a.details) for a in answers] == [
        ("q", {"error_code": "ABORTED"}),
        ("r", {"error_code": "ABORTED"}),
    ]
    assert CancelTools(("q",)) in out
    ended = [o.tool_call_id for o in out if isinstance(o, ToolExecutionEnd)]
    assert ended == ["q", "r"]
    results = [m.result for m in s.messages if isinstance(m, ToolResultMessage)]
    assert results[0] == "one" and "cancelled" in str(results[1])
    assert "not completed" in str(results[2])
    assert s.phase == "idle" and history_problems(list(s.messages)) == []
    # q's real result, late: journaled, without effect
    assert _fold(s, ToolResult("q", "late", timestamp=7)) == (s.replace(cancelled=frozenset()), [])


def test_outlet_reaches_subscribers_and_skips_dispatch_without_them() -> None:
    outlet = Outlet("a", (), 10)
    seen: list[Any] = []
    outlet.deliver("nobody listens")
    remove = outlet.subscribe(seen.append)
    typed = outlet.subscribe("text_delta", seen.append)
    delta = TextDelta("x", 0)
    outlet.deliver(delta)
    assert seen == [delta, delta]
    remove()
    remove()  # idempotent: the count must not drop twice
    outlet.deliver(delta)
    assert seen == [delta, delta, delta]
    typed()
    outlet.deliver(delta)
    again = outlet.subscribe(seen.append)
    outlet.deliver("late")
    assert seen == [delta, delta, delta, "late"]
    again()


def test_subscriber_added_by_a_subscriber_starts_with_the_next_output() -> None:
    outlet = Outlet("a", (), 10)
    seen: list[Any] = []

    def first(output: Any) -> None:
        seen.append(("first", output))
        if output == 1:
            outlet.subscribe(lambda o: seen.append(("second", o)))

    outlet.subscribe(first)
    outlet.deliver(1)
    outlet.deliver(2)
    assert seen == [("first", 1), ("first", 2), ("second", 2)]


class _Odd:
    """Not an event class: its ``type`` lives on the instance, so no per-class caching."""

    def __init__(self, kind: str) -> None:
        self.type = kind


def test_scripted_stamping_equals_evolve() -> None:
    events = [
        MessageStart("m", "model"),
        TextDelta("t", 1),
        ThinkingDelta("th", 0, signature="sig", redacted_data="r"),
        ToolUseStart("c", "t", 2),
        InputJsonDelta("{}", 2),
        ToolUseStop("c", 2),
        MessageDelta("tool_use", Usage(input_tokens=3, output_tokens=4)),
        MessageStop("end_turn"),
        ErrorReceived("boom", "PROVIDER_ERROR"),
        ToolResult("c", "done", True, {"k": 1}),
        UserMessage("u", "hi"),
        Interrupt("abort"),
    ]
    for event in events:
        assert stamped(event, 7) == attrs.evolve(event, timestamp=7)


_FIELD_VALUES: dict[str, Any] = {
    # LoopState
    "config": LoopConfig(system_prompt="other"),
    "messages": pvector([UserMessage("v", "other")]),
    "steering": ("s2",),
    "follow_ups": (),
    "phase": "model",
    "run": None,
    "batch": None,
    "error": None,
    "context": ContextView(start=1, summary="before"),
    "cancelled": frozenset({"c9"}),
    "cached": (ModelRequest((UserMessage("v", "other"),)), None),
    # Run
    "limits": Limits(max_iterations=2),
    "started_at": 11,
    "deadline": None,
    "iterations": 5,
    "turn": 6,
    "turn_open": False,
    "usage": Usage(input_tokens=1, output_tokens=2),
    "cost": 0.5,
    "inflight": (("steer", "m"),),
    "streaming": True,
    "awaiting_error": True,
    "partial": None,
    "retries": 2,
    "retry_at": 99,
    "resuming": True,
    "discarded": frozenset({"q"}),
    "stopping": ("aborted", "ABORTED", "stop", False),
    "paused_at": 4,
    "elicitations": (),
    "step_usage": Usage(output_tokens=3),
    "step_cost": 0.25,
    "overflowed": True,
    "summary": None,
    "output": OutputSpec({"type": "object"}, mode="tool"),
    "output_retries": 1,
    "output_value": {"a": 1},
    "cache": Cache(ttl="1h"),
    # Batch
    "calls": (ToolCallPart("z", "t", {}),),
    "results": pvector([None]),
    "runnable": (),
    "groups": (),
    "running": frozenset({"z"}),
    "pending": ("z",),
    "decisions": {"z": (False, "no")},
    "positions": {"z": 0},
}


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_replace_equals_evolve(data: st.DataObject) -> None:
    s = _busy_state()
    assert s.batch is not None and s.run is not None
    for instance in (s, s.run, s.batch):
        names = [a.name for a in attrs.fields(type(instance))]
        chosen = data.draw(st.lists(st.sampled_from(names), unique=True), type(instance).__name__)
        changes = {name: _FIELD_VALUES[name] for name in chosen}
        replaced = instance.replace(**changes)
        assert replaced == attrs.evolve(instance, **changes)
        assert all(getattr(replaced, n) is getattr(instance, n) for n in names if n not in changes)


def test_replace_rejects_unknown_fields() -> None:
    with pytest.raises(TypeError, match="no field 'colour'"):
        _busy_state().replace(colour="red")
