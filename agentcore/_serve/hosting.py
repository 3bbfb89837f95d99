"""The served agents: how the app builds, resumes and runs them (``ServeConfig``, ``Host``).

``Host`` owns the agents of one app, each with its ``Feed``; the routes (``app``) call it.
A run is a background task: a client that disconnects cancels nothing.

With ``database_url``, the agents are durable (``agentcore.durable``): workers run them,
and each served agent is a ``DurableAgent`` that sends the commands and follows the
agent's journal and live stream into its ``Feed``, numbered as the journal numbers them,
so every protocol, and resuming by ``Last-Event-ID``, work as for agents in this process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import pathlib
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs

from .._agents.registry import AgentRegistry
from .._core.errors import AgentBusyError, AgentError, ConfigurationError
from .._core.machine import MealyMachine
from .._durable.client import DurableClient
from .._durable.remote import DurableAgent
from .._journal.journal import Journal, JsonlJournal, MemoryJournal
from .._loop.conversation import create_conversation_machine
from .._runtime.agent import Agent
from .feed import Feed
from .guard import check_origin
from .protocol import RunRequest

__all__ = ["AGENT_ID", "AgentOptions", "Host", "HttpError", "ServeConfig", "Served"]

_log = logging.getLogger("agentcore.serve")

AGENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""What an agent id (an AG-UI thread id, a Vercel chat id) may be."""

AgentOptions = Callable[[str | None], Mapping[str, Any]]
"""``options(model)``: the ``Agent`` options (``model`` as a driver or ``"provider/model"``,
``tools``, ``system_prompt``...) for an agent asked for ``model`` (None: the default)."""


@attrs.frozen
class ServeConfig:
    """How the app behaves. ``agent_options`` builds agents (``AgentOptions``);
    ``journal_dir`` keeps each agent's journal as ``<dir>/<agent_id>.jsonl`` so a restarted
    server resumes them (None: in memory); ``token`` guards every API route;
    ``allow_origins`` are the origins of frontends served elsewhere that may drive the
    agents (CORS is answered for them; none by default); ``allow_hosts`` the ``Host``
    names served besides IP literals and ``localhost`` (``"*"``: any; docs/serve.md,
    "Security"); ``max_body`` caps a request body in bytes;
    ``max_frames`` caps each stream's buffer (a client further behind is cut and resumes);
    ``flush`` the least time between two writes to a stream's clients, in seconds (frames
    made meanwhile go out together: a fast stream costs each client at most ``1/flush``
    writes a second); ``ping`` is the keep-alive comment interval in seconds; ``retry_ms``
    the reconnection delay sent to clients. With a ``registry``
    (``agentcore.agents.AgentRegistry``), every agent is the root of a tree of the
    definition ``agent_type`` (its options override the definition's), so it may spawn
    sub-agents, whose events every stream carries. With ``database_url`` (a
    ``postgresql://`` URL), the agents are durable: workers on that database run them,
    ``definition`` is the definition a new agent runs when its creation names none (as
    ``model``), and every agent the database holds is served (docs/serve.md)."""

    agent_options: AgentOptions
    journal_dir: pathlib.Path | None = None
    token: str | None = None
    allow_origins: Sequence[str] = ()
    allow_hosts: Sequence[str] = ()
    max_body: int = 1 << 20
    max_frames: int = 4096
    flush: float = 0.02
    ping: float = 15.0
    retry_ms: int = 2000
    registry: AgentRegistry | None = None
    agent_type: str | None = None
    database_url: str | None = None
    definition: str | None = None
    mounts: Sequence[tuple[str, Callable[[Host], Any]]] = ()
    """Apps served beside the routes: ``(path, make)``, ``make(host)`` giving the ASGI app
    mounted at ``path``, behind the same guard (``agentcore serve --a2a`` mounts A2A)."""

    def __attrs_post_init__(self) -> None:
        for origin in self.allow_origins:
            try:
                check_origin(origin)
            except ValueError as exc:
                raise ConfigurationError(f"ServeConfig: allow_origins: {exc}") from None
        if self.database_url is not None and self.registry is not None:
            raise ConfigurationError(
                "ServeConfig: durable agents (database_url) take their definitions from "
                "the workers; drop registry and agent_type"
            )
        if (self.registry is None) != (self.agent_type is None):
            raise ConfigurationError(
                "ServeConfig: give both registry and agent_type (the served agents' "
                "definition), or neither"
            )


class Served:
    """One agent on the server: its feed, the model it was asked for, its current run."""

    def __init__(self, agent: Agent | DurableAgent, feed: Feed, model: str | None) -> None:
        self.agent = agent
        self.feed = feed
        self.model = model
        self.task: asyncio.Task[Any] | None = None
        self.run_seq = 0
        """The journal's last entry before the current run began (its frames come after)."""

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Host:
    """The agents of one app and what its routes do with them (module docstring)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.agents: dict[str, Served] = {}
        self.background: set[asyncio.Task[Any]] = set()
        self._counter = 0
        self.client: DurableClient | None = None
        """The durable agents' client (``database_url``), made by ``open``."""
        self.unreadable: dict[str, str] = {}
        """Agents whose journal could not be resumed at startup, with the reason."""
        self.closers: list[Callable[[], Awaitable[None]]] = []
        """Awaited at shutdown before the agents are closed (a mounted app's own)."""

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
        if self.client is not None:
            try:
                self.client.store.definition_of(agent_id)
            except KeyError:
                return False
            return True
        directory = self.config.journal_dir
        return directory is not None and (directory / f"{agent_id}.jsonl").exists()

    async def open(self) -> None:
        """Connect to the durable agents' database and follow every agent it holds, or
        resume the agents whose journal is in ``journal_dir``."""
        url = self.config.database_url
        if url is None:
            await self.resume_all()
            return
        self.client = client = DurableClient(url)
        for agent_id, definition in await asyncio.to_thread(client.store.agents):
            served = self._durable(agent_id, definition)
            assert isinstance(served.agent, DurableAgent)
            await served.agent.load()
            served.agent.start()

    def _durable(self, agent_id: str, definition: str) -> Served:
        assert self.client is not None
        agent = DurableAgent(self.client, agent_id, definition)
        feed = self._feed(agent_id, agent.journal, create_conversation_machine)
        agent.presenters, agent.on_rewind = (feed,), feed.rewound
        served = self.agents[agent_id] = Served(agent, feed, definition)
        return served

    def create(self, model: str | None, agent_id: str | None, system: str | None) -> Served:
        if agent_id is None:
            agent_id = self._new_id()
        elif not AGENT_ID.match(agent_id):
            raise HttpError(400, f"agent id {agent_id!r} must match {AGENT_ID.pattern}")
        self._refuse_unreadable(agent_id)
        if agent_id in self.agents or self._journal_exists(agent_id):
            raise HttpError(409, f"agent {agent_id!r} exists already")
        if self.client is not None:
            return self._new_durable(agent_id, model, system)
        try:
            options = dict(self.config.agent_options(model))
        except ConfigurationError as exc:  # a model the client named cannot run
            named = "the server's model" if model is None else f"model {model!r}"
            raise HttpError(400, f"{named} cannot run: {exc.message}") from None
        if system is not None:
            options["system_prompt"] = system
        journal = self._journal(agent_id)
        feed = self._feed(agent_id, journal, lambda: create_conversation_machine(agent.prices))
        agent = self._build(agent_id, journal, feed, options)
        if self.config.journal_dir is not None:
            meta = self.config.journal_dir / f"{agent_id}.json"
            meta.write_text(json.dumps({"model": model, "system": system}), encoding="utf-8")
        served = self.agents[agent_id] = Served(agent, feed, model or _model_name(options))
        return served

    def _new_durable(self, agent_id: str, definition: str | None, system: str | None) -> Served:
        if system is not None:
            raise HttpError(400, "a durable agent's system prompt is its definition's")
        definition = definition or self.config.definition
        if definition is None:
            raise HttpError(400, 'name the agent\'s definition: {"model": DEFINITION}')
        served = self._durable(agent_id, definition)
        assert isinstance(served.agent, DurableAgent)
        served.agent.start()
        return served

    async def resume_all(self) -> None:
        """Resume every agent whose journal is in ``journal_dir`` (a restarted server).
        A journal that cannot be read keeps its agent out (``unreadable``, logged), never
        the others."""
        directory = self.config.journal_dir
        if directory is None:
            return
        for path in sorted(directory.glob("*.jsonl")):
            try:
                await self._resume_file(path)
            except (AgentError, OSError, ValueError) as exc:
                message = getattr(exc, "message", None) or str(exc)
                reason = message if str(path) in message else f"{path}: {message}"
                self.unreadable[path.stem] = reason
                _log.error("agentcore serve: agent %r not served: %s", path.stem, reason)

    async def _resume_file(self, path: pathlib.Path) -> None:
        agent_id = path.stem
        meta_path = path.with_suffix(".json")
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        options = dict(self.config.agent_options(meta.get("model")))
        if meta.get("system") is not None:
            options["system_prompt"] = meta["system"]
        journal = JsonlJournal(path, fsync="turn")
        holder: list[Agent] = []

        def machine() -> MealyMachine:
            return create_conversation_machine(holder[0].prices)

        feed = self._feed(agent_id, journal, machine)
        try:
            if journal.last_seq(agent_id) == 0:
                raise ConfigurationError(
                    f"it holds no entry of agent {agent_id!r} (it is empty, its first line "
                    "was cut short, or it is another agent's)"
                )
            agent = await self._resume(agent_id, journal, feed, options)
        except BaseException:
            feed.close()
            journal.close()
            raise
        holder.append(agent)
        model = meta.get("model") or _model_name(options)
        served = self.agents[agent_id] = Served(agent, feed, model)
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
        if served is not None:
            return served
        self._refuse_unreadable(agent_id)
        raise HttpError(404, f"no agent {agent_id!r}")

    def _refuse_unreadable(self, agent_id: str) -> None:
        reason = self.unreadable.get(agent_id)
        if reason is not None:
            raise HttpError(503, f"agent {agent_id!r} cannot be served: {reason}")

    def get_or_create(self, agent_id: str) -> Served:
        return self.agents.get(agent_id) or self.create(None, agent_id, None)

    async def aclose(self) -> None:
        for close in self.closers:
            await close()
        for served in list(self.agents.values()):
            await served.agent.aclose()
            served.feed.close()
            journal = served.agent.journal
            if journal is not None:
                journal.close()
        self.agents.clear()
        if self.client is not None:
            self.client.close()
            self.client = None

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
        error = task.exception() if task.done() else None
        if error is not None:
            raise HttpError(409, _refused(served.agent, error))
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
            if request.prompt or request.content:
                await agent.prompt(request.message())
            await agent.wait()

        if not request.decisions and not request.prompt and not request.content:
            raise HttpError(400, "the request has neither a new user message nor an approval")
        return await self.start(served, work())


def _model_name(options: Mapping[str, Any]) -> str | None:
    """The name of the model ``options`` run (a driver's ``model``, if it has one)."""
    model = options.get("model")
    return model if isinstance(model, str) else getattr(model, "model", None)


def _refused(agent: Agent | DurableAgent, error: BaseException) -> str:
    """What a client is told when the agent refuses a command at once, in HTTP terms."""
    if not isinstance(error, AgentBusyError):
        return getattr(error, "message", None) or str(error)
    path = f"/agents/{agent.agent_id}"
    waiting = [c.tool_call_id for c in agent.state.pending_approvals]
    if waiting:
        return f"the agent waits for a decision on {waiting}: POST {path}/approve"
    return (
        f"the agent is answering: POST {path}/steer to redirect it now, {path}/follow_up "
        f"to queue the message for when it finishes, or {path}/interrupt to stop it"
    )


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # errors are the agent's state; never "never retrieved" warnings
