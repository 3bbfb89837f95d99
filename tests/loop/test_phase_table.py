"""The loop policy's phase table (``agentcore.loop.TRANSITIONS``).

- It covers every phase for every input type it knows.
- docs/loop.md's "Phases and transitions" table lists exactly the pairs the code does
  something with (every pair whose handler is not the ignoring one), and every refusal
  it lists answers ``error_message``.
- Differential: over random sequences of any input at any time (the ones that fit and
  the ones that do not), the table dispatch makes the same states and outputs as the
  dispatch it replaced (``reference_policy.py``, the old code kept as the oracle).
- Outside a run the phase is ``idle``, and only there (the table relies on it).
- Pure: folding the same input into the same state again gives the same state and outputs.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import ModelPrice, Summarise
from agentcore.events import (
    AssistantMessage,
    ErrorMessage,
    ErrorReceived,
    Interrupt,
    MessageStart,
    TextPart,
    ToolCallPart,
    ToolResult,
    UserMessage,
)
from agentcore.loop import (
    PHASES,
    TRANSITIONS,
    AgentAbort,
    AgentConfigured,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AgentSteer,
    ClockTick,
    ContextSummary,
    ElicitationAnswer,
    ElicitationRequest,
    GuardrailTripped,
    InputRejected,
    Limits,
    LoopConfig,
    OutputPassed,
    ToolApproval,
    ToolProgress,
    initial_loop_state,
    loop_processor,
    output_spec,
)
from agentcore.tools import define_tool

from .core_answers import as_core_answers

ROOT = pathlib.Path(__file__).resolve().parents[2]
INPUTS = sorted({cls for _, cls in TRANSITIONS}, key=lambda c: c.type)
WIRE = {cls.type: cls for cls in INPUTS}


def _reference() -> Any:
    path = pathlib.Path(__file__).with_name("reference_policy.py")
    spec = importlib.util.spec_from_file_location("reference_policy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference_processor = _reference().loop_processor


def _ignores(handler: Any) -> bool:
    return bool(handler.__name__ == "_ignore")


def _refuses(handler: Any) -> bool:
    return bool(handler.__name__.lstrip("_").startswith(("busy", "stray", "refuse")))


def test_every_phase_has_a_handler_for_every_input() -> None:
    assert set(PHASES) == {
        "idle",
        "model",
        "compacting",
        "waiting",
        "tools",
        "approval",
        "elicitation",
        "checking",
    }
    missing = [(p, c.type) for c in INPUTS for p in PHASES if (p, c) not in TRANSITIONS]
    assert missing == []
    assert len(TRANSITIONS) == len(INPUTS) * len(PHASES)


def _phases(cell: str) -> set[str]:
    cell = cell.strip()
    if cell == "any":
        return set(PHASES)
    if cell.startswith("any but "):
        excluded = {p.strip() for p in cell.removeprefix("any but ").split(",")}
        assert excluded <= set(PHASES), cell
        return set(PHASES) - excluded
    named = {p.strip() for p in cell.split(",")}
    assert named <= set(PHASES), f"not a phase in docs/loop.md's table: {cell!r}"
    return named


def _doc_rows() -> list[tuple[set[str], set[str], str]]:
    text = (ROOT / "docs" / "loop.md").read_text()
    section = text.split("## Phases and transitions", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith(("| phase", "|---")):
            continue
        phase, inputs, outcome = (c.strip() for c in line.strip().strip("|").split(" | "))
        names = {n for n in re.findall(r"`(\w+)", inputs) if n in WIRE}
        assert names, f"a row of docs/loop.md's phase table names no input: {line}"
        rows.append((_phases(phase), names, outcome))
    return rows


def test_docs_table_lists_exactly_what_the_code_does() -> None:
    documented: dict[tuple[str, str], list[str]] = {}
    for phases, names, outcome in _doc_rows():
        for phase in phases:
            for name in names:
                documented.setdefault((phase, name), []).append(outcome)
    acted = {(p, c.type): h for (p, c), h in TRANSITIONS.items() if not _ignores(h)}
    assert sorted(set(documented) - set(acted)) == [], "documented, but the code ignores"
    assert sorted(set(acted) - set(documented)) == [], "handled, but not documented"
    for pair, handler in acted.items():
        if _refuses(handler):
            assert any("`error_message" in o for o in documented[pair]), pair


# -- differential: the table against the dispatch it replaced -------------------------------


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


_OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}}
TOOLS = (
    define_tool("fast", "f", _OBJ, _noop),
    define_tool("again", "a", _OBJ, _noop, idempotent=True),
    define_tool("seq", "s", _OBJ, _noop, sequential=True),
    define_tool("risky", "r", _OBJ, _noop, requires_approval=True),
)
SPEC, _ = output_spec({"type": "object", "properties": {"x": {"type": "integer"}}}, mode="tool")
KINDS = (
    "prompt",
    "prompt_output",
    "continue",
    "reset",
    "steer",
    "follow_up",
    "configured",
    "abort",
    "interrupt",
    "resume",
    "tick",
    "message_start",
    "text",
    "tools",
    "answer",
    "cut",
    "error",
    "overflow",
    "tool_result",
    "progress",
    "approval",
    "summary",
    "ask",
    "reply",
    "guardrail",
    "passed",
)


FITTING = {
    "idle": ("prompt", "prompt_output", "continue"),
    "model": ("text", "tools", "tools", "answer", "cut", "error", "overflow", "message_start"),
    "compacting": ("summary",),
    "waiting": ("tick",),
    "tools": ("tool_result", "tool_result", "ask"),
    "approval": ("approval",),
    "elicitation": ("reply", "tool_result"),
    "checking": ("passed",),
}
"""The inputs a phase waits for: drawn most of the time, so runs reach every phase."""


def _event(data: st.DataObject, state: Any, n: int, ts: int) -> Any:
    fits = data.draw(st.booleans(), "fits")
    kind = data.draw(st.sampled_from(FITTING[state.phase] if fits else KINDS), "input")
    batch, run = state.batch, state.run
    running = sorted(batch.running) if batch is not None else []
    waiting = [] if batch is None else [i for i in batch.pending if i not in batch.decisions]
    ids = [*running, *waiting] if fits and (running or waiting) else [*running, *waiting, "x"]
    asked = [] if run is None else [p.elicitation_id for p in run.elicitations]
    asked = asked if fits and asked else [*asked, "nobody"]
    message = UserMessage(f"u{n}", "hi", timestamp=ts)
    if kind in ("prompt", "prompt_output"):
        spec = SPEC if kind == "prompt_output" else None
        return AgentPrompt([message], output=spec, timestamp=ts)
    if kind == "text":
        return AssistantMessage(f"a{n}", "m", [TextPart("hello")], timestamp=ts)
    if kind in ("tools", "answer"):
        names = ["answer"] if kind == "answer" else ["fast", "again", "seq", "risky", "nope"]
        picked = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3), "calls")
        parts = [ToolCallPart(f"c{n}-{i}", name, {"n": 1}) for i, name in enumerate(picked)]
        return AssistantMessage(f"a{n}", "m", parts, stop_reason="tool_use", timestamp=ts)
    if kind == "cut":
        stop = data.draw(st.sampled_from(["error", "interrupted"]), "stop")
        parts = [TextPart("par"), ToolCallPart(f"c{n}-0", "fast", {"n": 1})]
        return AssistantMessage(
            f"a{n}", "m", parts, stop_reason=stop, incomplete=True, timestamp=ts
        )
    if kind == "tool_result":
        call_id = data.draw(st.sampled_from(ids), "result for")
        return ToolResult(call_id, "ok", data.draw(st.booleans(), "failed"), timestamp=ts)
    if kind == "approval":
        call_id = data.draw(st.sampled_from(ids), "approve")
        return ToolApproval(call_id, data.draw(st.booleans(), "approved"), timestamp=ts)
    if kind == "ask":
        call_id = data.draw(st.sampled_from(ids), "asking call")
        return ElicitationRequest("mcp", "name?", elicitation_id=f"e{n}", tool_call_id=call_id)
    if kind == "reply":
        eid = data.draw(st.sampled_from(asked), "answer to")
        action = data.draw(st.sampled_from(["accept", "decline", "cancel"]), "action")
        return ElicitationAnswer(action, None, eid, timestamp=ts)
    if kind == "summary":
        if data.draw(st.booleans(), "summary written"):
            return ContextSummary("gist", timestamp=ts)
        return ContextSummary(code="OVERLOADED", message="busy", retryable=True, timestamp=ts)
    if kind == "progress":
        return ToolProgress(data.draw(st.sampled_from(ids), "progress of"), 0.5, timestamp=ts)
    simple: dict[str, Any] = {
        "continue": lambda: AgentContinue(timestamp=ts),
        "reset": lambda: AgentReset((message,), timestamp=ts),
        "steer": lambda: AgentSteer(message, timestamp=ts),
        "follow_up": lambda: AgentFollowUp(message, timestamp=ts),
        "configured": lambda: AgentConfigured(state.config.to_wire(), timestamp=ts),
        "abort": lambda: AgentAbort(timestamp=ts),
        "interrupt": lambda: Interrupt(timestamp=ts),
        "resume": lambda: AgentResume(timestamp=ts),
        "tick": lambda: ClockTick(timestamp=ts),
        "message_start": lambda: MessageStart(f"a{n}", "m", timestamp=ts),
        "error": lambda: ErrorReceived("busy", "OVERLOADED", retryable=True, timestamp=ts),
        "overflow": lambda: ErrorReceived("too long", "CONTEXT_OVERFLOW", timestamp=ts),
        "guardrail": lambda: GuardrailTripped("g", "output", "no", timestamp=ts),
        "passed": lambda: OutputPassed(timestamp=ts),
    }
    return simple[kind]()


def _fold(processor: Any, state: Any, event: Any) -> tuple[Any, list[Any]]:
    """``processor`` with the loop's own tool results fed back, as the conversation does."""
    state, out = processor(state, event)
    outputs = list(out)
    for answer in as_core_answers(state, out):
        state, more = _fold(processor, state, answer)
        outputs.extend(more)
    return state, outputs


def _without_refusals(outputs: list[Any]) -> list[Any]:
    return [o for o in outputs if type(o) is not InputRejected]


def _each_refusal_is_explicit(outputs: list[Any]) -> None:
    """Every ``error_message`` of the loop is a refusal, and an ``input_rejected`` that
    names it follows it (what the shell raises from)."""
    for i, o in enumerate(outputs):
        if type(o) is ErrorMessage:
            after = outputs[i + 1]
            assert type(after) is InputRejected
            assert (after.message, after.code) == (o.message, o.code)
        if type(o) is InputRejected:
            assert type(outputs[i - 1]) is ErrorMessage


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_table_decides_as_the_old_dispatch_did(data: st.DataObject) -> None:
    config = LoopConfig(
        tools=TOOLS,
        limits=Limits(
            max_iterations=data.draw(st.integers(1, 5), "max_iterations"),
            timeout_ms=data.draw(st.sampled_from([None, 60]), "timeout"),
        ),
        steering_policy=data.draw(st.sampled_from(["skip", "run"]), "policy"),
        price=ModelPrice(1.0, 1.0, context_window=data.draw(st.sampled_from([40, 4000]), "w")),
        compaction=data.draw(st.sampled_from([None, Summarise(1)]), "compaction"),
        model_retries=data.draw(st.integers(0, 2), "retries"),
        retry_delay_ms=10,
        check_output=data.draw(st.booleans(), "check_output"),
    )
    new = old = initial_loop_state(config)
    for n in range(data.draw(st.integers(1, 60), "steps")):
        event = _event(data, new, n, ts=10 * (n + 1))
        before = new
        new, out_new = _fold(loop_processor, new, event)
        again, out_again = _fold(loop_processor, before, event)  # pure: the same fold again
        assert (again, out_again) == (new, out_new)
        old, out_old = _fold(reference_processor, old, event)
        assert _without_refusals(out_new) == _without_refusals(out_old), event
        _each_refusal_is_explicit(out_new)
        assert new == old, event
        assert (new.phase == "idle") == (new.run is None), (new.phase, event)
