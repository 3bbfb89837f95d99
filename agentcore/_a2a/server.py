"""An agent served over A2A (the Agent2Agent protocol 1.0), on ``a2a-sdk``'s server classes.

``a2a_app(agent_factory, name=..., url=...)`` is a Starlette app: the agent card at
``/.well-known/agent-card.json`` and JSON-RPC at ``/`` (``SendMessage``,
``SendStreamingMessage`` over SSE, ``GetTask``, ``CancelTask``...), all spoken by the SDK
(``DefaultRequestHandler``, its task store). ``AgentExecutor`` maps the protocol to
agents:

- each A2A context (``contextId``) is one conversation, one ``Agent`` made by
  ``agent_factory("a2a_<context id>")`` (give it a journal: each context is a lane);
- a message runs the agent: the task goes ``WORKING``, every text delta is appended to
  the task's ``answer`` artifact as it streams, and the task ends ``COMPLETED`` (the
  answer also as the status message), ``FAILED`` (the run's error) or, when the run
  pauses for a tool approval or a question a tool asks, ``INPUT_REQUIRED`` with a
  message saying what is asked;
- the next message of an ``INPUT_REQUIRED`` task answers it: for approvals, ``yes`` /
  ``approve`` approves every pending call and anything else rejects them with the text as
  the reason; for a question, a data part (or JSON text) accepts with that content, and
  ``decline`` / ``cancel`` decline or cancel it;
- ``CancelTask`` (or a client leaving a stream it asked to cancel) aborts the run;
- with a ``tasks_journal`` the tasks are kept in it (``tasks``), so a restarted server
  knows them; with ``push``, task updates are POSTed to the webhooks clients give.

The app is guarded as ``agentcore serve`` is: requests whose ``Host`` could be a
DNS-rebinding name are refused, and with a ``token`` every route but the agent card needs
``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from a2a.helpers.proto_helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
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
from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

from .._core.errors import ConfigurationError
from .._journal.journal import Journal, JsonlJournal, MemoryJournal
from .._runtime.agent import Agent
from .._serve.guard import host_refusal
from .tasks import STOPPED, JournalTaskStore

if TYPE_CHECKING:  # the serve app's (its extra): imported by serve_mount's caller
    from .._serve.hosting import Host

__all__ = ["AgentA2AExecutor", "a2a_app", "a2a_routes", "agent_card", "serve_mount"]

AgentFactory = Callable[[str], Agent | Awaitable[Agent]]
PushUrlCheck = Callable[[str], Awaitable[bool]]
"""``await check(url)``: whether push notifications may be POSTed to ``url``."""
ANSWER = "answer"
"""The id of the artifact a task's answer streams into."""
_YES = {"yes", "y", "approve", "approved", "ok"}


def agent_card(
    name: str,
    url: str,
    *,
    description: str = "An agentcore agent.",
    version: str = "1.0.0",
    skills: Sequence[AgentSkill] = (),
    push_notifications: bool = False,
) -> AgentCard:
    """The card of an agent served at ``url`` (JSON-RPC, streaming, push notifications
    when it sends them)."""
    return AgentCard(
        name=name,
        description=description,
        version=version,
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=push_notifications),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=list(skills)
        or [AgentSkill(id="chat", name=name, description=description, tags=["chat"])],
    )


class AgentA2AExecutor(AgentExecutor):
    """The SDK's ``AgentExecutor`` for agents (module docstring)."""

    def __init__(
        self,
        agent_factory: AgentFactory,
        *,
        tasks: JournalTaskStore | None = None,
        own_agents: bool = True,
        http: Any = None,
    ) -> None:
        self._factory = agent_factory
        self._agents: dict[str, Agent] = {}
        self._lock = asyncio.Lock()
        self._tasks = tasks
        self._own_agents = own_agents
        self._http = http
        """The push notifications' ``httpx.AsyncClient``, closed with the executor."""

    async def conversation(self, context_id: str) -> Agent:
        """The agent of an A2A context, made on first use."""
        async with self._lock:
            agent = self._agents.get(context_id)
            if agent is None:
                made = self._factory(f"a2a_{context_id}")
                agent = await made if isinstance(made, Awaitable) else made
                self._agents[context_id] = agent
                if self._tasks is not None and await self._tasks.cut_off(context_id):
                    await _end_cut_off_run(agent)
            return agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        if context.current_task is None and context.message is not None:
            await event_queue.enqueue_event(
                Task(
                    id=task_id,
                    context_id=context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message],
                )
            )
        agent = await self.conversation(context_id)
        await updater.start_work()
        streamed: list[str] = []

        def on_text(event: Any) -> None:
            streamed.append(event.text)
            first = len(streamed) == 1
            chunk = updater.add_artifact(
                [Part(text=event.text)], artifact_id=ANSWER, append=not first
            )
            pending.append(asyncio.ensure_future(chunk))

        pending: list[asyncio.Future[None]] = []
        unsubscribe = agent.subscribe("text_delta", on_text)
        try:
            await self._answer(agent, context)
        finally:
            unsubscribe()
            await asyncio.gather(*pending, return_exceptions=True)
        await self._finish(agent, updater, "".join(streamed))

    async def _answer(self, agent: Agent, context: RequestContext) -> None:
        """Run the agent on the request's message, or answer what its run waits for."""
        text = context.get_user_input()
        state = agent.state
        if state.pending_approvals:
            approve = text.strip().lower() in _YES
            for call in state.pending_approvals:
                if approve:
                    await agent.approve(call.tool_call_id)
                else:
                    await agent.reject(call.tool_call_id, text or None)
            await agent.wait()
            return
        if state.pending_elicitations:
            asked = state.pending_elicitations[0]
            word = text.strip().lower()
            if word in ("decline", "cancel"):
                await agent.answer_elicitation(asked.elicitation_id, word)  # type: ignore[arg-type]
            else:
                await agent.answer_elicitation(asked.elicitation_id, "accept", _data(context))
            return
        await agent.prompt(text)

    async def _finish(self, agent: Agent, updater: TaskUpdater, answer: str) -> None:
        state = agent.state
        context_id, task_id = updater.context_id, updater.task_id
        if state.pending_approvals:
            calls = ", ".join(
                f"{c.tool_name}({json.dumps(dict(c.input))})" for c in state.pending_approvals
            )
            asked = f"Approve {calls}? Answer yes to approve, anything else to reject."
            await updater.requires_input(
                new_text_message(asked, context_id=context_id, task_id=task_id)
            )
        elif state.pending_elicitations:
            request = state.pending_elicitations[0]
            await updater.requires_input(
                new_text_message(request.message, context_id=context_id, task_id=task_id)
            )
        elif state.error is not None:
            await updater.failed(
                new_text_message(state.error.message, context_id=context_id, task_id=task_id)
            )
        else:
            await updater.complete(new_text_message(answer, context_id=context_id, task_id=task_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        agent = self._agents.get(context.context_id or "")
        if agent is not None:
            agent.abort("cancelled by the A2A client")
            await agent.wait()
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()

    async def aclose(self) -> None:
        """Close every conversation's agent (unless their owner closes them, as
        ``agentcore serve`` does) and let the task store's lane go (idempotent)."""
        agents, self._agents = list(self._agents.values()), {}
        if self._own_agents:
            for agent in agents:
                await agent.aclose()
        if self._tasks is not None:
            self._tasks.close()
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()


async def _end_cut_off_run(agent: Agent) -> None:
    """Abort the run a resumed conversation performs again because its server stopped
    in the middle of it: its task was read back ``FAILED`` (``tasks``)."""
    state = agent.state
    if state.pending_approvals or state.pending_elicitations:
        return
    if agent.conversation_state.loop.phase != "idle":
        agent.abort(STOPPED)
        await agent.wait()


def _data(context: RequestContext) -> dict[str, Any]:
    """The content of an answer to a question: a data part, or the text as JSON."""
    message = context.message
    if message is not None:
        for part in message.parts:
            if part.HasField("data"):
                value = MessageToDict(part.data)
                if isinstance(value, dict):
                    return value
    try:
        value = json.loads(context.get_user_input())
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def a2a_app(
    agent_factory: AgentFactory,
    *,
    name: str,
    url: str,
    description: str = "An agentcore agent.",
    token: str | None = None,
    allow_hosts: Sequence[str] = (),
    tasks_journal: Journal | None = None,
    push: PushUrlCheck | None = None,
) -> Any:
    """The ASGI app serving ``agent_factory``'s agents over A2A (module docstring);
    ``url`` is where clients reach it (it goes on the card). With ``tasks_journal`` (the
    journal the agents write, as a rule), the tasks are kept in it (``JournalTaskStore``)
    and a restarted server knows them; without, in memory. ``app.state.executor`` is the
    ``AgentA2AExecutor``: ``await app.state.executor.aclose()`` closes the agents and
    lets the tasks' lane go. With ``push``, push notifications are on: a client may give
    a URL with its message (or ``CreateTaskPushNotificationConfig``), and every update of
    the task is POSTed there when ``await push(url)`` accepts the URL (the SDK's
    ``validate_push_notification_url`` refuses loopback and private addresses)."""
    app = a2a_routes(
        agent_factory,
        name=name,
        url=url,
        description=description,
        tasks_journal=tasks_journal,
        push=push,
    )
    return _Guard(app, token, tuple(allow_hosts))


def a2a_routes(
    agent_factory: AgentFactory,
    *,
    name: str,
    url: str,
    description: str = "An agentcore agent.",
    tasks_journal: Journal | None = None,
    own_agents: bool = True,
    push: PushUrlCheck | None = None,
) -> Any:
    """``a2a_app`` without its guard: the Starlette app to mount on an app that guards
    its routes itself (``agentcore serve --a2a``, ``serve_mount``). With ``own_agents``
    false, ``executor.aclose()`` leaves the agents to their owner."""
    from starlette.applications import Starlette

    card = agent_card(name, url, description=description, push_notifications=push is not None)
    tasks = None if tasks_journal is None else JournalTaskStore(tasks_journal)
    pushing: dict[str, Any] = {}
    http = None
    if push is not None:
        import httpx

        http = httpx.AsyncClient(timeout=10)
        configs = InMemoryPushNotificationConfigStore()
        sender = BasePushNotificationSender(http, configs, push_url_validator=push)
        pushing = {"push_config_store": configs, "push_sender": sender, "push_url_validator": push}
    executor = AgentA2AExecutor(agent_factory, tasks=tasks, own_agents=own_agents, http=http)
    handler = DefaultRequestHandler(
        agent_executor=executor,
        task_store=tasks or InMemoryTaskStore(),
        agent_card=card,
        **pushing,
    )
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])
    app.state.executor = executor
    return app


def serve_mount(
    url: str, *, name: str = "agentcore", description: str = "An agentcore agent."
) -> Callable[[Host], Any]:
    """``ServeConfig.mounts``' maker of the A2A app for ``agentcore serve --a2a`` (``url``:
    where it is mounted, as clients reach it). Each A2A context is one of the server's
    agents (``a2a_<context id>``, on the page and the HTTP API, journaled and resumed as
    they are); the tasks are journaled in ``<journal dir>/a2a/tasks.jsonl`` (in memory
    without a journal dir). The serve app's guard guards it."""

    def make(host: Host) -> Any:
        from .._serve.hosting import HttpError

        directory = host.config.journal_dir
        tasks: Journal = MemoryJournal()
        if directory is not None:
            (directory / "a2a").mkdir(parents=True, exist_ok=True)
            tasks = JsonlJournal(directory / "a2a" / "tasks.jsonl")

        def agent(conversation_id: str) -> Agent:
            try:
                served = host.get_or_create(conversation_id)
            except HttpError as exc:
                raise ConfigurationError(
                    f"A2A context {conversation_id!r}: {exc.message}"
                ) from None
            if not isinstance(served.agent, Agent):  # pragma: no cover - refused by the CLI
                raise ConfigurationError("durable agents are not served over A2A")
            return served.agent

        app = a2a_routes(
            agent,
            name=name,
            url=url,
            description=description,
            tasks_journal=tasks,
            own_agents=False,
        )

        async def close() -> None:
            await app.state.executor.aclose()
            tasks.close()

        host.closers.append(close)
        return app

    return make


class _Guard:
    """ASGI: ``Host`` names that could be rebound are refused (403); with a token, every
    route but the agent card needs ``Authorization: Bearer <token>`` (401)."""

    def __init__(self, app: Any, token: str | None, allow_hosts: tuple[str, ...]) -> None:
        self.app = app
        self.state = app.state
        self._expected = None if token is None else f"Bearer {token}".encode()
        self._hosts = allow_hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or ())
            host = headers.get(b"host")
            refused = host_refusal(None if host is None else host.decode("latin-1"), self._hosts)
            if refused is not None:
                await _refuse(send, 403, refused)
                return
            card = scope.get("path", "").startswith("/.well-known/")
            given = headers.get(b"authorization", b"")
            if (
                self._expected is not None
                and not card
                and not hmac.compare_digest(given, self._expected)
            ):
                await _refuse(send, 401, "missing or wrong bearer token (Authorization: Bearer)")
                return
        await self.app(scope, receive, send)


async def _refuse(send: Any, status: int, why: str) -> None:
    body = json.dumps({"error": why}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
