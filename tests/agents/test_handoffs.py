"""Handoffs: an agent hands the conversation over to another (docs/handoffs.md).

Scripted models play every agent; each model is a function of its request, so what a
target sees (system prompt, tools, history) is asserted on the requests it got.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
from typing import Any

import pydantic
import pytest
from ag_ui.core import Event

from agentcore import ModelRequest
from agentcore.agents import AgentDefinition, Handoff, TreeLimits, node_of, speaker
from agentcore.drivers.scripted import text_turn, tool_turn
from agentcore.errors import ConfigurationError
from agentcore.journal import MemoryJournal, SqliteJournal, replay
from agentcore.loop import history_problems
from agentcore.presenters import ag_ui, vercel
from agentcore.presenters.recording import RecordingPresenter
from agentcore.sessions import Sessions

from .conftest import Team, define


def _texts(request: ModelRequest) -> list[str]:
    out = []
    for m in request.messages:
        if m.type == "user_message":
            out.append(f"user:{m.content}")
        elif m.type == "assistant_message":
            calls = ",".join(c.tool_name for c in m.tool_calls)
            out.append(f"assistant:{m.text}{'|' + calls if calls else ''}")
        else:
            out.append(f"tool:{m.tool_name}")
    return out


def hands_off(tool: str, args: dict[str, Any] | None = None, *, then: str = "ok") -> Any:
    """A model that hands off with ``tool`` when the last message is the user's, and says
    ``then`` otherwise (the conversation came back to it)."""
    count = iter(range(1000))

    def model(request: ModelRequest) -> Any:
        if request.messages[-1].type == "user_message":
            return tool_turn([(f"{tool}_{next(count)}", tool, args or {})])
        return text_turn(then)

    return model


def says(text: str) -> Any:
    return lambda request: text_turn(text)


async def test_a_hands_off_to_b_who_answers_in_the_same_run(team: Team) -> None:
    registry = team.registry(
        [
            define("triage", handoffs=["billing"], system_prompt="You triage."),
            define("billing", description="Invoices and refunds", system_prompt="You bill."),
        ],
        {"triage": hands_off("transfer_to_billing"), "billing": says("Refund sent.")},
    )
    agent = registry.create("triage", agent_id="conv")
    result = await agent.run("I want a refund")
    assert result.output == "Refund sent."
    node = node_of(agent)
    assert node.speaking.id == "billing"
    assert speaker(agent.state.messages, "triage") == "billing"
    (first,) = team.requests["triage"]
    assert first.system_prompt == "You triage."
    assert [t.name for t in first.tools] == ["transfer_to_billing"]
    assert "Invoices and refunds" in first.tools[0].description
    (asked,) = team.requests["billing"]
    assert asked.system_prompt == "You bill."
    assert asked.tools == ()  # billing hands off to nobody and has no tools
    assert _texts(asked) == [
        "user:I want a refund",
        "assistant:|transfer_to_billing",
        "tool:transfer_to_billing",
    ]
    handoff = agent.state.messages[2]
    assert handoff.details == {
        "handoff": {"from": "triage", "to": "billing", "tool": "transfer_to_billing"}
    }
    assert history_problems(agent.state.messages) == []
    # the next prompt goes to billing straight away
    await agent.run("thanks")
    assert len(team.requests["billing"]) == 2
    assert len(team.requests["triage"]) == 1
    await agent.aclose()


async def test_handing_back_a_to_b_to_a(team: Team) -> None:
    def billing(request: ModelRequest) -> Any:
        if request.messages[-1].type == "tool_result_message":
            return tool_turn([("back", "transfer_to_triage", {})])
        return text_turn("unreachable")

    registry = team.registry(
        [
            define("triage", handoffs=["billing"]),
            define("billing", handoffs=["triage"]),
        ],
        {"triage": hands_off("transfer_to_billing", then="Back with triage."), "billing": billing},
    )
    agent = registry.create("triage", agent_id="conv")
    result = await agent.run("hello")
    assert result.output == "Back with triage."
    assert node_of(agent).speaking.id == "triage"
    moves = [m.details["handoff"] for m in agent.state.messages if m.type == "tool_result_message"]
    assert [(h["from"], h["to"]) for h in moves] == [("triage", "billing"), ("billing", "triage")]
    assert [t.name for t in team.requests["billing"][0].tools] == ["transfer_to_triage"]
    assert history_problems(agent.state.messages) == []
    await agent.aclose()


async def test_a_loop_of_handoffs_is_refused_at_the_limit(team: Team) -> None:
    def bouncer(other: str) -> Any:
        def model(request: ModelRequest) -> Any:
            last = request.messages[-1]
            if last.type == "tool_result_message" and last.is_error:
                return text_turn(f"stopped: {last.result}")
            return tool_turn([(f"c{len(request.messages)}", f"transfer_to_{other}", {})])

        return model

    registry = team.registry(
        [define("ping", handoffs=["pong"]), define("pong", handoffs=["ping"])],
        {"ping": bouncer("pong"), "pong": bouncer("ping")},
        limits=TreeLimits(max_handoffs=3),
    )
    agent = registry.create("ping", agent_id="conv", max_iterations=20)
    result = await agent.run("go")
    moves = [m for m in agent.state.messages if m.type == "tool_result_message"]
    assert [m.is_error for m in moves] == [False, False, False, True]
    assert "3 handoffs in a row without a user message (TreeLimits.max_handoffs=3)" in str(
        moves[-1].result
    )
    assert result.output.startswith("stopped: Handoff refused")
    assert node_of(agent).speaking.id == "pong"  # the refused handoff changed nothing
    await agent.aclose()


@pytest.mark.parametrize(
    ("history", "seen"),
    [
        ("all", ["user:first", "assistant:one", "user:second"]),
        (2, ["user:second"]),
        ("summary", ["user:Summary of the conversation before it was handed over to you:\nS"]),
        (lambda messages: messages[:1], ["user:first"]),
    ],
)
async def test_history_filters(team: Team, history: Any, seen: list[str]) -> None:
    def triage(request: ModelRequest) -> Any:
        if len(request.messages) == 1:
            return text_turn("one")
        args = {"summary": "S"} if history == "summary" else {}
        return tool_turn([("h", "transfer_to_billing", args)])

    registry = team.registry(
        [define("triage", handoffs=[Handoff("billing", history=history)]), define("billing")],
        {"triage": triage, "billing": says("billed")},
    )
    agent = registry.create("triage", agent_id="conv")
    await agent.run("first")
    await agent.run("second")
    (asked,) = team.requests["billing"]
    assert _texts(asked) == [*seen, "assistant:|transfer_to_billing", "tool:transfer_to_billing"]
    # the history itself keeps everything: the filter is a view
    assert len(agent.state.messages) == 6
    if history == "summary":
        schema = team.requests["triage"][1].tools[0].parameters
        assert schema["required"] == ["summary"]
    await agent.aclose()


async def test_filters_compose_across_handoffs(team: Team) -> None:
    def billing(request: ModelRequest) -> Any:
        if request.messages[-1].type == "tool_result_message":
            return tool_turn([("h2", "transfer_to_refunds", {})])
        return text_turn("?")

    registry = team.registry(
        [
            define("triage", handoffs=[Handoff("billing", history=1)]),
            define("billing", handoffs=["refunds"]),
            define("refunds"),
        ],
        {"triage": hands_off("transfer_to_billing"), "billing": billing, "refunds": says("r")},
    )
    agent = registry.create("triage", agent_id="conv")
    await agent.run("x")
    (asked,) = team.requests["refunds"]
    # "all" from billing shows what billing saw: triage's filter kept only the prompt
    assert _texts(asked) == [
        "user:x",
        "assistant:|transfer_to_billing",
        "tool:transfer_to_billing",
        "assistant:|transfer_to_refunds",
        "tool:transfer_to_refunds",
    ]
    await agent.aclose()


async def test_handoff_with_an_input_schema(team: Team) -> None:
    schema = {
        "type": "object",
        "properties": {"reason": {"type": "string"}},
        "required": ["reason"],
    }
    registry = team.registry(
        [
            define("triage", handoffs=[Handoff("billing", input_schema=schema, tool_name="bill")]),
            define("billing"),
        ],
        {"triage": hands_off("bill", {"reason": "refund"}), "billing": says("done")},
    )
    agent = registry.create("triage", agent_id="conv")
    await agent.run("x")
    (tool,) = team.requests["triage"][0].tools
    assert tool.name == "bill"
    assert tool.parameters["required"] == ["reason"]
    call = team.requests["billing"][0].messages[1].tool_calls[0]
    assert dict(call.input) == {"reason": "refund"}
    await agent.aclose()


async def test_a_handoff_with_bad_input_is_refused(team: Team) -> None:
    schema = {"type": "object", "properties": {"reason": {"type": "string"}}}
    registry = team.registry(
        [define("triage", handoffs=[Handoff("billing", input_schema=schema)]), define("billing")],
        {
            "triage": hands_off("transfer_to_billing", {"reason": 3}, then="stay"),
            "billing": says("-"),
        },
    )
    agent = registry.create("triage", agent_id="conv")
    result = await agent.run("x")
    refused = agent.state.messages[2]
    assert refused.is_error
    assert "Handoff refused: input: 3 is not of type 'string'" in str(refused.result)
    assert result.output == "stay"
    assert "billing" not in team.requests
    await agent.aclose()


async def test_a_handed_to_agent_spawns_sub_agents(team: Team) -> None:
    def billing(request: ModelRequest) -> Any:
        last = request.messages[-1]
        if last.type == "tool_result_message" and last.tool_name == "transfer_to_billing":
            spec = {"agents": [{"agent_type": "lookup", "prompt": "find invoice"}]}
            return tool_turn([("s", "spawn_agents", spec)])
        return text_turn(f"found: {last.result}")

    registry = team.registry(
        [
            define("triage", handoffs=["billing"]),
            define("billing", spawnable_agents=["lookup"]),
            define("lookup"),
        ],
        {"triage": hands_off("transfer_to_billing"), "billing": billing, "lookup": says("#42")},
    )
    agent = registry.create("triage", agent_id="conv")
    result = await agent.run("where is my invoice")
    assert '"output": "#42"' in result.output
    assert [t.name for t in team.requests["triage"][0].tools] == ["transfer_to_billing"]
    assert [t.name for t in team.requests["billing"][0].tools] == ["spawn_agents"]
    assert "conv/s.0" in {n.agent.agent_id for n in node_of(agent).walk()}
    await agent.aclose()


async def test_triage_may_not_spawn_what_only_billing_may(team: Team) -> None:
    spec = {"agents": [{"agent_type": "lookup", "prompt": "x"}]}

    def triage(request: ModelRequest) -> Any:
        if request.messages[-1].type == "user_message":
            return tool_turn([("s", "spawn_agents", spec)])
        return text_turn(str(request.messages[-1].result))

    registry = team.registry(
        [
            define("triage", handoffs=["billing"]),
            define("billing", spawnable_agents=["lookup"]),
            define("lookup"),
        ],
        {"triage": triage, "billing": says("-"), "lookup": says("#42")},
    )
    agent = registry.create("triage", agent_id="conv")
    result = await agent.run("x")
    assert "agent 'triage' may not spawn 'lookup'" in result.output
    await agent.aclose()


@pytest.mark.parametrize("policy", ["skip", "run"])
async def test_a_handoff_during_steering(team: Team, policy: str) -> None:
    """A message steered while triage's reply streams: with ``skip`` the handoff call is
    skipped (no handoff), triage reads the message and hands off again; with ``run`` the
    handoff happens and billing reads the message first thing."""
    gate = asyncio.Event()

    async def triage(request: ModelRequest) -> Any:
        await gate.wait()
        return tool_turn([(f"h{len(request.messages)}", "transfer_to_billing", {})])

    registry = team.registry(
        [define("triage", handoffs=["billing"]), define("billing")],
        {"triage": triage, "billing": says("billing heard you")},
    )
    agent = registry.create("triage", agent_id="conv", steering_policy=policy)
    running = asyncio.create_task(agent.prompt("hello"))
    await asyncio.sleep(0.05)
    agent.steer("also, it is urgent")
    gate.set()
    await running
    (asked,) = team.requests["billing"]
    results = [m for m in agent.state.messages if m.type == "tool_result_message"]
    if policy == "skip":
        assert [m.is_error for m in results] == [True, False]
        assert len(team.requests["triage"]) == 2
        assert _texts(asked)[-3:] == [
            "user:also, it is urgent",
            "assistant:|transfer_to_billing",
            "tool:transfer_to_billing",
        ]
    else:
        assert [m.is_error for m in results] == [False]
        assert _texts(asked)[-1] == "user:also, it is urgent"
    assert node_of(agent).speaking.id == "billing"
    assert agent.state.messages[-1].text == "billing heard you"
    assert history_problems(agent.state.messages) == []
    await agent.aclose()


async def test_replay_and_resume_reproduce_handoffs(team: Team) -> None:
    journal = MemoryJournal()
    presenter = RecordingPresenter()
    definitions = [define("triage", handoffs=["billing"]), define("billing")]
    scripts = {"triage": hands_off("transfer_to_billing"), "billing": says("Refund sent.")}
    registry = team.registry(definitions, scripts)
    agent = registry.create("triage", agent_id="conv", journal=journal, presenters=[presenter])
    await agent.run("refund")
    await agent.aclose()
    assert [o for _, o in replay(journal, agent_id="conv")] == presenter.outputs()
    resumed = await team.registry(definitions, scripts).resume("triage", journal)
    assert node_of(resumed).speaking.id == "billing"
    await resumed.run("and another")
    assert len(team.requests["billing"]) == 2
    await resumed.aclose()


def test_definitions_refuse_bad_handoffs(team: Team) -> None:
    with pytest.raises(ConfigurationError, match="cannot hand off to itself"):
        AgentDefinition("a", "p/m", handoffs=["a"])
    with pytest.raises(ConfigurationError, match="a handoff's history must be"):
        Handoff("b", history="most")
    with pytest.raises(ConfigurationError, match="input_schema must describe an object"):
        Handoff("b", input_schema={"type": "string"})
    with pytest.raises(ConfigurationError, match=r"handoff.s agent \(the id of its target\)"):
        Handoff("bad id!")
    registry = team.registry([define("a", handoffs=["ghost"])], {})
    with pytest.raises(ConfigurationError, match="may hand off to 'ghost', which is not"):
        registry.create("a")
    loaded = AgentDefinition.from_dict(
        {"id": "a", "model": "p/m", "handoffs": ["b", {"agent": "c", "history": 3}]}
    )
    assert loaded.handoffs == (Handoff("b"), Handoff("c", history=3))


@pytest.mark.parametrize(
    ("entry", "wrong"),
    [
        ("bad id!", "a handoff's agent (the id of its target) must be non-empty letters"),
        ({"agent": "x y"}, "a handoff's agent (the id of its target) must be non-empty"),
        ({"agent": "b", "tool_name": "a b"}, "a handoff's tool_name must be non-empty"),
        ({"agent": "b", "history": "most"}, "a handoff's history must be 'all'"),
        (42, "a handoff is an agent id, a Handoff or a mapping of its fields, got 42"),
    ],
)
def test_a_bad_handoffs_entry_is_named_as_written(entry: Any, wrong: str) -> None:
    """The error names the ``handoffs`` entry the definition was given, not ``Handoff``'s
    fields; from a file as from Python."""
    for build in (
        lambda: AgentDefinition("a", "p/m", handoffs=["b", entry]),
        lambda: AgentDefinition.from_dict({"id": "a", "model": "p/m", "handoffs": [entry]}),
    ):
        with pytest.raises(ConfigurationError) as raised:
            build()
        said = str(raised.value)
        assert f"handoffs entry {entry!r}: " in said, said
        assert wrong in said and "Handoff." not in said


async def test_ui_streams_show_who_speaks(team: Team) -> None:
    """AG-UI gets a CUSTOM ``agentcore.handoff`` event and ``/agent`` in its state; the
    Vercel stream a ``data-handoff`` part; both valid for their protocol."""
    presenter = RecordingPresenter()
    registry = team.registry(
        [define("triage", handoffs=["billing"]), define("billing")],
        {"triage": hands_off("transfer_to_billing"), "billing": says("Refund sent.")},
    )
    agent = registry.create("triage", agent_id="conv", presenters=[presenter])
    await agent.run("refund")
    await agent.aclose()

    def encoded(protocol: Any) -> list[Any]:
        state, found = protocol.initial("conv", {}), []
        for output in presenter.outputs():
            state, frames = protocol.encode(state, "conv", output)
            found += [json.loads(data) for _, data in frames]
        return found

    events = encoded(ag_ui.PROTOCOL)
    for body in events:
        assert not pydantic.TypeAdapter(Event).validate_python(body).model_extra
    custom = [e for e in events if e["type"] == "CUSTOM" and e["name"] == "agentcore.handoff"]
    assert [e["value"] for e in custom] == [{"from": "triage", "to": "billing"}]
    deltas = [e["delta"] for e in events if e["type"] == "STATE_DELTA"]
    assert [{"op": "add", "path": "/agent", "value": "billing"}] in deltas
    chunks = encoded(vercel.PROTOCOL)
    parts = [c for c in chunks if c["type"] == "data-handoff"]
    assert parts == [{"type": "data-handoff", "data": {"from": "triage", "to": "billing"}}]
    # the handoff part comes after the handoff's result and before billing's text
    kinds = [c["type"] for c in chunks]
    assert kinds.index("tool-output-available") < kinds.index("data-handoff")
    assert kinds.index("data-handoff") < kinds.index("text-start")


async def test_a_fork_after_a_handoff_goes_on_with_the_target(
    team: Team, tmp_path: pathlib.Path
) -> None:
    journal = SqliteJournal(tmp_path / "chats.db")
    sessions = Sessions(journal)
    definitions = [define("triage", handoffs=["billing"]), define("billing")]
    scripts = {"triage": hands_off("transfer_to_billing"), "billing": says("Refund sent.")}
    agent = team.registry(definitions, scripts).create(
        "triage", session=sessions.session("t-1"), agent_id="t-1"
    )
    await agent.run("refund")
    await agent.aclose()
    sessions.fork("t-1", "t-2")
    forked = team.registry(definitions, scripts).create(
        "triage", session=sessions.session("t-2"), agent_id="t-2"
    )
    assert node_of(forked).speaking.id == "billing"
    await forked.run("and one more")
    assert len(team.requests["billing"]) == 2
    await forked.aclose()
    journal.close()


async def test_a_journal_handing_to_an_unknown_agent_is_refused_by_name(team: Team) -> None:
    journal = MemoryJournal()
    scripts = {"triage": hands_off("transfer_to_billing"), "billing": says("ok")}
    written = team.registry([define("triage", handoffs=["billing"]), define("billing")], scripts)
    agent = written.create("triage", agent_id="conv", journal=journal)
    await agent.run("x")
    await agent.aclose()
    other = team.registry([define("triage", handoffs=["sales"]), define("sales")], scripts)
    resumed = await other.resume("triage", journal)
    with pytest.raises(ConfigurationError, match="handed to agent 'billing', which agent 'triage'"):
        node_of(resumed).speaking  # noqa: B018
    await resumed.aclose()
