"""Inputs reaching durable agents on one worker process: prompts queue per agent, a steer
reaches the running run, an abort cuts a streaming model call, an approval resumes a
paused run; live deltas arrive before the model call ends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from harness import Cluster, fresh_database

from agentcore.durable import DurableClient
from agentcore.events import to_dict
from agentcore.loop import history_problems


@pytest.fixture(scope="module")
def cluster(postgres_server: Any) -> Iterator[Cluster]:
    one = Cluster(fresh_database(postgres_server), 1, env={"DURABLE_DELTA_SLEEP": "0.02"})
    try:
        yield one
    finally:
        assert one.close() == {0: 0}


def test_prompts_to_one_agent_run_one_after_another(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            first = await client.submit("queue-1", "counter", "one")
            second = await client.submit("queue-1", "counter", "two")
            assert (await second.result(30))["status"] == "completed"
            assert (await first.result(30))["status"] == "completed"
            history = client.history("queue-1")
            users = [m.content for m in history if m.type == "user_message"]
            assert users == ["one", "two"]
            assert history_problems(history) == []
            delivered = [to_dict(o) async for o in first.events()]
            delivered += [to_dict(o) async for o in second.events()]
            assert delivered == [to_dict(o) for o in client.replay("queue-1")]

    asyncio.run(scenario())


def test_a_steer_reaches_the_running_run(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run = await client.submit("steer-1", "counter", "start")
            async for batch in run.live():  # the first model call streams: steer now
                if batch["events"]:
                    break
            await client.steer("steer-1", "also check the weather")
            await run.result(30)
            history = client.history("steer-1")
            users = [m.content for m in history if m.type == "user_message"]
            assert users == ["start", "also check the weather"]
            # delivered before the run's last model call, not after it
            assert history[-1].type == "assistant_message"
            assert history_problems(history) == []

    asyncio.run(scenario())


def test_an_abort_cuts_a_streaming_model_call(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run = await client.submit("abort-1", "slow", "talk for a while")
            started = time.monotonic()
            async for batch in run.live():
                if batch["events"]:
                    break
            await client.abort("abort-1")
            result = await run.result(30)
            took = time.monotonic() - started
            assert took < 2.5  # the full reply streams for 3 s
            ends = [o for o in [o async for o in run.events()] if o.type == "agent_end"]
            assert [e.reason for e in ends] == ["aborted"]
            history = client.history("abort-1")
            assert history_problems(history) == []
            assert result["status"] == "aborted" and result["error"]["code"] == "ABORTED"

    asyncio.run(scenario())


def test_live_deltas_arrive_before_the_call_ends(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run = await client.submit("live-1", "slow", "stream")
            first = None
            async for batch in run.live():
                first = batch
                break
            assert first is not None
            handle: Any = await client.dbos.retrieve_workflow_async(run.workflow_id)
            assert (await handle.get_status()).status == "PENDING"  # still streaming
            types = [e["type"] for e in first["events"]]
            assert types[0] == "message_start"
            await client.abort("live-1")
            await run.result(30)

    asyncio.run(scenario())


def test_an_approval_resumes_a_paused_run(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run = await client.submit("approve-1", "guarded", "pay")
            paused = await run.result(30)
            assert paused["status"] == "awaiting_approval"
            resumed = await client.approve("approve-1", "call_0_1")
            done = await resumed.result(30)
            assert done["status"] == "completed"
            history = client.history("approve-1")
            results = {
                m.tool_call_id: m.is_error for m in history if m.type == "tool_result_message"
            }
            assert results == {"call_0_0": False, "call_0_1": False, "call_1_0": False}
            assert history_problems(history) == []

    asyncio.run(scenario())


def test_a_command_to_an_unknown_agent_is_refused(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            with pytest.raises(KeyError, match="nobody"):
                await client.steer("nobody", "hello?")
            await client.submit("owned", "counter", "hi")
            from agentcore.errors import ConfigurationError

            with pytest.raises(ConfigurationError, match="runs definition 'counter'"):
                await client.submit("owned", "slow", "hi")

    asyncio.run(scenario())
