"""``Agent``: the one runtime. A model, tools and limits behind both vocabularies.

The agent vocabulary (``prompt``, ``run``, ``stream``, ``steer``, ``follow_up``,
``approve``, ``reject``, ``answer_elicitation``, ``abort``, ``continue_``, ``subscribe``,
``aclose``) and the seed's engine vocabulary (``receive``, ``on``, ``react``, ``use``...)
drive one conversation processor through one ``Conversation``: every input is stamped,
scrubbed, journaled, folded; outputs are delivered; effects performed
(``LocalPerformer``). The agent decides nothing itself; a command the processor rejects
raises there. This module holds construction and the lifecycle; the rest is mixed in:
the options checked into ``AgentConfig`` (``agent_config``), the runs API (``runs_api``)
over the fold and the waiting on runs (``run_fold``), the journal lane and ``resume``
(``agent_journal``), the seed's vocabulary (``seed_api``), plugin registration
(``plugin_use``).

``model`` is a driver or a ``"provider/model"`` string, resolved on first use by
``driver_factory`` (default: the ``agentcore.drivers`` entry points, see ``plugins``), or
a list of them: a fallback chain (``FallbackDriver``, see ``fallback``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from .._core.agent_processor import activity_of
from .._core.caching import Cache
from .._core.driver import ThinkingLevel
from .._core.errors import ConfigurationError
from .._core.pricing import ModelPrice
from .._core.processor import AnyProcessor
from .._core.state_machine import AgentState
from .._edges.clock import ms_clock, new_id
from .._edges.driver import Driver
from .._journal.journal import Journal
from .._journal.lanes import claim_lane
from .._loop.compaction import Compaction, Strategy
from .._loop.conversation import (
    AgentSnapshot,
    ConversationState,
    create_conversation,
    snapshot_of,
)
from .._loop.events import (
    AgentConfigured,
    AgentReset,
    AwaitApproval,
    AwaitElicitation,
    Finish,
)
from .._loop.state import QueueMode, SteeringPolicy, default_convert_to_llm
from .._loop.tools import Tool
from .actions import Middleware
from .agent_config import AgentConfig
from .agent_journal import JournalLane
from .continuing import SessionRef, open_session
from .delivery import EngineFailure
from .extensions import Extension, Hooks
from .guardrails import Guardrail
from .outlet import Outlet
from .plugin_use import PluginUse
from .run_result import AgentResult
from .runs_api import RunsAPI
from .seed_api import SeedAPI
from .subscriptions import Handler, Unsubscribe
from .toolsets import Toolset

if TYPE_CHECKING:
    from .._journal.snapshots import SnapshotStore

__all__ = ["Agent", "AgentResult", "create_agent"]


class Agent(SeedAPI, PluginUse, RunsAPI, JournalLane):
    """An agent run by the pure conversation processor (``processor``). See docs/agent.md.

    Limits (``max_iterations``, ``max_tokens``, ``max_cost`` in USD, ``timeout`` in
    seconds) apply to every run and can be overridden per run. ``presenters`` get every
    output of every layer in order, each on its isolated lane. ``journal`` records every
    input before it is folded; ``Agent.resume`` rebuilds an agent from it. ``session``
    (or ``journal`` with ``session_id``) continues the conversation the journal holds
    under that id, or starts it (docs/sessions.md).
    ``processors`` (``{name: (processor, initial_state)}``) join the conversation
    processor: each sees every input and output; its outputs are delivered too.
    ``middleware``, ``extensions`` and the ``*_guardrails`` bend runs without forking the
    loop (docs/middleware.md). ``toolsets`` (MCP servers, or other ``Toolset``s) add
    their tools to ``tools``; the agent owns them: entered before the first run, listed
    before each run and when they announce a change, left in ``aclose`` (see
    ``_runtime.toolsets``). ``compaction`` keeps what each request sends under the
    model's context window (docs/compaction.md); ``cache`` asks the provider to cache
    the prompt's prefix (``True``: automatic; a run may pass its own; docs/caching.md).
    ``base_url`` and ``api_key`` go to the
    driver a ``"provider/model"`` string names. Raises ``ConfigurationError`` for bad
    options (naming the option and the value).
    """

    def __init__(
        self,
        model: str | Driver | Sequence[str | Driver] | Any,
        *,
        system_prompt: str | None = None,
        tools: Sequence[Tool] = (),
        toolsets: Sequence[Toolset] = (),
        processors: Mapping[str, tuple[AnyProcessor, Callable[[], Any]]] | None = None,
        max_iterations: int | None = 10,
        max_tokens: int | None = None,
        max_cost: float | None = None,
        timeout: float | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        steering_policy: SteeringPolicy = "skip",
        tool_execution: str = "parallel",
        convert_to_llm: Callable[[Sequence[Any]], Sequence[Any]] = default_convert_to_llm,
        transform_context: Callable[[tuple[Any, ...]], Sequence[Any]] | None = None,
        thinking_level: ThinkingLevel | None = None,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
        price: ModelPrice | None = None,
        compaction: Compaction | Strategy | Sequence[Strategy] | None = None,
        cache: Cache | bool | None = None,
        model_retries: int = 0,
        retry_delay: float = 1.0,
        messages: Sequence[Any] = (),
        driver_factory: Callable[[str], Driver] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        presenters: Sequence[Any] = (),
        journal: Journal | None = None,
        snapshots: SnapshotStore | None = None,
        snapshot_every: int = 1000,
        session: SessionRef | None = None,
        session_id: str | None = None,
        agent_id: str | None = None,
        clock: Callable[[], int] = ms_clock,
        id_factory: Callable[[], str] = new_id,
        max_pending: int = 10_000,
        close_timeout: float = 5.0,
        deps: Any = None,
        middleware: Sequence[Middleware] = (),
        extensions: Sequence[Extension] = (),
        input_guardrails: Sequence[Callable[..., Any] | Guardrail] = (),
        output_guardrails: Sequence[Callable[..., Any] | Guardrail] = (),
        tool_guardrails: Sequence[Callable[..., Any] | Guardrail] = (),
    ) -> None:
        fixed = (  # every option but tools, system_prompt and deps, as _FIXED names them
            toolsets, processors, max_iterations, max_tokens, max_cost, timeout,
            steering_mode, follow_up_mode, steering_policy, tool_execution, convert_to_llm,
            transform_context, thinking_level, max_output_tokens, temperature, price,
            compaction, cache, model_retries, retry_delay, messages, driver_factory,
            base_url, api_key, presenters, journal, snapshots, snapshot_every, session,
            session_id, agent_id, clock, id_factory, max_pending, close_timeout, middleware,
            extensions, input_guardrails, output_guardrails, tool_guardrails,
        )  # fmt: skip
        if _deferrable(model, fixed, tools, system_prompt):  # built on first use
            self._deferred = (model, tools, system_prompt, deps)
            self.created_at = ms_clock()
            return
        options = locals()
        del options["self"], options["fixed"]
        self._start(AgentConfig.of(**options))

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """Build a deferred agent (``_deferrable``) on first use of what it holds."""
            deferred = self.__dict__.pop("_deferred", None)
            if deferred is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            model, tools, system_prompt, deps = deferred
            options = {**_OPTIONS, "tools": tools, "system_prompt": system_prompt, "deps": deps}
            self._start(AgentConfig.of(model, **options), self.created_at)
            return getattr(self, name)

    @classmethod
    def configure(
        cls, model: str | Driver | Sequence[str | Driver] | Any, **options: Any
    ) -> AgentConfig:
        """The checked ``AgentConfig`` that ``Agent(model, **options)`` is built from (the
        options left out take their defaults): one immutable object to share and build
        agents from (``from_config``). Raises ``TypeError`` naming an unknown option."""
        unknown = sorted(options.keys() - _OPTIONS.keys())
        if unknown:
            raise TypeError(f"Agent takes no option {', '.join(map(repr, unknown))}")
        return AgentConfig.of(model, **{**_OPTIONS, **options})

    @classmethod
    def from_config(cls, config: AgentConfig) -> Self:
        """An agent built from ``config`` (``configure``'s): the same as ``Agent(model,
        **options)``, without checking the options again."""
        agent = cls.__new__(cls)
        agent._start(config)
        return agent

    def _start(self, c: AgentConfig, created_at: int | None = None) -> None:
        self.agent_config = c
        """The options the agent was built with, checked (``AgentConfig``)."""
        self.config = c.loop
        """The loop configuration now (its tools change as toolsets list theirs)."""
        self.prices = c.prices
        self._driver: Driver | None = None if isinstance(c.model, str) else c.model
        self._hooks = Hooks()
        self._transform = self._hooks.transform(c.loop.transform_context)
        self._clock, self._new_id = c.clock, c.id_factory
        journal, snapshots, agent_id, continuing = open_session(
            c.session, c.session_id, c.journal, c.snapshots, c.agent_id
        )
        if continuing and c.messages:
            raise ConfigurationError(f"session {agent_id!r} has a history already: drop messages=")
        self.agent_id = agent_id or f"agent_{c.id_factory()}"
        self.created_at = c.clock() if created_at is None else created_at
        if journal is not None and not continuing and journal.last_seq(self.agent_id):
            raise ConfigurationError(
                f"journal {journal!r} already holds agent {self.agent_id!r}'s conversation; "
                "continue it with await Agent.resume(journal, ...)"
            )
        self._outlet = outlet = Outlet(self.agent_id, c.presenters, c.max_pending)
        self.processor, self._initial_state = create_conversation(c.processors)
        self._wire(c, outlet, None if continuing else journal, snapshots)
        self.deps = c.deps
        """What tools get as ``ToolContext.deps`` (a run may pass its own: ``deps=``)."""
        self._waiters: list[asyncio.Future[None]] = []
        self._last_pause: Finish | AwaitApproval | AwaitElicitation | None = None
        self._forget: int | None = None
        self._closed = False
        self._seed_api()
        if journal is not None and not continuing:
            claim_lane(journal, self.agent_id)  # one writer per agent: refused here
        self._shell.feed(AgentConfigured(self.config.to_wire()))
        if c.messages:
            self._shell.feed(AgentReset(c.messages))
        if continuing:
            assert journal is not None
            self._continue_session(journal)
        for extension in c.extensions:
            self.use(extension, kind="extension")

    # -- what the agent holds and does -----------------------------------------------------

    @property
    def state(self) -> AgentSnapshot:
        """A snapshot: activity, history, what runs or waits, queues, the last error."""
        return snapshot_of(self._shell.state)

    @property
    def activity(self) -> AgentState:
        """What the agent is doing now (``state.activity``)."""
        return activity_of(self._shell.state.core)

    @property
    def conversation_state(self) -> ConversationState:
        """The whole conversation state (``core``, ``loop``, and your processors')."""
        return self._shell.state

    @property
    def is_destroyed(self) -> bool:
        return self._closed

    # -- subscriptions --------------------------------------------------------------------

    def subscribe(
        self,
        target: Handler | str | Iterable[str] | Mapping[str, Handler],
        handler: Handler | None = None,
    ) -> Unsubscribe:
        """``subscribe(h)``, ``subscribe(type, h)``, ``subscribe([types], h)`` or
        ``subscribe({type: h})``: call the handler with each delivered output (what
        presenters get), of any type or of the given wire types (an unknown type raises
        ``ValueError``). Returns one idempotent unsubscribe for all of them. A handler
        that raises is reported (``on_error``) and skipped. Alias: ``on``."""
        return self._outlet.subscribe(target, handler)

    def on_error(self, handler: Callable[[EngineFailure], object]) -> Unsubscribe:
        """Receive an ``EngineFailure`` for each presenter, handler, interceptor or journal
        failure (logged on ``agentcore.engine`` when nobody listens)."""
        return self._outlet.on_error(handler)

    def relay(self, output: Any) -> Awaitable[None] | None:
        """Deliver ``output``, which this agent did not fold (a sub-agent's
        ``SubagentEvent``), through its interceptors to its presenters and subscribers;
        it is not journaled. Returns an awaitable while a presenter is congested: await
        it before relaying more (backpressure), as the agent does for its own outputs."""
        outlet = self._outlet
        outlet.send(output)
        return outlet.relieve() if outlet.congested else None

    # -- lifecycle ------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the agent; idempotent. Queued ``receive`` messages are rejected, the
        active run is aborted and wound down, async presenters get at most
        ``close_timeout`` seconds to finish (a stuck one is reported and dropped), destroy
        handlers run, the journal is synced, and a driver the agent resolved from a model
        name (or a fallback chain it built from a list) is closed; its toolsets are left
        (an MCP server closes when its last user leaves). Afterwards ``prompt``/``receive``
        raise ``EngineClosedError``. Alias: ``destroy``."""
        if self._closed:
            return
        self._closed = True
        self._inbox.close(self.agent_id)
        self.abort("closed")
        await self._performer.aclose()
        if self._toolsets is not None:
            await self._toolsets.aclose()
        await self._inbox.wait()
        await self._outlet.drain(self.agent_config.close_timeout)
        self._outlet.cancel()
        self._call_handlers(self._destroy_handlers)
        self._sync_journal()
        self._release_journal()
        if self.agent_config.owns_driver and self._driver is not None:
            await self._driver.aclose()

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until async presenters have caught up (at most ``timeout`` seconds)."""
        return await self._outlet.drain(timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


_OPTIONS: dict[str, Any] = {
    name: p.default
    for name, p in inspect.signature(Agent.__init__).parameters.items()
    if p.kind is p.KEYWORD_ONLY
}
"""Every option of ``Agent`` with its default (``Agent.configure`` fills them in)."""

_FIXED = tuple(name for name in _OPTIONS if name not in ("tools", "system_prompt", "deps"))
"""The options a deferred agent leaves at their defaults, in the order ``__init__``'s
``fixed`` tuple lists their values (``tests/runtime/test_agent_construction.py`` holds
the two equal)."""
_FIXED_DEFAULTS = tuple(_OPTIONS[name] for name in _FIXED)
_FIXED_TYPES = tuple(map(type, _FIXED_DEFAULTS))


def _deferrable(model: Any, fixed: tuple[Any, ...], tools: Any, system_prompt: Any) -> bool:
    """Whether ``Agent(model, ...)`` can be checked here in a few steps and built on first
    use: a model name or an object with ``receive`` (no fallback list), tools that are
    ``Tool`` objects with distinct names, a ``str`` system prompt or none, any ``deps``,
    and every other option (``fixed``) at its default: equal to it and of its type
    (``False`` is not the default ``0``, nor ``10.0`` the default ``10``), which two tuple
    comparisons tell at C speed. Any other agent is checked and built at once
    (``AgentConfig.of``), so a bad option still raises at construction."""
    if fixed != _FIXED_DEFAULTS or tuple(map(type, fixed)) != _FIXED_TYPES:
        return False
    if type(model) is not str and not callable(getattr(model, "receive", None)):
        return False  # a fallback list, or what as_driver refuses
    if type(tools) is not list and type(tools) is not tuple:
        return False
    names = set()
    for t in tools:
        if type(t) is not Tool:
            return False
        names.add(t.name)
    return (system_prompt is None or type(system_prompt) is str) and len(names) == len(tools)


def create_agent(
    driver: Driver | Any,
    presenters: Sequence[Any] = (),
    **options: Any,
) -> Agent:
    """The seed's factory: ``Agent(driver, presenters=presenters, **options)``."""
    return Agent(driver, presenters=presenters, **options)
