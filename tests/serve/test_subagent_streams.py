"""Sub-agents on every wire protocol: a real parent spawns a child through the ``task``
tool, and the child a grandchild (scripted models, no network).

Every stream tells the runs apart: AG-UI frames validate against the package's models,
with SUBAGENT_STARTED/FINISHED nested inside the parent's run and every child event
tagged with its run; the Vercel stream carries strict chunks and ``data-subagent`` parts
per child run; our SSE stream carries each child event wrapped with its lineage. A feed
rebuilt from the journal (a reconnect, a restart) gives the same frames, byte for byte.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pydantic
import pytest
from ag_ui.core import Event

from agentcore import MemoryJournal, from_dict
from agentcore.agents import AgentDefinition, AgentRegistry, SubagentEvent
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.loop import create_conversation_machine
from agentcore.presenters.recording import RecordingPresenter
from agentcore.presenters.sse import wire_json
from agentcore.serve import Cursor, Feed

from .conftest import wire_protocol
from .test_ui_protocols import _check_chunk

ROOT = "root"
EVENT = pydantic.TypeAdapter(Event)
PROTOCOLS = ("agentcore", "ag-ui", "vercel")


def _task(call_id: str, agent_type: str, prompt: str) -> list[Any]:
    args = {"description": prompt, "prompt": prompt, "subagent_type": agent_type}
    return tool_turn([(call_id, "task", args)], text="Delegating.", message_id="msg_1")


def planner(request: Any) -> list[Any]:
    if request.messages[-1].type == "user_message":
        return _task("call_p", "finder", "find the config")
    return text_turn("All found.", message_id="msg_2")


def finder(request: Any) -> list[Any]:
    if request.messages[-1].type == "user_message":
        return _task("call_f", "reader", "read it")
    return text_turn("config.toml says 1.0", thinking="checking", message_id="msg_2")


def reader(request: Any) -> list[Any]:
    return text_turn("version = 1.0", message_id="msg_1")


MODELS = {"t/planner": planner, "t/finder": finder, "t/reader": reader}


def _registry() -> AgentRegistry:
    return AgentRegistry(
        [
            AgentDefinition("planner", "t/planner", tools=["task"], spawnable_agents=["finder"]),
            AgentDefinition(
                "finder",
                "t/finder",
                display_name="File finder",
                tools=["task"],
                spawnable_agents=["reader"],
            ),
            AgentDefinition("reader", "t/reader"),
        ],
        driver_factory=lambda model: FunctionDriver(MODELS[model]),
    )


def _session() -> tuple[list[Any], MemoryJournal, dict[str, list[tuple[Cursor, bytes]]]]:
    async def main() -> tuple[list[Any], MemoryJournal, dict[str, list[tuple[Cursor, bytes]]]]:
        journal = MemoryJournal()
        feed = Feed(ROOT, journal, create_conversation_machine, max_frames=1 << 30)
        readers = {name: feed.read(wire_protocol(name), {}, None) for name in PROTOCOLS}
        recorder = RecordingPresenter()
        agent = _registry().create(
            "planner", journal=journal, presenters=[recorder, feed], agent_id=ROOT
        )
        result = await agent.run("release")
        assert result.output == "All found."
        await agent.aclose()
        live = {
            name: [(Cursor(seq, n), f) for seq, n, f in reader.channel.buffer]
            for name, reader in readers.items()
        }
        return recorder.outputs(), journal, live

    return asyncio.run(main())


SESSION = _session()


def _decoded(name: str) -> list[Any]:
    return [json.loads(frame.decode().split("data: ", 1)[1]) for _, frame in SESSION[2][name]]


def _child_runs() -> dict[str, Any]:
    return {o.lineage.agent_id: o.lineage for o in SESSION[0] if type(o) is SubagentEvent}


def test_the_session_spawned_a_child_and_a_grandchild() -> None:
    runs = _child_runs()
    assert set(runs) == {f"{ROOT}/call_p", f"{ROOT}/call_p/call_f"}
    assert runs[f"{ROOT}/call_p/call_f"].parent_run_id == runs[f"{ROOT}/call_p"].run_id


def test_ag_ui_nests_the_sub_agents_inside_the_run() -> None:
    events = _decoded("ag-ui")
    for body in events:
        model = EVENT.validate_python(body)
        assert not model.model_extra, body
        assert json.loads(model.model_dump_json(by_alias=True)) == body
    runs = _child_runs()
    child, grandchild = runs[f"{ROOT}/call_p"], runs[f"{ROOT}/call_p/call_f"]
    kinds = [e["type"] for e in events]
    assert kinds.count("RUN_STARTED") == kinds.count("RUN_FINISHED") == 1
    started = {e["subagentRunId"]: e for e in events if e["type"] == "SUBAGENT_STARTED"}
    assert set(started) == {child.run_id, grandchild.run_id}
    assert started[child.run_id]["name"] == "File finder"
    assert started[child.run_id]["parentToolCallId"] == "call_p"
    assert "parentSubagentRunId" not in started[child.run_id]
    assert started[grandchild.run_id]["parentSubagentRunId"] == child.run_id
    assert started[grandchild.run_id]["metadata"] == {
        "agentId": grandchild.agent_id,
        "agentType": "reader",
    }
    open_runs: set[str] = set()
    text: dict[str | None, str] = {}
    message_ids: list[str] = []
    inside = False
    for e in events:
        kind, sub = e["type"], e.get("subagentRunId")
        if kind == "RUN_STARTED":
            inside = True
        elif kind == "RUN_FINISHED":
            assert not open_runs
            inside = False
        elif kind == "SUBAGENT_STARTED":
            assert inside
            open_runs.add(sub)
        elif kind == "SUBAGENT_FINISHED":
            assert e["outcome"] == {"type": "success"}
            open_runs.remove(sub)
        else:
            assert inside and (sub is None or sub in open_runs), e
        if kind == "TEXT_MESSAGE_START":
            message_ids.append(e["messageId"])
        if kind == "TEXT_MESSAGE_CONTENT":
            text[sub] = text.get(sub, "") + e["delta"]
    assert text == {
        None: "Delegating.All found.",
        child.run_id: "Delegating.config.toml says 1.0",
        grandchild.run_id: "version = 1.0",
    }
    assert len(set(message_ids)) == len(message_ids)  # each agent's models say msg_1, msg_2


def test_vercel_tells_the_child_runs_apart() -> None:
    chunks = _decoded("vercel")
    for chunk in chunks:
        _check_chunk(chunk)
    runs = _child_runs()
    parts = [c for c in chunks if c["type"] == "data-subagent"]
    by_run: dict[str, list[str]] = {}
    for part in parts:
        assert part["id"] == part["data"]["runId"]
        by_run.setdefault(part["id"], []).append(part["data"]["status"])
    assert by_run == {lineage.run_id: ["running", "success"] for lineage in runs.values()}
    child = runs[f"{ROOT}/call_p"]
    first = next(p["data"] for p in parts if p["id"] == child.run_id)
    assert first["name"] == "File finder" and first["toolCallId"] == "call_p"
    deltas: dict[str, str] = {}
    for c in chunks:
        if c["type"] == "data-subagent-delta" and c["data"]["kind"] == "text":
            assert c["transient"] is True
            deltas[c["data"]["runId"]] = deltas.get(c["data"]["runId"], "") + c["data"]["delta"]
    grandchild = runs[f"{ROOT}/call_p/call_f"]
    assert deltas == {
        child.run_id: "Delegating.config.toml says 1.0",
        grandchild.run_id: "version = 1.0",
    }
    tools = [c for c in chunks if c["type"] == "data-subagent-tool"]
    assert [(t["id"], t["data"]["state"]) for t in tools] == [
        (f"{child.run_id}/call_f", "input-available"),
        (f"{child.run_id}/call_f", "output-available"),
    ]
    text = "".join(c["delta"] for c in chunks if c["type"] == "text-delta")
    assert text == "Delegating.All found."  # the parent's own message holds its own text


def test_our_stream_carries_each_child_event_with_its_lineage() -> None:
    frames = SESSION[2]["agentcore"]
    wrapped = [from_dict(body) for body in _decoded("agentcore")]
    assert wrapped == list(SESSION[0])
    for _, frame in frames:
        event = frame.decode().split("event: ", 1)[1].split("\n", 1)[0]
        body = json.loads(frame.decode().split("data: ", 1)[1])
        assert event == body["type"]
    runs = {w.lineage.run_id for w in wrapped if type(w) is SubagentEvent}
    assert runs == {lineage.run_id for lineage in _child_runs().values()}


def test_layers_select_a_child_event_by_its_own_layer() -> None:
    protocol = wire_protocol("agentcore")
    state = protocol.initial(ROOT, {"layers": "message"})
    kept = []
    for output in SESSION[0]:
        state, frames = protocol.encode(state, ROOT, output)
        kept += [from_dict(json.loads(d)) for _, d in frames]
    children = [k.event.type for k in kept if type(k) is SubagentEvent]
    assert "assistant_message" in children and "text_delta" not in children
    own = [k.type for k in kept if type(k) is not SubagentEvent]
    assert own and all(t.endswith("_message") for t in own)
    state = protocol.initial(ROOT, {"layers": "subagent"})
    every = sum(len(protocol.encode(state, ROOT, o)[1]) for o in SESSION[0])
    assert every == sum(type(o) is SubagentEvent for o in SESSION[0])


def test_the_wire_json_of_every_output_is_json_dumps_of_its_wire_form() -> None:
    from agentcore import to_dict

    for output in SESSION[0]:
        expected = json.dumps(to_dict(output), ensure_ascii=False, separators=(",", ":"))
        assert wire_json(output) == expected


@pytest.mark.parametrize("name", PROTOCOLS)
def test_a_feed_rebuilt_from_the_journal_resends_the_same_frames(name: str) -> None:
    """A client reconnecting after any frame (the server restarted: the journal alone)
    gets every later frame, the children's included, byte for byte as live."""
    _, journal, live = SESSION
    frames = live[name]
    assert any(b"subagent" in f or b"SUBAGENT" in f for _, f in frames)
    protocol = wire_protocol(name)
    for k in range(0, len(frames), max(1, len(frames) // 25)):
        cursor = frames[k][0]
        feed = Feed(ROOT, journal, create_conversation_machine)
        reader = feed.read(protocol, {}, cursor)
        assert reader.backlog == b"".join(f for c, f in frames if c > cursor)
