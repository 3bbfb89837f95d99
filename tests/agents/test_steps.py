"""Programmatic steps: ``handle_steps`` generators (sync and async) yielding tool calls,
``STEP`` and ``STEP_ALL``; the run they script replays exactly from the journal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcore import ModelRequest, tool
from agentcore.agents import STEP, STEP_ALL, ToolCall, node_of, replay_tree
from agentcore.drivers.scripted import text_turn, tool_turn
from agentcore.events import AssistantMessage, ToolResultMessage
from agentcore.journal import MemoryJournal
from agentcore.loop import history_problems
from agentcore.presenters.recording import RecordingPresenter

TASK = [
    ("t1", "task", {"description": "d", "prompt": "read and sum up", "subagent_type": "worker"})
]
SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}


@tool
async def read(path: str) -> str:
    """Read a file."""
    return f"<{path}>"


def _worker_model(request: ModelRequest) -> Any:
    """Two reads, then a summary: so STEP stops after one, STEP_ALL goes to the end."""
    calls = sum(isinstance(m, AssistantMessage) for m in request.messages)
    if calls in (1, 2):
        return tool_turn([(f"w{calls}", "read", {"path": f"f{calls}.py"})], message_id=f"m{calls}")
    return text_turn("both files read", message_id=f"m{calls}")


def _sync_steps(seen: list[Any]) -> Any:
    def handle_steps(context: Any) -> Any:
        seen.append(("start", context.prompt, context.params, len(context.agent_state.messages)))
        result = yield ToolCall("read", {"path": "first.py"})
        seen.append(("tool", result.tool_result.result))
        result = yield STEP
        seen.append(("step", result.steps_complete, result.agent_state.messages[-1].type))
        result = yield STEP_ALL
        seen.append(("all", result.steps_complete, result.agent_state.messages[-1].text))
        result = yield {"tool_name": "set_output", "input": {"summary": "done"}}
        seen.append(("set", result.tool_result.result))

    return handle_steps


def _async_steps(seen: list[Any]) -> Any:
    async def handle_steps(context: Any) -> Any:
        seen.append(("start", context.prompt, context.params, len(context.agent_state.messages)))
        result = yield ToolCall("read", {"path": "first.py"})
        seen.append(("tool", result.tool_result.result))
        result = yield STEP
        seen.append(("step", result.steps_complete, result.agent_state.messages[-1].type))
        result = yield STEP_ALL
        seen.append(("all", result.steps_complete, result.agent_state.messages[-1].text))
        result = yield {"tool_name": "set_output", "input": {"summary": "done"}}
        seen.append(("set", result.tool_result.result))

    return handle_steps


@pytest.mark.parametrize("make", [_sync_steps, _async_steps], ids=["sync", "async"])
async def test_a_generator_mixing_a_tool_call_step_and_step_all(team, helpers, make):
    seen: list[Any] = []
    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["worker"], tools=["task"]),
            helpers.define(
                "worker",
                tools=["read"],
                handle_steps=make(seen),
                output_mode="structured_output",
                output_schema=SCHEMA,
            ),
        ],
        {"boss": helpers.spawner(TASK), "worker": _worker_model},
        tools=[read],
    )
    presenter, journal = RecordingPresenter(), MemoryJournal()
    agent = registry.create("boss", journal=journal, presenters=[presenter], agent_id="b")
    await agent.prompt("go")

    assert seen == [
        ("start", "read and sum up", None, 2),  # the lineage and the prompt
        ("tool", "<first.py>"),
        ("step", False, "tool_result_message"),  # one model call, and its read
        ("all", True, "both files read"),  # the model's reply, before it is closed
        ("set", "Output set."),
    ]
    spawn = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
    assert spawn.result.startswith('{"summary": "done"}')
    worker = node_of(agent).children["t1"].agent
    history = worker.state.messages
    assert history_problems(history) == []
    replies = [m for m in history if isinstance(m, AssistantMessage)]
    assert [(m.model, [c.tool_name for c in m.tool_calls]) for m in replies] == [
        ("handle_steps", ["read"]),  # the generator's own call
        ("scripted-model", ["read"]),
        ("scripted-model", ["read"]),
        ("scripted-model", ["set_output"]),  # appended to the reply that ended the turn
    ]
    assert replies[3].text == "both files read"
    assert len(team.requests["worker"]) == 3  # STEP: one call; STEP_ALL: two
    assert [o for _, o in replay_tree(journal, "b")] == presenter.outputs()


async def test_a_step_after_the_turn_ended_starts_a_new_run(team, helpers):
    def handle_steps(context: Any) -> Any:
        first = yield STEP
        assert first.steps_complete
        second = yield STEP  # the model had ended its turn: a new run, prompted to go on
        assert second.steps_complete

    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["worker"], tools=["task"]),
            helpers.define("worker", handle_steps=handle_steps, step_prompt="Go on."),
        ],
        {"boss": helpers.spawner(TASK), "worker": helpers.talker("one", "two")},
    )
    agent = registry.create("boss", agent_id="b")
    await agent.prompt("go")
    worker = node_of(agent).children["t1"].agent
    texts = [getattr(m, "text", None) or getattr(m, "content", None) for m in worker.state.messages]
    assert texts[2:] == ["one", "Go on.", "two"]
    assert history_problems(worker.state.messages) == []
    assert agent.state.messages[-2].result.startswith("two")


async def test_a_generator_that_fails_fails_its_task_not_the_parent(team, helpers):
    def handle_steps(context: Any) -> Any:
        yield ToolCall("read", {"path": "a.py"})
        raise ValueError("the script broke")

    def bad_yield(context: Any) -> Any:
        yield 42

    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["worker", "odd"]),
            helpers.define("worker", tools=["read"], handle_steps=handle_steps),
            helpers.define("odd", handle_steps=bad_yield),
        ],
        {
            "boss": helpers.spawner(
                [
                    (
                        "s",
                        "spawn_agents",
                        {"agents": [{"agent_type": "worker"}, {"agent_type": "odd"}]},
                    )
                ]
            ),
            "worker": helpers.talker("unused"),
            "odd": helpers.talker("unused"),
        },
        tools=[read],
    )
    agent = registry.create("boss", agent_id="b")
    await agent.prompt("go")
    assert agent.state.error is None
    worker, odd = json.loads(agent.state.messages[-2].result)
    assert worker["status"] == "error" and "ValueError: the script broke" in worker["error"]
    assert odd["status"] == "error" and "handle_steps yielded 42" in odd["error"]
    for child in node_of(agent).children.values():
        assert history_problems(child.agent.state.messages) == []


async def test_a_root_with_steps_scripts_each_of_its_runs(team, helpers):
    runs: list[str] = []

    def handle_steps(context: Any) -> Any:
        runs.append(context.prompt)
        yield ToolCall("read", {"path": context.prompt})

    registry = team.registry(
        [helpers.define("solo", tools=["read"], handle_steps=handle_steps)],
        {"solo": helpers.talker("unused")},
        tools=[read],
    )
    agent = registry.create("solo", agent_id="s")
    await agent.prompt("a.py")
    await agent.prompt("b.py")
    assert runs == ["a.py", "b.py"]
    results = [m.result for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert results == ["<a.py>", "<b.py>"]
    assert "unused" not in [getattr(m, "text", "") for m in agent.state.messages]
    assert history_problems(agent.state.messages) == []
