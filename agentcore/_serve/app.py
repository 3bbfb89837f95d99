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
  ``.../journal`` (the JSONL download); time travel: ``GET .../view?seq=N`` (the whole
  state after entry N), ``POST .../branch`` (``{"seq"}``: a new agent from the entries up
  to N, going on live), ``GET .../compare?with=ID`` (two sessions and their layer diff);
- ``POST /ag-ui`` an AG-UI ``RunAgentInput`` (the thread is the agent) streams that run;
- ``POST /chat`` a Vercel AI SDK chat request streams that run; ``GET /chat/{id}/stream``
  resumes the run in progress (204 when there is none);
- ``ServeConfig.mounts``: apps mounted beside these (``agentcore serve --a2a``: A2A at
  ``/a2a/``, its agent card public as the page is).

Every request's ``Host`` must be a name no DNS-rebinding page can use; a state-changing
request must come from the page's own origin, an allowed one, or a client that is not a
browser; a body is JSON with its content type saying so (``guard``). With a ``token``,
every route but the page and its files needs ``Authorization: Bearer <token>`` (or
``?token=`` for ``EventSource``, which cannot set headers).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import pathlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from .._core.content import to_content
from .._core.errors import AgentError, ConfigurationError, InvalidEventError
from .._core.events import LAYERS, UserMessage
from .._core.wire import to_dict
from .._journal.describe import describe
from .._journal.journal import Journal
from .._journal.read import dumps
from .._journal.replay import replay_steps, state_at
from .._journal.state_view import render_state
from .._runtime.plugins import protocol_names, wire_protocol
from . import travel
from .feed import Reader
from .guard import host_refusal, normal_origin, origin_refusal
from .hosting import AGENT_ID, AgentOptions, Host, HttpError, ServeConfig, Served
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

_T = TypeVar("_T")


_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


class _Guard:
    """The security rules in front of every route (docs/serve.md, "Security"): a ``Host``
    that could be a rebound name is refused (403), then, with a token, every route but
    the page and its files needs it (401), and a state-changing request from a browser
    page of another origin is refused (403) unless it carries the token."""

    def __init__(self, app: ASGIApp, config: ServeConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = None if scope["type"] != "http" else self._refusal(Request(scope))
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        extra = {"www-authenticate": "Bearer"} if status == 401 else {}
        await JSONResponse({"error": message}, status_code=status, headers=extra)(
            scope, receive, send
        )

    def _refusal(self, request: Request) -> tuple[int, str] | None:
        headers, config = request.headers, self.config
        host = headers.get("host")
        wrong_host = host_refusal(host, config.allow_hosts)
        if wrong_host is not None:
            return 403, wrong_host
        token_ok = config.token is not None and hmac.compare_digest(
            _given_token(request).encode(), config.token.encode()
        )
        guarded = not _public(request.url.path) and request.method != "OPTIONS"  # a preflight
        if config.token is not None and not token_ok and guarded:
            return 401, "missing or wrong bearer token (Authorization: Bearer <token>)"
        if request.method in _SAFE or token_ok:
            return None
        foreign = origin_refusal(
            headers.get("origin"), headers.get("sec-fetch-site"), host, config.allow_origins
        )
        return None if foreign is None else (403, foreign)


def _given_token(request: Request) -> str:
    given = request.headers.get("authorization", "")
    if given.lower().startswith("bearer "):
        return given[7:]
    return request.query_params.get("token", "")


def _public(path: str) -> bool:
    """The page, its files, and a mounted A2A app's agent card (clients read it first)."""
    return (
        path == "/" or path.startswith("/static/") or path.endswith("/.well-known/agent-card.json")
    )


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HttpError(413, f"request body over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HttpError(413, f"request body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, limit: int) -> bytes:
    """The body of a route that reads JSON: it must say so (``Content-Type:
    application/json``, which no cross-site form or ``no-cors`` fetch can send)."""
    raw = await _body(request, limit)
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if raw.strip() and kind != "application/json":
        raise HttpError(
            415, f"send the body as JSON with Content-Type: application/json (got {kind!r})"
        )
    return raw


def _parsed(parse: Callable[[bytes], _T], raw: bytes) -> _T:
    """``parse(raw)``, a body nested too deep for the parser being the client's fault."""
    try:
        return parse(raw)
    except RecursionError:
        raise HttpError(400, "the body's JSON is nested too deeply to read") from None


async def _json(request: Request, limit: int) -> dict[str, Any]:
    raw = await _json_body(request, limit)
    if not raw.strip():
        return {}
    try:
        value = _parsed(json.loads, raw)
    except ValueError as exc:
        raise HttpError(400, f"the body is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise HttpError(400, "the body must be a JSON object")
    return value


def _text(body: Mapping[str, Any], key: str = "text") -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise HttpError(400, f"the body needs a non-empty string {key!r}")
    return value


def _optional_str(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise HttpError(400, f"{key!r} must be a string")
    return value


def _protocol(name: str) -> StreamProtocol:
    try:
        protocol: StreamProtocol = wire_protocol(name)
    except ConfigurationError as exc:
        raise HttpError(400, exc.message) from None
    return protocol


def _handled(
    handler: Callable[[Host, Request], Awaitable[Response]], server: Host
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(server, request)
        except HttpError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        except AgentError as exc:
            return JSONResponse({"error": exc.message, "code": exc.code}, status_code=409)

    return endpoint


# -- routes --------------------------------------------------------------------------------


async def _page(server: Host, request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})


async def _create(server: Host, request: Request) -> Response:
    body = await _json(request, server.config.max_body)
    served = server.create(
        _optional_str(body, "model"), _optional_str(body, "agent_id"), _optional_str(body, "system")
    )
    return JSONResponse(_describe(served), status_code=201)


def _describe(served: Served) -> dict[str, Any]:
    agent = served.agent
    return {"agent_id": agent.agent_id, "model": served.model, "activity": agent.activity.value}


async def _list(server: Host, request: Request) -> Response:
    unreadable = [{"agent_id": a, "error": e} for a, e in server.unreadable.items()]
    agents = [_describe(s) for s in server.agents.values()]
    return JSONResponse({"agents": agents, "unreadable": unreadable})


async def _message(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    message = _user_message(await _json(request, server.config.max_body))
    await server.start(served, served.agent.prompt(message))
    return JSONResponse({"accepted": True, "after": served.run_seq}, status_code=202)


def _user_message(body: Mapping[str, Any]) -> str | UserMessage:
    """``{"text"}``, or ``{"text"?, "content": [content parts, wire form]}``: files the
    page attached (images, documents, audio), after the text when there is one."""
    if body.get("content") is None:
        return _text(body)
    parts = body["content"]
    text = body.get("text") or ""
    if not isinstance(text, str):
        raise HttpError(400, "'text' must be a string")
    if not isinstance(parts, list) or not parts:
        raise HttpError(400, "'content' must be a non-empty list of content parts")
    try:
        content = to_content([{"type": "text", "text": text}, *parts] if text.strip() else parts)
    except InvalidEventError as exc:
        raise HttpError(400, f"'content' {exc.message}") from None
    return UserMessage("", content)


async def _steer(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    served.agent.steer(_text(await _json(request, server.config.max_body)))
    return JSONResponse({"accepted": True}, status_code=202)


async def _follow_up(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    served.agent.follow_up(_text(await _json(request, server.config.max_body)))
    return JSONResponse({"accepted": True}, status_code=202)


async def _approve(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    body = await _json(request, server.config.max_body)
    call_id = _text(body, "tool_call_id")
    approved = body.get("approved", True)
    if not isinstance(approved, bool):
        raise HttpError(400, "'approved' must be true or false")
    decision = RunRequest(
        served.agent.agent_id, decisions=((call_id, approved, _optional_str(body, "reason")),)
    )
    await server.decide(served, decision)
    return JSONResponse({"accepted": True}, status_code=202)


async def _interrupt(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    served.agent.abort("user")
    return JSONResponse({"accepted": True}, status_code=202)


async def _state(server: Host, request: Request) -> Response:
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
        raise HttpError(500, "this agent has no journal")
    return journal


async def _timeline(server: Host, request: Request) -> Response:
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


async def _state_at(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    raw = request.query_params.get("seq", "")
    if not raw.isdigit() or int(raw) < 1:
        raise HttpError(400, "?seq= must be an entry number from 1")
    seq = int(raw)
    journal = _journal_of(served)
    last = journal.last_seq(served.agent.agent_id)
    if seq > last:
        raise HttpError(400, f"the journal has {last} entries; ?seq= is at most {last}")
    state = state_at(
        journal, served.agent.agent_id, seq, machine_factory=served.feed.machine_factory
    )
    return JSONResponse({"seq": seq, "text": render_state(state)})


# -- time travel (travel.py; the page's travel.js) ------------------------------------------


async def _view(server: Host, request: Request) -> Response:
    raw = request.query_params.get("seq")
    if raw is not None and not raw.isdigit():
        raise HttpError(400, "?seq= must be an entry number from 1")
    served = server.get(request.path_params["agent_id"])
    return JSONResponse(travel.view_at(served, None if raw is None else int(raw)))


async def _branch(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    body = await _json(request, server.config.max_body)
    seq = body.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise HttpError(400, "'seq' must be the entry number to branch after")
    branched = await travel.branch(server, served, seq, _optional_str(body, "model"))
    return JSONResponse(_describe(branched), status_code=201)


async def _compare(server: Host, request: Request) -> Response:
    other = request.query_params.get("with", "")
    if not other:
        raise HttpError(400, "?with= must name the session to compare with")
    left = server.get(request.path_params["agent_id"])
    return JSONResponse(travel.compare(left, server.get(other)))


async def _download(server: Host, request: Request) -> Response:
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
        raise HttpError(400, str(exc)) from None


def _stream(server: Host, reader: Reader, protocol: StreamProtocol, first: bytes = b"") -> Response:
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


async def _events(server: Host, request: Request) -> Response:
    served = server.get(request.path_params["agent_id"])
    params = dict(request.query_params)
    protocol = _protocol(params.pop("protocol", "agentcore"))
    params.pop("after", None)
    params.pop("token", None)
    after = _cursor(request, served.agent.agent_id)
    try:
        reader = served.feed.read(protocol, params, after)
    except ValueError as exc:
        raise HttpError(400, str(exc)) from None
    first = b""
    if after is None and isinstance(protocol, RunProtocol):
        first = "".join(
            sse_frame(d, e) for e, d in protocol.snapshot(served.agent.state.messages)
        ).encode()
    return _stream(server, reader, protocol, first)


async def _run_endpoint(server: Host, request: Request, name: str) -> Response:
    protocol = _protocol(name)
    assert isinstance(protocol, RunProtocol)
    raw = await _json_body(request, server.config.max_body)
    try:
        run = _parsed(protocol.parse_run, raw)
    except ValueError as exc:
        raise HttpError(400, str(exc)) from None
    if not AGENT_ID.match(run.agent_id):
        raise HttpError(400, f"thread/chat id {run.agent_id!r} must match {AGENT_ID.pattern}")
    served = server.get_or_create(run.agent_id)
    if served.running:
        raise HttpError(409, f"agent {run.agent_id!r} is running; interrupt it or wait")
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


async def _ag_ui(server: Host, request: Request) -> Response:
    return await _run_endpoint(server, request, "ag-ui")


async def _chat(server: Host, request: Request) -> Response:
    return await _run_endpoint(server, request, "vercel")


async def _chat_resume(server: Host, request: Request) -> Response:
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
    server = Host(config)
    if config.journal_dir is not None:
        config.journal_dir.mkdir(parents=True, exist_ok=True)

    def route(
        path: str, handler: Callable[[Host, Request], Awaitable[Response]], methods: list[str]
    ) -> Route:
        return Route(path, _handled(handler, server), methods=methods)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.open()
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
        route(f"{agent}/view", _view, ["GET"]),
        route(f"{agent}/branch", _branch, ["POST"]),
        route(f"{agent}/compare", _compare, ["GET"]),
        route("/ag-ui", _ag_ui, ["POST"]),
        route("/chat", _chat, ["POST"]),
        route("/chat/{agent_id}/stream", _chat_resume, ["GET"]),
        *(Mount(path, app=make(server)) for path, make in config.mounts),
    ]
    middleware = [Middleware(_Guard, config=config)]
    if config.allow_origins:  # inside the guard: a preflight's Host is checked too
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=[normal_origin(o) for o in config.allow_origins],
                allow_methods=["GET", "POST"],
                allow_headers=["authorization", "content-type", "last-event-id"],
            )
        )
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = server
    app.state.protocols = protocol_names()
    return app
