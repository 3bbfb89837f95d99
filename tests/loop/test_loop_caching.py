"""Prompt caching in the pure loop: each call's ``CachePlan``, and ``cache_bust`` exactly
when a request stops repeating the one before it (a property over any conversation)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import (
    Cache,
    ClearToolResults,
    Compaction,
    KeepLastTurns,
    ModelRequest,
    from_dict,
    to_dict,
)
from agentcore.caching import CachePlan, plan_cache, prefix_break
from agentcore.errors import ConfigurationError
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    TextPart,
    ToolCallPart,
    ToolResult,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    AgentConfigured,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentSteer,
    CacheBust,
    CallModel,
    ClockTick,
    ContextCompacted,
    LoopConfig,
    LoopState,
    initial_loop_state,
    loop_processor,
)
from agentcore.tools import define_tool

from .core_answers import as_core_answers


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


READ = define_tool("read", "read a file", {"type": "object"}, _noop)


def _state(**config: Any) -> LoopState:
    config.setdefault("tools", (READ,))
    config.setdefault("system_prompt", "be brief")
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


def _reply(n: int, *calls: str, used: int = 0) -> AssistantMessage:
    parts: list[Any] = [TextPart(f"reply {n}")]
    parts += [ToolCallPart(c, "read", {}) for c in calls]
    usage = Usage(input_tokens=used, output_tokens=10 if used else 0)
    return AssistantMessage(f"a{n}", "m", parts, usage)


def _calls(out: list[Any]) -> list[CallModel]:
    return [o for o in out if type(o) is CallModel]


def test_without_cache_no_plan_is_sent_and_no_notice() -> None:
    s = _state()
    s, out = _feed(s, AgentPrompt([UserMessage("u1", "hi")]))
    s, more = _feed(s, _reply(1, "c1"), ToolResult("c1", "x"))
    out += more
    assert [c.request.cache for c in _calls(out)] == [None, None]
    assert s.cached is None and not [o for o in out if type(o) is CacheBust]


def test_automatic_cache_marks_system_tools_the_previous_end_and_the_last_message() -> None:
    s = _state(cache=Cache(ttl="1h"))
    s, out = _feed(s, AgentPrompt([UserMessage("u1", "hi")]))
    first = _calls(out)[0].request
    assert first.cache == CachePlan(system=True, tools=True, messages=(0,), ttl="1h")
    s, out = _feed(s, _reply(1, "c1"), ToolResult("c1", "x"))
    second = _calls(out)[0].request
    assert len(second.messages) == 3
    assert second.cache is not None and second.cache.messages == (0, 2)
    assert not [o for o in out if type(o) is CacheBust]


def test_a_run_may_bring_its_own_cache_and_explicit_breakpoints() -> None:
    s = _state()
    explicit = Cache(automatic=False, system=True, messages=("u1",), key="k", retention="24h")
    s, out = _feed(s, AgentPrompt([UserMessage("u1", "hi")], cache=explicit))
    plan = _calls(out)[0].request.cache
    assert plan == CachePlan(system=True, messages=(0,), key="k", retention="24h")


def test_a_changed_system_prompt_is_a_cache_bust() -> None:
    s = _state(cache=True)
    s, _ = _feed(s, AgentPrompt([UserMessage("u1", "hi")]), _reply(1))
    wire = {**s.config.to_wire(), "system_prompt": "be verbose"}
    s, out = _feed(s, AgentConfigured(wire), AgentPrompt([UserMessage("u2", "again")], timestamp=7))
    [bust] = [o for o in out if type(o) is CacheBust]
    assert (bust.reason, bust.index, bust.previous, bust.timestamp) == ("system_prompt", 0, 1, 7)
    assert out.index(bust) < out.index(_calls(out)[0])
    assert _calls(out)[0].request.cache.messages == (2,)  # type: ignore[union-attr]


def test_compaction_names_itself_as_the_reason() -> None:
    s = _state(cache=True, compaction=Compaction(KeepLastTurns(1), context_window=1000))
    s, _ = _feed(s, AgentPrompt([UserMessage("u1", "go")]), _reply(1, "c1"), ToolResult("c1", "y"))
    s, out = _feed(s, _reply(2, "c2", used=900), ToolResult("c2", "y"))
    assert [o for o in out if type(o) is ContextCompacted]
    [bust] = [o for o in out if type(o) is CacheBust]
    assert bust.reason == "compaction"


def test_a_retried_call_repeats_its_request_without_a_notice() -> None:
    s = _state(cache=True, model_retries=1, retry_delay_ms=10)
    s, out = _feed(s, AgentPrompt([UserMessage("u1", "hi")], timestamp=1))
    s, more = _feed(
        s, ErrorReceived("busy", "OVERLOADED", True, timestamp=2), ClockTick(timestamp=50)
    )
    first, again = _calls(out) + _calls(more)
    assert again.request == first.request
    assert not [o for o in more if type(o) is CacheBust]


def test_cache_bust_and_cache_options_keep_their_wire_form() -> None:
    bust = CacheBust("messages", 3, 5, timestamp=9)
    assert from_dict(to_dict(bust)) == bust
    prompt = AgentPrompt([UserMessage("u", "x")], cache=Cache(ttl="5m", messages=("u",)))
    assert from_dict(to_dict(prompt)) == prompt
    config = LoopConfig(cache=Cache(key="team"))
    assert config.from_wire(config.to_wire()) == config
    assert "cache" not in LoopConfig().to_wire()


@pytest.mark.parametrize(
    ("value", "needle"),
    [({"ttl": "2h"}, "ttl"), ({"retention": "1d"}, "retention"), ("yes", "cache must be")],
)
def test_bad_cache_options_are_named(value: Any, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        LoopConfig(cache=value)


def test_prefix_break_finds_the_first_difference() -> None:
    a, b, c = (UserMessage(i, i) for i in "abc")
    base = ModelRequest((a, b), "sys")
    assert prefix_break(base, ModelRequest((a, b, c), "sys")) is None
    assert prefix_break(base, ModelRequest((a, c), "sys")) == ("messages", 1)
    assert prefix_break(base, ModelRequest((a,), "sys")) == ("messages", 1)
    assert prefix_break(base, ModelRequest((a, b), "other")) == ("system_prompt", 0)
    assert prefix_break(base, ModelRequest((a, b), "sys", model="x")) == ("model", 0)
    thinking = ModelRequest((a, b, c), "sys", thinking_level="high")
    assert prefix_break(base, thinking) == ("thinking", 0)
    plan = plan_cache(Cache(), ModelRequest((a, b, c)), base)
    assert plan.messages == (1, 2) and not plan.system and not plan.tools


# -- the property ---------------------------------------------------------------------------

_OPS = st.sampled_from(
    ["prompt", "tools", "text", "steer", "follow_up", "error", "tick", "reconfigure", "reset"]
)


def _step(s: LoopState, op: str, n: int, ts: int) -> tuple[LoopState, list[Any]]:
    """Apply ``op`` when it fits the phase (else nothing happens)."""
    user = UserMessage(f"u{n}", f"message {n}", timestamp=ts)
    if op == "prompt" and s.phase == "idle":
        return _feed(s, AgentPrompt([user], timestamp=ts))
    if op == "tools" and s.phase == "model":
        return _feed(
            s, _reply(n, f"c{n}", used=150 * n), ToolResult(f"c{n}", "r" * 300, timestamp=ts)
        )
    if op == "text" and s.phase == "model":
        return _feed(s, _reply(n, used=150 * n))
    if op == "steer":
        return _feed(s, AgentSteer(user, timestamp=ts))
    if op == "follow_up":
        return _feed(s, AgentFollowUp(user, timestamp=ts))
    if op == "error" and s.phase == "model":
        return _feed(s, ErrorReceived("busy", "OVERLOADED", True, timestamp=ts))
    if op == "tick":
        return _feed(s, ClockTick(timestamp=ts))
    if op == "reconfigure":
        wire = {**s.config.to_wire(), "system_prompt": f"prompt {n % 2}"}
        return _feed(s, AgentConfigured(wire, timestamp=ts))
    if op == "reset" and s.phase == "idle" and s.messages:
        return _feed(s, AgentReset(list(s.messages)[:-1], timestamp=ts))
    if op == "prompt" and s.phase == "idle" and s.messages:
        return _feed(s, AgentContinue(timestamp=ts))
    return s, []


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_OPS, max_size=40),
    st.sampled_from([None, KeepLastTurns(2), ClearToolResults(1)]),
)
def test_successive_requests_share_the_longest_prefix_and_a_bust_is_told_exactly(
    ops: list[str], strategy: Any
) -> None:
    """Every request starts with the whole request before it, and marks its end, unless
    a ``cache_bust`` came right before it; and a bust comes exactly when it does not."""
    compaction = None if strategy is None else Compaction(strategy, context_window=4000)
    s = _state(cache=Cache(), compaction=compaction, model_retries=1, retry_delay_ms=1)
    out: list[Any] = []
    for n, op in enumerate(ops, start=1):
        s, more = _step(s, op, n, ts=n * 100)
        out += more
    previous: ModelRequest | None = None
    pending: list[CacheBust] = []
    compacted = False
    for o in out:
        if type(o) is CacheBust:
            pending.append(o)
        elif type(o) is ContextCompacted:
            compacted = True
        elif type(o) is CallModel:
            request = o.request
            plan = request.cache
            assert plan is not None
            assert plan.system and plan.tools and plan.messages[-1] == len(request.messages) - 1
            if previous is not None:
                before = previous.messages
                kept = (
                    previous.system_prompt == request.system_prompt
                    and before == request.messages[: len(before)]
                )
                if kept:
                    assert pending == [] and len(before) - 1 in plan.messages
                else:
                    [bust] = pending
                    assert (bust.reason == "compaction") == compacted
                    assert len(plan.messages) == 1
            else:
                assert pending == []
            previous, pending, compacted = request, [], False
