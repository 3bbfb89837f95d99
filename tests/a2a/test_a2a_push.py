"""Push notifications: a client of the ``a2a-sdk`` gives a webhook with its message, and
every update of the task is POSTed to a receiver on 127.0.0.1 with the client's token,
when the server's check accepts the URL; a message giving a URL it refuses is refused."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import (
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskPushNotificationConfig,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agentcore import Agent
from agentcore.a2a import a2a_app
from agentcore.drivers.scripted import FunctionDriver, text_turn

from .conftest import bound, serving


def _model(request: Any) -> Any:
    return text_turn(f"pushed: {request.messages[-1].content}", chunk=4)


def _receiver(received: list[tuple[str, str, dict[str, Any]]]) -> Starlette:
    async def hook(request: Request) -> Response:
        token = request.headers.get("x-a2a-notification-token", "")
        received.append((request.url.path, token, await request.json()))
        return Response(status_code=204)

    return Starlette(routes=[Route("/{path}", hook, methods=["POST"])])


def _send(text: str, webhook: str) -> SendMessageRequest:
    config = TaskPushNotificationConfig(url=webhook, token="client-token")
    message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=text)])
    return SendMessageRequest(
        message=message,
        configuration=SendMessageConfiguration(task_push_notification_config=config),
    )


async def test_task_updates_are_pushed_to_an_accepted_webhook() -> None:
    received: list[tuple[str, str, dict[str, Any]]] = []
    hook_sock, hooks = bound()

    async def accept(url: str) -> bool:
        return url == hooks + "/accepted"

    sock, url = bound()
    app = a2a_app(
        lambda conversation_id: Agent(FunctionDriver(_model)),
        name="pusher",
        url=url + "/",
        push=accept,
    )
    async with serving(_receiver(received), hook_sock), serving(app, sock):
        card = await _card(url)
        assert card["capabilities"]["pushNotifications"] is True
        client = await create_client(url, ClientConfig(streaming=True))
        _ = [e async for e in client.send_message(_send("hello", hooks + "/accepted"))]
        with pytest.raises(Exception, match="Invalid push notification URL"):
            _ = [e async for e in client.send_message(_send("hello", hooks + "/refused"))]
        await client.close()
        for _ in range(200):
            finals = [b for _, _, b in received if _state(b) == "TASK_STATE_COMPLETED"]
            if finals:
                break
            await asyncio.sleep(0.02)
    await app.state.executor.aclose()
    assert {path for path, _, _ in received} == {"/accepted"}
    assert {token for _, token, _ in received} == {"client-token"}
    assert finals[-1]["statusUpdate"]["status"]["message"]["parts"][0]["text"] == "pushed: hello"
    chunks = [
        p["text"]
        for _, _, b in received
        if "artifactUpdate" in b
        for p in b["artifactUpdate"]["artifact"]["parts"]
    ]
    assert "".join(chunks) == "pushed: hello"


async def _card(url: str) -> Any:
    async with httpx.AsyncClient() as http:
        return (await http.get(url + "/.well-known/agent-card.json")).json()


def _state(body: dict[str, Any]) -> str | None:
    update = body.get("statusUpdate")
    return None if update is None else update["status"]["state"]


async def test_push_is_off_without_a_check() -> None:
    """Without ``push`` the card offers none, and a webhook a message gives gets nothing:
    the server never POSTs where a client tells it to unless allowed to."""
    received: list[tuple[str, str, dict[str, Any]]] = []
    hook_sock, hooks = bound()
    sock, url = bound()
    app = a2a_app(
        lambda conversation_id: Agent(FunctionDriver(_model)), name="quiet", url=url + "/"
    )
    async with serving(_receiver(received), hook_sock), serving(app, sock):
        card = await _card(url)
        assert not card["capabilities"].get("pushNotifications", False)
        client = await create_client(url, ClientConfig(streaming=True))
        events = [e async for e in client.send_message(_send("hi", hooks + "/accepted"))]
        assert events[-1].status_update.status.message.parts[0].text == "pushed: hi"
        await client.close()
        await asyncio.sleep(0.3)
    await app.state.executor.aclose()
    assert received == []
