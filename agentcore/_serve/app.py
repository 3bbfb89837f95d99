"""The ASGI application of ``agentcore serve`` (starlette, sse-starlette): see docs/serve.md.

Routes (``{id}`` is an agent id; every body is JSON and size-limited):

- ``GET /`` the web page (static files shipped in the package: no CDN, no build step);
- ``POST /agents`` create an agent (``{"model"?, "agent_id"?, "system"?}``), ``GET /agents``;
- ``POST /agents/{id}/messages`` (``{"text"}``) start a run; ``.../steer``, ``.../follow_up``
  (``{"text"}``); ``.../approve`` (``{"tool_call_id", "approved"?, "reason"?}``);
  ``.../interrupt`` abort the run (a client that disconnects cancels nothing);
- ``GET /agents/{id}/events`` the SSE stream (``?protocol=agentcore|ag-ui|vercel``,
  ``?layers=stream,message,...``; ``?after=SEQ`` or ``Last-Event-ID`` resume from the
  journal); ``GET /agents/{id}/state``, ``.../timeline``, ``.../state_at?seq=N``,
  ``.../journal`` (the JSONL download);
- ``POST /ag-ui`` an AG-UI ``RunAgentInput`` (the thread is the agent) streams that run;
- ``POST /chat`` a Vercel AI SDK chat request streams that run; ``GET /chat/{id}/stream``
  resumes the run in progress (204 when there is none).

With a ``token``, every route but the page and its files needs ``Authorization: Bearer
<token>`` (or ``?token=`` for ``EventSource``, which cannot set headers).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import pathlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from .._agents.registry import AgentRegistry
from .._app.describe import describe
from .._app.state_view import render_state
from .._core.errors import AgentError, ConfigurationError
from .._core.events import LAYERS
from .._core.machine import MealyMachine
from .._core.wire import to_dict
from .._journal.journal import Journal, JsonlJournal, MemoryJournal
from .._journal.read import dumps
from .._journal.replay import replay_steps, state_at
from .._loop.conversation import create_conversation_machine
from .._runtime.agent import Agent
from .._runtime.plugins import protocol_names, wire_protocol
from .feed import Feed, Reader
from .protocol import (
    Cursor,
    RunProtocol,
    RunRequest,
    StreamProtocol,
    parse_event_id,
    sse_frame,
)

__all__ = ["AgentOptions", "ServeConfig", "Served", "create_app"]

STATIC = pathlib.Path(__file__).resolve().parent / "static"
_AGENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

AgentOptions = Callable[[str | None], Mapping[str, Any]]
"""``options(model)``: the ``Agent`` options (``model`` as a driver or ``"provider/model"``,
``tools``, ``system_prompt``...) for an agent asked for ``model`` (None: the default)."""


@attrs.frozen
class ServeConfig:
    """How the app behaves. ``agent_options`` builds agents (``AgentOptions``);
    ``journal_dir`` keeps each agent's journal as ``<dir>/<agent_id>.jsonl`` so a restarted
    server resumes them (None: in memory); ``token`` guards every API route; ``cors_origins``
    allows those origins (none by default); ``max_body`` caps a request body in bytes;
    ``max_frames`` caps each stream's buffer (a client further behind is cut and resumes);
    ``flush`` the least time between two writes to a stream's clients, in seconds (frames
    made meanwhile go out together: a fast stream costs each client at most ``1/flush``
    writes a second); ``ping`` is the keep-alive comment interval in seconds; ``retry_ms``
    the reconnection delay sent to clients. With a ``registry``
    (``agentcore.agents.AgentRegistry``), every agent is the root of a tree of the
    definition ``agent_type`` (its options override the definition's), so it may spawn
    sub-agents, whose events every stream carries."""

    agent_options: AgentOptions
    journal_dir: pathlib.Path | None = None
    token: str | None = None
    cors_origins: Sequence[str] = ()
    max_body: int = 1 << 20
    max_frames: int = 4096
    flush: float = 0.02
    ping: float = 15.0
    retry_ms: int = 2000
    registry: AgentRegistry | None = None
    agent_type: str | None = None

    def __attrs_post_init__(self) -> None:
        if (self.registry is None) != (self.agent_type is None):
            raise ConfigurationError(
                "ServeConfig: give both registry and agent_type (the served agents' "
                "definition), or neither"
            )


class Served:
    """One agent on the server: its feed, the model it was asked for, its current run."""

    def __init__(self, agent: Agent, feed: Feed, model: str | None) -> None:
        self.agent = agent
        self.feed = feed
        self.model = model
        self.task: asyncio.Task[Any] | None = None
        self.run_seq = 0
        """The journal's last entry before the current run began (its frames come after)."""

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


class _HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Auth:
    """Bearer-token check in front of every route but the page and its static files."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] != "http" or _public(scope["path"]):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.headers.get("authorization", "")
        value = (
            given[7:]
            if given.lower().startswith("bearer ")
            else request.query_params.get("token", "")
        )
        if not hmac.compare_digest(value.encode(), self.token.encode()):
            response = JSONResponse(
                {"error": "missing or wrong bearer token (Authorization: Bearer <token>)"},
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _public(path: str) -> bool:
    return path == "/" or path.startswith("/static/")


class _Server:
    """The agents of one app and what its routes do with them."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.agents: dict[str, Served] = {}
        self.background: set[asyncio.Task[Any]] = set()
        self._counter = 0

    # -- agents --------------------------------------------------------------------------

    def _journal(self, agent_id: str) -> Journal:
        directory = self.config.journal_dir
        if directory is None:
            return MemoryJournal()
        return JsonlJournal(directory / f"{agent_id}.jsonl", fsync="turn")

    def _new_id(self) -> str:
        while True:
            self._counter += 1
            agent_id = f"agent-{self._counter}"
            if agent_id not in self.agents and not self._journal_exists(agent_id):
                return agent_id

    def _journal_exists(self, agent_id: str) -> bool:
        directory = self.config.journal_dir
        return directory is not None and (directory / f"{agent_id}.jsonl").exists()

    def create(self, model: str | None, agent_id: str | None, system: str | None) -> Served:
        if agent_id is None:
            agent_id = self._new_id()
        elif not _AGENT_ID.match(agent_id):
            raise _HttpError(400, f"agent id {agent_id!r} must match {_AGENT_ID.pattern}")
        if agent_id in self.agents or self._journal_exists(agent_id):
            raise _HttpError(409, f"agent {agent_id!r} exists already")
        options = dict(self.config.agent_options(model))
        if system is not None:
            options["system_prompt"] = system
        journal = self._journal(agent_id)
        feed = self._feed(agent_id, journal, lambda: create_conversation_machine(agent.prices))
        agent = self._build(agent_id, journal, feed, options)
        if self.config.journal_dir is not None:
            meta = self.config.journal_dir / f"{agent_id}.json"
            meta.write_text(json.dumps({"model": model, "system": system}), encoding="utf-8")
        served = self.agents[agent_id] = Served(agent, feed, model)
        return served

    async def resume_all(self) -> None:
        """Resume every agent whose journal is in ``journal_dir`` (a restarted server)."""
        directory = self.config.journal_dir
        if directory is None:
            return
        for path in sorted(directory.glob("*.jsonl")):
            agent_id = path.stem
            meta_path = path.with_suffix(".json")
            meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
            options = dict(self.config.agent_options(meta.get("model")))
            if meta.get("system") is not None:
                options["system_prompt"] = meta["system"]
            journal = JsonlJournal(path, fsync="turn")
            holder: list[Agent] = []

            def machine(holder: list[Agent] = holder) -> MealyMachine:
                return create_conversation_machine(holder[0].prices)

            feed = self._feed(agent_id, journal, machine)
            agent = await self._resume(agent_id, journal, feed, options)
            holder.append(agent)
            served = self.agents[agent_id] = Served(agent, feed, meta.get("model"))
            served.task = self._spawn(agent.wait())

    def _feed(self, agent_id: str, journal: Journal, machine: Callable[[], MealyMachine]) -> Feed:
        config = self.config
        return Feed(agent_id, journal, machine, max_frames=config.max_frames, flush=config.flush)

    def _build(
        self, agent_id: str, journal: Journal, feed: Feed, options: Mapping[str, Any]
    ) -> Agent:
        registry, kind = self.config.registry, self.config.agent_type
        if registry is None or kind is None:
            return Agent(agent_id=agent_id, journal=journal, presenters=[feed], **options)
        rest = dict(options)  # tools add to the definition's (its spawn tools stay)
        tools = rest.pop("tools", ())
        return registry.create(
            kind, journal=journal, presenters=[feed], agent_id=agent_id, tools=tools, **rest
        )

    async def _resume(
        self, agent_id: str, journal: Journal, feed: Feed, options: Mapping[str, Any]
    ) -> Agent:
        registry, kind = self.config.registry, self.config.agent_type
        if registry is None or kind is None:
            return await Agent.resume(journal, agent_id=agent_id, presenters=[feed], **options)
        rest = dict(options)
        tools = rest.pop("tools", ())
        return await registry.resume(
            kind, journal, agent_id=agent_id, presenters=[feed], tools=tools, **rest
        )

    def get(self, agent_id: str) -> Served:
        served = self.agents.get(agent_id)
        if served is None:
            raise _HttpError(404, f"no agent {agent_id!r}")
        return served

    def get_or_create(self, agent_id: str) -> Served:
        return self.agents.get(agent_id) or self.create(None, agent_id, None)

    async def aclose(self) -> None:
        for served in list(self.agents.values()):
            await served.agent.aclose()
            served.feed.close()
            journal = served.agent.journal
            if journal is not None:
                journal.close()
        self.agents.clear()

    # -- runs ----------------------------------------------------------------------------

    def _spawn(self, work: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        task.add_done_callback(_retrieve)
        return task

    async def start(self, served: Served, work: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``work`` (a prompt, an approval) as the agent's current run; raise 409 when
        the agent refused it at once (busy, nothing to approve...)."""
        journal = served.agent.journal
        served.run_seq = 0 if journal is None else journal.last_seq(served.agent.agent_id)
        task = self._spawn(work)
        await asyncio.sleep(0)  # a command the agent rejects raises before its first await
        if task.done() and task.exception() is not None:
            error = task.exception()
            raise _HttpError(409, str(error))
        served.task = task
        return task

    async def decide(self, served: Served, request: RunRequest) -> asyncio.Task[Any]:
        """Start what a protocol's run request asks: approvals, then a prompt."""
        agent = served.agent

        async def work() -> None:
            for call_id, approved, reason in request.decisions:
                if approved:
                    await agent.approve(call_id)
                else:
                    await agent.reject(call_id, reason)
            if request.prompt:
                await agent.prompt(request.prompt)
            await agent.wait()

        if not request.decisions and not request.prompt:
            raise _HttpError(400, "the request has neither a new user message nor an approval")
        return await self.start(served, work())


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # errors are the agent's state; never "never retrieved" warnings


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _HttpError(413, f"request body over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _HttpError(413, f"request body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request, limit: int) -> dict[str, Any]:
    raw = await _body(request, limit)
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise _HttpError(400, f"the body is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise _HttpError(400, "the body must be a JSON object")
    return value


def _text(body: Mapping[str, Any], key: str = "text") -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _HttpError(400, f"the body needs a non-empty string {key!r}")
    return value


def _optional_str(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise _HttpError(400, f"{key!r} must be a string")
    return value


def _protocol(name: str) -> StreamProtocol:
    try:
        protocol: StreamProtocol = wire_protocol(name)
    except ConfigurationError as exc:
        raise _HttpError(400, exc.message) from None
    return protocol


def _handled(
    handler: Callable[[_Server, Request], Awaitable[Response]], server: _Server
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(server, request)
        except _HttpError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        except AgentError as exc:
            return JSONResponse({"error": exc.message, "code": exc.code}, status_code=409)

    return endpoint


# -- routes --------------------------------------------------------------------------------


async def _page(server: _Server, request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})


async def _create(server: _Server, request: Request) -> Response:
    body = await _json(request, server.config.max_body)
    served = server.create(
        _optional_str(body, "model"), _optional_str(body, "agent_id"), _optional_str(body, "system")
    )
    return JSONResponse(_describe(served), status_code=201)


def _describe(served: Served) -> dict[str, Any]:
    agent = served.agent
    return {"agent_id": agent.agent_id, "model": served.model, "activity": agent.activity.value}


async def _list(server: _Server, request: Request) -> Response:
    return JSONResponse({"agents": [_describe(s) for s in server.agents.values()]})


async def _message(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    text = _text(await _json(request, server.config.max_body))
    await server.start(served, served.agent.prompt(text))
    return JSONResponse({"accepted": True, "after": served.run_seq}, status_code=202)


async def _steer(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    served.agent.steer(_text(await _json(request, server.config.max_body)))
    return JSONResponse({"accepted": True}, status_code=202)


async def _follow_up(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    served.agent.follow_up(_text(await _json(request, server.config.max_body)))
    return JSONResponse({"accepted": True}, status_code=202)


async def _approve(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    body = await _json(request, server.config.max_body)
    call_id = _text(body, "tool_call_id")
    approved = body.get("approved", True)
    if not isinstance(approved, bool):
        raise _HttpError(400, "'approved' must be true or false")
    decision = RunRequest(
        served.agent.agent_id, decisions=((call_id, approved, _optional_str(body, "reason")),)
    )
    await server.decide(served, decision)
    return JSONResponse({"accepted": True}, status_code=202)


async def _interrupt(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    served.agent.abort("user")
    return JSONResponse({"accepted": True}, status_code=202)


async def _state(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    agent = served.agent
    snapshot = agent.state
    journal = agent.journal
    return JSONResponse(
        {
            "agent_id": agent.agent_id,
            "model": served.model,
            "activity": snapshot.activity.value,
            "running": served.running,
            "last_seq": 0 if journal is None else journal.last_seq(agent.agent_id),
            "messages": [to_dict(m) for m in snapshot.messages if hasattr(m, "type")],
            "pending_approvals": [
                {"tool_call_id": c.tool_call_id, "tool_name": c.tool_name, "input": dict(c.input)}
                for c in snapshot.pending_approvals
            ],
        }
    )


def _journal_of(served: Served) -> Journal:
    journal = served.agent.journal
    if journal is None:  # pragma: no cover - the server always gives one
        raise _HttpError(500, "this agent has no journal")
    return journal


async def _timeline(server: _Server, request: Request) -> Response:
    """Every journal entry with the outputs it caused, layer by layer (the inspector)."""
    served = server.get(request.path_params["agent_id"])
    rows = []
    for entry, outputs in replay_steps(
        _journal_of(served), served.feed.machine_factory, agent_id=served.agent.agent_id
    ):
        rows.append(
            {
                "seq": entry.seq,
                "input": _row(entry.event),
                "outputs": [_row(o) for o in outputs if o is not entry.event],
            }
        )
    return JSONResponse({"entries": rows})


def _row(event: Any) -> dict[str, str]:
    kind = getattr(event, "type", type(event).__name__)
    return {"type": kind, "layer": LAYERS.get(kind, "input"), "text": describe(event)}


async def _state_at(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    raw = request.query_params.get("seq", "")
    if not raw.isdigit() or int(raw) < 1:
        raise _HttpError(400, "?seq= must be an entry number from 1")
    seq = int(raw)
    journal = _journal_of(served)
    last = journal.last_seq(served.agent.agent_id)
    if seq > last:
        raise _HttpError(400, f"the journal has {last} entries; ?seq= is at most {last}")
    state = state_at(
        journal, served.agent.agent_id, seq, machine_factory=served.feed.machine_factory
    )
    return JSONResponse({"seq": seq, "text": render_state(state)})


async def _download(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    lines = [
        dumps({"agent_id": e.agent_id, "seq": e.seq, "event": to_dict(e.event)}) + b"\n"
        for e in _journal_of(served).entries(served.agent.agent_id)
    ]
    name = f"{served.agent.agent_id}.jsonl"
    return Response(
        b"".join(lines),
        media_type="application/x-ndjson",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


def _cursor(request: Request, agent_id: str) -> Cursor | None:
    raw = request.headers.get("last-event-id") or request.query_params.get("after")
    if raw is None or not raw.strip():
        return None
    try:
        return parse_event_id(raw, agent_id)
    except ValueError as exc:
        raise _HttpError(400, str(exc)) from None


def _stream(
    server: _Server, reader: Reader, protocol: StreamProtocol, first: bytes = b""
) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield f"retry: {server.config.retry_ms}\n\n".encode() + first
        async for chunk in reader:
            yield chunk

    return EventSourceResponse(
        body(),
        headers={"cache-control": "no-store", "x-accel-buffering": "no", **protocol.headers},
        ping=server.config.ping,
        sep="\n",
        ping_message_factory=lambda: ServerSentEvent(comment="keep-alive", sep="\n"),
    )


async def _events(server: _Server, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    params = dict(request.query_params)
    protocol = _protocol(params.pop("protocol", "agentcore"))
    params.pop("after", None)
    params.pop("token", None)
    after = _cursor(request, served.agent.agent_id)
    try:
        reader = served.feed.read(protocol, params, after)
    except ValueError as exc:
        raise _HttpError(400, str(exc)) from None
    first = b""
    if after is None and isinstance(protocol, RunProtocol):
        first = "".join(
            sse_frame(d, e) for e, d in protocol.snapshot(served.agent.state.messages)
        ).encode()
    return _stream(server, reader, protocol, first)


async def _run_endpoint(server: _Server, request: Request, name: str) -> Response:
    protocol = _protocol(name)
    assert isinstance(protocol, RunProtocol)
    raw = await _body(request, server.config.max_body)
    try:
        run = protocol.parse_run(raw)
    except ValueError as exc:
        raise _HttpError(400, str(exc)) from None
    if not _AGENT_ID.match(run.agent_id):
        raise _HttpError(400, f"thread/chat id {run.agent_id!r} must match {_AGENT_ID.pattern}")
    served = server.get_or_create(run.agent_id)
    if served.running:
        raise _HttpError(409, f"agent {run.agent_id!r} is running; interrupt it or wait")
    run_id = run.run_id

    def prepare(state: Any) -> Any:
        return state if run_id is None else protocol.next_run(state, run_id)

    holder: list[asyncio.Task[Any]] = []
    reader = served.feed.read_run(protocol, prepare, lambda: bool(holder) and holder[0].done())
    try:
        task = await server.decide(served, run)
    except BaseException:
        reader.close()
        raise
    holder.append(task)
    task.add_done_callback(lambda _: reader.channel.wake())
    return _stream(server, reader, protocol)


async def _ag_ui(server: _Server, request: Request) -> Response:
    return await _run_endpoint(server, request, "ag-ui")


async def _chat(server: _Server, request: Request) -> Response:
    return await _run_endpoint(server, request, "vercel")


async def _chat_resume(server: _Server, request: Request) -> Response:
    served = server.agents.get(request.path_params["agent_id"])
    if served is None or not served.running:
        return Response(status_code=204)
    protocol = _protocol("vercel")
    after = _cursor(request, served.agent.agent_id) or Cursor(served.run_seq, 1 << 62)
    task = served.task
    reader = served.feed.read(protocol, {}, after, until=lambda: task is None or task.done())
    if task is not None:
        task.add_done_callback(lambda _: reader.channel.wake())
    return _stream(server, reader, protocol)


# -- the app -------------------------------------------------------------------------------


def create_app(config: ServeConfig) -> Starlette:
    """The ASGI app serving the agents ``config.agent_options`` builds (module docstring).
    Agents with a journal in ``config.journal_dir`` are resumed at startup; every agent is
    closed, and its journal synced, at shutdown."""
    server = _Server(config)
    if config.journal_dir is not None:
        config.journal_dir.mkdir(parents=True, exist_ok=True)

    def route(
        path: str, handler: Callable[[_Server, Request], Awaitable[Response]], methods: list[str]
    ) -> Route:
        return Route(path, _handled(handler, server), methods=methods)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.resume_all()
        try:
            yield
        finally:
            await server.aclose()

    agent = "/agents/{agent_id}"
    routes = [
        route("/", _page, ["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        route("/agents", _create, ["POST"]),
        route("/agents", _list, ["GET"]),
        route(f"{agent}/messages", _message, ["POST"]),
        route(f"{agent}/steer", _steer, ["POST"]),
        route(f"{agent}/follow_up", _follow_up, ["POST"]),
        route(f"{agent}/approve", _approve, ["POST"]),
        route(f"{agent}/interrupt", _interrupt, ["POST"]),
        route(f"{agent}/events", _events, ["GET"]),
        route(f"{agent}/state", _state, ["GET"]),
        route(f"{agent}/timeline", _timeline, ["GET"]),
        route(f"{agent}/state_at", _state_at, ["GET"]),
        route(f"{agent}/journal", _download, ["GET"]),
        route("/ag-ui", _ag_ui, ["POST"]),
        route("/chat", _chat, ["POST"]),
        route("/chat/{agent_id}/stream", _chat_resume, ["GET"]),
    ]
    middleware = [Middleware(_Auth, token=config.token)]
    if config.cors_origins:
        middleware.insert(
            0,
            Middleware(
                CORSMiddleware,
                allow_origins=list(config.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["authorization", "content-type", "last-event-id"],
            ),
        )
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = server
    app.state.protocols = protocol_names()
    return app
