"""Cases from every journal kind, datasets on disk, hand-written cases, configurations."""

from __future__ import annotations

import asyncio
import json

import pytest

from agentcore import Agent, tool
from agentcore.drivers.scripted import FunctionDriver, ScriptedDriver, text_turn, tool_turn
from agentcore.evals import (
    Case,
    assert_case,
    journal_changes,
    load_config,
    load_dataset,
    record_case,
    run_case,
    save_case,
)
from agentcore.journal import JsonlJournal, PostgresJournal

from .helpers import config, recorded_case


async def _two_sessions(journal) -> None:
    for agent_id in ("first", "second"):
        agent = Agent(journal=journal, agent_id=agent_id, **config())
        await agent.run(f"add for {agent_id}")
        await agent.aclose()


def test_a_journal_of_two_sessions_needs_an_agent_id(tmp_path):
    path = tmp_path / "app.jsonl"
    journal = JsonlJournal(path)
    asyncio.run(_two_sessions(journal))
    journal.close()
    with pytest.raises(ValueError, match=r"2 root agents \['first', 'second'\]: name one"):
        record_case(path)
    with pytest.raises(ValueError, match="no session 'third'; it holds"):
        record_case(path, "third")
    case = record_case(path, "second")
    assert {e.agent_id for e in case.entries} == {"second"}
    torn = tmp_path / "torn.jsonl"  # a crash before the first line was whole
    torn.write_text('{"broken')
    with pytest.raises(ValueError, match=r"^the journal holds no session: it is empty$"):
        record_case(torn)
    assert_case(case, config)


def test_a_session_from_postgresql(postgres_db):
    journal = PostgresJournal(postgres_db)
    asyncio.run(_two_sessions(journal))
    case = record_case(journal, "first", name="from postgres")
    journal.close()
    run = asyncio.run(run_case(case, config))
    assert run.divergence is None
    assert journal_changes(case.entries, run.entries) == []


def test_a_saved_case_loads_back_equal_and_a_dataset_may_name_a_journal(tmp_path):
    case = recorded_case(contains="3")
    save_case(case, tmp_path / "cases" / "adder.json")
    (loaded,) = load_dataset(tmp_path / "cases")
    assert loaded == case
    journal = JsonlJournal(tmp_path / "s.jsonl")
    asyncio.run(_two_sessions(journal))
    journal.close()
    (tmp_path / "set.json").write_text(
        json.dumps({"cases": [{"name": "by file", "journal": "s.jsonl", "agent_id": "first"}]})
    )
    (by_file,) = load_dataset(tmp_path / "set.json")
    assert by_file.agent_id == "first" and by_file.recorded
    (tmp_path / "twice.json").write_text(json.dumps([{"name": "a", "inputs": ["x"]}] * 2))
    with pytest.raises(ValueError, match=r"case name\(s\) \['a'\] appear more than once"):
        load_dataset(tmp_path / "twice.json")
    (tmp_path / "odd.json").write_text(json.dumps({"name": "odd", "inputs": ["x"], "when": 1}))
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['when'\]"):
        load_dataset(tmp_path / "odd.json")


@tool(requires_approval=True)
def remove(path: str) -> str:
    """Remove a file."""
    return f"removed {path}"


def _remover() -> dict:
    def reply(request):
        last = request.messages[-1]
        if last.type == "user_message" and "remove" in str(last.content):
            return tool_turn([("r1", "remove", {"path": "notes.txt"})])
        if last.type == "tool_result_message":
            return text_turn(f"done: {last.result}")
        return text_turn(f"ok: {last.content}")

    return {"model": FunctionDriver(reply), "tools": [remove]}


def test_a_hand_written_case_runs_live_with_its_approvals_and_steering():
    case = Case(
        name="hand",
        inputs=["remove notes.txt", {"approve": True}, "thanks"],
        expect=[{"contains": "ok: thanks"}, {"trajectory": ["remove"]}],
    )
    result = assert_case(case, _remover)
    assert result.diff is None  # nothing recorded to diff against
    assert [s.passed for s in result.scores] == [True, True]
    rejected = Case(
        name="no",
        inputs=["remove notes.txt", {"approve": False, "reason": "keep it"}],
        expect=[{"contains": "keep it"}],
    )
    assert assert_case(rejected, _remover).passed


def test_configurations_by_reference(tmp_path):
    factory = tmp_path / "factory.py"
    factory.write_text(
        "from agentcore.drivers.scripted import ScriptedDriver, text_turn\n"
        "def config():\n    return {'model': ScriptedDriver([text_turn('hi')])}\n"
        "def other():\n    return {'model': ScriptedDriver([text_turn('yo')])}\n"
    )
    assert "model" in load_config(str(factory))()
    assert "model" in load_config(f"{factory}:other")()
    with pytest.raises(ValueError, match="has no function 'nothing'"):
        load_config(f"{factory}:nothing")
    definition = tmp_path / "agent.yaml"
    definition.write_text(
        "id: helper\nmodel: openai/gpt-4.1-mini\nsystem_prompt: Be kind.\nmax_iterations: 3\n"
    )
    options = load_config(str(definition))()
    assert options == {
        "model": "openai/gpt-4.1-mini",
        "system_prompt": "Be kind.",
        "agent_id": "helper",
        "max_iterations": 3,
    }


def test_a_definition_file_configuration_replays_without_a_key(tmp_path, monkeypatch):
    """In replay mode the configuration's model is never called: no key is needed."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    async def record():
        from agentcore.journal import MemoryJournal

        journal = MemoryJournal()
        agent = Agent(
            ScriptedDriver([text_turn("hello")]),
            journal=journal,
            agent_id="helper",
            system_prompt="Be kind.",
            max_iterations=3,
        )
        await agent.run("hi")
        await agent.aclose()
        return journal

    case = record_case(asyncio.run(record()))
    definition = tmp_path / "agent.json"
    definition.write_text(
        json.dumps(
            {
                "id": "helper",
                "model": "openai/gpt-4.1-mini",
                "system_prompt": "Be kind.",
                "max_iterations": 3,
            }
        )
    )
    run = asyncio.run(run_case(case, str(definition)))
    assert run.error is None and run.divergence is None, (run.error, run.divergence)
