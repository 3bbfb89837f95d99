"""Properties of the loop processor over random interleavings.

A simulated shell performs the effect requests, and Hypothesis picks what happens next at
every step: the model replies (text, tool calls, a cut-off error), a tool finishes, a
steering or follow-up message arrives, the clock ticks past the deadline, the user aborts,
approves or rejects. Whatever the order:

- every tool call gets exactly one result (in history and as ``tool_execution_end``);
- no queued message is lost or delivered twice;
- the history passes the provider-validity check;
- replaying the journal reproduces the state and outputs exactly;
- with compaction (at a tiny context window, on overflows, by summary), every request
  the model is sent passes the provider-validity check too.

The ``tool_result`` of a call the loop answers itself comes back to it (``fold``), as the
conversation processor feeds it back; tests/loop/test_conversation_properties.py holds
the same guarantees for the whole conversation processor.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

from agentcore import ClearToolResults, Compaction, KeepLastTurns, ModelPrice, Summarise
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    Interrupt,
    TextPart,
    ToolCallPart,
    ToolResult,
    ToolResultMessage,
    UserMessage,
)
from agentcore.loop import (
    AgentAbort,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentSteer,
    AwaitApproval,
    CallModel,
    CancelModel,
    CancelTools,
    ClockTick,
    ContextCompacted,
    ContextSummary,
    ExecuteTools,
    Finish,
    Limits,
    LoopConfig,
    SummariseContext,
    ToolApproval,
    ToolExecutionEnd,
    history_problems,
    initial_loop_state,
    loop_processor,
)
from agentcore.tools import define_tool

from .core_answers import as_core_answers


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


_OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}}
TOOLS = (
    define_tool("fast", "f", _OBJ, _noop),
    define_tool("seq", "s", _OBJ, _noop, sequential=True),
    define_tool("risky", "r", _OBJ, _noop, requires_approval=True),
)


def fold(state: Any, event: Any) -> tuple[Any, list[Any]]:
    """``loop_processor``, with the loop's own answers fed back to it."""
    state, out = loop_processor(state, event)
    outputs = list(out)
    for answer in as_core_answers(state, out):
        state, more = fold(state, answer)
        outputs.extend(more)
    return state, outputs


class Sim:
    """A tiny deterministic shell: performs effects when Hypothesis says so."""

    def __init__(self, config: LoopConfig) -> None:
        self.state = initial_loop_state(config)
        self.journal: list[Any] = []
        self.outputs: list[Any] = []
        self.clock = 0
        self.model_open = False
        self.summary_open = False
        self.cancel_model = False
        self.requests: list[Any] = []
        self.running: dict[str, bool] = {}  # id -> cancelled
        self.approvals: list[str] = []
        self.calls = 0
        self.sent: list[Any] = []

    def feed(self, event: Any) -> None:
        self.clock += 10
        event = type(event)(
            **{k: getattr(event, k) for k in event.__slots__ if k != "__weakref__"}
            | {"timestamp": self.clock}
        )
        self.journal.append(event)
        self.state, out = fold(self.state, event)
        self.outputs.extend(out)
        for o in out:
            if isinstance(o, SummariseContext):
                self.summary_open, self.cancel_model = True, False
                self.requests.append(o.request)
            elif isinstance(o, CallModel):
                self.model_open, self.cancel_model = True, False
                self.requests.append(o.request)
            elif isinstance(o, CancelModel):
                self.cancel_model = True
            elif isinstance(o, ExecuteTools):
                self.running.update({c.tool_call_id: False for c in o.tool_calls})
            elif isinstance(o, CancelTools):
                self.running.update({i: True for i in o.tool_call_ids})
            elif isinstance(o, AwaitApproval):
                self.approvals = [c.tool_call_id for c in o.tool_calls]
            elif isinstance(o, Finish):
                self.approvals = []

    def reply(self, data: st.DataObject) -> None:
        self.model_open = False
        if self.cancel_model:  # the runtime feeds an interrupt once the stream has ended
            if data.draw(st.booleans(), "partial on cancel"):
                self.feed(_message([TextPart("par")], incomplete=True, stop="interrupted"))
            self.feed(Interrupt("abort"))
            return
        kind = data.draw(
            st.sampled_from(["text", "tools", "tools", "error", "overflow", "empty"]), "reply"
        )
        if kind == "text":
            self.feed(_message([TextPart("hello")]))
        elif kind == "empty":
            self.feed(_message([]))
        elif kind == "error":
            if data.draw(st.booleans(), "partial before error"):
                self.feed(_message([TextPart("cut")], incomplete=True, stop="error"))
            self.feed(ErrorReceived("overloaded", "OVERLOADED"))
        elif kind == "overflow":
            self.feed(ErrorReceived("prompt is too long", "CONTEXT_OVERFLOW"))
        else:
            names = data.draw(
                st.lists(
                    st.sampled_from(["fast", "seq", "risky", "nope", "bad"]), min_size=1, max_size=3
                ),
                "calls",
            )
            parts = []
            for name in names:
                self.calls += 1
                cid = f"c{self.calls}"
                if name == "bad":
                    parts.append(ToolCallPart(cid, "fast", {"n": "x"}))
                else:
                    parts.append(ToolCallPart(cid, name, {"n": 1}))
            self.feed(_message(parts, stop="tool_use"))

    def summary(self, data: st.DataObject) -> None:
        self.summary_open = False
        if self.cancel_model:
            self.feed(Interrupt("abort"))
        elif data.draw(st.booleans(), "summary written?"):
            self.feed(ContextSummary("the gist"))
        else:
            self.feed(ContextSummary(code="OVERLOADED", message="busy", retryable=True))

    def message(self, text: str) -> UserMessage:
        msg = UserMessage(f"m{len(self.sent)}", text)
        self.sent.append(msg)
        return msg


def _message(parts: list[Any], incomplete: bool = False, stop: str = "end_turn") -> Any:
    return AssistantMessage("a", "m", parts, stop_reason=stop, incomplete=incomplete)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_interleavings_keep_every_guarantee(data: st.DataObject) -> None:
    config = LoopConfig(
        tools=TOOLS,
        limits=Limits(
            max_iterations=data.draw(st.integers(1, 6), "max_iterations"),
            timeout_ms=data.draw(st.sampled_from([None, 400]), "timeout"),
        ),
        steering_mode=data.draw(st.sampled_from(["one-at-a-time", "all"]), "steering_mode"),
        follow_up_mode=data.draw(st.sampled_from(["one-at-a-time", "all"]), "follow_up_mode"),
        steering_policy=data.draw(st.sampled_from(["skip", "run"]), "policy"),
        tool_execution=data.draw(st.sampled_from(["parallel", "sequential"]), "execution"),
        price=ModelPrice(1.0, 1.0, context_window=data.draw(st.sampled_from([40, 400]), "window")),
        compaction=data.draw(
            st.sampled_from(
                [
                    None,
                    KeepLastTurns(1),
                    Compaction((ClearToolResults(1), KeepLastTurns(2)), threshold=0.5),
                    Compaction((ClearToolResults(2), Summarise(1))),
                    Summarise(2),
                ]
            ),
            "compaction",
        ),
    )
    sim = Sim(config)
    sim.feed(AgentPrompt([sim.message("start")]))
    for _ in range(60):
        options: list[Any] = ["steer", "follow_up", "abort", "tick"]
        if sim.model_open:
            options += ["reply"] * 3
        if sim.summary_open:
            options += ["summary"] * 3
        options += [("tool", i) for i in sorted(sim.running)] * 2
        options += [("approve", i) for i in sim.approvals if i not in _decided(sim)]
        idle = (
            sim.state.phase == "idle"
            and not sim.model_open
            and not sim.summary_open
            and not sim.running
        )
        if idle:
            options += ["prompt", "continue", "stop"]
        choice = data.draw(st.sampled_from(options), "next")
        if choice == "stop":
            break
        if choice == "reply":
            sim.reply(data)
        elif choice == "summary":
            sim.summary(data)
        elif choice == "steer":
            sim.feed(AgentSteer(sim.message("steer")))
        elif choice == "follow_up":
            sim.feed(AgentFollowUp(sim.message("follow")))
        elif choice == "abort":
            sim.feed(AgentAbort())
        elif choice == "tick":
            sim.feed(ClockTick())
        elif choice == "prompt":
            sim.feed(AgentPrompt([sim.message("again")]))
        elif choice == "continue":
            sim.feed(AgentContinue())
        elif choice[0] == "tool":
            cancelled = sim.running.pop(choice[1])
            sim.feed(ToolResult(choice[1], "cancelled" if cancelled else "ok", is_error=cancelled))
        else:
            sim.feed(ToolApproval(choice[1], data.draw(st.booleans(), "approve?")))
    # wind down: abort, then answer whatever is still in flight
    sim.feed(AgentAbort())
    while sim.model_open or sim.summary_open or sim.running:
        if sim.model_open:
            sim.reply(data)
        if sim.summary_open:
            sim.summary(data)
        for cid in sorted(sim.running):
            sim.running.pop(cid)
            sim.feed(ToolResult(cid, "late"))
    _check(sim)


def _decided(sim: Sim) -> set[str]:
    batch = sim.state.batch
    return set(batch.decisions) if batch is not None else set()


def _check(sim: Sim) -> None:
    state = sim.state
    assert state.phase == "idle" and state.run is None
    history = list(state.messages)
    assert history_problems(history) == []
    # every tool call gets exactly one result, in history and as an output
    asked = [
        c.tool_call_id for m in history if isinstance(m, AssistantMessage) for c in m.tool_calls
    ]
    answered = [m.tool_call_id for m in history if isinstance(m, ToolResultMessage)]
    assert sorted(asked) == sorted(answered) and len(set(asked)) == len(asked)
    ended = [o.tool_call_id for o in sim.outputs if isinstance(o, ToolExecutionEnd)]
    assert sorted(ended) == sorted(asked)
    # no queued message lost or delivered twice
    users = [m for m in history if isinstance(m, UserMessage)]
    placed = users + list(state.steering) + list(state.follow_ups)
    assert sorted(m.message_id for m in placed) == sorted(m.message_id for m in sim.sent)
    # replay reproduces everything
    replayed, outputs = initial_loop_state(state.config), []
    for event in sim.journal:
        replayed, out = fold(replayed, event)
        outputs.extend(out)
    assert replayed == state
    assert outputs == sim.outputs
    # every request sent is one a provider accepts, compacted or not
    compactions = [o for o in sim.outputs if isinstance(o, ContextCompacted)]
    target(len(compactions), label="compactions")  # steer towards runs that compact
    for request in sim.requests:
        assert history_problems(request.messages) == [], request.messages


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.sampled_from(["one-at-a-time", "all"]), min_size=2, max_size=2), st.integers(0, 4)
)
def test_queue_modes_deliver_in_order(modes: list[str], queued: int) -> None:
    config = LoopConfig(steering_mode=modes[0], follow_up_mode=modes[1])  # type: ignore[arg-type]
    sim = Sim(config)
    for i in range(queued):
        sim.feed(AgentFollowUp(sim.message(f"f{i}")))
    sim.feed(AgentPrompt([sim.message("go")]))
    while sim.model_open:
        sim.model_open = False
        sim.feed(_message([TextPart("ok")]))
    users = [m.content for m in sim.state.messages if isinstance(m, UserMessage)]
    assert users == ["go", *(f"f{i}" for i in range(queued))]
    replies = sum(isinstance(m, AssistantMessage) for m in sim.state.messages)
    expected = 1 + (queued if modes[1] == "one-at-a-time" else min(queued, 1))
    assert replies == expected
