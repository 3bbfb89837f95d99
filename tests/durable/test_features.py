"""The ``Agent`` features a durable definition takes, on a real worker and PostgreSQL:
presenters (live while a model call streams), middleware and extension hooks, input,
output and tool guardrails, compaction's summary calls. Each run's history is valid and
the outputs its advances delivered are what its journal replays to."""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from harness import Cluster, fresh_database

from agentcore.durable import DurableClient, DurableRun
from agentcore.events import to_dict
from agentcore.loop import history_problems


@pytest.fixture(scope="module")
def presented(tmp_path_factory: Any) -> pathlib.Path:
    return tmp_path_factory.mktemp("presented") / "outputs.jsonl"


@pytest.fixture(scope="module")
def cluster(postgres_server: Any, presented: pathlib.Path) -> Iterator[Cluster]:
    env = {"DURABLE_PRESENTED": str(presented)}
    one = Cluster(fresh_database(postgres_server, "features"), 1, env=env)
    try:
        yield one
    finally:
        assert one.close() == {0: 0}


def _presented(path: pathlib.Path, agent_id: str) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [r["event"] for r in records if r["agent_id"] == agent_id]


async def _run(client: DurableClient, agent_id: str, definition: str, text: str) -> Any:
    run = await client.submit(agent_id, definition, text)
    result = await run.result(60)
    history = client.history(agent_id)
    assert history_problems(history) == []
    await _replays(client, agent_id, [run])
    return result, history, run


async def _replays(client: DurableClient, agent_id: str, runs: list[DurableRun]) -> None:
    delivered = [to_dict(o) for run in runs async for o in run.events()]
    assert delivered == [to_dict(o) for o in client.replay(agent_id)]


def test_presenters_get_every_output_once_in_order(cluster: Cluster, presented: Any) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            await _run(client, "presented-1", "presented", "go")
            replayed = [to_dict(o) for o in client.replay("presented-1")]
            assert _presented(presented, "presented-1") == replayed

    asyncio.run(scenario())


def test_presenters_get_deltas_while_the_model_call_streams(
    cluster: Cluster, presented: Any
) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run = await client.submit("presented-2", "presented_slow", "talk")
            for _ in range(200):
                deltas = [
                    e for e in _presented(presented, "presented-2") if e["type"] == "text_delta"
                ]
                if deltas:
                    break
                await asyncio.sleep(0.05)
            assert deltas
            handle: Any = await client.dbos.retrieve_workflow_async(run.workflow_id)
            assert (await handle.get_status()).status == "PENDING"  # the call still streams
            await run.result(60)
            replayed = [to_dict(o) for o in client.replay("presented-2")]
            assert _presented(presented, "presented-2") == replayed  # none twice

    asyncio.run(scenario())


def test_middleware_and_extension_hooks_bend_a_durable_run(
    cluster: Cluster, presented: pathlib.Path
) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            result, history, _ = await _run(client, "bent-1", "bent", "pay please")
            replies = [m.text for m in history if m.type == "assistant_message"]
            seen = [e["text"] for e in _presented(presented, "middleware")]
            assert seen == replies  # each model call went through the middleware
            hooked = [e["type"] for e in _presented(presented, "event-hook")]
            assert hooked.count("agent_end") == 1  # the extension's event hook
            assert result["status"] == "completed" and result["error"] is None
            users = [m.content for m in history if m.type == "user_message"]
            assert users == ["PAY PLEASE"]  # loop_start middleware
            results = {m.tool_call_id: m.result for m in history if m.type == "tool_result_message"}
            texts = {k: v if isinstance(v, str) else v[0].text for k, v in results.items()}
            assert texts["call_0_0"] == "lookup is closed today [checked]"  # the hook blocked
            assert texts["call_0_1"] == "charged 3 [checked]"  # the middleware rewrote
            dropped = await client.submit("bent-1", "bent", "drop this one")
            assert (await dropped.result(60))["status"] == "completed"
            after = client.history("bent-1")
            assert [m.content for m in after if m.type == "user_message"] == ["PAY PLEASE"]

    asyncio.run(scenario())


def test_guardrails_trip_and_pass_on_a_worker(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            passed, _, _ = await _run(client, "checked-1", "checked", "hello")
            assert passed["error"] is None and passed["text"] == "w0 "
            client.journal.forget("checked-1")
            inputs = [e.event.type for e in client.journal.entries("checked-1")]
            assert "output_passed" in inputs  # the verdict is journaled: replay needs no check
            tripped, history, _ = await _run(client, "checked-2", "checked", "a forbidden thing")
            assert tripped["error"]["code"] == "GUARDRAIL_TRIPPED"
            assert "forbidden" in tripped["error"]["message"]
            assert not [m for m in history if m.type == "assistant_message"]  # never answered
            strict, _, _ = await _run(client, "strict-1", "strict", "hello")
            assert strict["error"]["code"] == "GUARDRAIL_TRIPPED"
            assert "w1" in strict["error"]["message"]
            tool, history, _ = await _run(client, "tool-1", "tool_checked", "pay")
            assert tool["error"]["code"] == "GUARDRAIL_TRIPPED"
            results = [m for m in history if m.type == "tool_result_message"]
            charge = next(m for m in results if m.tool_call_id == "call_0_1")
            assert charge.is_error  # withheld: the charge never ran

    asyncio.run(scenario())


def test_compaction_summarises_in_a_durable_step(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            result, history, run = await _run(client, "reader-1", "reader", "Read the manual.")
            assert result["text"] == "I read the whole manual." and result["error"] is None
            compacted = [o async for o in run.events() if o.type == "context_compacted"]
            assert compacted and all(c.summary.startswith("Read pages up to") for c in compacted)
            assert len(history) == 2 + 2 * 6  # the whole history is kept
            assert not [m for m in history if "Read pages" in getattr(m, "text", "")]

    asyncio.run(scenario())


def test_toolsets_are_entered_and_listed_by_each_worker(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            for agent_id in ("shelf-1", "shelf-2"):
                result, history, _ = await _run(client, agent_id, "shelved", "look")
                assert result["error"] is None
                results = [m.result for m in history if m.type == "tool_result_message"]
                assert results == [
                    "shelf rates (entered 1 time(s))",
                    "charged 3",
                    "shelf fees (entered 1 time(s))",
                ]  # the toolset's tool, entered once by the one worker
            client.journal.forget("shelf-1")
            configured = next(iter(client.journal.entries("shelf-1"))).event
            assert [t["name"] for t in configured.config["tools"]] == ["charge", "lookup"]

    asyncio.run(scenario())


def test_an_mcp_server_is_connected_once_per_worker(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            first, _, _ = await _run(client, "mcp-1", "mcp", "which process?")
            second, _, _ = await _run(client, "mcp-2", "mcp", "which process?")
            assert first["text"].startswith("the server runs as ")
            assert first["text"] == second["text"]  # one server process for the worker

    asyncio.run(scenario())
