"""``Agent``: the one runtime. A model, tools and limits behind both vocabularies.

The agent vocabulary (``prompt``, ``run``, ``stream``, ``steer``, ``follow_up``,
``approve``, ``reject``, ``answer_elicitation``, ``abort``, ``continue_``, ``subscribe``,
``aclose``) and the
engine vocabulary of the seed (``receive``, ``on``, ``react``, ``on_state_change``,
``on_ready``, ``on_destroy``, ``use``, ``intercept``, ``interrupt``, ``destroy``,
``message_queue``) drive one conversation processor through one ``Conversation``: every
input is stamped, scrubbed, journaled, folded; outputs are delivered; effects performed
(``LocalPerformer``).
The agent decides nothing itself; a command the processor rejects raises here.

``model`` is a driver or a ``"provider/model"`` string, resolved on first use by
``driver_factory`` (default: the ``agentcore.drivers`` entry points, see ``plugins``), or
a list of them: a fallback chain (``FallbackDriver``, see ``fallback``).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Self, TypeVar, overload

import attrs

from .._core.agent_processor import activity_of
from .._core.content import ToolCallPart, Usage
from .._core.driver import Driver, OutputSpec, ThinkingLevel
from .._core.errors import (
    AgentError,
    ConfigurationError,
    EngineClosedError,
    MessageRejectedError,
    error_from_code,
)
from .._core.events import AssistantMessage, TextDelta, UserMessage
from .._core.pricing import ModelPrice
from .._core.processor import AnyProcessor
from .._core.state_machine import AgentState, StateChange
from .._journal.conversation import Conversation
from .._journal.journal import Journal
from .._journal.lanes import claim_lane, flush_journal, release_lane
from .._journal.resume import dump_state, load_conversation
from .._journal.snapshots import SnapshotStore
from .._loop.compaction import Compaction, Strategy
from .._loop.conversation import AgentSnapshot, ConversationState, create_conversation, snapshot_of
from .._loop.events import (
    AgentAbort,
    AgentConfigured,
    AgentContinue,
    AgentFollowUp,
    AgentOutput,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AgentSteer,
    AwaitApproval,
    AwaitElicitation,
    ElicitationAction,
    ElicitationAnswer,
    Finish,
    InputRejected,
    ToolApproval,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from .._loop.lineage import TreeUsage, subagent_details
from .._loop.output import output_spec
from .._loop.state import AT_REST, LoopConfig, QueueMode, SteeringPolicy, default_convert_to_llm
from .._loop.tools import Tool, as_tool
from .actions import (
    LoopEndAction,
    LoopStartAction,
    Middleware,
    PluginKind,
    declared_kind,
    through,
)
from .continuing import Detached, SessionRef, open_session, resumes_at_once
from .delivery import EngineFailure
from .extensions import Extension, ExtensionAPI, Hooks
from .guardrails import Guardrail, Guards, guardrails_of
from .inbox import Inbox
from .middleware import Interceptor, MessageQueueView, Reply
from .options import (
    as_model_driver,
    check_options,
    limits_of,
    no_price,
    only_agent,
    positive_int,
    prices_for,
    run_options,
    seconds_to_ms,
)
from .outlet import Outlet, ms_clock, new_id, stamp_message
from .output_stream import OutputStream, build_output
from .perform import LocalPerformer
from .plugins import resolve_model
from .run_stream import RunStream
from .subscriptions import Handler, Unsubscribe, react_map
from .toolsets import AgentToolsets, Toolset

__all__ = ["Agent", "AgentResult", "create_agent"]

_STATUS: Mapping[type[Any], str] = {
    AwaitApproval: "awaiting_approval",
    AwaitElicitation: "awaiting_elicitation",
}
"""``AgentResult.status`` of a run that paused, by the effect that paused it."""


OutputT = TypeVar("OutputT")


@attrs.frozen(slots=True)
class AgentResult(Generic[OutputT]):
    """What ``Agent.run`` returns: the answer (``output``: the final text, or with
    ``output_type`` the typed answer, ``None`` while paused for approval), the messages
    the run added, the tool calls the model made, the usage of every model call of the
    run (retried and summarising calls included), wall time in seconds, ``status``
    (``completed``, ``awaiting_approval`` or ``awaiting_elicitation``), the final reply's
    ``text`` and the run's ``cost`` in US dollars (``None`` without a price). ``usage``
    and ``cost`` are this agent's own; ``tree`` adds every sub-agent the run spawned
    (``TreeUsage``, from its spawn results). The session's totals are
    ``agent.state.usage`` and ``agent.state.cost``."""

    output: OutputT
    messages: tuple[Any, ...]
    tool_calls: tuple[ToolCallPart, ...]
    usage: Usage
    duration: float
    status: str = "completed"
    text: str = ""
    cost: float | None = None
    tree: TreeUsage = attrs.field(factory=TreeUsage)


class Agent:
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
    model's context window (docs/compaction.md). ``base_url`` and ``api_key`` go to the
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
        check_options(
            {
                "tools": tools,
                "toolsets": toolsets,
                "presenters": presenters,
                "middleware": middleware,
                "extensions": extensions,
                "input_guardrails": input_guardrails,
                "output_guardrails": output_guardrails,
                "tool_guardrails": tool_guardrails,
                "journal": journal,
                "system_prompt": system_prompt,
                "temperature": temperature,
                "thinking_level": thinking_level,
            }
        )
        guards = Guards(
            guardrails_of("input_guardrails", input_guardrails),
            guardrails_of("output_guardrails", output_guardrails),
            guardrails_of("tool_guardrails", tool_guardrails),
        )
        self._driver_options = {
            k: v for k, v in (("base_url", base_url), ("api_key", api_key)) if v is not None
        }
        if self._driver_options and not isinstance(model, str):
            raise ConfigurationError(
                f"{' and '.join(self._driver_options)} apply to a 'provider/model' string; "
                f"give them to the driver itself, got model={model!r}"
            )
        self._model = model if isinstance(model, str) else as_model_driver(model, driver_factory)
        self._owns_driver = isinstance(model, str | list | tuple)
        self._driver_factory = driver_factory
        self._driver: Driver | None = None if isinstance(model, str) else self._model  # type: ignore[assignment]
        price, self.prices = prices_for(self._model, price)
        if max_cost is not None and price is None:
            raise no_price(self._model)
        tool_list = tuple(as_tool(t) for t in tools)
        self.config = LoopConfig(
            system_prompt=system_prompt,
            tools=tool_list,
            limits=limits_of(max_iterations, max_tokens, max_cost, timeout),
            steering_mode=steering_mode,
            follow_up_mode=follow_up_mode,
            steering_policy=steering_policy,
            tool_execution=tool_execution,  # type: ignore[arg-type]
            convert_to_llm=convert_to_llm,
            transform_context=transform_context,
            thinking_level=thinking_level,
            max_output_tokens=max_output_tokens,
            temperature=temperature,
            price=price,
            compaction=compaction,
            model_retries=model_retries,
            retry_delay_ms=seconds_to_ms("retry_delay", retry_delay, allow_zero=True) or 0,
            check_output=bool(guards.input or guards.output),
        )
        self._hooks = Hooks()
        self._transform = self._hooks.transform(transform_context)
        self._clock = clock
        self._new_id = id_factory
        journal, snapshots, agent_id, continuing = open_session(
            session, session_id, journal, snapshots, agent_id
        )
        if continuing and messages:
            raise ConfigurationError(f"session {agent_id!r} has a history already: drop messages=")
        self.agent_id = agent_id or f"agent_{id_factory()}"
        self.created_at = clock()
        if journal is not None and not continuing and journal.last_seq(self.agent_id):
            raise ConfigurationError(
                f"journal {journal!r} already holds agent {self.agent_id!r}'s conversation; "
                "continue it with await Agent.resume(journal, ...)"
            )
        self._outlet = outlet = Outlet(self.agent_id, presenters, max_pending)
        self._close_timeout = close_timeout
        self.processor, self._initial_state = create_conversation(processors)
        self._shell = shell = Conversation(
            self.processor,
            self.initial_state(),
            agent_id=self.agent_id,
            clock=clock,
            journal=None if continuing else journal,
            outlet=outlet,
            perform=lambda effect: self._performer.perform(effect),
            report=lambda *failure: outlet.report(EngineFailure(*failure)),
            activity=lambda state: activity_of(state.core),
            snapshots=snapshots,
            snapshot=dump_state,
            snapshot_every=positive_int("snapshot_every", snapshot_every),
        )
        self._performer = LocalPerformer(
            shell.feed,
            self._resolve_driver,
            {t.name: t for t in tool_list},
            outlet,
            clock,
            lambda: shell.state.loop.messages,
            self._paused,
            shell.collect,
            shell.stop_collecting,
            feed_stream=shell.feed_stream,
            barrier=self._journal_barrier,
        )
        self._performer.hooks, self._performer.guards = self._hooks, guards
        self._performer.middleware = tuple(self._middleware_checked(m) for m in middleware)
        self._toolsets = None
        if toolsets:
            self._toolsets = AgentToolsets(toolsets, tool_list, self._use_tools, outlet.report)
            self._performer.settle = self._toolsets.settled
        self.deps = deps
        """What tools get as ``ToolContext.deps`` (a run may pass its own: ``deps=``)."""
        self._stretch: asyncio.Future[None] | None = None
        self._last_pause: Finish | AwaitApproval | AwaitElicitation | None = None
        self._detached: Detached | None = None
        self._inbox = Inbox(self._receive_one, self._ready)
        self._ready_handlers: tuple[Callable[[Agent], object], ...] = ()
        self._destroy_handlers: tuple[Callable[[Agent], object], ...] = ()
        self._closed = False
        if journal is not None and not continuing:
            claim_lane(journal, self.agent_id)  # one writer per agent: refused here
        shell.feed(AgentConfigured(self.config.to_wire()))
        if messages:
            shell.feed(AgentReset(tuple(messages)))
        if continuing:  # a session the journal holds: load it, resume a run it cut off
            assert journal is not None
            self._take_over(journal)
            try:
                cut_off = resumes_at_once(shell.state)
            except BaseException:
                release_lane(journal, self.agent_id)
                raise
            if cut_off:
                shell.feed(AgentResume())
        for extension in extensions:
            self.use(extension, kind="extension")

    def initial_state(self) -> ConversationState:
        """A fresh conversation state for this agent's processor (its hooks and prices,
        nothing folded yet): where a replay of its journal starts."""
        hooks = LoopConfig(
            convert_to_llm=self.config.convert_to_llm, transform_context=self._transform
        )
        return self._initial_state(hooks, (), self.prices)

    @classmethod
    async def resume(
        cls,
        journal: Journal,
        *,
        agent_id: str | None = None,
        snapshots: SnapshotStore | None = None,
        before_resume: Callable[[Agent], Awaitable[object]] | None = None,
        **options: Any,
    ) -> Agent:
        """The agent whose conversation ``journal`` holds, rebuilt in this process.

        ``options`` are ``Agent``'s (the model, the tools to run, presenters...); the
        journal supplies the conversation: history, queues, pending approvals, usage,
        turn and step counters. ``agent_id`` may be left out when the journal holds one
        agent. With ``snapshots``, the newest snapshot at or before the journal's end is
        loaded and only the entries after it are folded.

        Then what was in flight when the process stopped is performed again, by the
        policy of docs/journal.md ("Resume"): a model call is issued again (a reply it had
        streamed is flushed as incomplete first); a running tool call runs again if its
        tool is ``idempotent``, and is otherwise answered with an ``INTERRUPTED`` error
        result. ``await agent.wait()`` waits for a resumed run to end. If ``options``
        configure the loop differently from the journal, the new configuration is
        journaled and decides from now on. ``before_resume(agent)`` is awaited once the
        journal is folded, before anything is performed again (an ``AgentRegistry``
        rebuilds a ``handle_steps`` generator there); if it raises, nothing in flight is
        performed again and the error propagates.
        """
        agent_id = agent_id if agent_id is not None else only_agent(journal)
        if not journal.last_seq(agent_id):
            where = getattr(journal, "path", None) or repr(journal)
            raise ConfigurationError(f"journal {where} holds no entry of agent {agent_id!r}")
        agent = cls(agent_id=agent_id, snapshots=snapshots, **options)
        agent._take_over(journal)
        if before_resume is not None:
            try:
                await before_resume(agent)
            except BaseException:
                release_lane(journal, agent_id)  # no agent came of it: its lane is free
                raise
        agent._shell.feed(AgentResume())
        return agent

    def _take_over(self, journal: Journal) -> None:
        """Continue the conversation ``journal`` holds for this agent: fold it (from the
        newest snapshot), journal from now on, and journal this agent's configuration
        when it differs from the journal's."""
        shell = self._shell
        claim_lane(journal, self.agent_id)  # one writer per agent: refused here
        try:
            state = load_conversation(
                journal, self.agent_id, self.processor, self.initial_state(), shell.snapshots
            )
        except BaseException:
            release_lane(journal, self.agent_id)
            raise
        shell.state, shell.journal = state, journal
        wire = self.config.to_wire()
        if state.loop.config.to_wire() != wire:
            shell.feed(AgentConfigured(wire))

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
    def journal(self) -> Journal | None:
        """The journal every input is appended to (``None`` when there is none)."""
        journal: Journal | None = self._shell.journal
        return journal

    @property
    def message_queue(self) -> MessageQueueView:
        """Messages ``receive`` holds behind the one being processed."""
        return self._inbox.view

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

    on = subscribe

    def react(self, handlers: Mapping[str, Handler]) -> Unsubscribe:
        """``react({"on_text_delta": h, ...})``: ``subscribe`` with ``on_``-prefixed names."""
        return self.subscribe(react_map(handlers))

    def on_state_change(self, handler: Callable[[StateChange], object]) -> Unsubscribe:
        """Call ``handler(StateChange)`` each time ``activity`` changes."""
        return self._shell.on_state_change(handler)

    def on_ready(self, handler: Callable[[Agent], object]) -> Unsubscribe:
        """Call ``handler(agent)`` each time a run ends with nothing queued for ``receive``."""
        self._ready_handlers = (*self._ready_handlers, handler)
        return lambda: self._remove("_ready_handlers", handler)

    def on_destroy(self, handler: Callable[[Agent], object]) -> Unsubscribe:
        """Call ``handler(agent)`` once, when the agent is closed."""
        self._destroy_handlers = (*self._destroy_handlers, handler)
        return lambda: self._remove("_destroy_handlers", handler)

    def on_error(self, handler: Callable[[EngineFailure], object]) -> Unsubscribe:
        """Receive an ``EngineFailure`` for each presenter, handler, interceptor or journal
        failure (logged on ``agentcore.engine`` when nobody listens)."""
        return self._outlet.on_error(handler)

    def use(self, plugin: Extension | Middleware, *, kind: PluginKind | None = None) -> Unsubscribe:
        """Add an extension (``def ext(api)``: returns ``dispose``, which removes exactly
        what it added) or a middleware (``async def mw(action, next)``: returns its
        remover; first added = outermost). ``plugin`` is what it declares
        (``@extension``, ``@middleware``) or what ``kind`` says; see docs/middleware.md."""
        kind = kind or declared_kind(plugin)  # type: ignore[assignment]
        if kind not in ("extension", "middleware"):
            raise TypeError(
                f"agent.use() adds a middleware or an extension, and {plugin!r} declares "
                "neither: decorate it with @middleware (agentcore.middleware) or @extension "
                "(agentcore.extensions), or pass kind='middleware' or kind='extension'"
            )
        if kind == "extension":
            api = ExtensionAPI(self)
            try:
                cleanup = plugin(api)  # type: ignore[call-arg]
            except BaseException:
                api.dispose()
                raise
            if cleanup is not None and not callable(cleanup):
                api.dispose()
                raise TypeError(
                    f"extension {plugin!r} returned {cleanup!r}, not a cleanup function"
                )
            done = False

            def dispose() -> None:
                nonlocal done
                if done:
                    return
                done = True
                api.dispose()
                if cleanup is not None:
                    cleanup()

            return dispose
        middleware = self._middleware_checked(plugin)
        performer = self._performer
        performer.middleware = (*performer.middleware, middleware)

        def remove() -> None:
            performer.middleware = tuple(m for m in performer.middleware if m is not middleware)

        return remove

    @staticmethod
    def _middleware_checked(middleware: Any) -> Middleware:
        is_async = inspect.iscoroutinefunction(middleware) or inspect.iscoroutinefunction(
            getattr(middleware, "__call__", None)  # noqa: B004  (an object's async __call__)
        )
        if _arity(middleware) != 2 or not is_async:
            raise TypeError(f"a middleware is an async function (action, next), got {middleware!r}")
        return middleware  # type: ignore[no-any-return]

    def equip(self, performer: LocalPerformer) -> LocalPerformer:
        """``performer`` bent as this agent bends its own: its extensions' hooks, its
        middleware and its guardrails (with input checks of their own, so two performers
        never cancel each other's). A durable worker performs each step with one."""
        own = self._performer
        performer.hooks, performer.middleware = self._hooks, own.middleware
        performer.guards = Guards(own.guards.input, own.guards.output, own.guards.tool)
        return performer

    async def list_toolsets(self) -> None:
        """Enter the toolsets not entered yet and list every toolset's tools now, as before
        a run (a changed list is this agent's from now on); a durable worker does it once
        for each definition, before its first advance. Never raises for a toolset's
        failure (it is reported)."""
        if self._toolsets is not None:
            await self._toolsets.refresh()

    async def start_through_middleware(self, prompt: AgentPrompt) -> AgentPrompt:
        """``prompt`` as this agent's ``loop_start`` middleware leave it (unchanged without
        middleware); ``MessageRejectedError`` when one of them dropped it."""
        return await self._loop_start(prompt) if self._performer.middleware else prompt

    def _register_tool(self, tool: Tool | Callable[..., Any]) -> str:
        """Give the agent ``tool`` from now on (journaled as a new configuration)."""
        checked = as_tool(tool)
        if checked.name in self._performer.tools:
            raise ConfigurationError(f"the agent already has a tool named {checked.name!r}")
        self._configure(tools=(*self.config.tools, checked))
        self._performer.tools[checked.name] = checked
        return checked.name

    def _unregister_tool(self, name: str) -> bool:
        if name not in self._performer.tools:
            return False
        del self._performer.tools[name]
        self._configure(tools=tuple(t for t in self.config.tools if t.name != name))
        return True

    def _configure(self, **changes: Any) -> None:
        self.config = attrs.evolve(self.config, **changes)
        self._shell.feed(AgentConfigured(self.config.to_wire()))

    def relay(self, output: Any) -> Awaitable[None] | None:
        """Deliver ``output``, which this agent did not fold (a sub-agent's
        ``SubagentEvent``), through its interceptors to its presenters and subscribers;
        it is not journaled. Returns an awaitable while a presenter is congested: await
        it before relaying more (backpressure), as the agent does for its own outputs."""
        outlet = self._outlet
        outlet.send(output)
        return outlet.relieve() if outlet.congested else None

    def intercept(self, interceptor: Interceptor) -> Unsubscribe:
        """Add ``interceptor`` in front of delivery (first added runs first); one that
        raises blocks that output and is reported."""
        return self._outlet.intercept(interceptor)

    def _remove(self, slot: str, handler: Callable[[Agent], object]) -> None:
        setattr(self, slot, tuple(h for h in getattr(self, slot) if h is not handler))

    def _call_handlers(self, handlers: Iterable[Callable[[Agent], object]]) -> None:
        for handler in handlers:
            try:
                handler(self)
            except Exception as exc:
                self._outlet.report(EngineFailure("handler", repr(handler), exc, None))

    # -- runs -----------------------------------------------------------------------------

    async def prompt(
        self,
        message: str | Any | Sequence[Any],
        *,
        deps: Any = None,
        skip_memory_save: bool = False,
        **limits: Any,
    ) -> None:
        """Start a run with ``message`` and wait until it ends or pauses for approval.

        ``deps`` replaces the agent's ``deps`` as what this run's tools get in
        ``ToolContext.deps``. ``skip_memory_save``: the run is not journaled, and once it
        ends the agent is back where it was before it (docs/sessions.md). Run errors do
        not raise here: they are in ``state.error``. Raises ``AgentBusyError`` while a run
        is active (steer or follow up instead); waits for an aborted run to wind down
        first. Cancelling the caller aborts the run and
        returns once the agent is idle.
        """
        command = AgentPrompt(self._messages(message), **self._limits(limits))
        try:
            await self._run(command, deps, skip_memory_save)
        finally:
            self._end_unsaved()

    async def continue_(self, *, deps: Any = None, **limits: Any) -> None:
        """Run again from the history as it is (after an error, an abort, or with a
        queued message). A reply an error or abort cut off is dropped first, so the model
        answers again. Raises ``ProtocolError`` when there is nothing to continue."""
        await self._run(AgentContinue(**self._limits(limits)), deps)

    async def run(
        self,
        prompt: str | Any,
        *,
        output_type: Any = None,
        output_mode: str = "auto",
        output_retries: int = 1,
        on_token: Callable[[str], None] | None = None,
        on_tool_call: Callable[[ToolExecutionStart], None] | None = None,
        on_tool_result: Callable[[Any], None] | None = None,
        on_complete: Callable[[AgentResult[Any]], None] | None = None,
        on_error: Callable[[AgentError], None] | None = None,
        deps: Any = None,
        skip_memory_save: bool = False,
        **limits: Any,
    ) -> AgentResult[Any]:
        """Prompt, wait, and return an ``AgentResult``; raises the run's ``AgentError``
        (after calling ``on_error``) when it ended with an error or was aborted.
        ``skip_memory_save`` as for ``prompt``.

        With ``output_type`` (a JSON Schema dict, dataclass, attrs class, TypedDict or
        pydantic model) the answer must match it: ``output`` is the typed answer, and a
        run whose answers fail ``output_retries + 1`` times raises ``OutputParseError``.
        ``output_mode`` is ``auto`` (the driver's best), ``native``, ``tool`` or
        ``prompted``: see docs/structured-output.md."""

        answers: list[Any] = []

        def relay(event: Any) -> None:
            if type(event) is AgentOutput:  # the loop's valid answer, as JSON
                answers.append(event.output)
            elif type(event) is TextDelta:
                if on_token is not None:
                    on_token(event.text)
            elif on_tool_call is not None and type(event) is ToolExecutionStart:
                on_tool_call(event)
            elif on_tool_result is not None and type(event) is ToolExecutionEnd:
                on_tool_result(event.result)

        spec, build = self._output(output_type, output_mode, output_retries)
        self._performer.build_output = build
        command = AgentPrompt(self._messages(prompt), **self._limits(limits), output=spec)
        unsubscribe = self.subscribe(relay)
        try:
            _, result = await self._run(command, deps, skip_memory_save)
            error = self.state.error
        finally:
            unsubscribe()
            self._end_unsaved()
        if error is not None:
            if on_error is not None:
                on_error(error)
            raise error
        if spec is not None and build is not None:  # no answer while paused for approval
            typed = build_output(build, answers[-1]) if answers else None
            result = attrs.evolve(result, output=typed)
        if on_complete is not None:
            on_complete(result)
        return result

    @overload
    def stream(
        self, prompt: str | Any, *, output_type: None = None, **limits: Any
    ) -> RunStream: ...

    @overload
    def stream(
        self,
        prompt: str | Any,
        *,
        output_type: Any,
        output_mode: str = "auto",
        output_retries: int = 1,
        **limits: Any,
    ) -> OutputStream: ...

    def stream(
        self,
        prompt: str | Any,
        *,
        output_type: Any = None,
        output_mode: str = "auto",
        output_retries: int = 1,
        **limits: Any,
    ) -> RunStream | OutputStream:
        """The events of a run started with ``prompt``, ending with ``agent_end`` (or
        ``tool_approval_required`` / ``elicitation_request`` when it pauses). Leaving the
        loop early aborts the run.

        With ``output_type`` (see ``run``): an ``OutputStream`` of the answer parsed so
        far, each partial a JSON value that shows more than the one before, the last the
        validated answer; its ``output`` is then the typed answer."""
        spec, build = self._output(output_type, output_mode, output_retries)
        self._performer.build_output = build
        if spec is None:
            return RunStream(lambda: self.prompt(prompt, **limits), self.subscribe, self.abort)
        assert build is not None

        async def start() -> None:
            await self._run(
                AgentPrompt(self._messages(prompt), **self._limits(limits), output=spec)
            )

        events = RunStream(start, self.subscribe, self.abort)
        return OutputStream(events, spec, build, lambda: self.state.error)

    async def approve(self, tool_call_id: str) -> None:
        """Approve a pending call; once every pending call is decided the run resumes.
        Raises ``ProtocolError`` for an id that awaits no decision."""
        try:
            await self._run(ToolApproval(tool_call_id, True))
        finally:
            self._end_unsaved()

    async def reject(self, tool_call_id: str, reason: str | None = None) -> None:
        """Reject a pending call: the model gets an error result saying so (and why)."""
        try:
            await self._run(ToolApproval(tool_call_id, False, reason))
        finally:
            self._end_unsaved()

    async def answer_elicitation(
        self,
        elicitation_id: str,
        action: ElicitationAction = "accept",
        content: Mapping[str, Any] | None = None,
    ) -> None:
        """Answer a question a running tool asked (``state.pending_elicitations``):
        ``accept`` with ``content`` (the form's fields), ``decline`` or ``cancel``; once
        none waits the run goes on, and this returns when it ends or pauses again.
        Raises ``ProtocolError`` for an id nothing waits for, or content that does not
        fit the form (naming what is wrong); ``InvalidEventError`` for an unknown action."""
        await self._run(ElicitationAnswer(action, content, elicitation_id))

    async def wait(self) -> None:
        """Return once no run is active (at once when idle or paused for approval)."""
        while self._running():
            await self._wait_stretch()

    def steer(self, message: str | Any) -> None:
        """Queue a message for before the next model call (not-started tools per policy)."""
        self._command(AgentSteer(self._message(message)))

    def follow_up(self, message: str | Any) -> None:
        """Queue a message for when the agent would otherwise stop."""
        self._command(AgentFollowUp(self._message(message)))

    def abort(self, reason: str = "user") -> None:
        """Abort the active run (idempotent; a no-op when idle). The run ends with
        ``ABORTED``; partial output is kept and every tool call gets a result. Alias:
        ``interrupt``; queued ``receive`` messages still run afterwards."""
        if self._shell.state.loop.phase != "idle":
            self._shell.feed(AgentAbort(reason))

    interrupt = abort

    def reset(self) -> None:
        """Forget the history and queues (raises ``AgentBusyError`` during a run)."""
        self._command(AgentReset())

    # -- the seed's engine API ------------------------------------------------------------

    async def receive(self, message: str | UserMessage) -> Reply:
        """Process ``message`` after those already queued: one run (one model call when
        no tool is asked for). Returns a ``Reply`` (the run's delivered outputs);
        raises the run's typed error when it ended in error, ``EngineClosedError`` after
        ``aclose``, ``MessageRejectedError`` when a middleware dropped the message."""
        if self._closed:
            raise EngineClosedError(f"agent {self.agent_id} was closed; create a new one")
        if not isinstance(message, str | UserMessage):
            raise TypeError(f"receive() takes a str or a UserMessage, got {message!r}")
        return await self._inbox.receive(self._message(message), self.abort)

    async def _receive_one(self, message: UserMessage) -> Reply:
        while self._running():
            await self._wait_stretch()
        collected = self._shell.collect()
        try:
            end, _ = await self._run(AgentPrompt((self._message(message),)))
        finally:
            self._shell.stop_collecting(collected)
        error = self.state.error
        aborted = isinstance(end, Finish) and end.reason == "aborted"
        if error is not None and not aborted:
            raise error
        return Reply(message, tuple(collected), aborted)

    def _ready(self) -> None:
        if not self._closed:
            self._call_handlers(self._ready_handlers)

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
        await self._outlet.drain(self._close_timeout)
        self._outlet.cancel()
        self._call_handlers(self._destroy_handlers)
        self._sync_journal()
        self._release_journal()
        if self._owns_driver and self._driver is not None:
            await self._driver.aclose()

    destroy = aclose

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until async presenters have caught up (at most ``timeout`` seconds)."""
        return await self._outlet.drain(timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- the fold and the runs it is waited on --------------------------------------------

    def _command(self, event: Any) -> None:
        """Feed a command; raise what the processor said if it rejected it."""
        if self._closed:
            raise EngineClosedError(f"agent {self.agent_id} was closed; create a new one")
        collected = self._shell.collect()
        try:
            self._shell.feed(event)
        finally:
            self._shell.stop_collecting(collected)
        rejection = next((o for o in collected if type(o) is InputRejected), None)
        if rejection is not None:
            raise error_from_code(rejection.message, rejection.code)

    async def _run(
        self, event: Any, deps: Any = None, unsaved: bool = False
    ) -> tuple[Finish | AwaitApproval | AwaitElicitation | None, AgentResult[Any]]:
        """Feed a command that starts or resumes a run; wait until it ends or pauses, and
        return how (``None`` when the command started nothing, e.g. an approval that still
        waits for other decisions) and the ``AgentResult`` of what it added. A stopping
        run is waited for first. Cancelling the caller aborts the run and returns once
        the agent is idle. A prompt goes through the ``loop_start`` middleware and starts
        the input guardrails; an ended run goes through the ``loop_end`` middleware.
        ``unsaved``: the run is not journaled (``skip_memory_save``; ``_end_unsaved``
        forgets it once it ends)."""
        if self._stopping():
            await self.wait()
        performer = self._performer
        if type(event) is AgentPrompt and performer.middleware:
            event = await self._loop_start(event)
        self._last_pause = None
        if type(event) in (AgentPrompt, AgentContinue):  # its tools get its deps, else the agent's
            performer.deps = self.deps if deps is None else deps
            if self._toolsets is not None:
                await self._toolsets.refresh()
        start, began = len(self._shell.state.loop.messages), time.perf_counter()
        detached = Detached(self._shell) if unsaved and self._detached is None else None
        try:
            self._command(event)
        except BaseException:
            if detached is not None:
                detached.restore(self._shell)
            raise
        if detached is not None:
            self._detached = detached
        if type(event) is AgentPrompt and performer.guards.input:
            performer.check_input(event.messages)  # after the prompt: a trip ends its run
        try:
            while self._running():
                await self._wait_stretch()
        except asyncio.CancelledError:
            if self._running():
                self.abort("cancelled")
                await self._wound_down()
            raise
        end: Finish | AwaitApproval | AwaitElicitation | None = self._last_pause
        result = self._result(start, time.perf_counter() - began, end)
        if type(end) is Finish and performer.middleware:
            ended = LoopEndAction(result, end.reason, code=end.code)
            ended = await through(performer.middleware, ended, _returned, LoopEndAction)
            result = ended.result
        return end, result

    async def _loop_start(self, event: AgentPrompt) -> AgentPrompt:
        """``event`` as the ``loop_start`` middleware leave it (``event`` itself when the
        action sent reached the agent unchanged); ``MessageRejectedError`` when one of
        them did not call ``next``."""
        started: list[LoopStartAction] = []

        async def accept(action: LoopStartAction) -> LoopStartAction:
            started.append(action)
            return action

        options = {k: getattr(event, k) for k in _PROMPT_OPTIONS}
        sent = LoopStartAction(event.messages, dict(options))  # a copy: changed in place?
        action = await through(self._performer.middleware, sent, accept, LoopStartAction)
        if not started:
            raise MessageRejectedError(
                f"the run of {[getattr(m, 'message_id', m) for m in event.messages]} was "
                "dropped by a middleware (it returned without calling next)"
            )
        if action is sent and sent.options == options:
            return event
        return AgentPrompt(tuple(self._message(m) for m in action.messages), **dict(action.options))

    def _result(
        self, start: int, duration: float, end: Finish | AwaitApproval | AwaitElicitation | None
    ) -> AgentResult[Any]:
        """What the run added since history index ``start``."""
        added = tuple(self._shell.state.loop.messages[start:])
        replies = [m for m in added if isinstance(m, AssistantMessage)]
        usage = getattr(end, "usage", None)  # a run's whole usage (Finish, AwaitApproval)
        if usage is None:
            usage = sum((m.usage for m in replies), Usage())
        cost = getattr(end, "cost", None)
        spawned = [subagent_details(getattr(m, "details", None)) for m in added]
        return AgentResult(
            replies[-1].text if replies else "",
            added,
            tuple(c for m in replies for c in m.tool_calls),
            usage,
            duration,
            _STATUS.get(type(end), "completed"),
            text=replies[-1].text if replies else "",
            cost=cost,
            tree=sum(
                (TreeUsage.from_wire(d) for d in spawned if d is not None), TreeUsage(usage, cost)
            ),
        )

    async def _wound_down(self) -> None:
        """Wait for the run to end, whatever cancels the waiting task meanwhile."""
        while self._running():
            try:
                await self._wait_stretch()
            except asyncio.CancelledError:
                continue

    async def _wait_stretch(self) -> None:
        """Wait for the next pause (end of run, or approval) of the current run."""
        stretch = self._stretch
        if stretch is None or stretch.done():
            self._stretch = stretch = asyncio.get_running_loop().create_future()
        await asyncio.shield(stretch)

    def _sync_journal(self) -> None:
        """A durability point of the journal (a run ended or paused, the agent closed); a
        failure is reported, as every journal failure."""
        journal = self._shell.journal
        if journal is not None:
            try:
                journal.sync()
            except Exception as exc:
                self._outlet.report(EngineFailure("journal", repr(journal), exc, None))

    def _release_journal(self) -> None:
        """Let the agent's lane in its journal go (it was this agent's since it opened the
        journal): another writer may open it now."""
        journal = self._shell.journal
        if journal is not None:
            try:
                release_lane(journal, self.agent_id)
            except Exception as exc:
                self._outlet.report(EngineFailure("journal", repr(journal), exc, None))

    def _journal_barrier(self) -> None:
        """Before a tool call that is not idempotent runs: the journal writes what it holds
        back, so after a crash it shows the call was asked for (and resume answers it
        ``INTERRUPTED`` instead of running it again)."""
        journal = self._shell.journal
        if journal is not None:
            try:
                flush_journal(journal)
            except Exception as exc:
                self._outlet.report(EngineFailure("journal", repr(journal), exc, None))

    def _end_unsaved(self) -> None:
        """Forget a ``skip_memory_save`` run once it has ended (not while it waits for an
        approval): journal, snapshots and state as they were before it."""
        detached = self._detached
        if detached is not None and self._shell.state.loop.phase == "idle":
            self._detached = None
            detached.restore(self._shell)

    def _running(self) -> bool:
        return self._shell.state.loop.phase not in AT_REST

    def _stopping(self) -> bool:
        run = self._shell.state.loop.run
        return run is not None and run.stopping is not None

    def _paused(self, effect: Finish | AwaitApproval | AwaitElicitation) -> None:
        self._last_pause = effect
        self._sync_journal()
        stretch = self._stretch
        if stretch is not None and not stretch.done():
            stretch.set_result(None)
        if type(effect) is Finish and not self._inbox.pending:
            self._ready()

    # -- helpers --------------------------------------------------------------------------

    def _use_tools(self, tools: tuple[Tool, ...]) -> None:
        """Run with ``tools`` from now on (the toolsets' list changed); journaled."""
        self.config = attrs.evolve(self.config, tools=tools)
        self._performer.tools = {t.name: t for t in tools}
        self._shell.feed(AgentConfigured(self.config.to_wire()))

    def _resolve_driver(self) -> Driver:
        if self._driver is None:
            assert isinstance(self._model, str)
            factory = self._driver_factory or resolve_model
            self._driver = as_model_driver(factory(self._model, **self._driver_options))
        return self._driver

    def _output(
        self, output_type: Any, mode: str, retries: int
    ) -> tuple[OutputSpec | None, Callable[[Any], Any] | None]:
        """The output spec a run asks for, and the builder of its typed answer."""
        if output_type is None:
            if mode != "auto":
                raise ConfigurationError(
                    f"output_mode={mode!r} needs an output_type (the structure the answer "
                    "must have, e.g. a dataclass)"
                )
            return None, None
        return output_spec(
            output_type,
            mode=mode,
            retries=retries,
            modes=self._resolve_driver().output_modes,
            tool_names=self.config.tools_by_name,
        )

    def _limits(self, values: dict[str, Any]) -> dict[str, Any]:
        return run_options(values, self.config.price, self._model)

    def _message(self, message: str | Any) -> Any:
        if message is None or isinstance(message, int | float | bool | bytes):
            raise TypeError(
                f"a message is a str, a UserMessage or another message object, got {message!r}"
            )
        return stamp_message(message, self._clock, self._new_id)

    def _messages(self, message: str | Any | Sequence[Any]) -> tuple[Any, ...]:
        if isinstance(message, list | tuple):
            if not message:
                raise TypeError("prompt() needs at least one message")
            return tuple(self._message(m) for m in message)
        return (self._message(message),)


def _arity(plugin: Any) -> int:
    """How many positional parameters ``plugin`` takes (``-1`` when it is not callable)."""
    if not callable(plugin):
        return -1
    try:
        params = inspect.signature(plugin).parameters.values()
    except (TypeError, ValueError):
        return -1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in params if p.kind in kinds)


_PROMPT_OPTIONS = tuple(
    f.name for f in attrs.fields(AgentPrompt) if f.name not in ("messages", "timestamp")
)
"""The fields of a prompt a ``loop_start`` middleware sees as its ``options``."""


async def _returned(action: Any) -> Any:
    return action


def create_agent(
    driver: Driver | Any,
    presenters: Sequence[Any] = (),
    **options: Any,
) -> Agent:
    """The seed's factory: ``Agent(driver, presenters=presenters, **options)``."""
    return Agent(driver, presenters=presenters, **options)
