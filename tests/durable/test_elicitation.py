"""An MCP server that asks the user (elicitation) from a tool call on a real worker and
PostgreSQL: the run pauses inside its advance, the question is read from ``events()``,
the answer sent through ``DurableClient.answer_elicitation`` reaches the server and the
call completes; a worker killed while the question waits leaves it waiting, under the
same id, on the worker that takes the run over."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from harness import Cluster, fresh_database

from agentcore.durable import DurableAgent, DurableClient, DurableRun
from agentcore.errors import ProtocolError
from agentcore.events import ToolResultMessage, to_dict
from agentcore.loop import ElicitationAnswer, ElicitationRequest, history_problems


@pytest.fixture(scope="module")
def cluster(postgres_server: Any) -> Iterator[Cluster]:
    one = Cluster(fresh_database(postgres_server, "elicit"), 1)
    try:
        yield one
    finally:
        assert one.close() == {0: 0}


async def _asked(run: DurableRun) -> ElicitationRequest:
    """The first question the run's advance delivered."""
    async for output in run.events():
        if type(output) is ElicitationRequest:
            return output
    raise AssertionError(f"{run} ended without asking")


async def _ask(client: DurableClient, agent_id: str) -> tuple[DurableRun, ElicitationRequest]:
    run = await client.submit(agent_id, "asking", "greet me")
    asked = await asyncio.wait_for(_asked(run), 60)
    assert (asked.source, asked.message) == ("people", "Who are you?")
    assert (asked.tool_call_id, asked.elicitation_id) == ("call_greet", "elicit_call_greet_1")
    assert client.store.journal_end(agent_id) > 0
    paused = client._state(agent_id)
    assert paused.loop.phase == "elicitation"  # the journal holds the pause
    return run, asked


def _greeting(client: DurableClient, agent_id: str) -> ToolResultMessage:
    history = client.history(agent_id)
    assert history_problems(history) == []
    (result,) = [m for m in history if isinstance(m, ToolResultMessage)]
    return result


async def _replays(client: DurableClient, agent_id: str, run: DurableRun) -> None:
    delivered = [to_dict(o) for o in [o async for o in run.events()]]
    assert delivered == [to_dict(o) for o in client.replay(agent_id)]


def test_an_accepted_answer_reaches_the_server_and_the_run_completes(cluster: Cluster) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run, asked = await _ask(client, "ask-accept")
            await client.answer_elicitation(
                "ask-accept", asked.elicitation_id, "accept", {"name": "Ada"}
            )
            result = await run.result(60)
            assert result["status"] == "completed"
            assert result["text"] == "the server said: hello Ada"
            greeting = _greeting(client, "ask-accept")
            assert (greeting.result, greeting.is_error) == ("hello Ada", False)
            answers = [o for o in client.replay("ask-accept") if type(o) is ElicitationAnswer]
            assert [(a.action, a.content) for a in answers] == [("accept", {"name": "Ada"})]
            await _replays(client, "ask-accept", run)

    asyncio.run(scenario())


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_or_cancelled_question_ends_the_call_with_the_servers_error(
    cluster: Cluster, action: Any
) -> None:
    agent_id = f"ask-{action}"

    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run, asked = await _ask(client, agent_id)
            await client.answer_elicitation(agent_id, asked.elicitation_id, action)
            result = await run.result(60)
            assert result["status"] == "completed"
            greeting = _greeting(client, agent_id)
            assert greeting.is_error and "hello" not in str(greeting.result)
            answers = [o for o in client.replay(agent_id) if type(o) is ElicitationAnswer]
            assert [a.action for a in answers] == [action]
            await _replays(client, agent_id, run)

    asyncio.run(scenario())


def test_an_answer_that_cannot_answer_is_refused_and_the_question_still_waits(
    cluster: Cluster,
) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run, asked = await _ask(client, "ask-wrong")
            with pytest.raises(ProtocolError, match="no elicitation with id 'elicit_nope'"):
                await client.answer_elicitation("ask-wrong", "elicit_nope", "decline")
            with pytest.raises(ProtocolError, match="'name' is a required property"):
                await client.answer_elicitation("ask-wrong", asked.elicitation_id, "accept", {})
            with pytest.raises(ProtocolError, match="decline carries no content"):
                await client.answer_elicitation(
                    "ask-wrong", asked.elicitation_id, "decline", {"name": "x"}
                )
            assert client._state("ask-wrong").loop.phase == "elicitation"
            await client.answer_elicitation(
                "ask-wrong", asked.elicitation_id, "accept", {"name": "Bo"}
            )
            assert (await run.result(60))["text"] == "the server said: hello Bo"

    asyncio.run(scenario())


def test_a_worker_killed_while_the_question_waits_asks_again_on_the_next(
    postgres_server: Any,
) -> None:
    """The call runs again on the worker that takes the run over; its server asks again,
    under the same elicitation id (the journal holds the question once), and the answer
    sent after the kill completes it."""
    cluster = Cluster(fresh_database(postgres_server, "elicit_kill"), 1)
    try:

        async def scenario() -> None:
            async with DurableClient(cluster.url) as client:
                run, asked = await _ask(client, "ask-kill")
                cluster.kill(0)
                cluster.start()
                again = 0
                async for output in run.events():  # the new worker's question, same id
                    if type(output) is ElicitationRequest:
                        assert output.elicitation_id == asked.elicitation_id
                        again += 1
                        if again == 2:
                            break
                await client.answer_elicitation(
                    "ask-kill", asked.elicitation_id, "accept", {"name": "Cy"}
                )
                result = await run.result(60)
                assert result["text"] == "the server said: hello Cy"
                requests = [o for o in client.replay("ask-kill") if type(o) is ElicitationRequest]
                assert len(requests) == 1  # journaled once, though asked twice

        asyncio.run(asyncio.wait_for(scenario(), 120))
    finally:
        codes = cluster.close()
    assert codes[1] == 0


def test_with_plugins_a_question_is_answered_cancel_at_once(cluster: Cluster) -> None:
    """A definition with middleware performs its tool calls through the runtime's
    performer inside the step, where nobody can answer: the question is journaled and
    answered ``cancel`` (the server's tool fails), instead of waiting forever."""

    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run = await client.submit("ask-bent", "asking_bent", "greet me")
            result = await run.result(60)
            assert result["status"] == "completed"
            greeting = _greeting(client, "ask-bent")
            assert greeting.is_error and "hello" not in str(greeting.result)
            replayed = client.replay("ask-bent")
            (asked,) = [o for o in replayed if type(o) is ElicitationRequest]
            answers = [o for o in replayed if type(o) is ElicitationAnswer]
            assert [(a.action, a.elicitation_id) for a in answers] == [
                ("cancel", asked.elicitation_id)
            ]
            await _replays(client, "ask-bent", run)

    asyncio.run(scenario())


def test_an_abort_while_the_question_waits_answers_it_cancel_and_ends_the_run(
    cluster: Cluster,
) -> None:
    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            run, asked = await _ask(client, "ask-abort")
            await client.abort("ask-abort")
            result = await run.result(60)
            assert result["status"] == "aborted"
            replayed = client.replay("ask-abort")
            answers = [o for o in replayed if type(o) is ElicitationAnswer]
            assert [(a.action, a.elicitation_id) for a in answers] == [
                ("cancel", asked.elicitation_id)
            ]
            assert client._state("ask-abort").loop.run is None

    asyncio.run(scenario())


def test_a_durable_agent_sees_the_question_and_answers_it(cluster: Cluster) -> None:
    """``DurableAgent`` follows the journal: its state shows the question while the
    run's advance waits; its ``answer_elicitation`` returns once the run ended."""

    async def scenario() -> None:
        async with DurableClient(cluster.url) as client:
            agent = DurableAgent(client, "ask-agent", "asking", poll=0.05)
            agent.start()
            try:
                prompted = asyncio.ensure_future(agent.prompt("greet me"))
                while not agent.state.pending_elicitations:
                    assert not prompted.done()
                    await asyncio.sleep(0.05)
                (asked,) = agent.state.pending_elicitations
                await asyncio.wait_for(
                    agent.answer_elicitation(asked.elicitation_id, "accept", {"name": "Di"}), 60
                )
                await asyncio.wait_for(prompted, 60)
                assert agent.state.pending_elicitations == ()
                assert _greeting(client, "ask-agent").result == "hello Di"
            finally:
                await agent.aclose()

    asyncio.run(scenario())
