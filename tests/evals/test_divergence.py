"""One change, one divergence: at exactly the step and on the layer where it happens.

Tests the private module ``agentcore._app.serve_model``: the demo's agent tree, run as an
eval."""

from __future__ import annotations

import asyncio

from agentcore.drivers.scripted import text_turn
from agentcore.evals import judge_case, run_case

from .helpers import config, recorded_case


def _judge(case, make, **options):
    async def go():
        return await judge_case(await run_case(case, make, **options))

    return asyncio.run(go())


def test_an_unchanged_configuration_reproduces_the_recording():
    case = recorded_case()
    result = _judge(case, config)
    assert result.passed, result.failure()
    assert result.diff is not None and result.diff.same
    assert result.diff.text() == "no difference on any layer"


def test_a_new_system_prompt_diverges_at_the_first_request():
    result = _judge(recorded_case(), lambda: config(system_prompt="You multiply."))
    divergence = result.diff.divergence
    assert (divergence.step, divergence.layer, divergence.fields) == (
        1,
        "request",
        ("system_prompt",),
    )
    assert not result.passed
    assert "request changed: system_prompt" in result.failure()
    # replay mode stops there: the recorded answers never came
    assert result.diff.layer("outcome").new[0] == "run 1 ended: error (DRIVER_ERROR)"


def test_a_changed_tool_result_diverges_on_the_tool_layer_then_the_next_request():
    # the tool runs (replay_tools=False) and answers 4 instead of 3
    result = _judge(recorded_case(), lambda: config(offset=1), replay_tools=False)
    divergence = result.diff.divergence
    assert (divergence.step, divergence.layer) == (1, "tool")
    assert "'3' -> '4'" in divergence.why
    assert result.diff.layer("tools").new == ('add({"a": 1, "b": 2}) -> \'4\'',)
    # the replayed model saw a request it was never sent: call 2, messages changed
    assert result.run.divergence.step == 2
    assert result.run.divergence.fields == ("messages",)
    assert "message 3 (tool_result_message) changed" in result.run.divergence.why


def test_a_replayed_tool_keeps_the_recorded_result_even_when_the_code_changed():
    result = _judge(recorded_case(), lambda: config(offset=1))
    assert result.diff.same


def test_another_model_diverges_where_it_answers_differently():
    result = _judge(recorded_case(), lambda: config(answer="4"), mode="live")
    divergence = result.diff.divergence
    assert (divergence.step, divergence.layer) == (2, "model")
    assert "'3' -> '4'" in divergence.why
    assert result.diff.changed_layers == ["messages", "outcome"]


def test_replay_then_live_goes_on_with_the_model_after_the_divergence():
    result = _judge(
        recorded_case(),
        lambda: config(answer="sum: 4", offset=1),
        mode="replay-then-live",
        replay_tools=False,
    )
    assert result.run.divergence.step == 2  # the request changed; the live model answered
    assert result.diff.layer("outcome").new[-1] == "final answer: 'sum: 4'"
    assert result.diff.layer("outcome").new[0] == "run 1 ended: completed"


def test_a_tree_with_one_task_child_replays_with_its_lane():
    """The ``task`` tool's one child is ``root/call``: its lane comes with the replayed
    call."""
    from agentcore._app.serve_model import DEMO_AGENT, demo_options, demo_registry
    from agentcore.agents import node_of
    from agentcore.evals import journal_changes, record_case
    from agentcore.journal import MemoryJournal

    def tree():
        options = dict(demo_options(0.0))
        return {"registry": demo_registry(0.0), "agent_type": DEMO_AGENT, "tools": options["tools"]}

    async def record():
        journal = MemoryJournal()
        config = tree()
        agent = config["registry"].create(
            DEMO_AGENT, journal=journal, agent_id="demo", tools=config["tools"]
        )
        await agent.run("research tides")
        await node_of(agent).wait()
        await node_of(agent).aclose()
        return journal

    case = record_case(asyncio.run(record()), "demo")
    assert "demo/call_1" in {e.agent_id for e in case.entries}
    run = asyncio.run(run_case(case, tree))
    assert run.divergence is None
    assert journal_changes(case.entries, run.entries) == []


def test_a_context_hook_builds_both_sides_requests():
    """``transform_context`` is in no journal: the recording's requests are rebuilt with the
    configuration's hook, so an unchanged one replays, and a changed one shows live, where
    the model answers the new requests differently."""
    from agentcore import Agent
    from agentcore.drivers.scripted import FunctionDriver
    from agentcore.evals import record_case
    from agentcore.events import UserMessage
    from agentcore.journal import MemoryJournal

    def noted(note):
        def hook(messages):
            return [UserMessage("note", note), *messages]

        return hook

    def hooked(note="be brief"):
        def reply(request):
            return text_turn(f"noted: {request.messages[0].content}")

        return {"model": FunctionDriver(reply), "transform_context": noted(note)}

    async def record():
        journal = MemoryJournal()
        agent = Agent(journal=journal, agent_id="hooked", **hooked())
        await agent.run("hello")
        await agent.aclose()
        return journal

    case = record_case(asyncio.run(record()))
    assert _judge(case, hooked).diff.same
    changed = _judge(case, lambda: hooked("be verbose"), mode="live")
    assert (changed.diff.divergence.step, changed.diff.divergence.layer) == (1, "model")
    assert changed.diff.layer("outcome").new[-1] == "final answer: 'noted: be verbose'"
