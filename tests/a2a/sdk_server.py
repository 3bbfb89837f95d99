"""An A2A server built with the ``a2a-sdk``'s own classes only (no agentcore), for the
client tests; ``python sdk_server.py`` serves it on 127.0.0.1 (a free port, printed).

It streams ``echo: <text>`` word by word; ``slow ...`` streams for a long time (to be
cancelled or killed); ``weather`` asks which city (``INPUT_REQUIRED``) and answers the
next message of the same task; ``fail`` fails the task; with ``A2A_TOKEN`` set, requests
without ``Authorization: Bearer <token>`` get 401. Cancelled tasks are counted in
``CANCELLED``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from typing import Any

import uvicorn
from a2a.helpers.proto_helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    Task,
    TaskState,
    TaskStatus,
)
from starlette.applications import Starlette

CANCELLED: list[str] = []


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        asked_before = context.current_task is not None
        if not asked_before:
            await event_queue.enqueue_event(
                Task(
                    id=task_id,
                    context_id=context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message],
                )
            )
        await updater.start_work()
        text = context.get_user_input()
        if asked_before:
            words = [f"weather in {text}: sunny"]
        elif text.startswith("weather"):
            question = new_text_message("Which city?", context_id=context_id, task_id=task_id)
            await updater.requires_input(question)
            return
        elif text.startswith("fail"):
            await updater.failed(new_text_message("no can do", context_id=context_id))
            return
        elif text.startswith("slow"):
            words = [f"word{i} " for i in range(2000)]
        else:
            words = [f"{w} " for w in f"echo: {text}".split()]
        try:
            for i, word in enumerate(words):
                await asyncio.sleep(0.01 if text.startswith("slow") else 0)
                await updater.add_artifact([Part(text=word)], artifact_id="a", append=i > 0)
        except asyncio.CancelledError:
            CANCELLED.append(task_id)
            raise
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        CANCELLED.append(context.task_id or "")
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def app(url: str, token: str | None = None) -> Any:
    card = AgentCard(
        name="sdk-sample",
        description="An A2A agent built with the SDK's classes.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="Echoes.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    inner = Starlette(
        routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")]
    )
    if token is None:
        return inner
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await inner(scope, receive, send)

    return guarded


if __name__ == "__main__":
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    print(url, flush=True)
    server = uvicorn.Server(
        uvicorn.Config(app(url + "/", os.environ.get("A2A_TOKEN")), log_level="warning")
    )
    asyncio.run(server.serve(sockets=[sock]))
    sys.exit(0)
