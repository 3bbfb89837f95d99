"""Spawning children: tagged events in the parent's stream, usage, abort, failures, resume by
task id, steering, limits, prompts and output modes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agentcore import ModelRequest, tool
from agentcore.agents import (
    AgentNode,
    Lineage,
    SubagentEvent,
    TreeLimits,
    node_of,
    replay_tree,
    root_run_id,
)
from agentcore.drivers.scripted import Pause, text_turn, tool_turn
from agentcore.events import AssistantMessage, ToolResultMessage, UserMessage
from agentcore.journal import JsonlJournal, MemoryJournal
from agentcore.loop import history_problems
from agentcore.presenters.recording import RecordingPresenter

TWO = [
    (
        "call1",
        "spawn_agents",
        {
            "agents": [
                {"agent_type": "finder", "prompt": "find the files"},
                {"agent_type": "editor", "prompt": "edit them"},
            ]
        },
    )
]


def _histories_valid(node: AgentNode) -> None:
    for n in node.walk():
        assert history_problems(n.agent.state.messages) == [], n.agent.agent_id


async def test_two_children_in_parallel_tagged_interleaved_and_usage_rolled_up(team, helpers):
    registry = team.registry(
        [
            helpers.define("planner", spawnable_agents=["finder", "editor"]),
            helpers.define("finder", display_name="File finder"),
            helpers.define("editor"),
        ],
        {
            "planner": helpers.spawner(TWO),
            "finder": helpers.talker(
                "found a.py and b.py in src", usage={"input_tokens": 10, "output_tokens": 6}
            ),
            "editor": helpers.talker(
                "edited a.py: renamed x", usage={"input_tokens": 7, "output_tokens": 4}
            ),
        },
        delay=0.002,
    )
    presenter, journal, seen, intercepted = RecordingPresenter(), MemoryJournal(), [], []
    agent = registry.create("planner", journal=journal, presenters=[presenter], agent_id="root")
    agent.subscribe(seen.append)

    def count(output: Any, next: Any) -> None:
        intercepted.append(output)
        next(output)

    agent.intercept(count)
    result = await agent.run("plan the change")

    assert result.output.startswith("done: [")
    outputs = presenter.outputs()
    assert outputs == seen == intercepted  # presenters, subscribers and interceptors alike
    tagged = [o for o in outputs if isinstance(o, SubagentEvent)]
    lanes = [o.agent_id for o in tagged]
    assert set(lanes) == {"root/call1.0", "root/call1.1"}
    first_switch = lanes.index("root/call1.1")
    assert "root/call1.0" in lanes[first_switch:], "the children's events interleave"
    root_start = next(o for o in outputs if o.type == "agent_start")
    root_run = root_run_id("root", root_start.timestamp)
    by_lane = {o.agent_id: o.lineage for o in tagged}
    finder = by_lane["root/call1.0"]
    assert (finder.task_id, finder.agent_type, finder.name) == ("call1.0", "finder", "File finder")
    assert (finder.parent_agent_id, finder.parent_run_id) == ("root", root_run)
    assert finder.ancestor_run_ids == (root_run,) and finder.depth == 1
    assert finder.run_id == "root/call1.0#1" and finder.tool_call_id == "call1"
    assert all(o.lineage is by_lane[o.agent_id] for o in tagged)  # one lineage per run
    assert next(o.event.type for o in tagged if o.agent_id == "root/call1.0") == "agent_start"
    assert [o.event.type for o in tagged if o.agent_id == "root/call1.0"][-1] == "agent_end"

    spawn = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
    assert [r["output"] for r in json.loads(spawn.result)] == [
        "found a.py and b.py in src",
        "edited a.py: renamed x",
    ]
    rolled = spawn.details["subagents"]
    assert rolled["usage"]["input_tokens"] == 17 and rolled["usage"]["output_tokens"] == 10
    assert [a["run_id"] for a in rolled["agents"]] == ["root/call1.0#1", "root/call1.1#1"]
    turn_end = next(o for o in outputs if o.type == "turn_end" and o.tool_results)
    assert turn_end.tool_results[0].details == spawn.details  # the parent's turn holds it
    assert node_of(agent).usage().usage.input_tokens == 17  # the scripted planner used none
    assert result.usage.input_tokens == 0  # the planner's own
    assert result.tree == node_of(agent).usage()  # the run's result rolls the tree up
    _histories_valid(node_of(agent))
    assert [o for _, o in replay_tree(journal, "root")] == outputs


async def test_parent_abort_aborts_children_and_every_history_stays_valid(team, helpers):
    @tool
    async def slow(seconds: float) -> str:
        """Wait."""
        await asyncio.sleep(seconds)
        return "waited"

    def finder(request: ModelRequest) -> Any:
        if request.messages[-1].type == "user_message":
            return tool_turn([("f1", "slow", {"seconds": 30})])
        return text_turn("never")

    def editor(request: ModelRequest) -> Any:
        return [*text_turn("editing slowly")[:2], Pause(30), *text_turn("x")[2:]]

    registry = team.registry(
        [
            helpers.define("planner", spawnable_agents=["finder", "editor"]),
            helpers.define("finder", tools=["slow"]),
            helpers.define("editor"),
        ],
        {"planner": helpers.spawner(TWO), "finder": finder, "editor": editor},
        tools=[slow],
    )
    presenter, journal = RecordingPresenter(), MemoryJournal()
    agent = registry.create("planner", journal=journal, presenters=[presenter], agent_id="root")
    run = asyncio.create_task(agent.prompt("go"))
    while len(node_of(agent).children) < 2 or not all(
        c.agent.state.is_streaming for c in node_of(agent).children.values()
    ):
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)
    agent.abort()
    await asyncio.wait_for(run, 5)
    node = node_of(agent)
    await asyncio.wait_for(node.wait(), 5)
    assert agent.state.error is not None and agent.state.error.code == "ABORTED"
    for child in node.children.values():
        assert child.agent.state.error is not None
        assert child.agent.state.error.code == "ABORTED"
    finder_history = node.children["call1.0"].agent.state.messages
    assert finder_history[-1].is_error and finder_history[-1].details["error_code"] == "ABORTED"
    _histories_valid(node)
    ends = [o for o in presenter.outputs() if isinstance(o, SubagentEvent)]
    assert {o.agent_id for o in ends if o.event.type == "agent_end"} == {
        "root/call1.0",
        "root/call1.1",
    }
    assert [o for _, o in replay_tree(journal, "root")] == presenter.outputs()
    await node.aclose()


async def test_a_failing_child_is_an_error_result_not_a_crash(team, helpers):
    def broken(request: ModelRequest) -> Any:
        raise RuntimeError("the finder's model is down")

    registry = team.registry(
        [
            helpers.define("planner", spawnable_agents=["finder", "editor"]),
            helpers.define("finder"),
            helpers.define("editor"),
        ],
        {"planner": helpers.spawner(TWO), "finder": broken, "editor": helpers.talker("edited")},
    )
    agent = registry.create("planner", agent_id="root")
    result = await agent.run("go")
    assert result.status == "completed" and agent.state.error is None
    spawn = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
    finder, editor = json.loads(spawn.result)
    assert finder["status"] == "error" and "the finder's model is down" in finder["error"]
    assert editor == {
        "agent_type": "editor",
        "task_id": "call1.1",
        "status": "completed",
        "output": "edited",
    }
    assert not spawn.is_error  # one child succeeded
    _histories_valid(node_of(agent))


async def test_a_task_is_continued_by_its_task_id_with_its_own_history(team, helpers):
    def planner(request: ModelRequest) -> Any:
        results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        if len(results) == 0:
            args = {"description": "count", "prompt": "start counting", "subagent_type": "counter"}
            return tool_turn([("t1", "task", args)])
        if len(results) == 1:
            args = {
                "description": "count more",
                "prompt": "and again",
                "subagent_type": "counter",
                "task_id": "t1",
            }
            return tool_turn([("t2", "task", args)], message_id="m2")
        if len(results) == 2:
            args = {"description": "x", "prompt": "y", "subagent_type": "counter", "task_id": "t9"}
            return tool_turn([("t3", "task", args)], message_id="m3")
        return text_turn("finished")

    def counter(request: ModelRequest) -> Any:
        said = sum(isinstance(m, AssistantMessage) for m in request.messages)
        return text_turn(f"count {said + 1}")

    registry = team.registry(
        [
            helpers.define("planner", spawnable_agents=["counter"], tools=["task"]),
            helpers.define("counter"),
        ],
        {"planner": planner, "counter": counter},
    )
    journal = MemoryJournal()
    agent = registry.create("planner", journal=journal, agent_id="root")
    await agent.prompt("go")
    first, second, unknown = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert first.result.startswith("count 1\n\n(task_id: t1;")
    assert second.result.startswith("count 2\n\n(task_id: t1;")  # it saw its first exchange
    assert unknown.is_error and "there is no task 't9' to continue" in unknown.result
    child = node_of(agent).children["t1"].agent
    lineages = [m for m in child.state.messages if isinstance(m, Lineage)]
    assert [lin.run_id for lin in lineages] == ["root/t1#1", "root/t1#2"]
    assert [lin.tool_call_id for lin in lineages] == ["t1", "t2"]
    assert len(team.requests["counter"][1].messages) == 3  # prompt, reply, prompt again
    assert first.details["subagents"]["agents"][0]["run_id"] == "root/t1#1"
    assert second.details["subagents"]["agents"][0]["run_id"] == "root/t1#2"


async def test_steering_the_parent_does_not_reach_children_unless_asked(team, helpers):
    release = asyncio.Event()

    async def slow_child(request: ModelRequest) -> Any:
        await release.wait()
        texts = [m.content for m in request.messages if isinstance(m, UserMessage)]
        return text_turn(" | ".join(str(t) for t in texts))

    one = [("c1", "spawn_agents", {"agents": [{"agent_type": "child", "prompt": "work"}]})]
    registry = team.registry(
        [helpers.define("parent", spawnable_agents=["child"]), helpers.define("child")],
        {"parent": helpers.spawner(one), "child": slow_child},
    )
    agent = registry.create("parent", agent_id="root")
    run = asyncio.create_task(agent.prompt("go"))
    while "c1.0" not in node_of(agent).children:
        await asyncio.sleep(0.002)
    agent.steer("parent only")
    node = node_of(agent)
    assert node.steer_children("for the children", recursive=True) == 1
    child = node.children["c1.0"].agent
    assert [m.content for m in child.state.steering] == ["for the children"]
    release.set()
    await run
    texts = [m.content for m in child.state.messages if isinstance(m, UserMessage)]
    assert "parent only" not in texts
    assert [m.content for m in agent.state.messages if isinstance(m, UserMessage)] == [
        "go",
        "parent only",
    ]


async def test_limits_per_child_and_per_tree(team, helpers):
    def loops(request: ModelRequest) -> Any:  # a child that never stops asking for itself
        return tool_turn([("again", "spawn_agents", {"agents": [{"agent_type": "deep"}]})])

    deep_one = [("d", "spawn_agents", {"agents": [{"agent_type": "deep", "prompt": "go"}]})]
    registry = team.registry(
        [
            helpers.define("root", spawnable_agents=["deep"]),
            helpers.define("deep", spawnable_agents=["deep"], max_iterations=2),
        ],
        {"root": helpers.spawner(deep_one), "deep": loops},
        limits=TreeLimits(max_depth=2),
    )
    agent = registry.create("root", agent_id="r")
    await agent.prompt("go")
    child = node_of(agent).children["d.0"]
    assert child.agent.state.error is not None
    assert child.agent.state.error.code == "MAX_ITERATIONS_EXCEEDED"  # its own limit
    refused = [
        m for m in child.children["again.0"].agent.state.messages if m.type == "tool_result_message"
    ]
    assert refused and all("may nest 2 deep" in m.result for m in refused)
    _histories_valid(node_of(agent))

    three = [
        ("m", "spawn_agents", {"agents": [{"agent_type": "w", "prompt": str(i)} for i in range(3)]})
    ]
    for limits, needle in [
        (TreeLimits(max_agents=2), "TreeLimits.max_agents=2"),
        (TreeLimits(max_running=2), "TreeLimits.max_running=2"),
    ]:
        registry = team.registry(
            [helpers.define("boss", spawnable_agents=["w"]), helpers.define("w")],
            {"boss": helpers.spawner(three), "w": helpers.talker("ok")},
            limits=limits,
            delay=0.001,
        )
        agent = registry.create("boss", agent_id="b")
        await agent.prompt("go")
        spawn = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
        statuses = [r["status"] for r in json.loads(spawn.result)]
        assert sorted(statuses) == ["completed", "completed", "refused"], statuses
        assert needle in spawn.result


async def test_a_tree_over_its_token_budget_is_stopped(team, helpers):
    @tool
    async def work() -> str:
        """Work a while."""
        await asyncio.sleep(0.05)
        return "worked"

    one = [("c", "spawn_agents", {"agents": [{"agent_type": "spender", "prompt": "spend"}]})]

    def spender(request: ModelRequest) -> Any:  # 300 tokens a turn, and never done
        n = len(request.messages)
        return tool_turn([(f"w{n}", "work", {})], usage={"input_tokens": 290, "output_tokens": 10})

    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["spender"]),
            helpers.define("spender", tools=["work"], max_iterations=50),
        ],
        {"boss": helpers.spawner(one), "spender": spender},
        tools=[work],
        limits=TreeLimits(max_tokens=500),
    )
    agent = registry.create("boss", agent_id="b")
    await asyncio.wait_for(agent.prompt("go"), 10)
    node = node_of(agent)
    await asyncio.wait_for(node.wait(), 10)
    assert agent.state.error is not None and agent.state.error.code == "ABORTED"
    assert "the tree of agents used 600 tokens (max_tokens=500)" in agent.state.error.message
    child = node.children["c.0"].agent
    assert child.state.error is not None and child.state.error.code == "ABORTED"
    assert len(team.requests["spender"]) == 2
    _histories_valid(node)


async def test_prompts_history_and_step_prompt(team, helpers):
    one = [
        (
            "c",
            "spawn_agents",
            {"agents": [{"agent_type": "helper", "prompt": "look", "params": {"path": "a.py"}}]},
        )
    ]
    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["helper"], system_prompt="You plan."),
            helpers.define(
                "helper",
                system_prompt="You help.",
                include_message_history=True,
                instructions_prompt="Answer in one line.",
                step_prompt="Remember: one line.",
                input_schema={
                    "params": {"type": "object", "properties": {"path": {"type": "string"}}}
                },
            ),
        ],
        {"boss": helpers.spawner(one), "helper": helpers.talker("a.py is short")},
    )
    agent = registry.create("boss", agent_id="b")
    await agent.prompt("what is in a.py?")
    [request] = team.requests["helper"]
    assert request.system_prompt == "You help."
    contents = [m.content for m in request.messages]
    assert contents == [
        "what is in a.py?",  # the parent's history, up to the reply asking for the spawn
        'look\n\nParameters (JSON): {"path": "a.py"}',
        "Answer in one line.",
        "Remember: one line.",  # the step prompt: this call only
    ]
    child = node_of(agent).children["c.0"].agent
    assert "Remember: one line." not in [getattr(m, "content", None) for m in child.state.messages]


async def test_output_modes_and_bad_input(team, helpers):
    spawn = [
        (
            "c",
            "spawn_agents",
            {
                "agents": [
                    {"agent_type": "structured", "prompt": "go"},
                    {"agent_type": "forgetful", "prompt": "go"},
                    {"agent_type": "chatty", "prompt": "go"},
                    {"agent_type": "structured", "prompt": "go", "params": {"n": "NaN"}},
                ]
            },
        )
    ]

    def structured(request: ModelRequest) -> Any:
        results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        if not results:
            return tool_turn([("s1", "set_output", {"answer": 42})])  # fails its schema
        if len(results) == 1:
            return tool_turn([("s2", "set_output", {"answer": "42"})], message_id="m2")
        return text_turn("set")

    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["structured", "forgetful", "chatty"]),
            helpers.define(
                "structured",
                output_mode="structured_output",
                output_schema={
                    "type": "object",
                    "properties": {"answer": {"type": "string"}},
                    "required": ["answer"],
                },
                input_schema={
                    "params": {"type": "object", "properties": {"n": {"type": "integer"}}}
                },
            ),
            helpers.define("forgetful", output_mode="structured_output"),
            helpers.define("chatty", output_mode="all_messages"),
        ],
        {
            "boss": helpers.spawner(spawn),
            "structured": structured,
            "forgetful": helpers.talker("no output"),
            "chatty": helpers.talker("hello"),
        },
    )
    journal = MemoryJournal()
    agent = registry.create("boss", agent_id="b", journal=journal)
    await agent.prompt("go")
    result = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
    structured_out, forgetful, chatty, bad = json.loads(result.result)
    assert structured_out["output"] == {"answer": "42"}
    assert forgetful["status"] == "error" and "without calling set_output" in forgetful["error"]
    assert [m["type"] for m in chatty["output"]] == ["user_message", "assistant_message"]
    assert bad["status"] == "refused" and "params: 'NaN' is not of type 'integer'" in bad["error"]
    assert journal.last_seq("b/c.3") == 0  # a refused child gets no lane


async def test_grandchildren_carry_their_whole_lineage_and_replay_from_a_file(
    team, helpers, tmp_path
):
    down = [("g", "spawn_agents", {"agents": [{"agent_type": "leaf", "prompt": "deepest"}]})]
    top = [("p", "spawn_agents", {"agents": [{"agent_type": "middle", "prompt": "mid"}]})]
    registry = team.registry(
        [
            helpers.define("top", spawnable_agents=["middle"]),
            helpers.define("middle", spawnable_agents=["leaf"]),
            helpers.define("leaf"),
        ],
        {
            "top": helpers.spawner(top),
            "middle": helpers.spawner(down, "mid done"),
            "leaf": helpers.talker("leaf done"),
        },
    )
    presenter = RecordingPresenter()
    journal = JsonlJournal(tmp_path / "tree.jsonl")
    agent = registry.create("top", journal=journal, presenters=[presenter], agent_id="t")
    await agent.prompt("go")
    leaf = [
        o for o in presenter.outputs() if isinstance(o, SubagentEvent) and o.agent_id == "t/p.0/g.0"
    ]
    assert leaf, "the grandchild's events reach the root"
    lineage = leaf[0].lineage
    middle = node_of(agent).children["p.0"].lineage
    assert middle is not None
    assert lineage.parent_agent_id == "t/p.0" and lineage.parent_run_id == middle.run_id
    assert lineage.ancestor_run_ids == (*middle.ancestor_run_ids, middle.run_id)
    assert lineage.depth == 2
    journal.close()
    assert [o for _, o in replay_tree(tmp_path / "tree.jsonl", "t")] == presenter.outputs()
    nested = agent.state.messages[-2].details["subagents"]["agents"][0]
    assert nested["agent_id"] == "t/p.0" and nested["status"] == "completed"


async def test_a_child_waiting_for_approval_holds_its_spawn_until_decided(team, helpers):
    @tool(requires_approval=True)
    async def deploy(target: str) -> str:
        """Deploy somewhere."""
        return f"deployed to {target}"

    def child(request: ModelRequest) -> Any:
        if request.messages[-1].type == "user_message":
            return tool_turn([("d1", "deploy", {"target": "prod"})])
        return text_turn(f"result: {request.messages[-1].result}")

    one = [("c", "spawn_agents", {"agents": [{"agent_type": "deployer", "prompt": "ship"}]})]
    registry = team.registry(
        [
            helpers.define("boss", spawnable_agents=["deployer"]),
            helpers.define("deployer", tools=["deploy"]),
        ],
        {"boss": helpers.spawner(one), "deployer": child},
        tools=[deploy],
    )
    asked: list[SubagentEvent] = []
    agent = registry.create("boss", agent_id="b")
    agent.on(
        "subagent_event",
        lambda e: asked.append(e) if e.event.type == "tool_approval_required" else None,
    )
    run = asyncio.create_task(agent.prompt("go"))
    while not asked:
        await asyncio.sleep(0.002)
    assert agent.state.is_streaming  # the parent waits for its child
    await node_of(agent).children[asked[0].lineage.task_id].agent.approve("d1")
    await asyncio.wait_for(run, 5)
    assert "deployed to prod" in agent.state.messages[-2].result


async def test_a_slow_async_presenter_slows_the_children_and_misses_nothing(team, helpers):
    class Slow:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(0)
            self.seen.append(output)

    spawn = [
        ("c", "spawn_agents", {"agents": [{"agent_type": "w", "prompt": str(i)} for i in range(4)]})
    ]
    registry = team.registry(
        [helpers.define("boss", spawnable_agents=["w"]), helpers.define("w")],
        {"boss": helpers.spawner(spawn), "w": helpers.talker("word " * 60)},
    )
    slow, journal = Slow(), MemoryJournal()
    agent = registry.create("boss", agent_id="b", journal=journal, presenters=[slow], max_pending=3)
    await agent.prompt("go")
    await agent.drain()
    assert slow.seen == [o for _, o in replay_tree(journal, "b")]
    assert sum(isinstance(o, SubagentEvent) for o in slow.seen) > 4 * 60
