"""Properties of the whole conversation processor (core and loop) over random runs.

A simulated runtime performs the effect requests the way the real one does (a model call
is answered by a driver's stream events, a cancelled call by an ``interrupt``, a tool
call by a ``tool_result``; a cancelled tool call is only cancelled, and its real result
may still come, late), and Hypothesis picks what happens next at every step. Then:

- every layer agrees that each tool call was answered exactly once (a ``tool_result``
  reaching the core, a ``tool_result_message``, a ``tool_execution_end``, a history
  entry), whatever interleaving of aborts, interrupts, timeouts and late results came,
  and the history passes the provider-validity check;
- a late result (for a call the loop cancelled and answered itself) has no output and
  changes nothing but the loop's note of the calls it may still drop;
- the activity the core projects equals an ``AgentStateMachine`` fed every output;
- every run ends with ``agent_end`` as the last output of its step;
- no queued message is lost or delivered twice;
- folding the journal again gives every output and the state exactly;
- pending tool calls: outside an open model stream, the three processors that keep them
  (the assembler's ``pending``, the state-event processor's ``has_pending_tools``, the
  loop's ``Batch``) name the same unanswered calls after every input (docs/loop.md says
  why there are three);
- one cost ledger: every turn's ``turn_response`` cost is what the loop charged for that
  turn's model calls (``model_usage``), the run's ``turn_end`` costs add up to its
  ``agent_end`` cost, the runs' to the session's, and the session tally's call rows to the
  same figure, whatever model of a per-model price table answered each call.

Tests the private modules ``agentcore._core`` (the core processors' states) and
``agentcore._journal.sql.tally``: every layer's own record of pending calls and usage
agrees.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import ModelPrice
from agentcore._core.agent_processor import STATES
from agentcore._core.assembler import BASE
from agentcore._core.state_events import has_pending_tools
from agentcore._journal.sql.tally import Tally
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    TurnResponse,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    EFFECTS,
    AgentAbort,
    AgentConfigured,
    AgentContinue,
    AgentEnd,
    AgentFollowUp,
    AgentPrompt,
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
    ModelUsage,
    ToolApproval,
    ToolExecutionEnd,
    TurnEnd,
    conversation_processor,
    create_initial_conversation_state,
    history_problems,
    snapshot_of,
)
from agentcore.pricing import cost_of
from agentcore.processors import activity_of
from agentcore.state_machine import AgentStateMachine
from agentcore.tools import define_tool


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


_OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}}
TOOLS = (
    define_tool("fast", "f", _OBJ, _noop),
    define_tool("seq", "s", _OBJ, _noop, sequential=True),
    define_tool("risky", "r", _OBJ, _noop, requires_approval=True),
)


class Runtime:
    """Performs effects when Hypothesis says so; journals and folds every input."""

    def __init__(self, config: LoopConfig, models: tuple[str, ...] = ("m",)) -> None:
        self.state = create_initial_conversation_state(config)
        self.config, self.models = config, models
        self.journal: list[Any] = []
        self.outputs: list[Any] = []
        self.steps: list[tuple[Any, ...]] = []
        self.clock = 0
        self.model_open = False
        self.cancel_model = False
        self.running: dict[str, bool] = {}  # id -> cancelled
        self.late: list[str] = []  # cancelled calls whose real result may still come
        self.dropped = 0
        self.approvals: list[str] = []
        self.calls = 0
        self.messages = 0
        self.sent: list[Any] = []
        self.pending: list[tuple[Any, ...]] = []
        self.feed(AgentConfigured(config.to_wire()))

    def feed(self, event: Any) -> None:
        self.clock += 10
        event = type(event)(
            **{k: getattr(event, k) for k in event.__slots__ if k != "__weakref__"}
            | {"timestamp": self.clock}
        )
        self.journal.append(event)
        self.state, out = conversation_processor(self.state, event)
        self.steps.append(out)
        if type(event) not in STREAMING:
            self.pending.append(_pending_views(self.state))
        self.outputs.extend(o for o in out if type(o) not in EFFECTS)
        for o in out:
            if isinstance(o, CallModel):
                self.model_open, self.cancel_model = True, False
            elif isinstance(o, CancelModel):
                self.cancel_model = True
            elif isinstance(o, ExecuteTools):
                self.running.update({c.tool_call_id: False for c in o.tool_calls})
            elif isinstance(o, CancelTools):  # the runtime only cancels: the loop answered
                for call_id in o.tool_call_ids:
                    self.running.pop(call_id, None)
                    self.late.append(call_id)
            elif isinstance(o, AwaitApproval):
                self.approvals = [c.tool_call_id for c in o.tool_calls]
            elif isinstance(o, Finish):
                self.approvals = []

    def reply(self, data: st.DataObject) -> None:
        """The driver's stream for the open model call."""
        self.model_open = False
        self.messages += 1
        model = self.models[0] if len(self.models) == 1 else data.draw(st.sampled_from(self.models))
        self.feed(MessageStart(f"a{self.messages}", model))
        if self.cancel_model:  # the driver stops; the runtime feeds an interrupt
            if data.draw(st.booleans(), "streamed before the cancel"):
                self.feed(TextDelta("par", 0))
            self.feed(Interrupt("abort"))
            return
        kind = data.draw(st.sampled_from(["text", "tools", "tools", "error", "empty"]), "reply")
        if kind == "text":
            self.feed(TextDelta("hel", 0))
            self.feed(TextDelta("lo", 0))
        elif kind == "error":
            if data.draw(st.booleans(), "partial before error"):
                self.feed(TextDelta("cut", 0))
            self.feed(ErrorReceived("overloaded", "OVERLOADED"))
            return
        elif kind == "tools":
            names = data.draw(
                st.lists(
                    st.sampled_from(["fast", "seq", "risky", "nope", "bad"]), min_size=1, max_size=3
                ),
                "calls",
            )
            for index, name in enumerate(names):
                self.calls += 1
                cid = f"c{self.calls}"
                self.feed(ToolUseStart(cid, "fast" if name == "bad" else name, index))
                self.feed(InputJsonDelta('{"n": "x"}' if name == "bad" else '{"n": 1}', index))
                self.feed(ToolUseStop(cid, index))
        stop = "tool_use" if kind == "tools" else "end_turn"
        usage = Usage()
        if len(self.models) > 1:
            usage = Usage(*data.draw(st.tuples(*[st.integers(0, 5000)] * 4), "usage"))
        self.feed(MessageDelta(stop_reason=stop, usage=usage))
        self.feed(MessageStop(stop))

    def message(self, text: str) -> UserMessage:
        msg = UserMessage(f"m{len(self.sent)}", text)
        self.sent.append(msg)
        return msg


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_runs_keep_every_guarantee_across_layers(data: st.DataObject) -> None:
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
    )
    rt = Runtime(config)
    _drive(rt, data)
    _check(rt)


def _drive(rt: Runtime, data: st.DataObject) -> None:
    """Prompt, then whatever Hypothesis picks, then wind down to idle."""
    rt.feed(AgentPrompt([rt.message("start")]))
    for _ in range(60):
        options: list[Any] = ["steer", "follow_up", "abort", "tick"]
        if rt.model_open:
            options += ["reply"] * 3
        else:
            options.append("interrupt")
        options += [("late", i) for i in rt.late]
        options += [("tool", i) for i in sorted(rt.running)] * 2
        batch = rt.state.loop.batch
        decided = set(batch.decisions) if batch is not None else set()
        options += [("approve", i) for i in rt.approvals if i not in decided]
        idle = rt.state.loop.phase == "idle" and not rt.model_open and not rt.running
        if idle:
            options += ["prompt", "continue", "stop"]
        choice = data.draw(st.sampled_from(options), "next")
        if choice == "stop":
            break
        if choice == "reply":
            rt.reply(data)
        elif choice == "steer":
            rt.feed(AgentSteer(rt.message("steer")))
        elif choice == "follow_up":
            rt.feed(AgentFollowUp(rt.message("follow")))
        elif choice == "abort":
            rt.feed(AgentAbort())
        elif choice == "interrupt":
            rt.feed(Interrupt("abort"))
        elif choice[0] == "late":
            _late(rt, choice[1])
        elif choice == "tick":
            rt.feed(ClockTick())
        elif choice == "prompt":
            rt.feed(AgentPrompt([rt.message("again")]))
        elif choice == "continue":
            rt.feed(AgentContinue())
        elif choice[0] == "tool":
            rt.running.pop(choice[1])
            rt.feed(ToolResult(choice[1], "ok"))
        else:
            rt.feed(ToolApproval(choice[1], data.draw(st.booleans(), "approve?")))
    rt.feed(AgentAbort())  # wind down: abort, then answer whatever is still in flight
    while rt.model_open or rt.running:
        if rt.model_open:
            rt.reply(data)
        for cid in sorted(rt.running):
            rt.running.pop(cid)
            rt.feed(ToolResult(cid, "late"))
    for cid in list(rt.late):
        if data.draw(st.booleans(), f"late result of {cid}"):
            _late(rt, cid)


def _late(rt: Runtime, call_id: str) -> None:
    """The real result of a call the loop cancelled and answered: journaled, dropped."""
    rt.late.remove(call_id)
    before = rt.state
    rt.feed(ToolResult(call_id, "finished after all"))
    assert rt.steps[-1] == ()
    assert rt.state.core == before.core
    assert rt.state.loop == before.loop.replace(cancelled=before.loop.cancelled - {call_id})
    rt.dropped += 1


STREAMING = (MessageStart, TextDelta, ToolUseStart, InputJsonDelta, ToolUseStop, MessageDelta)
"""Inputs while a model stream is open: the core has seen calls the loop decides on only
once the whole message is assembled."""


def _pending_views(state: Any) -> tuple[set[str], set[str], bool]:
    """The unanswered tool calls as the assembler, the loop's batch and the state-event
    processor keep them."""
    batch = state.loop.batch
    answered_not = set()
    if batch is not None:
        answered_not = {
            c.tool_call_id for c in batch.calls if batch.result_of(c.tool_call_id) is None
        }
    return set(state.core[BASE].pending), answered_not, has_pending_tools(state.core[STATES])


def _check(rt: Runtime) -> None:
    for assembler, batch, executing in rt.pending:
        assert assembler == batch and executing == bool(batch)
    loop = rt.state.loop
    assert loop.phase == "idle" and loop.run is None
    history = list(loop.messages)
    assert history_problems(history) == []
    asked = [
        c.tool_call_id for m in history if isinstance(m, AssistantMessage) for c in m.tool_calls
    ]
    answered = [m.tool_call_id for m in history if isinstance(m, ToolResultMessage)]
    assert sorted(asked) == sorted(answered) and len(set(asked)) == len(asked)
    # every layer saw each call answered exactly once
    for cls in (ToolExecutionEnd, ToolResult, ToolResultMessage):
        ids = [o.tool_call_id for o in rt.outputs if type(o) is cls]
        assert sorted(ids) == sorted(asked), cls.__name__
    # one message per result: the core's tool_result_message is the history's entry and
    # the tool_execution_end's result (both built by ToolResultMessage.answering)
    made = {o.tool_call_id: o for o in rt.outputs if type(o) is ToolResultMessage}
    for m in history:
        if isinstance(m, ToolResultMessage):
            assert made[m.tool_call_id] == m
    for end in (o for o in rt.outputs if type(o) is ToolExecutionEnd):
        assert made[end.tool_call_id] == end.result
    # the projected activity is the state machine's fold of the outputs
    machine = AgentStateMachine()
    for output in rt.outputs:
        machine.process(output)
    assert activity_of(rt.state.core) is machine.state
    # a run's last output is its agent_end
    for step in rt.steps:
        delivered = [o for o in step if type(o) not in EFFECTS]
        if any(type(o) is AgentEnd for o in delivered):
            assert type(delivered[-1]) is AgentEnd
    # no queued message lost or delivered twice
    users = [m for m in history if isinstance(m, UserMessage)]
    placed = users + list(loop.steering) + list(loop.follow_ups)
    assert sorted(m.message_id for m in placed) == sorted(m.message_id for m in rt.sent)
    # replay reproduces everything
    replayed, outputs = create_initial_conversation_state(rt.config), []
    for event in rt.journal:
        replayed, out = conversation_processor(replayed, event)
        outputs.extend(o for o in out if type(o) not in EFFECTS)
    assert replayed == rt.state
    assert outputs == rt.outputs


CHEAP = ModelPrice(1.0, 2.0, 0.1, 1.5)
DEAR = ModelPrice(3.0, 15.0, 0.3, 3.75)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_ledger_is_the_loops(data: st.DataObject) -> None:
    """Turn costs, run costs, the session's and the session tally's are one ledger: each
    model call charged once, at its answering model's price (``call_cost``)."""
    priced = data.draw(st.booleans(), "priced")
    config = LoopConfig(
        tools=TOOLS,
        limits=Limits(max_iterations=data.draw(st.integers(1, 6), "max_iterations")),
        price=DEAR if priced else None,
        prices={"cheap": CHEAP, "dear": DEAR} if priced else None,
    )
    rt = Runtime(config, models=("cheap", "dear", "unlisted"))
    _drive(rt, data)
    _check(rt)
    loop = rt.state.loop
    charged = [o for o in rt.outputs if type(o) is ModelUsage]
    if not priced:
        assert all(o.cost is None for o in rt.outputs if hasattr(o, "cost"))
        assert snapshot_of(rt.state).cost is None
        return
    # each call at its own model's row, else at the config's price
    rates = {"cheap": CHEAP, "dear": DEAR, "unlisted": DEAR}
    assert [o.cost for o in charged] == [cost_of(o.usage, rates[o.model]) for o in charged]
    # a turn's response costs what the loop charged for the calls of that turn
    # (the loop's charge follows the core's turn_response in the step of a message_stop)
    open_turn: list[float] = []
    ended: list[TurnResponse] = []
    for step in rt.steps:
        for o in step:
            if type(o) is TurnRequest:
                assert all(r.cost == pytest.approx(sum(open_turn), abs=1e-12) for r in ended)
                open_turn, ended = [], []
            elif type(o) is ModelUsage:
                open_turn.append(o.cost)
            elif type(o) is TurnResponse:
                ended.append(o)
        if ended:
            assert all(r.cost == pytest.approx(sum(open_turn), abs=1e-12) for r in ended)
            open_turn, ended = [], []
    assert sum(r.cost for r in rt.outputs if type(r) is TurnResponse) <= loop.cost + 1e-12
    # the run's turn_end costs add up to its agent_end's; the runs' to the session's
    runs, turns = [], 0.0
    for o in rt.outputs:
        if type(o) is TurnEnd:
            turns += o.cost
        elif type(o) is AgentEnd:
            assert o.cost == pytest.approx(turns, abs=1e-12)
            runs.append(o.cost)
            turns = 0.0
    assert loop.cost == pytest.approx(sum(runs), abs=1e-12)
    assert loop.cost == pytest.approx(sum(o.cost for o in charged), abs=1e-12)
    assert snapshot_of(rt.state).cost == loop.cost
    # the session tally, counted from the journal alone, finds the same calls and cost
    tally = Tally(lambda agent: None, lambda agent: None)
    counted = tally.count(("s", seq, e) for seq, e in enumerate(rt.journal, 1))
    assert sum(c.cost or 0.0 for c in counted.calls) == pytest.approx(loop.cost, abs=1e-12)
