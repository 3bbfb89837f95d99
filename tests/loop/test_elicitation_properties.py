"""Elicitations in the loop processor: random interleavings, and the rules one by one.

A simulated shell runs tool calls; Hypothesis decides at every step whether a running call
asks the user something (an ``elicitation_request``), whether the application answers
(validly, with content that does not fit the form, or for an id nothing waits for), a
call finishes, the clock ticks, a message is steered or the run aborted. Whatever the
order:

- every elicitation the loop took is answered exactly once (``AnswerElicitation``), and
  one it refused is answered ``cancel`` at once; no answer reaches a call twice;
- the run is paused (phase ``elicitation``) exactly while some elicitation waits, and
  its deadline does not run meanwhile;
- every tool call still gets exactly one result, and the history stays valid;
- replaying the journal reproduces the state and the outputs exactly.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore.errors import ErrorCode
from agentcore.events import (
    AssistantMessage,
    ErrorMessage,
    TextPart,
    ToolCallPart,
    ToolResult,
    ToolResultMessage,
    UserMessage,
)
from agentcore.loop import (
    AgentAbort,
    AgentPrompt,
    AgentSteer,
    AnswerElicitation,
    AwaitElicitation,
    CallModel,
    ClockTick,
    ElicitationAnswer,
    ElicitationRequest,
    ExecuteTools,
    InputRejected,
    Limits,
    LoopConfig,
    SetTimer,
    history_problems,
    initial_loop_state,
    loop_processor,
)
from agentcore.tools import define_tool

from .core_answers import as_core_answers

FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


TOOLS = (define_tool("ask", "asks the user", {"type": "object", "properties": {}}, _noop),)


def fold(state: Any, event: Any) -> tuple[Any, list[Any]]:
    """``loop_processor`` with the loop's own tool answers fed back (as the conversation
    processor does)."""
    state, out = loop_processor(state, event)
    outputs = list(out)
    for answer in as_core_answers(state, out):
        state, more = fold(state, answer)
        outputs.extend(more)
    return state, outputs


class Sim:
    """A deterministic shell: a model that asks for tools, tools that may ask the user."""

    def __init__(self, timeout_ms: int | None) -> None:
        config = LoopConfig(tools=TOOLS, limits=Limits(max_iterations=4, timeout_ms=timeout_ms))
        self.state = initial_loop_state(config)
        self.journal: list[Any] = []
        self.outputs: list[Any] = []
        self.clock = 0
        self.model_open = False
        self.running: set[str] = set()
        self.waiting: dict[str, str] = {}  # elicitation id -> the call that asked
        self.answered: Counter[str] = Counter()
        self.asked = 0
        self.calls = 0

    def feed(self, event: Any, advance: int = 10) -> list[Any]:
        self.clock += advance
        fields = {k: getattr(event, k) for k in event.__slots__ if k != "__weakref__"}
        event = type(event)(**fields | {"timestamp": self.clock})
        self.journal.append(event)
        self.state, out = fold(self.state, event)
        self.outputs.extend(out)
        for o in out:
            if isinstance(o, CallModel):
                self.model_open = True
            elif isinstance(o, ExecuteTools):
                self.running.update(c.tool_call_id for c in o.tool_calls)
            elif isinstance(o, AnswerElicitation):
                self.answered[o.answer.elicitation_id] += 1
                self.waiting.pop(o.answer.elicitation_id, None)
        return out

    def reply(self, tools: int) -> None:
        self.model_open = False
        parts = []
        for _ in range(tools):
            self.calls += 1
            parts.append(ToolCallPart(f"c{self.calls}", "ask", {}))
        stop = "tool_use" if parts else "end_turn"
        self.feed(AssistantMessage("a", "m", parts or [TextPart("done")], stop_reason=stop))

    def ask(self, call_id: str) -> None:
        self.asked += 1
        eid = f"e{self.asked}"
        self.waiting[eid] = call_id
        self.feed(ElicitationRequest("srv", "Who?", "form", FORM, None, eid, call_id))


def _answer(data: st.DataObject, eid: str) -> ElicitationAnswer:
    kind = data.draw(st.sampled_from(["accept", "decline", "cancel", "misfit"]), "answer")
    if kind == "accept":
        return ElicitationAnswer("accept", {"name": "Ada"}, eid)
    if kind == "misfit":
        return ElicitationAnswer("accept", {"name": 5}, eid)
    return ElicitationAnswer(kind, None, eid)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_interleavings_answer_every_elicitation_once(data: st.DataObject) -> None:
    sim = Sim(data.draw(st.sampled_from([None, 300]), "timeout"))
    sim.feed(AgentPrompt([UserMessage("u0", "go")]))
    for _ in range(50):
        options: list[Any] = ["steer", "abort", "tick", "stray answer"]
        if sim.model_open:
            options += ["reply"] * 3
        options += [("finish", c) for c in sorted(sim.running)]
        options += [("ask", c) for c in sorted(sim.running)] * 2
        options += [("answer", e) for e in sorted(sim.waiting)] * 2
        if sim.state.phase == "idle" and not sim.model_open and not sim.running:
            options += ["stop", "prompt"]
        choice = data.draw(st.sampled_from(options), "next")
        if choice == "stop":
            break
        if choice == "reply":
            sim.reply(data.draw(st.integers(0, 2), "tools"))
        elif choice == "steer":
            sim.feed(AgentSteer(UserMessage(f"s{sim.clock}", "steer")))
        elif choice == "abort":
            sim.feed(AgentAbort())
        elif choice == "tick":
            sim.feed(ClockTick(), advance=data.draw(st.sampled_from([10, 200, 400]), "wait"))
        elif choice == "stray answer":
            out = sim.feed(ElicitationAnswer("decline", None, "nobody"))
            assert [type(o) for o in out] == [ErrorMessage, InputRejected]
        elif choice == "prompt":
            sim.feed(AgentPrompt([UserMessage(f"u{sim.clock}", "again")]))
        elif choice[0] == "finish":
            sim.running.discard(choice[1])
            sim.feed(ToolResult(choice[1], "ok"))
        elif choice[0] == "ask":
            sim.ask(choice[1])
        else:
            before = sim.answered[choice[1]]
            out = sim.feed(_answer(data, choice[1]))
            if any(isinstance(o, ErrorMessage) for o in out):  # content that misfits the form
                assert sim.answered[choice[1]] == before and choice[1] in sim.waiting
        _check_pause(sim)
    sim.feed(AgentAbort())
    while sim.model_open or sim.running:
        if sim.model_open:
            sim.reply(0)
        for cid in sorted(sim.running):
            sim.running.discard(cid)
            sim.feed(ToolResult(cid, "late"))
    _check_end(sim)


def _check_pause(sim: Sim) -> None:
    state = sim.state
    pending = () if state.run is None else state.run.elicitations
    assert (state.phase == "elicitation") == bool(pending)
    assert {p.elicitation_id for p in pending} == set(sim.waiting)
    if state.phase == "elicitation":
        assert state.run is not None and state.run.paused_at is not None


def _check_end(sim: Sim) -> None:
    state = sim.state
    assert state.phase == "idle" and state.run is None and not sim.waiting
    assert set(sim.answered) == {f"e{i}" for i in range(1, sim.asked + 1)}
    assert set(sim.answered.values()) <= {1}
    history = list(state.messages)
    assert history_problems(history) == []
    asked = [
        c.tool_call_id for m in history if isinstance(m, AssistantMessage) for c in m.tool_calls
    ]
    answered = [m.tool_call_id for m in history if isinstance(m, ToolResultMessage)]
    assert sorted(asked) == sorted(answered)
    replayed, outputs = initial_loop_state(state.config), []
    for event in sim.journal:
        replayed, out = fold(replayed, event)
        outputs.extend(out)
    assert replayed == state and outputs == sim.outputs


# -- the rules, one by one ------------------------------------------------------------------


def _asking(timeout_ms: int | None = None) -> Sim:
    sim = Sim(timeout_ms)
    sim.feed(AgentPrompt([UserMessage("u0", "go")]))
    sim.reply(1)
    return sim


def test_a_request_pauses_the_run_and_is_delivered() -> None:
    sim = _asking()
    sim.asked = 1
    request = ElicitationRequest("srv", "Who?", "form", FORM, None, "e1", "c1")
    sim.waiting["e1"] = "c1"
    out = sim.feed(request)
    assert out[0] == request.__class__(**{**_fields(request), "timestamp": sim.clock})
    assert isinstance(out[1], AwaitElicitation) and out[1].elicitations == (out[0],)
    assert sim.state.phase == "elicitation"
    answer = sim.feed(ElicitationAnswer("accept", {"name": "Ada"}, "e1"))
    assert [type(o) for o in answer] == [ElicitationAnswer, AnswerElicitation]
    assert answer[1].answer.content == {"name": "Ada"} and sim.state.phase == "tools"


def _fields(event: Any) -> dict[str, Any]:
    return {k: getattr(event, k) for k in event.__slots__ if k != "__weakref__"}


def test_a_request_from_a_call_that_is_not_running_is_cancelled_at_once() -> None:
    sim = _asking()
    out = sim.feed(ElicitationRequest("srv", "Who?", elicitation_id="e9", tool_call_id="c7"))
    assert isinstance(out[0], ErrorMessage) and "'c7' is not running" in out[0].message
    assert out[1] == InputRejected(
        "elicitation_request", out[0].message, out[0].code, timestamp=sim.clock
    )
    assert out[2] == AnswerElicitation(ElicitationAnswer("cancel", None, "e9", timestamp=sim.clock))
    assert sim.state.phase == "tools"


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (ElicitationAnswer("accept", None, "e1"), "an accepted form needs content"),
        (ElicitationAnswer("accept", {"name": 1}, "e1"), "1 is not of type 'string'"),
        (ElicitationAnswer("accept", {}, "e1"), "'name' is a required property"),
        (ElicitationAnswer("decline", {"name": "x"}, "e1"), "decline carries no content"),
        (ElicitationAnswer("cancel", None, "e2"), "no elicitation with id 'e2'"),
    ],
)
def test_an_answer_that_does_not_fit_is_refused_and_the_question_stays(
    answer: ElicitationAnswer, problem: str
) -> None:
    sim = _asking()
    sim.ask("c1")
    out = sim.feed(answer)
    assert [type(o) for o in out] == [ErrorMessage, InputRejected] and problem in out[0].message
    assert out[0].code == ErrorCode.PROTOCOL_ERROR
    assert sim.state.phase == "elicitation" and sim.waiting == {"e1": "c1"}


def test_a_url_elicitation_is_accepted_without_content() -> None:
    sim = _asking()
    sim.feed(ElicitationRequest("srv", "Log in", "url", None, "https://x", "e1", "c1"))
    out = sim.feed(ElicitationAnswer("accept", None, "e1"))
    assert isinstance(out[1], AnswerElicitation) and sim.state.phase == "tools"


def test_abort_cancels_the_questions_and_the_calls_that_asked() -> None:
    sim = _asking()
    sim.ask("c1")
    out = sim.feed(AgentAbort())
    cancels = [o.answer for o in out if isinstance(o, AnswerElicitation)]
    assert [(a.elicitation_id, a.action) for a in cancels] == [("e1", "cancel")]
    # the loop answers the call it cancels itself: the run ends in the same step
    (answer,) = [o for o in out if isinstance(o, ToolResult)]
    assert answer.tool_call_id == "c1" and answer.details == {"error_code": "ABORTED"}
    assert sim.state.phase == "idle" and sim.answered == Counter({"e1": 1})
    assert sim.feed(ToolResult("c1", "cancelled", True)) == []  # late: dropped


def test_a_call_that_ends_while_its_question_waits_cancels_it() -> None:
    sim = _asking()
    sim.ask("c1")
    out = sim.feed(ToolResult("c1", "timed out", True))
    assert [o.answer.action for o in out if isinstance(o, AnswerElicitation)] == ["cancel"]
    assert out[0] == ToolResult("c1", "timed out", True, timestamp=out[0].timestamp)  # let in
    assert isinstance(out[1], ElicitationAnswer)  # delivered before the call's end
    assert any(isinstance(o, CallModel) for o in out)  # the run went on


def test_the_deadline_does_not_run_while_the_user_thinks() -> None:
    sim = _asking(timeout_ms=300)
    start = sim.state.run.deadline
    sim.ask("c1")
    sim.feed(ClockTick(), advance=1000)  # long past the deadline, but paused
    assert sim.state.phase == "elicitation"
    out = sim.feed(ElicitationAnswer("decline", None, "e1"), advance=10)
    (timer,) = [o for o in out if isinstance(o, SetTimer)]
    assert timer.at_ms == start + 1010 == sim.state.run.deadline
