"""The async shell: drivers in, the pure machine in the middle, presenters out.

``create_agent(driver=..., presenters=[...])`` returns an ``AgentEngine``. For each
message it: stamps it (id, timestamp), calls the model once, appends every input event to
the journal, feeds it through the machine and the state machine, and delivers the input
event and then its outputs to presenters and subscribers, in order. It never runs tools
or calls the model again: that is the agent loop's decision (``agentcore.agent.Agent``).
See docs/runtime.md for the full contract: queueing, failure semantics and cancellation.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from .._core.driver import Driver, Message, ModelRequest, ToolSpec, as_driver
from .._core.errors import (
    EngineClosedError,
    ErrorCode,
    MessageRejectedError,
    error_from_code,
)
from .._core.events import (
    AssistantMessage,
    ErrorReceived,
    Interrupt,
    ToolResultMessage,
    UserMessage,
)
from .._core.store import Store
from .._journal.journal import Journal
from .delivery import EngineFailure
from .middleware import (
    Interceptor,
    MessageQueueView,
    Middleware,
    Next,
    Reply,
    bind,
    intercepting,
)
from .outlet import Outlet, ms_clock, new_id, stamp_message
from .subscriptions import Handler, Subscriptions, Unsubscribe, react_map

__all__ = ["AgentEngine", "create_agent"]


class _Machine(Protocol):
    def process(self, agent_id: str, event: Any) -> tuple[Any, ...]: ...


class _StateMachine(Protocol):
    @property
    def state(self) -> Any: ...

    def process(self, event: Any) -> Any: ...

    def on_state_change(self, handler: Callable[..., object]) -> Callable[[], None]: ...


class _MachineFailure(Exception):
    """The machine raised on a driver event (strict mode, or a processor bug)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class AgentEngine:
    """One agent: a driver, the machine, presenters, subscribers and a message queue.

    Build it with ``create_agent``. After ``destroy()`` every ``receive`` raises
    ``EngineClosedError``; subscribing still works but nothing more is delivered.
    """

    def __init__(
        self,
        *,
        driver: Driver,
        machine: _Machine,
        state_machine: _StateMachine,
        presenters: Sequence[Any],
        journal: Journal | None,
        agent_id: str,
        clock: Callable[[], int],
        id_factory: Callable[[], str],
        system_prompt: str | None,
        tools: Sequence[ToolSpec],
        max_pending: int,
    ) -> None:
        self.agent_id = agent_id
        self.driver = driver
        self.journal = journal
        self.system_prompt = system_prompt
        self.tools: tuple[ToolSpec, ...] = tuple(tools)
        self.history: list[Message] = []
        """The conversation as the model sees it: user, assistant and tool-result messages."""
        self._clock = clock
        self._new_id = id_factory
        self.created_at = clock()
        self._machine = machine
        self._state_machine = state_machine
        self._outlet = outlet = Outlet(agent_id, presenters, max_pending)
        self._report = outlet.report
        self._interceptors: tuple[Interceptor, ...] = ()
        self._deliver_chain: Callable[[Any], None] = outlet.deliver
        self._middleware: tuple[Middleware, ...] = ()
        self._ready_handlers = Subscriptions(self._report)
        self._destroy_handlers = Subscriptions(self._report)
        self._queue: deque[tuple[UserMessage, asyncio.Future[Reply]]] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._stream: asyncio.Task[None] | None = None
        self._outputs: list[Any] = []
        self._interrupt_reason: str | None = None
        self._closed = False

    # -- state ------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The conversation state (``AgentState``) from the state machine."""
        return self._state_machine.state

    @property
    def message_queue(self) -> MessageQueueView:
        """Messages waiting behind the current one (``length``, ``is_empty``)."""
        return MessageQueueView(self._queue)

    @property
    def is_busy(self) -> bool:
        """Whether a message is being processed."""
        return self._worker is not None

    @property
    def is_destroyed(self) -> bool:
        return self._closed

    # -- receiving --------------------------------------------------------------------

    async def receive(self, message: str | UserMessage) -> Reply:
        """Process ``message`` after those already queued; return its ``Reply``.

        Raises ``EngineClosedError`` after ``destroy()``; ``MessageRejectedError`` when a
        middleware dropped the message or ``destroy()`` discarded it from the queue; the
        typed error of the failure (``error_from_code``: a ``ProviderError`` for a driver
        failure) when the turn ended in error. Cancelling the caller interrupts its turn
        (or removes the message from the queue if it had not started).
        """
        if self._closed:
            raise EngineClosedError(f"engine {self.agent_id} was destroyed; create a new one")
        user = self._stamp(message)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._queue.append((user, future))
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._work())
        return await future

    def _stamp(self, message: str | UserMessage) -> UserMessage:
        if not isinstance(message, str | UserMessage):
            raise TypeError(f"receive() takes a str or a UserMessage, got {message!r}")
        stamped: UserMessage = stamp_message(message, self._clock, self._new_id)
        return stamped

    async def _work(self) -> None:
        try:
            while self._queue and not self._closed:
                message, future = self._queue.popleft()
                if future.cancelled():
                    continue
                future.add_done_callback(self._interrupt_if_cancelled)
                try:
                    reply = await self._run_middleware(message)
                except Exception as exc:
                    if not future.done():
                        future.set_exception(exc)
                else:
                    if not future.done():
                        future.set_result(reply)
                finally:
                    future.remove_done_callback(self._interrupt_if_cancelled)
                if self.journal is not None:
                    self.journal.sync()
        finally:
            self._worker = None
        if not self._closed:
            self._ready_handlers.dispatch(self)

    def _interrupt_if_cancelled(self, future: asyncio.Future[Reply]) -> None:
        if future.cancelled():
            self.interrupt("cancelled")

    async def _run_middleware(self, message: UserMessage) -> Reply:
        replies: list[Reply] = []

        async def innermost(msg: UserMessage) -> Reply:
            if replies:
                raise RuntimeError("a middleware called next() twice for one message")
            reply = await self._run_turn(self._stamp(msg))
            replies.append(reply)
            return reply

        chain: Next = innermost
        for mw in reversed(self._middleware):
            chain = bind(mw, chain, replies)
        return await chain(message)

    async def _run_turn(self, message: UserMessage) -> Reply:
        """One user message: feed it, call the model once, feed what the driver yields.

        Tool calls the reply asks for are not run here: the reply carries them, and
        running them (and calling the model again) is the agent loop's decision.
        """
        self._outputs = []
        self._interrupt_reason = None
        failure = self._feed(message)
        if failure is None:
            failure = await self._call_model()
        reply = Reply(message, tuple(self._outputs), self._interrupt_reason is not None)
        self._outputs = []
        if failure is not None:
            raise error_from_code(failure.message, failure.code, retryable=failure.retryable)
        return reply

    def build_request(self) -> ModelRequest:
        """The next model call: the history, system prompt and tools of this engine."""
        return ModelRequest(
            messages=tuple(self.history), system_prompt=self.system_prompt, tools=self.tools
        )

    async def _call_model(self) -> ErrorReceived | None:
        """Run one driver stream to its end, an error or an interrupt."""
        failures: list[ErrorReceived] = []
        stream = asyncio.get_running_loop().create_task(self._consume(failures))
        self._stream = stream
        try:
            await asyncio.wait([stream])
        finally:
            self._stream = None
            if not stream.done():
                stream.cancel()
        if not stream.cancelled() and (unexpected := stream.exception()) is not None:
            raise unexpected
        if self._interrupt_reason is not None and not failures:
            self._feed(Interrupt(reason=self._interrupt_reason, timestamp=self._clock()))
        return failures[0] if failures else None

    async def _consume(self, failures: list[ErrorReceived]) -> None:
        try:
            stream = self.driver.receive(self.build_request())
            async for event in stream:
                if self._interrupt_reason is not None:
                    break
                try:
                    failure = self._feed(event)
                except Exception as exc:
                    raise _MachineFailure(exc) from exc
                if failure is not None:
                    failures.append(failure)
                    break
                if self._outlet.congested:
                    await self._outlet.relieve()
            else:
                return
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        except Exception as exc:
            if self._interrupt_reason is not None:
                return  # a driver that raises when told to stop
            if isinstance(exc, _MachineFailure):
                exc, source = exc.error, "the machine"
            else:
                source = f"driver {getattr(self.driver, 'name', type(self.driver).__name__)!r}"
            error = ErrorReceived(
                message=f"{source} failed: {type(exc).__name__}: {exc}",
                code=_code_of(exc),
                retryable=bool(getattr(exc, "retryable", False)),
                timestamp=self._clock(),
            )
            self._feed(error)
            failures.append(error)

    def _feed(self, event: Any) -> ErrorReceived | None:
        """Journal ``event``, run it through both machines, deliver it and its outputs.

        Returns the event when it reports a failure (the turn ends in error).
        """
        if self.journal is not None:
            self.journal.append(self.agent_id, event)
        outputs = self._machine.process(self.agent_id, event)
        if isinstance(event, UserMessage):
            self.history.append(event)
        state_process = self._state_machine.process
        for output in outputs:
            if isinstance(output, AssistantMessage | ToolResultMessage):
                self.history.append(output)
            state_process(output)
        self._outputs.extend(outputs)
        deliver = self._deliver_chain
        deliver(event)
        for output in outputs:
            if output is not event:
                deliver(output)
        return event if isinstance(event, ErrorReceived) else None

    # -- subscriptions ----------------------------------------------------------------

    def on(
        self,
        target: Handler | str | Iterable[str] | Mapping[str, Handler],
        handler: Handler | None = None,
    ) -> Unsubscribe:
        """``on(h)``, ``on(type, h)``, ``on([types], h)`` or ``on({type: h})``.

        Types are wire names (``"text_delta"``); an unknown name raises ``ValueError``.
        Returns one function that removes every subscription this call made.
        """
        return self._outlet.subscribe(target, handler)

    def react(self, handlers: Mapping[str, Handler]) -> Unsubscribe:
        """``react({"on_text_delta": h, ...})``: ``on`` with ``on_``-prefixed names."""
        return self.on(react_map(handlers))

    def on_state_change(self, handler: Callable[..., object]) -> Unsubscribe:
        """Call ``handler`` with each state change (see ``AgentStateMachine``)."""

        def guarded(*args: Any) -> None:
            try:
                handler(*args)
            except Exception as exc:
                self._report(EngineFailure("handler", repr(handler), exc, args))

        return self._state_machine.on_state_change(guarded)

    def on_ready(self, handler: Callable[[AgentEngine], object]) -> Unsubscribe:
        """Call ``handler(engine)`` each time the engine becomes idle with an empty queue."""
        return self._ready_handlers.add(None, handler)

    def on_destroy(self, handler: Callable[[AgentEngine], object]) -> Unsubscribe:
        """Call ``handler(engine)`` once, when ``destroy()`` runs."""
        return self._destroy_handlers.add(None, handler)

    def on_error(self, handler: Callable[[EngineFailure], object]) -> Unsubscribe:
        """Receive an ``EngineFailure`` for each presenter/handler/interceptor failure.

        With no error handler, failures are logged to the ``agentcore.engine`` logger.
        """
        return self._outlet.on_error(handler)

    def use(self, middleware: Middleware) -> Unsubscribe:
        """Add ``middleware`` around message processing (first added = outermost)."""
        self._middleware = (*self._middleware, middleware)

        def remove() -> None:
            self._middleware = tuple(m for m in self._middleware if m is not middleware)

        return remove

    def intercept(self, interceptor: Interceptor) -> Unsubscribe:
        """Add ``interceptor`` before delivery (first added runs first).

        An interceptor that raises blocks that output (fail closed) and is reported.
        """
        self._interceptors = (*self._interceptors, interceptor)
        self._rebuild_chain()

        def remove() -> None:
            self._interceptors = tuple(i for i in self._interceptors if i is not interceptor)
            self._rebuild_chain()

        return remove

    def _rebuild_chain(self) -> None:
        chain: Callable[[Any], None] = self._outlet.deliver
        for interceptor in reversed(self._interceptors):
            chain = intercepting(interceptor, chain, self._report)
        self._deliver_chain = chain

    # -- control ----------------------------------------------------------------------

    def interrupt(self, reason: str = "user") -> None:
        """Stop the current model call; a no-op when idle. Idempotent.

        The driver is told to stop; once its stream has ended, ``interrupt`` is fed through
        the machine, which flushes the partial assistant message and ends the turn
        (``conversation_interrupted``, ``conversation_end{interrupted}``). Queued messages
        are not affected: the next one starts afterwards.
        """
        if self._stream is None or self._interrupt_reason is not None:
            return
        self._interrupt_reason = reason
        try:
            self.driver.interrupt()
        finally:
            self._stream.cancel()

    async def drain(self) -> None:
        """Wait until every async presenter has finished with what it was given."""
        await self._outlet.drain()

    async def destroy(self) -> None:
        """Shut the engine down; idempotent.

        Rejects queued messages (``MessageRejectedError``), interrupts the current turn
        and waits for it to close, lets async presenters finish, runs the destroy
        handlers, and syncs the journal. Every later ``receive`` raises
        ``EngineClosedError``.
        """
        if self._closed:
            return
        self._closed = True
        while self._queue:
            message, future = self._queue.popleft()
            if not future.done():
                future.set_exception(
                    MessageRejectedError(
                        f"message {message.message_id} was discarded: engine {self.agent_id} "
                        "was destroyed before it ran"
                    )
                )
        worker = self._worker
        if worker is not None:
            self.interrupt("destroyed")
            if asyncio.current_task() is not worker:  # destroy() from inside a middleware
                await asyncio.wait([worker])
        await self.drain()
        self._outlet.cancel()
        self._destroy_handlers.dispatch(self)
        if self.journal is not None:
            self.journal.sync()


def _code_of(exc: Exception) -> str:
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) and code else ErrorCode.DRIVER_ERROR.value


def create_agent(
    driver: Driver,
    presenters: Sequence[Any] = (),
    *,
    store: Store | None = None,
    journal: Journal | None = None,
    agent_id: str | None = None,
    clock: Callable[[], int] | None = None,
    id_factory: Callable[[], str] | None = None,
    system_prompt: str | None = None,
    tools: Sequence[ToolSpec] = (),
    prices: Any = None,
    machine: _Machine | None = None,
    state_machine: _StateMachine | None = None,
    max_pending: int = 10_000,
) -> AgentEngine:
    """Build an engine around ``driver``.

    ``presenters`` get every delivered event; ``store`` keeps machine state (default: in
    memory); ``journal`` records every input event; ``clock`` (ms) and ``id_factory``
    make runs deterministic; ``machine``/``state_machine`` replace the defaults
    (``create_mealy_machine(store, prices)`` and ``AgentStateMachine()``);
    ``max_pending`` is the backpressure mark of each async presenter.

    ``tools`` are announced to the model. Each message gets exactly one model call; a
    reply that asks for tools ends the turn with its tool calls in ``Reply.outputs`` (run
    them and answer with ``tool_result`` events through your own loop, or use
    ``agentcore.agent.Agent``, whose loop processor decides all of that).
    """
    driver = as_driver(driver)
    if machine is None:
        from .._core.machine import create_mealy_machine

        machine = create_mealy_machine(store, prices)
    if state_machine is None:
        from ..state_machine import AgentStateMachine

        state_machine = AgentStateMachine()
    make_id = id_factory or new_id
    return AgentEngine(
        driver=driver,
        machine=machine,
        state_machine=state_machine,
        presenters=presenters,
        journal=journal,
        agent_id=agent_id or f"agent_{make_id()}",
        clock=clock or ms_clock,
        id_factory=make_id,
        system_prompt=system_prompt,
        tools=tools,
        max_pending=max_pending,
    )
