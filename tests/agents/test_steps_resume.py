"""A ``handle_steps`` generator survives a process stop.

Resumed from any prefix of its journal (what a crash leaves), in process and after SIGKILL
in a new process, a tree whose worker is scripted by a generator (sync or async) ends
with the uninterrupted run's histories, no tool result duplicated; the generator is
re-run and receives, for each yield the journal recorded, exactly what it received live.
A generator that yields otherwise than its journal recorded fails the resume with
``StepsDivergedError``.

Tests the private module ``agentcore._agents.steps_replay``: its walk over a journal counts
the steps a generator was asked.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import pathlib
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import tool
from agentcore._agents.steps_replay import walk
from agentcore.agents import (
    STEP,
    AgentDefinition,
    AgentRegistry,
    StepsDivergedError,
    ToolCall,
    node_of,
)
from agentcore.drivers.scripted import FunctionDriver, text_turn
from agentcore.events import from_dict
from agentcore.journal import MemoryJournal, read_jsonl
from agentcore.loop import create_conversation, history_problems

CHILD = pathlib.Path(__file__).with_name("steps_child.py")
_spec = importlib.util.spec_from_file_location("steps_child", CHILD)
assert _spec is not None and _spec.loader is not None
steps_child = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(steps_child)

WORKER = "root/t1"


def _shape(history: list[Any]) -> list[Any]:
    """What must match an uninterrupted run: texts, calls, results, with the generator's
    call ids numbered in order of appearance (they are drawn at random)."""
    ids: dict[str, str] = {}

    def named(call_id: str) -> str:
        if not call_id.startswith("steps_"):
            return call_id
        return ids.setdefault(call_id, f"steps#{len(ids)}")

    out: list[Any] = []
    for m in history:
        if m.type == "subagent_lineage":
            out.append(("lineage", m.agent_id, m.run_id, m.task_id))
        elif m.type == "user_message":
            out.append(("user", m.content))
        elif m.type == "assistant_message":
            calls = [(named(c.tool_call_id), c.tool_name, dict(c.input)) for c in m.tool_calls]
            out.append(("assistant", m.model, m.text, calls))
        else:
            code = m.details.get("error_code") if isinstance(m.details, dict) else None
            out.append(("tool", named(m.tool_call_id), m.result, m.is_error, code))
    return out


def _masked(shape: list[Any], interrupted: set[str]) -> list[Any]:
    """``shape`` with the results of the ``interrupted`` calls left out."""
    return [s[:2] if s[0] == "tool" and s[1] in interrupted else s for s in shape]


def _checked(histories: dict[str, list[Any]], reference: dict[str, list[Any]]) -> set[str]:
    """Assert every history matches the reference's, but for the calls the resume answered
    ``INTERRUPTED`` (returned); no result is duplicated, every history is valid."""
    assert set(histories) == set(reference)
    found: set[str] = set()
    for agent, history in histories.items():
        assert history_problems(history) == []
        results = [m.tool_call_id for m in history if m.type == "tool_result_message"]
        assert len(set(results)) == len(results), "a tool result duplicated"
        shape = _shape(history)
        interrupted = {s[1] for s in shape if s[0] == "tool" and s[4] == "INTERRUPTED"}
        assert _masked(shape, interrupted) == _masked(_shape(reference[agent]), interrupted)
        found |= interrupted
    return found


# -- in process: every prefix of the journal -----------------------------------------------

_LIVE: dict[str, tuple[list[Any], list[Any], dict[str, list[Any]]]] = {}


async def _live(variant: str) -> tuple[list[Any], list[Any], dict[str, list[Any]]]:
    """The uninterrupted run: its journal entries, what the generator received, the
    histories."""
    if variant not in _LIVE:
        seen: list[Any] = []
        journal = MemoryJournal()
        agent = steps_child.registry(seen, variant).create(
            "planner", journal=journal, agent_id="root"
        )
        await agent.prompt("plan it")
        await node_of(agent).wait()
        _LIVE[variant] = (list(journal.entries()), seen, steps_child.histories(agent, journal))
        await node_of(agent).aclose()
    return _LIVE[variant]


def _replayed(journal: MemoryJournal) -> int:
    """How many yields of the worker's generator a resume from ``journal`` re-runs."""
    processor, initial = create_conversation()
    entries = ((e.seq, e.event) for e in journal.entries(WORKER))
    return len(walk(entries, processor, initial()).asked)


async def _resume_from(variant: str, cut: int) -> tuple[int, set[str]]:
    entries, live_seen, reference = await _live(variant)
    journal = MemoryJournal()
    for entry in entries[:cut]:
        journal.append(entry.agent_id, entry.event)
    replayed = _replayed(journal)
    seen: list[Any] = []
    agent = await steps_child.registry(seen, variant).resume("planner", journal, agent_id="root")
    await asyncio.wait_for(node_of(agent).wait(), 10)
    interrupted = _checked(steps_child.histories(agent, journal), reference)
    await node_of(agent).aclose()
    assert seen[:replayed] == live_seen[:replayed]  # re-run: exactly what it received live
    if not interrupted:
        shown = [steps_child.received(v) for v in seen]
        assert shown in ([], [steps_child.received(v) for v in live_seen])
    return replayed, interrupted


def setup_module() -> None:
    steps_child.PAUSE["value"] = 0.0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["sync", "async"]), st.floats(0, 1))
def test_resumed_from_a_prefix_the_tree_finishes_as_the_uninterrupted_run(
    variant: str, where: float
) -> None:
    async def trial() -> None:
        entries, _, _ = await _live(variant)
        first = next(i for i, e in enumerate(entries) if e.event.type == "agent_prompt")
        await _resume_from(variant, first + 1 + int(where * (len(entries) - first - 1)))

    asyncio.run(trial())


def test_every_prefix_resumes_and_many_re_run_the_generator() -> None:
    async def trial() -> list[int]:
        entries, _, _ = await _live("async")
        first = next(i for i, e in enumerate(entries) if e.event.type == "agent_prompt")
        return [(await _resume_from("async", cut))[0] for cut in range(first + 1, len(entries))]

    replayed = asyncio.run(trial())
    # none, or its first n yields; after its seventh (it returned) there is none to re-run
    assert set(replayed) == set(range(7)), sorted(set(replayed))


# -- divergence ---------------------------------------------------------------------------


@tool(idempotent=True)
async def read(path: str) -> str:
    """Read a file."""
    return f"<{path}>"


def _solo(second: str) -> AgentRegistry:
    def handle_steps(context: Any) -> Any:
        yield ToolCall("read", {"path": "a.py"})
        yield ToolCall("read", {"path": second})
        yield STEP

    return AgentRegistry(
        [AgentDefinition("solo", "t/solo", tools=["read"], handle_steps=handle_steps)],
        tools=[read],
        driver_factory=lambda name: FunctionDriver(lambda request: text_turn("fine")),
    )


async def test_a_generator_that_yields_otherwise_fails_the_resume() -> None:
    journal = MemoryJournal()
    agent = _solo("b.py").create("solo", journal=journal, agent_id="s")
    await agent.prompt("go")
    await agent.aclose()
    entries = list(journal.entries())
    third = [i for i, e in enumerate(entries) if e.event.type == "steps_yield"][2]
    cut = MemoryJournal()
    for entry in entries[:third]:  # the third yield was never made
        cut.append(entry.agent_id, entry.event)
    with pytest.raises(StepsDivergedError) as caught:
        await _solo("c.py").resume("solo", cut, agent_id="s")
    error = caught.value
    assert (error.agent_id, error.position) == ("s", 1)
    assert error.recorded == [{"tool_name": "read", "input": {"path": "b.py"}}]
    assert error.replayed == [{"tool_name": "read", "input": {"path": "c.py"}}]
    assert "yield #1" in error.message and "c.py" in error.message and "b.py" in error.message
    assert isinstance(error, ValueError) and error.code == "PROTOCOL_ERROR"
    await asyncio.sleep(0.05)
    assert len(list(cut.entries())) == third  # nothing performed again, nothing journaled
    agent = await _solo("b.py").resume("solo", cut, agent_id="s")  # the same generator resumes
    await agent.wait()
    results = [m.result for m in agent.state.messages if m.type == "tool_result_message"]
    assert results == ["<a.py>", "<b.py>"]
    assert agent.state.messages[-1].text == "fine"
    await agent.aclose()


# -- SIGKILL in a subprocess --------------------------------------------------------------

KILLS = 16


def _process(mode: str, journal: pathlib.Path, variant: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, str(journal), variant],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _result(output: str) -> tuple[dict[str, list[Any]], list[Any]]:
    data = json.loads(output.strip().splitlines()[-1])
    lanes = {a: [from_dict(m) for m in h] for a, h in data["histories"].items()}
    return lanes, data["seen"]


def _kill(seed: int, directory: pathlib.Path, references: dict[str, Any]) -> str:
    rng = random.Random(seed)
    variant = ("sync", "async")[seed % 2]
    reference, reference_seen = references[variant]
    journal = directory / f"steps-{seed}.jsonl"
    writer = _process("run", journal, variant)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    time.sleep(0.35 * rng.random())
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    before = list(read_jsonl(journal)) if journal.exists() else []
    resumer = _process("resume", journal, variant)
    out, err = resumer.communicate(timeout=60)
    assert resumer.returncode == 0, err
    histories, seen = _result(out)
    if not any(e.agent_id == "root" and e.event.type == "agent_prompt" for e in before):
        assert histories == {}
        return "before the prompt"
    after = list(read_jsonl(journal))
    assert [(e.agent_id, e.seq, e.event) for e in after[: len(before)]] == [
        (e.agent_id, e.seq, e.event) for e in before
    ], "an input journaled before the kill was lost or changed"
    interrupted = _checked(histories, reference)
    if not interrupted:
        assert seen in ([], reference_seen)
    yields = sum(1 for e in before if e.agent_id == WORKER and e.event.type == "steps_yield")
    return "charge interrupted" if interrupted else f"after {yields} yield(s)"


def test_a_worker_with_steps_killed_anywhere_resumes_to_the_same_conversations(
    tmp_path: pathlib.Path,
) -> None:
    references = {}
    for variant in ("sync", "async"):
        full = _process("run", tmp_path / f"reference-{variant}.jsonl", variant)
        out, err = full.communicate(timeout=60)
        assert full.returncode == 0, err
        references[variant] = _result(out)
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda s: _kill(s, tmp_path, references), range(KILLS)))
    assert len(set(outcomes)) >= 4, sorted(set(outcomes))  # kills landed in many phases


async def test_a_child_whose_generator_diverges_is_an_error_result_in_its_parent() -> None:
    entries, _, _ = await _live("sync")
    third = [i for i, e in enumerate(entries) if e.event.type == "steps_yield"][2]
    journal = MemoryJournal()
    for entry in entries[:third]:
        journal.append(entry.agent_id, entry.event)
    lane = len(list(journal.entries(WORKER)))
    team = steps_child.registry([], "sync")

    def other(context: Any) -> Any:
        yield ToolCall("lookup", {"key": "rates"})
        yield ToolCall("lookup", {"key": "something else"})

    registry = AgentRegistry(
        [team.get("planner"), attrs.evolve(team.get("worker"), handle_steps=other)],
        tools=[steps_child.lookup, steps_child.charge],
        driver_factory=team.driver_factory,
    )
    agent = await registry.resume("planner", journal, agent_id="root")
    await asyncio.wait_for(node_of(agent).wait(), 10)
    spawn = next(m for m in agent.state.messages if m.type == "tool_result_message")
    assert spawn.is_error and "StepsDivergedError" in spawn.result and "yield #1" in spawn.result
    assert history_problems(agent.state.messages) == []
    assert len(list(journal.entries(WORKER))) == lane  # the worker performed nothing again
    await node_of(agent).aclose()


async def test_an_async_generator_receives_the_state_it_was_sent_not_a_later_one() -> None:
    """An input that arrives while an async generator awaits (a steer) is journaled between
    the state it was sent and its yield's record: the resumed generator is sent the state
    of ``state_seq``, without that input, as the live one was."""
    gate, seen = asyncio.Event(), []

    async def handle_steps(context: Any) -> Any:
        seen.append((yield ToolCall("read", {"path": "a.py"})))
        await gate.wait()
        yield STEP
        yield ToolCall("read", {"path": "b.py"})

    registry = AgentRegistry(
        [AgentDefinition("solo", "t/solo", tools=["read"], handle_steps=handle_steps)],
        tools=[read],
        driver_factory=lambda name: FunctionDriver(lambda request: text_turn("fine")),
    )
    journal = MemoryJournal()
    agent = registry.create("solo", journal=journal, agent_id="s")
    run = asyncio.create_task(agent.prompt("go"))
    while not seen:
        await asyncio.sleep(0.001)
    agent.steer("hurry")
    gate.set()
    await run
    await agent.wait()
    await agent.aclose()
    live = seen[0]
    entries = list(journal.entries())
    record = [e for e in entries if e.event.type == "steps_yield"][1]
    between = [e.event.type for e in entries if record.event.state_seq < e.seq < record.seq]
    assert between == ["agent_steer"]
    assert live.agent_state.steering == ()
    stop = next(e for e in entries[entries.index(record) :] if e.event.type == "message_stop")
    cut = MemoryJournal()
    for entry in entries[: entries.index(stop) + 1]:  # the STEP's reply and b.py's call
        cut.append(entry.agent_id, entry.event)
    seen.clear()
    resumed = await registry.resume("solo", cut, agent_id="s")
    assert seen == [live]  # not the state with the steer queued
    await resumed.wait()
    await resumed.aclose()


async def test_a_yield_holding_a_secret_is_compared_as_its_scrubbed_record() -> None:
    key = "sk-ant-api03-" + "x1" * 20

    def handle_steps(context: Any) -> Any:
        yield ToolCall("read", {"path": key})
        yield STEP

    registry = AgentRegistry(
        [AgentDefinition("solo", "t/solo", tools=["read"], handle_steps=handle_steps)],
        tools=[read],
        driver_factory=lambda name: FunctionDriver(lambda request: text_turn("fine")),
    )
    journal = MemoryJournal()
    agent = registry.create("solo", journal=journal, agent_id="s")
    await agent.prompt("go")
    await agent.aclose()
    entries = list(journal.entries())
    first = next(e for e in entries if e.event.type == "steps_yield")
    assert key not in json.dumps(first.event.action)  # the journal holds no secret
    second = [i for i, e in enumerate(entries) if e.event.type == "steps_yield"][1]
    cut = MemoryJournal()
    for entry in entries[: second + 1]:
        cut.append(entry.agent_id, entry.event)
    resumed = await registry.resume("solo", cut, agent_id="s")  # no StepsDivergedError
    await resumed.wait()
    assert resumed.state.messages[-1].text == "fine"
    await resumed.aclose()


async def test_a_root_resumed_from_every_prefix_scripts_each_run_once() -> None:
    """A root's generator starts with each of its runs; resumed anywhere, the runs left
    are finished (and the prompts never journaled are sent): the uninterrupted history."""
    prompts = ["a.py", "b.py"]
    runs: list[str] = []

    def handle_steps(context: Any) -> Any:
        runs.append(context.prompt)
        found = yield ToolCall("read", {"path": context.prompt})
        yield STEP
        yield ToolCall("read", {"path": found.tool_result.result + ".bak"})

    registry = AgentRegistry(
        [AgentDefinition("solo", "t/solo", tools=["read"], handle_steps=handle_steps)],
        tools=[read],
        driver_factory=lambda name: FunctionDriver(lambda request: text_turn("fine")),
    )
    journal = MemoryJournal()
    agent = registry.create("solo", journal=journal, agent_id="s")
    for prompt in prompts:
        await agent.prompt(prompt)
    await agent.aclose()
    reference = _shape(list(agent.state.messages))
    entries = list(journal.entries())
    for cut in range(1, len(entries) + 1):
        prefix = MemoryJournal()
        for entry in entries[:cut]:
            prefix.append(entry.agent_id, entry.event)
        runs.clear()
        resumed = await registry.resume("solo", prefix, agent_id="s")
        await asyncio.wait_for(resumed.wait(), 5)
        sent = sum(1 for e in entries[:cut] if e.event.type == "agent_prompt")
        for prompt in prompts[sent:]:
            await resumed.prompt(prompt)
        history = list(resumed.state.messages)
        assert history_problems(history) == [], cut
        assert _shape(history) == reference, cut
        assert runs in ([], prompts[1:], prompts), cut  # each generator run (again) once
        await resumed.aclose()
