"""The pure loop processor, transition by transition."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from agentcore.errors import ConfigurationError
from agentcore.events import (
    AssistantMessage,
    ErrorMessage,
    ErrorReceived,
    MessageStart,
    TextDelta,
    TextPart,
    ToolCallPart,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    AgentAbort,
    AgentContinue,
    AgentEnd,
    AgentFollowUp,
    AgentMessageEnd,
    AgentMessageStart,
    AgentPrompt,
    AgentStart,
    AgentSteer,
    AwaitApproval,
    CallModel,
    CancelModel,
    CancelTools,
    ClockTick,
    ExecuteTools,
    Finish,
    Limits,
    LoopConfig,
    LoopState,
    SetTimer,
    ToolApproval,
    ToolApprovalRequired,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolProgress,
    TurnEnd,
    TurnStart,
    history_problems,
    initial_loop_state,
    loop_processor,
)
from agentcore.pricing import ModelPrice
from agentcore.tools import define_tool

from .core_answers import as_core_answers


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


ADD = define_tool(
    "add",
    "add",
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    _noop,
)
SEQ = define_tool("seq", "one at a time", {"type": "object"}, _noop, sequential=True)
RISKY = define_tool("risky", "needs approval", {"type": "object"}, _noop, requires_approval=True)


def _state(**config: Any) -> LoopState:
    config.setdefault("tools", (ADD, SEQ, RISKY))
    return initial_loop_state(LoopConfig(**config))


def _feed(state: LoopState, *events: Any) -> tuple[LoopState, list[Any]]:
    """Fold ``events``; the ``tool_result`` of a call the loop answered itself comes back
    to it, as the conversation processor feeds it back."""
    out: list[Any] = []
    for e in events:
        state, outputs = loop_processor(state, e)
        out.extend(outputs)
        answers = as_core_answers(state, outputs)
        if answers:
            state, more = _feed(state, *answers)
            out.extend(more)
    return state, out


def _user(text: str, mid: str = "u") -> UserMessage:
    return UserMessage(mid, text)


def _reply(text: str = "", *calls: ToolCallPart, **kw: Any) -> AssistantMessage:
    parts: list[Any] = [TextPart(text)] if text else []
    return AssistantMessage("a", "m", [*parts, *calls], **kw)


def _call(cid: str, name: str = "add", **args: Any) -> ToolCallPart:
    return ToolCallPart(cid, name, args or {"a": 1})


def _types(out: list[Any]) -> list[str]:
    return [type(o).__name__ for o in out]


def _of(out: list[Any], cls: type[Any]) -> list[Any]:
    return [o for o in out if isinstance(o, cls)]


def test_text_only_reply() -> None:
    s = _state(system_prompt="be brief")
    s, out = _feed(s, AgentPrompt([_user("hi")], timestamp=5))
    assert _types(out) == [
        "AgentStart",
        "AgentMessageStart",
        "AgentMessageEnd",
        "UserMessage",
        "TurnStart",
        "CallModel",
    ]
    request = out[-1].request
    assert request.messages == (_user("hi"),)
    assert request.system_prompt == "be brief"
    assert [t.name for t in request.tools] == ["add", "seq", "risky"]
    assert all(o.timestamp == 5 for o in out if not isinstance(o, CallModel | UserMessage))
    s, out = _feed(s, MessageStart("a", "m"), TextDelta("yo", 0), _reply("yo"))
    assert _types(out) == [  # the delta is the core's: the loop decides on the message
        "AgentMessageStart",
        "AgentMessageEnd",
        "ModelUsage",
        "TurnEnd",
        "ConversationClose",  # for the core: its conversation ends with the run
        "AgentEnd",
        "Finish",
    ]
    assert out[-2] == AgentEnd("completed")
    assert list(s.messages) == [_user("hi"), _reply("yo")]
    assert s.phase == "idle" and s.run is None


def test_parallel_calls_finish_in_reverse_order_results_in_asked_order() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]))
    s, out = _feed(s, _reply("", _call("t1"), _call("t2")))
    assert _of(out, ExecuteTools) == [ExecuteTools((_call("t1"), _call("t2")), parallel=True)]
    assert [o.tool_call_id for o in _of(out, ToolExecutionStart)] == ["t1", "t2"]
    s, out = _feed(s, ToolResult("t2", "two"), ToolProgress("t1", {"pct": 50}))
    assert _types(out) == ["ToolResult", "ToolExecutionEnd", "ToolExecutionUpdate"]
    assert out[0] == ToolResult("t2", "two")  # let in: the core assembles it first
    assert out[2] == ToolExecutionUpdate("t1", "add", {"pct": 50})
    s, out = _feed(s, ToolResult("t1", "one"))
    results = [m for m in s.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.result) for r in results] == [("t1", "one"), ("t2", "two")]
    assert _of(out, TurnEnd)[0].tool_results == tuple(results)
    assert _of(out, CallModel)[0].request.messages[-2:] == tuple(results)
    assert _of(out, TurnStart) == [TurnStart(2)]


def test_sequential_tools_are_barriers() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]))
    calls = [_call("a1"), _call("s1", "seq"), _call("a2"), _call("a3")]
    s, out = _feed(s, _reply("", *calls))
    assert _of(out, ExecuteTools) == [ExecuteTools((calls[0],), parallel=False)]
    s, out = _feed(s, ToolResult("a1", "x"))
    assert _of(out, ExecuteTools) == [ExecuteTools((calls[1],), parallel=False)]
    s, out = _feed(s, ToolResult("s1", "x"))
    assert _of(out, ExecuteTools) == [ExecuteTools((calls[2], calls[3]), parallel=True)]


def test_agent_wide_sequential_mode() -> None:
    s, _ = _feed(_state(tool_execution="sequential"), AgentPrompt([_user("go")]))
    s, out = _feed(s, _reply("", _call("a1"), _call("a2")))
    assert _of(out, ExecuteTools) == [ExecuteTools((_call("a1"),), parallel=False)]


def test_unknown_tool_and_invalid_arguments_answered_without_running() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]))
    bad_json = ToolCallPart("t3", "add", {}, raw_input='{"a": ', input_error="unexpected end")
    s, out = _feed(s, _reply("", _call("t1", "nope"), _call("t2", a="x"), bad_json))
    assert not _of(out, ExecuteTools)
    ends = _of(out, ToolExecutionEnd)
    assert [e.is_error for e in ends] == [True, True, True]
    assert ends[0].result.result == "Unknown tool 'nope'; available tools: add, risky, seq."
    assert ends[0].result.details == {"error_code": "TOOL_NOT_FOUND"}
    assert "at $.a: 'x' is not of type 'integer'" in ends[1].result.result
    assert 'You sent: {"a": "x"}' in ends[1].result.result
    assert ends[2].result.details == {"error_code": "TOOL_VALIDATION_ERROR"}
    assert 'You sent: {"a": ' in ends[2].result.result
    assert _of(out, CallModel), "the loop continues so the model can fix its call"
    assert history_problems(list(s.messages)) == []


def test_steering_skips_calls_not_started() -> None:
    s = _state(tool_execution="sequential")
    s, _ = _feed(s, AgentPrompt([_user("go")]), _reply("", _call("t1"), _call("t2")))
    s, out = _feed(s, AgentSteer(_user("stop that", "s1")), ToolResult("t1", "done"))
    ends = _of(out, ToolExecutionEnd)
    assert [(e.tool_call_id, e.is_error) for e in ends] == [("t1", False), ("t2", True)]
    assert "Skipped: the user sent a new message" in ends[1].result.result
    request = _of(out, CallModel)[0].request
    assert request.messages[-1] == _user("stop that", "s1")
    assert [type(m).__name__ for m in request.messages[-3:]] == [
        "ToolResultMessage",
        "ToolResultMessage",
        "UserMessage",
    ]
    assert s.steering == ()
    # the steering message joins the history when the reply arrives
    assert _user("stop that", "s1") not in s.messages
    s, _ = _feed(s, _reply("ok"))
    assert list(s.messages)[-2:] == [_user("stop that", "s1"), _reply("ok")]


def test_steering_policy_run_keeps_running_queued_calls() -> None:
    s = _state(tool_execution="sequential", steering_policy="run")
    s, _ = _feed(s, AgentPrompt([_user("go")]), _reply("", _call("t1"), _call("t2")))
    s, out = _feed(s, AgentSteer(_user("more")), ToolResult("t1", "done"))
    assert _of(out, ExecuteTools) == [ExecuteTools((_call("t2"),), parallel=False)]
    s, out = _feed(s, ToolResult("t2", "done"))
    assert _of(out, CallModel)[0].request.messages[-1] == _user("more")


@pytest.mark.parametrize(("mode", "delivered"), [("one-at-a-time", 1), ("all", 3)])
def test_follow_ups_delivered_when_agent_would_stop(mode: str, delivered: int) -> None:
    s = _state(follow_up_mode=mode)
    follow = [AgentFollowUp(_user(f"f{i}", f"f{i}")) for i in range(3)]
    s, _ = _feed(s, AgentPrompt([_user("go")]), *follow)
    s, out = _feed(s, _reply("first"))
    assert not _of(out, AgentEnd)
    sent = _of(out, CallModel)[0].request.messages
    assert [m.message_id for m in sent[2:]] == [f"f{i}" for i in range(delivered)]
    assert len(s.follow_ups) == 3 - delivered


def test_steering_mode_all_delivers_every_queued_message() -> None:
    s = _state(steering_mode="all")
    s, _ = _feed(s, AgentPrompt([_user("go")]), AgentSteer(_user("a")), AgentSteer(_user("b")))
    s, out = _feed(s, _reply("hm"))
    assert [m.content for m in _of(out, CallModel)[0].request.messages[2:]] == ["a", "b"]


def test_max_iterations() -> None:
    s = _state(limits=Limits(max_iterations=1))
    s, _ = _feed(s, AgentPrompt([_user("go")]), _reply("", _call("t1")))
    s, out = _feed(s, ToolResult("t1", "x"))
    assert not _of(out, CallModel)
    assert _of(out, AgentEnd)[0].code == "MAX_ITERATIONS_EXCEEDED"
    assert s.error is not None and "max_iterations=1" in s.error[1]
    assert history_problems(list(s.messages)) == []


def test_per_run_limit_overrides_agent_limit() -> None:
    s = _state(limits=Limits(max_iterations=1))
    s, _ = _feed(s, AgentPrompt([_user("go")], max_iterations=5), _reply("", _call("t1")))
    s, out = _feed(s, ToolResult("t1", "x"))
    assert _of(out, CallModel)


def test_max_tokens_closes_requested_calls() -> None:
    s = _state(limits=Limits(max_tokens=100))
    s, _ = _feed(s, AgentPrompt([_user("go")]))
    big = _reply("", _call("t1"), usage=Usage(input_tokens=90, output_tokens=20))
    s, out = _feed(s, big)
    assert not _of(out, ExecuteTools)
    assert _of(out, AgentEnd)[0].code == "MAX_TOKENS_EXCEEDED"
    assert isinstance(s.messages[-1], ToolResultMessage) and s.messages[-1].is_error
    assert history_problems(list(s.messages)) == []


def test_max_cost_needs_a_price_and_is_enforced() -> None:
    with pytest.raises(ConfigurationError, match="max_cost needs the model's price"):
        LoopConfig(limits=Limits(max_cost=0.01))
    s = _state(limits=Limits(max_cost=0.01), price=ModelPrice(input=10, output=10))
    s, _ = _feed(s, AgentPrompt([_user("go")]))
    s, out = _feed(s, _reply("x", usage=Usage(input_tokens=2000)))
    assert _of(out, AgentEnd)[0].code == "MAX_COST_EXCEEDED"


def test_timeout_cancels_running_tools_and_answers_them() -> None:
    s = _state(limits=Limits(timeout_ms=1000))
    s, out = _feed(s, AgentPrompt([_user("go")], timestamp=100))
    assert _of(out, SetTimer) == [SetTimer(1100)]
    s, _ = _feed(s, _reply("", _call("t1"), _call("t2")), ClockTick(timestamp=500))
    s, out = _feed(s, ClockTick(timestamp=1100))
    # the loop cancels the running calls and answers them itself, in the same step: the
    # run ends at once, whatever the tools do with the cancel
    assert out[0] == CancelTools(("t1", "t2"))
    answers = _of(out, ToolResult)
    assert [(a.tool_call_id, a.details) for a in answers] == [
        ("t1", {"error_code": "ABORTED"}),
        ("t2", {"error_code": "ABORTED"}),
    ]
    end = _of(out, AgentEnd)[0]
    assert (end.reason, end.code) == ("error", "TIMEOUT")
    assert s.phase == "idle" and s.cancelled == {"t1", "t2"}
    recorded = [m.result for m in s.messages if isinstance(m, ToolResultMessage)]
    assert recorded == [a.result for a in answers]
    # a real result that arrives late is dropped: the loop's answer is the one recorded
    # (journaled, it replays the same way); the core never sees it
    late, out = _feed(s, ToolResult("t1", "late, dropped", timestamp=1101))
    assert out == [] and late.messages == s.messages and late.cancelled == {"t2"}
    assert history_problems(list(late.messages)) == []


def test_abort_while_streaming_keeps_partial_and_requeues_steering() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]), _reply("", _call("t1")))
    s, _ = _feed(s, AgentSteer(_user("s")), ToolResult("t1", "x"))
    s, out = _feed(s, AgentAbort())
    assert out == [CancelModel()]
    partial = _reply("half", _call("t9"), stop_reason="interrupted", incomplete=True)
    s, out = _feed(s, partial)
    assert _of(out, AgentEnd)[0].code == "ABORTED"
    assert _of(out, Finish)[0].reason == "aborted"
    assert s.messages[-2] == partial, "partial content kept, marked incomplete"
    assert s.messages[-1].tool_call_id == "t9" and s.messages[-1].is_error
    assert history_problems(list(s.messages)) == []
    # the steering message was answered (partial reply), so it is in the history
    assert _user("s") in s.messages and s.steering == ()


def test_abort_before_any_reply_returns_delivered_messages_to_their_queue() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]), _reply("", _call("t1")))
    s, _ = _feed(s, AgentSteer(_user("s1")), AgentSteer(_user("s2")), ToolResult("t1", "x"))
    assert s.steering == (_user("s2"),)
    s, _ = _feed(s, AgentAbort(), ErrorReceived("cancelled", "ABORTED"))
    assert s.steering == (_user("s1"), _user("s2"))
    assert _user("s1") not in s.messages
    assert history_problems(list(s.messages)) == []


def test_driver_errors_end_the_run_with_their_code() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]))
    partial = _reply("par", stop_reason="error", incomplete=True)
    s, out = _feed(s, partial)
    assert not _of(out, AgentEnd)
    s, out = _feed(s, ErrorReceived("too long", "CONTEXT_OVERFLOW"))
    assert _of(out, AgentEnd)[0] == AgentEnd("error", "CONTEXT_OVERFLOW", "too long")
    assert s.messages[-1] == partial
    s, _ = _feed(s, AgentPrompt([_user("again")]))
    s, out = _feed(s, ErrorReceived("boom", "weird_vendor_code"))
    assert _of(out, AgentEnd)[0].code == "weird_vendor_code"  # a driver's own code is kept


def test_approval_pauses_and_resumes_the_same_run() -> None:
    s = _state(limits=Limits(timeout_ms=1000))
    s, _ = _feed(s, AgentPrompt([_user("go")], timestamp=0))
    calls = (_call("r1", "risky"), _call("t1"), _call("r2", "risky"))
    s, out = _feed(s, _reply("", *calls, timestamp=10))
    assert _of(out, ToolApprovalRequired)[0].tool_calls == (calls[0], calls[2])
    assert _of(out, AwaitApproval) and not _of(out, ExecuteTools)
    assert s.phase == "approval"
    s, out = _feed(s, AgentPrompt([_user("again")]))
    assert out[0].code == "AGENT_BUSY" and "waiting for tool approval" in out[0].message
    s, out = _feed(s, ClockTick(timestamp=5000), ToolApproval("r1", True, timestamp=5000))
    assert out == [], "time waiting for approval does not count; half-decided waits"
    s, out = _feed(s, ToolApproval("r2", False, "too risky", timestamp=6000))
    assert _of(out, SetTimer) == [SetTimer(1000 + 5990)]
    assert _of(out, ExecuteTools) == [ExecuteTools((calls[0], calls[1]), parallel=True)]
    rejected = _of(out, ToolExecutionEnd)[0].result
    assert rejected.tool_call_id == "r2" and "rejected" in rejected.result
    assert "too risky" in rejected.result
    s, out = _feed(s, ToolResult("r1", "a"), ToolResult("t1", "b"))
    assert _of(out, CallModel)


def test_abort_while_awaiting_approval_finishes_at_once() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]), _reply("", _call("r1", "risky")))
    s, out = _feed(s, AgentAbort())
    assert _of(out, AgentEnd)[0].code == "ABORTED"
    assert history_problems(list(s.messages)) == []


def test_out_of_phase_events_are_rejected_without_changing_state() -> None:
    s = _state()
    for event in (ToolApproval("x", True), object()):
        s2, out = loop_processor(s, event)
        assert s2 is s and isinstance(out[0], ErrorMessage) and out[0].code == "PROTOCOL_ERROR"
    # stream traffic outside a run is the core's to assemble and report, not the loop's
    for event in (_reply("x"), ErrorReceived("e", "X"), TextDelta("a", 0)):
        assert loop_processor(s, event) == (s, ())
    result = ToolResult("x", "r")  # reaches the loop first: let through to the core
    assert loop_processor(s, result) == (s, (result,))
    assert loop_processor(s, AgentAbort()) == (s, ())
    s, _ = _feed(s, AgentPrompt([_user("go")]))
    for event in (ToolResult("x", "r"), ToolApproval("x", True)):
        s2, out = loop_processor(s, event)
        assert s2 is s and isinstance(out[0], ErrorMessage) and out[0].code == "PROTOCOL_ERROR"


def test_continue_rules() -> None:
    s = _state()
    s2, out = _feed(s, AgentContinue())
    assert "cannot continue" in out[0].message and s2 is s
    s, _ = _feed(s, AgentPrompt([_user("go")]), _reply("done"))
    _, out = _feed(s, AgentContinue())
    assert isinstance(out[0], ErrorMessage)
    s, _ = _feed(s, AgentFollowUp(_user("next")))
    s, out = _feed(s, AgentContinue())
    assert _of(out, CallModel)[0].request.messages[-1] == _user("next")


def test_hooks_convert_then_transform_not_written_back() -> None:
    @attrs.frozen
    class Note:
        text: str

    calls: list[str] = []

    def convert(messages: Any) -> Any:
        calls.append("convert")
        return [m for m in messages if not isinstance(m, Note)]

    def transform(messages: Any) -> Any:
        calls.append("transform")
        return messages[-1:]

    s = _state(convert_to_llm=convert, transform_context=transform)
    s, out = _feed(s, AgentPrompt([_user("a", "1"), Note("hidden"), _user("b", "2")]))
    assert calls == []  # the request is built when the runtime reads it, once
    assert _of(out, CallModel)[0].request.messages == (_user("b", "2"),)
    assert _of(out, CallModel)[0].request.messages == (_user("b", "2"),)
    assert calls == ["convert", "transform"]
    assert len(s.messages) == 3
    assert [o.role for o in _of(out, AgentMessageStart)] == ["user", "custom", "user"]
    default = _state()
    _, out = _feed(default, AgentPrompt([Note("x"), _user("y")]))
    assert _of(out, CallModel)[0].request.messages == (_user("y"),)


def test_empty_reply_is_not_put_in_history() -> None:
    s, _ = _feed(_state(), AgentPrompt([_user("go")]))
    s, out = _feed(s, _reply(""))
    assert list(s.messages) == [_user("go")]
    assert _of(out, AgentMessageEnd)[0].message == _reply("")
    assert _of(out, AgentStart) == []


def test_bad_config_is_rejected() -> None:
    with pytest.raises(ConfigurationError, match="steering_mode must be one of"):
        LoopConfig(steering_mode="some")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="two tools are named 'add'"):
        LoopConfig(tools=(ADD, ADD))
    with pytest.raises(ConfigurationError, match="max_iterations must be an int > 0"):
        Limits(max_iterations=0)
    with pytest.raises(
        ConfigurationError, match="max_iterations must be an int > 0 or None, got '3'"
    ):
        Limits(max_iterations="3")  # type: ignore[arg-type]
