"""Compaction and usage in the pure loop: when it compacts, the summary effect and its
answer, the one retry after an overflow, and usage and cost at every level."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import ClearToolResults, KeepLastTurns, ModelPrice, Summarise
from agentcore.errors import ConfigurationError
from agentcore.events import (
    AssistantMessage,
    ErrorMessage,
    ErrorReceived,
    Interrupt,
    TextPart,
    ToolCallPart,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    SUMMARY_SYSTEM_PROMPT,
    AgentAbort,
    AgentEnd,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AwaitApproval,
    CallModel,
    CancelModel,
    ClockTick,
    ContextCompacted,
    ContextSummary,
    ContextView,
    ExecuteTools,
    Finish,
    Limits,
    LoopConfig,
    LoopState,
    ModelUsage,
    RunForgotten,
    SummariseContext,
    TurnEnd,
    history_problems,
    initial_loop_state,
    loop_processor,
)
from agentcore.tools import define_tool

from .core_answers import as_core_answers


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


READ = define_tool("read", "read", {"type": "object"}, _noop)
RISKY = define_tool("risky", "asks first", {"type": "object"}, _noop, requires_approval=True)
PRICE = ModelPrice(input=1.0, output=2.0, context_window=1000)


def _state(**config: Any) -> LoopState:
    config.setdefault("tools", (READ, RISKY))
    return initial_loop_state(LoopConfig(**config))


def _feed(state: LoopState, *events: Any) -> tuple[LoopState, list[Any]]:
    out: list[Any] = []
    for e in events:
        state, outputs = loop_processor(state, e)
        out.extend(outputs)
        answers = as_core_answers(state, outputs)
        if answers:
            state, more = _feed(state, *answers)
            out.extend(more)
    return state, out


def _of(out: list[Any], cls: type[Any]) -> list[Any]:
    return [o for o in out if type(o) is cls]


def _reply(n: int, *calls: str, used: int = 0) -> AssistantMessage:
    parts: list[Any] = [TextPart(f"reply {n}")]
    parts += [ToolCallPart(c, "read", {}) for c in calls]
    usage = Usage(input_tokens=used, output_tokens=10 if used else 0)
    return AssistantMessage(f"a{n}", "m", parts, usage)


def _tool_turns(s: LoopState, turns: int, used: int = 100) -> tuple[LoopState, list[Any]]:
    """``turns`` replies asking for one call each, every result fed back."""
    out: list[Any] = []
    for n in range(turns):
        s, o = _feed(s, _reply(n, f"c{n}", used=used), ToolResult(f"c{n}", "x" * 400))
        out += o
    return s, out


# -- the line -----------------------------------------------------------------------------------


def test_the_context_is_compacted_before_the_call_that_would_reach_the_line() -> None:
    s = _state(price=PRICE, compaction=KeepLastTurns(2))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, out = _tool_turns(s, 3, used=500)  # reported 510 tokens: under 800
    assert not _of(out, ContextCompacted)
    s, out = _feed(s, _reply(3, "c3", used=790), ToolResult("c3", "y" * 400))
    [compacted] = _of(out, ContextCompacted)
    assert compacted.reason == "threshold" and compacted.start == 5 and compacted.tokens > 800
    assert out.index(compacted) < out.index(_of(out, CallModel)[0])
    assert s.context == ContextView(start=5, since=9)
    request = _of(out, CallModel)[0].request
    assert request.messages[0].content.startswith("[The first 5 messages")
    assert request.messages[1:] == tuple(s.messages[5:])
    assert list(s.messages)[:5] == [m for m in s.messages][:5]  # the history is all there
    assert len(s.messages) == 9 and history_problems(list(s.messages)) == []


def test_without_a_window_nothing_is_compacted_before_an_overflow() -> None:
    s = _state(compaction=KeepLastTurns(1))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, out = _tool_turns(s, 5, used=10**6)
    assert not _of(out, ContextCompacted) and s.context is None


# -- the overflow ---------------------------------------------------------------------------------

TOO_LONG = ErrorReceived("prompt is too long", "CONTEXT_OVERFLOW")


def test_an_overflow_compacts_and_retries_the_call_once() -> None:
    s = _state(compaction=KeepLastTurns(1))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, _ = _tool_turns(s, 2)
    iterations = s.run.iterations  # type: ignore[union-attr]
    s, out = _feed(s, TOO_LONG)
    [compacted] = _of(out, ContextCompacted)
    assert compacted.reason == "overflow" and compacted.start == 3
    [call] = _of(out, CallModel)
    assert call.request.messages[1:] == tuple(s.messages[3:])
    assert s.phase == "model" and s.run.iterations == iterations  # type: ignore[union-attr]
    s, out = _feed(s, TOO_LONG)  # refused again: one retry only
    [end] = _of(out, AgentEnd)
    assert (end.code, end.message, end.usage.input_tokens) == (
        "CONTEXT_OVERFLOW",
        "prompt is too long",
        200,
    )
    assert not _of(out, CallModel) and history_problems(list(s.messages)) == []


def test_the_next_model_call_may_compact_again_after_an_overflow() -> None:
    s = _state(compaction=KeepLastTurns(1))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, _ = _tool_turns(s, 2)
    s, _ = _feed(s, TOO_LONG)
    s, _ = _tool_turns(s, 2)  # the retried call answered; two more turns
    s, out = _feed(s, TOO_LONG)
    assert _of(out, ContextCompacted)[0].start == 7 and _of(out, CallModel)


def test_an_overflow_with_nothing_to_compact_ends_the_run() -> None:
    s = _state(compaction=KeepLastTurns(3))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]), TOO_LONG)
    assert s.phase == "idle" and s.error == ("CONTEXT_OVERFLOW", "prompt is too long", False)


def test_an_overflow_after_part_of_a_reply_closes_its_calls() -> None:
    s = _state(compaction=KeepLastTurns(1))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, _ = _tool_turns(s, 2)
    cut = AssistantMessage(
        "a9", "m", [ToolCallPart("t9", "read", {})], stop_reason="error", incomplete=True
    )
    s, out = _feed(s, cut, TOO_LONG)
    assert [r.tool_call_id for r in _of(out, ToolResult)] == ["t9"]  # closed, not kept
    assert _of(out, CallModel) and cut not in s.messages and s.run.discarded == frozenset()  # type: ignore[union-attr]


# -- the summary -----------------------------------------------------------------------------


def _summarising() -> tuple[LoopState, list[Any]]:
    s = _state(price=PRICE, compaction=(ClearToolResults(1), Summarise(1, max_tokens=50)))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, _ = _tool_turns(s, 2)
    return _feed(s, TOO_LONG)


def test_a_summary_is_asked_for_then_the_call_is_made_with_it() -> None:
    s, out = _summarising()
    [effect] = _of(out, SummariseContext)
    assert s.phase == "compacting" and not _of(out, CallModel) and not _of(out, ContextCompacted)
    request = effect.request
    assert request.system_prompt == SUMMARY_SYSTEM_PROMPT and request.max_tokens == 50
    assert request.messages[0] == UserMessage("u", "go")
    assert request.messages[2].result == "[This tool result was cleared to save context.]"
    assert request.messages[-1].message_id == "compaction-request"
    used = Usage(input_tokens=300, output_tokens=40)
    s, out = _feed(s, ContextSummary("  They read c0 and c1.  ", used, "m", timestamp=7))
    assert _of(out, ModelUsage) == [
        ModelUsage(3, "m", used, pytest.approx(0.00038), "summary", timestamp=7)
    ]
    [compacted] = _of(out, ContextCompacted)
    assert (compacted.reason, compacted.start, compacted.summary) == (
        "overflow",
        3,
        "They read c0 and c1.",
    )
    [call] = _of(out, CallModel)
    assert "<summary>\nThey read c0 and c1.\n</summary>" in call.request.messages[0].content
    assert call.request.messages[1:] == tuple(s.messages[3:])
    assert s.phase == "model" and s.run.usage.input_tokens == 500  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (ContextSummary(code="RATE_LIMITED", message="slow down", retryable=True), "RATE_LIMITED"),
        (ContextSummary("   "), "PROVIDER_ERROR"),
    ],
)
def test_a_failed_summary_ends_the_run_with_its_error(answer: ContextSummary, code: str) -> None:
    s, _ = _summarising()
    s, out = _feed(s, answer)
    [end] = _of(out, AgentEnd)
    assert end.code == code and end.message.startswith("compacting the context failed")  # type: ignore[union-attr]
    assert s.context is None and s.phase == "idle" and history_problems(list(s.messages)) == []
    assert s.error is not None and s.error[2] is answer.retryable


def test_an_abort_while_summarising_cancels_it() -> None:
    s, _ = _summarising()
    s, out = _feed(s, AgentAbort())
    assert out == [CancelModel()]
    s, out = _feed(s, Interrupt("abort"))
    assert _of(out, AgentEnd)[0].code == "ABORTED" and s.phase == "idle"
    s, out = _feed(s, ContextSummary("late"))  # an answer after the run: ignored
    assert out == [] and s.context is None


def test_a_resume_while_summarising_asks_again() -> None:
    s, first = _summarising()
    s, out = _feed(s, AgentResume())
    [again] = _of(out, SummariseContext)
    assert again == _of(first, SummariseContext)[0]


def test_a_reset_forgets_the_view() -> None:
    s, _ = _summarising()
    s, _ = _feed(s, ContextSummary("gist"))
    s, _ = _feed(s, _reply(9))
    assert s.context is not None and s.phase == "idle"
    s, _ = _feed(s, AgentReset())
    assert s.context is None


# -- usage and cost ----------------------------------------------------------------------------


def test_usage_and_cost_per_call_step_run_and_session() -> None:
    s = _state(price=PRICE)
    s, out = _feed(s, AgentPrompt([UserMessage("u", "go")], timestamp=1))
    s, out = _feed(s, _reply(0, "c0", used=100), ToolResult("c0", "x"), _reply(1, used=200))
    calls = _of(out, ModelUsage)
    assert [(m.turn, m.usage.input_tokens, m.cost) for m in calls] == [
        (1, 100, pytest.approx(0.00012)),
        (2, 200, pytest.approx(0.00022)),
    ]
    steps = _of(out, TurnEnd)
    assert [(t.turn, t.usage.input_tokens, t.cost) for t in steps] == [
        (1, 100, pytest.approx(0.00012)),
        (2, 200, pytest.approx(0.00022)),
    ]
    [end] = _of(out, AgentEnd)
    assert end.usage == Usage(input_tokens=300, output_tokens=20)
    assert end.cost == pytest.approx(0.00034)
    assert _of(out, Finish)[0].usage == end.usage and _of(out, Finish)[0].cost == end.cost
    s, out = _feed(s, AgentPrompt([UserMessage("u2", "again")]), _reply(2, used=50))
    assert _of(out, AgentEnd)[0].usage.input_tokens == 50  # the run's own
    assert s.usage == Usage(input_tokens=350, output_tokens=30)  # the session's
    assert s.cost == pytest.approx(0.00034 + 0.00007)


def test_each_call_is_charged_at_its_answering_models_row_and_limited_by_that_ledger() -> None:
    """A fallback chain's table: the cheap model's call at its own rate, a model the table
    does not list at ``price``; ``max_cost`` counts the same charges."""
    table = {"cheap": ModelPrice(1.0, 1.0), "dear": ModelPrice(10.0, 10.0)}
    s = _state(price=ModelPrice(10.0, 10.0), prices=table, limits=Limits(max_cost=0.0016))
    cheap = AssistantMessage("a0", "cheap", [ToolCallPart("c0", "read", {})], Usage(1000, 0))
    s, out = _feed(s, AgentPrompt([UserMessage("u", "go")]), cheap, ToolResult("c0", "x"))
    assert [m.cost for m in _of(out, ModelUsage)] == [pytest.approx(0.001)]
    assert not _of(out, AgentEnd)  # 0.001 spent: under the budget, the run goes on
    other = AssistantMessage("a1", "unlisted", [TextPart("hi")], Usage(100, 0))
    s, out = _feed(s, other)
    assert [m.cost for m in _of(out, ModelUsage)] == [pytest.approx(0.001)]
    [end] = _of(out, AgentEnd)
    assert end.cost == pytest.approx(0.002) and end.code == "MAX_COST_EXCEEDED"


def test_a_price_table_is_journaled_and_needs_a_price() -> None:
    table = {"cheap": ModelPrice(1.0, 1.0)}
    config = LoopConfig(price=ModelPrice(2.0, 2.0), prices=table)
    assert config.to_wire()["prices"] == {
        "cheap": {
            "input": 1.0,
            "output": 1.0,
            "cache_read": None,
            "cache_write": None,
            "context_window": None,
        }
    }
    assert LoopConfig().from_wire(config.to_wire()) == config
    assert "prices" not in LoopConfig(price=ModelPrice(2.0, 2.0)).to_wire()
    with pytest.raises(ConfigurationError, match="prices needs a price too"):
        LoopConfig(prices=table)


def test_without_a_price_costs_are_none_never_zero() -> None:
    s = _state()
    s, out = _feed(s, AgentPrompt([UserMessage("u", "go")]), _reply(0, used=10))
    assert _of(out, ModelUsage)[0].cost is None and _of(out, TurnEnd)[0].cost is None
    assert _of(out, AgentEnd)[0].cost is None and _of(out, Finish)[0].cost is None
    assert _of(out, AgentEnd)[0].usage.input_tokens == 10


def test_a_pause_for_approval_reports_what_the_run_spent() -> None:
    s = _state(price=PRICE)
    risky = AssistantMessage("a", "m", [ToolCallPart("r1", "risky", {})], Usage(input_tokens=1000))
    s, out = _feed(s, AgentPrompt([UserMessage("u", "go")]), risky)
    assert _of(out, AwaitApproval) == [AwaitApproval((risky.parts[0],), risky.usage, 0.001)]
    assert not _of(out, ExecuteTools)
    s, out = _feed(s, AgentResume())
    assert _of(out, AwaitApproval)[0].cost == 0.001


def test_a_retried_call_counts_in_the_step_and_the_run() -> None:
    s = _state(price=PRICE, model_retries=1, retry_delay_ms=0)
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    cut = AssistantMessage(
        "a", "m", [TextPart("he")], Usage(input_tokens=100), stop_reason="error", incomplete=True
    )
    s, out = _feed(s, cut, ErrorReceived("reset", "CONNECTION_ERROR", retryable=True))
    assert _of(out, ModelUsage)[0].usage.input_tokens == 100
    s, out = _feed(s, ClockTick(timestamp=10**9), _reply(1, used=100))
    assert _of(out, TurnEnd)[0].usage.input_tokens == 200
    assert _of(out, AgentEnd)[0].usage.input_tokens == 200
    assert isinstance(s.messages[-1], AssistantMessage) and not any(
        isinstance(m, ToolResultMessage) for m in s.messages
    )


# -- forgetting a run ----------------------------------------------------------------------


def test_run_forgotten_cuts_the_history_back_and_keeps_what_was_spent() -> None:
    s = _state(price=PRICE)
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "keep")]), _reply(0, used=100))
    kept, spent = s.messages, s.cost
    s, _ = _feed(s, AgentPrompt([UserMessage("u2", "forget")]), _reply(1, used=100))
    s, out = _feed(s, RunForgotten(len(kept)))
    assert out == [] and s.messages == kept
    assert s.cost == pytest.approx(2 * spent)  # the ledger keeps the forgotten run's cost


def test_run_forgotten_drops_a_compaction_view_made_after_what_it_keeps() -> None:
    s = _state().replace(context=ContextView(start=1, since=2))
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]), _reply(0))
    assert _feed(s, RunForgotten(2))[0].context == ContextView(start=1, since=2)
    assert _feed(s, RunForgotten(1))[0].context is None


def test_run_forgotten_waits_for_the_run_to_end() -> None:
    s = _state()
    s, _ = _feed(s, AgentPrompt([UserMessage("u", "go")]))
    s, out = _feed(s, RunForgotten(0))
    assert [o.code for o in out if type(o) is ErrorMessage] == ["AGENT_BUSY"]
    assert len(s.messages) == 1
