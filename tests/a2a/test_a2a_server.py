"""Our A2A server against the ``a2a-sdk``'s own client: send, stream, cancel, a tool
approval through ``INPUT_REQUIRED``, the bearer token; each context journaled in its own
lane."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
from a2a.client import ClientConfig, create_client
from a2a.types import (
    CancelTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)

from agentcore import Agent, ToolContext, tool
from agentcore.a2a import a2a_app
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.journal import MemoryJournal
from agentcore.loop import ElicitationRequest

from .conftest import bound, serving


@tool(requires_approval=True)
async def refund(amount: int) -> str:
    """Refund an amount (needs the user's approval)."""
    return f"refunded {amount}"


@tool
async def where(ctx: ToolContext) -> str:
    """Ask the user for a city."""
    assert ctx.elicit is not None
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    answer = await ctx.elicit(ElicitationRequest("where", "Which city?", schema=schema))
    return f"{answer.action}: {answer.content}"


def model(request: Any) -> Any:
    last = request.messages[-1]
    if last.type == "tool_result_message":
        return text_turn(f"done: {last.result}", chunk=3)
    said = str(last.content)
    if "where" in said:
        return tool_turn([("w1", "where", {})])
    if "refund" in said:
        return tool_turn([("r1", "refund", {"amount": 5})])
    if "story" in said:
        return text_turn("once upon a time " * 40, chunk=4)
    return text_turn(f"You said: {said}", chunk=3)


def _factory(journal: MemoryJournal, delay: float = 0.0) -> Any:
    def make(conversation_id: str) -> Agent:
        driver = FunctionDriver(model, delay=delay)
        return Agent(driver, tools=[refund, where], journal=journal, agent_id=conversation_id)

    return make


def _message(text: str, **ids: str) -> Message:
    return Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=text)], **ids)


async def _events(client: Any, message: Message) -> list[Any]:
    return [e async for e in client.send_message(SendMessageRequest(message=message))]


def _artifact_text(events: list[Any]) -> str:
    return "".join(
        p.text
        for e in events
        if e.WhichOneof("payload") == "artifact_update"
        for p in e.artifact_update.artifact.parts
    )


def _states(events: list[Any]) -> list[int]:
    return [
        e.status_update.status.state for e in events if e.WhichOneof("payload") == "status_update"
    ]


async def test_send_and_stream_with_the_sdk_client() -> None:
    journal = MemoryJournal()
    sock, url = bound()
    app = a2a_app(_factory(journal), name="echo", url=url + "/")
    async with serving(app, sock):
        streaming = await create_client(url, ClientConfig(streaming=True))
        events = await _events(streaming, _message("hello"))
        assert _artifact_text(events) == "You said: hello"
        assert _states(events)[-1] == TaskState.TASK_STATE_COMPLETED
        context = events[0].task.context_id
        more = await _events(streaming, _message("again", context_id=context))
        assert _artifact_text(more) == "You said: again"
        await streaming.close()
        blocking = await create_client(url, ClientConfig(streaming=False))
        (reply,) = await _events(blocking, _message("once"))
        task = reply.task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert task.status.message.parts[0].text == "You said: once"
        await blocking.close()
    await app.state.executor.aclose()
    lanes = {e.agent_id for e in journal.entries()}
    assert lanes == {f"a2a_{context}", f"a2a_{task.context_id}"}
    prompts = [e for e in journal.entries(f"a2a_{context}") if e.event.type == "agent_prompt"]
    assert len(prompts) == 2


async def test_cancel_aborts_the_run() -> None:
    journal = MemoryJournal()
    sock, url = bound()
    app = a2a_app(_factory(journal, delay=0.02), name="slow", url=url + "/")
    async with serving(app, sock):
        client = await create_client(url, ClientConfig(streaming=True))
        stream = client.send_message(SendMessageRequest(message=_message("a story"))).__aiter__()
        first = await stream.__anext__()
        task_id = first.task.id
        while (await stream.__anext__()).WhichOneof("payload") != "artifact_update":
            pass
        canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        await client.close()
        agent = await app.state.executor.conversation(first.task.context_id)
        await asyncio.wait_for(agent.wait(), 5)
        assert agent.state.error is not None and agent.state.error.code == "ABORTED"
    await app.state.executor.aclose()


async def test_a_tool_approval_is_input_required() -> None:
    journal = MemoryJournal()
    sock, url = bound()
    app = a2a_app(_factory(journal), name="refunds", url=url + "/")
    async with serving(app, sock):
        client = await create_client(url, ClientConfig(streaming=True))
        asked = await _events(client, _message("refund please"))
        assert _states(asked)[-1] == TaskState.TASK_STATE_INPUT_REQUIRED
        question = asked[-1].status_update.status.message.parts[0].text
        assert question.startswith('Approve refund({"amount": 5})?')
        ids = {"context_id": asked[0].task.context_id, "task_id": asked[0].task.id}
        answered = await _events(client, _message("yes", **ids))
        assert _states(answered)[-1] == TaskState.TASK_STATE_COMPLETED
        assert _artifact_text(answered) == "done: refunded 5"
        again = await _events(client, _message("refund please", context_id=ids["context_id"]))
        new_task = {"context_id": ids["context_id"], "task_id": again[0].task.id}
        rejected = await _events(client, _message("no, too much", **new_task))
        assert _states(rejected)[-1] == TaskState.TASK_STATE_COMPLETED
        assert "no, too much" in _artifact_text(rejected)
        await client.close()
    await app.state.executor.aclose()


async def test_a_tool_question_is_input_required() -> None:
    sock, url = bound()
    app = a2a_app(_factory(MemoryJournal()), name="asks", url=url + "/")
    async with serving(app, sock):
        client = await create_client(url, ClientConfig(streaming=True))
        asked = await _events(client, _message("where to?"))
        assert _states(asked)[-1] == TaskState.TASK_STATE_INPUT_REQUIRED
        assert asked[-1].status_update.status.message.parts[0].text == "Which city?"
        ids = {"context_id": asked[0].task.context_id, "task_id": asked[0].task.id}
        answered = await _events(client, _message('{"city": "Oslo"}', **ids))
        assert _states(answered)[-1] == TaskState.TASK_STATE_COMPLETED
        assert _artifact_text(answered) == "done: accept: {'city': 'Oslo'}"
        again = await _events(client, _message("where now?", context_id=ids["context_id"]))
        declined = {"context_id": ids["context_id"], "task_id": again[0].task.id}
        answer = await _events(client, _message("decline", **declined))
        assert _artifact_text(answer) == "done: decline: None"
        await client.close()
    await app.state.executor.aclose()


async def test_the_token_guards_everything_but_the_card() -> None:
    sock, url = bound()
    app = a2a_app(_factory(MemoryJournal()), name="guarded", url=url + "/", token="s3cret")
    async with serving(app, sock), httpx.AsyncClient() as http:
        card = await http.get(url + "/.well-known/agent-card.json")
        assert card.status_code == 200 and card.json()["name"] == "guarded"
        refused = await http.post(url + "/", json={"jsonrpc": "2.0", "id": 1, "method": "x"})
        assert refused.status_code == 401
        rebound = await http.get(url + "/.well-known/agent-card.json", headers={"host": "evil.com"})
        assert rebound.status_code == 403
        authed = httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"})
        client = await create_client(url, ClientConfig(streaming=True, httpx_client=authed))
        events = await _events(client, _message("hi"))
        assert _artifact_text(events) == "You said: hi"
        await client.close()
        await authed.aclose()
    await app.state.executor.aclose()


async def test_a_client_that_reconnects_resubscribes_to_the_running_task() -> None:
    """A client that drops a stream and comes back gets the rest of the task's events
    (while the server runs; the run itself never noticed the client leaving)."""
    sock, url = bound()
    app = a2a_app(_factory(MemoryJournal(), delay=0.01), name="slow", url=url + "/")
    async with serving(app, sock):
        first = await create_client(url, ClientConfig(streaming=True))
        stream = first.send_message(SendMessageRequest(message=_message("a story")))
        seen: list[Any] = []
        async for event in stream:
            seen.append(event)
            if event.WhichOneof("payload") == "artifact_update":
                break
        await stream.aclose()
        await first.close()
        task_id = seen[0].task.id
        second = await create_client(url, ClientConfig(streaming=True))
        rest = [e async for e in second.subscribe(SubscribeToTaskRequest(id=task_id))]
        await second.close()
        assert _states(rest)[-1] == TaskState.TASK_STATE_COMPLETED
        snapshot = rest[0].task  # what streamed so far, then every later chunk once
        so_far = "".join(p.text for a in snapshot.artifacts for p in a.parts)
        assert so_far + _artifact_text(rest) == "once upon a time " * 40
    await app.state.executor.aclose()
