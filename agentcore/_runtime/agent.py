"""The high-level agent: a model, tools and limits behind prompt/steer/follow_up/abort.

``Agent`` is a thin shell: every decision is the loop processor's (``agentcore.loop``);
``LoopRuntime`` performs the effects, runs stream-layer events through the core machine
(messages, state, turns) and delivers everything to ``presenters`` and subscribers, as
``AgentEngine`` does. ``model`` is a driver instance, or a ``"provider/model"`` string
resolved when first needed by ``driver_factory`` (default:
``drivers.registry.get_driver``). The ``drivers`` package (registry and price table) is
imported inside the functions that resolve a model name, so ``import agentcore`` never
loads a plugin and works without it installed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import attrs

from .._core.content import ToolCallPart, Usage
from .._core.driver import Driver, ThinkingLevel, as_driver
from .._core.errors import (
    AgentBusyError,
    AgentError,
    ConfigurationError,
    ProtocolError,
    error_from_code,
)
from .._core.events import AssistantMessage, TextDelta
from .._core.machine import create_mealy_machine
from .._core.pricing import ModelPrice
from .._journal.journal import Journal
from .._loop.events import (
    AgentAbort,
    AgentContinue,
    AgentFollowUp,
    AgentMessageUpdate,
    AgentPrompt,
    AgentSteer,
    AwaitApproval,
    ToolApproval,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from .._loop.state import Limits, LoopConfig, QueueMode, SteeringPolicy, default_convert_to_llm
from .._loop.tools import Tool
from .delivery import EngineFailure
from .loop_runtime import LoopRuntime
from .outlet import Outlet, ms_clock, new_id, stamp_message
from .plugins import find_model_price, resolve_model

__all__ = ["Agent", "AgentResult", "AgentSnapshot"]

Subscriber = Callable[[Any], object]


@attrs.frozen(slots=True)
class AgentSnapshot:
    """A snapshot: the history, whether a run is active, calls running or awaiting approval,
    queued messages, and the last run's error (``None`` after a clean run)."""

    messages: tuple[Any, ...]
    is_streaming: bool
    pending_tool_calls: tuple[ToolCallPart, ...]
    pending_approvals: tuple[ToolCallPart, ...]
    steering: tuple[Any, ...]
    follow_ups: tuple[Any, ...]
    error: AgentError | None


@attrs.frozen(slots=True)
class AgentResult:
    """What ``Agent.run`` returns: the final text, the messages the run added, the tool
    calls the model made, summed usage, wall time in seconds, and ``status``
    (``completed`` or ``awaiting_approval``)."""

    output: str
    messages: tuple[Any, ...]
    tool_calls: tuple[ToolCallPart, ...]
    usage: Usage
    duration: float
    status: str = "completed"


class Agent:
    """An agent run by the pure loop processor. See docs/agent.md.

    Limits (``max_iterations``, ``max_tokens``, ``max_cost`` in USD, ``timeout`` in
    seconds) apply to every run and can be overridden per call. ``presenters`` get every
    stream-layer input, the core outputs it causes and the loop's lifecycle events, in
    order, each on its isolated lane; ``journal`` records the stream-layer inputs in the
    engine's format. ``price`` defaults to the ``drivers.prices`` entry of a
    ``"provider/model"`` string. Raises ``ConfigurationError`` for bad options, and for
    ``max_cost`` without a known price.
    """

    def __init__(
        self,
        model: str | Driver,
        *,
        system_prompt: str | None = None,
        tools: Sequence[Tool] = (),
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
        messages: Sequence[Any] = (),
        driver_factory: Callable[[str], Driver] | None = None,
        presenters: Sequence[Any] = (),
        journal: Journal | None = None,
        agent_id: str | None = None,
        clock: Callable[[], int] = ms_clock,
        id_factory: Callable[[], str] = new_id,
    ) -> None:
        if not isinstance(model, str):
            try:
                model = as_driver(model)
            except TypeError:
                raise ConfigurationError(
                    f"model must be a 'provider/model' string or a Driver, got {model!r}"
                ) from None
        self._model = model
        self._driver_factory = driver_factory
        price, self.prices = _prices_for(model, price)
        if max_cost is not None and price is None:
            raise _no_price(model)
        self.config = LoopConfig(
            system_prompt=system_prompt,
            tools=tuple(tools),
            limits=Limits(max_iterations, max_tokens, max_cost, _ms(timeout)),
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
        )
        self._clock = clock
        self._new_id = id_factory
        self._journal = journal
        self._outlet = Outlet(agent_id or f"agent_{id_factory()}", presenters, 10_000)
        self._machine = create_mealy_machine(prices=self.prices)
        self._runtime: LoopRuntime | None = None
        self._initial = tuple(messages)

    @property
    def agent_id(self) -> str:
        return self._outlet.agent_id

    # -- state ------------------------------------------------------------------------------

    @property
    def runtime(self) -> LoopRuntime:
        """The runtime (created with the driver on first use)."""
        if self._runtime is None:
            self._runtime = LoopRuntime(
                self.config,
                self._resolve_driver(),
                self._outlet,
                messages=self._initial,
                clock=self._clock,
                journal=self._journal,
                machine=self._machine,
            )
        return self._runtime

    @property
    def journal(self) -> Journal | None:
        """The journal of stream-layer inputs (``agentcore.journal.replay`` folds it)."""
        return self._journal

    @property
    def inputs(self) -> list[Any]:
        """Every input folded since the last ``reset``; ``replay_journal`` replays it."""
        return self.runtime.inputs

    @property
    def state(self) -> AgentSnapshot:
        s = self.runtime.state
        batch = s.batch
        running: tuple[ToolCallPart, ...] = ()
        approvals: tuple[ToolCallPart, ...] = ()
        if batch is not None:
            running = tuple(c for c in batch.calls if c.tool_call_id in batch.running)
            approvals = tuple(c for c in batch.calls if c.tool_call_id in batch.pending)
        error = None if s.error is None else error_from_code(s.error[1], s.error[0])
        return AgentSnapshot(
            tuple(s.messages),
            s.phase not in ("idle", "approval"),
            running,
            approvals,
            s.steering,
            s.follow_ups,
            error,
        )

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn(event)`` for every delivered event (what presenters get); returns an
        idempotent unsubscribe.

        A subscriber that raises is reported (``on_error``, else the ``agentcore.engine``
        logger) and skipped; the others still get the event.
        """
        return self._outlet.subs.add(None, fn)

    def on_error(self, handler: Callable[[EngineFailure], object]) -> Callable[[], None]:
        """Receive an ``EngineFailure`` for each presenter or subscriber failure."""
        return self._outlet.on_error(handler)

    async def drain(self) -> None:
        """Wait until every async presenter has finished with what it was given."""
        await self._outlet.drain()

    # -- control ----------------------------------------------------------------------------

    async def prompt(self, message: str | Any | Sequence[Any], **limits: Any) -> None:
        """Start a run with ``message`` and wait until it ends or pauses for approval.

        Run errors do not raise here: they are in ``state.error``. Raises
        ``AgentBusyError`` if a run is active (steer or follow up instead).
        """
        self._check_idle()
        await self.runtime.run(AgentPrompt(self._messages(message), **self._limits(limits)))

    async def continue_(self, **limits: Any) -> None:
        """Run again from the history as it is (e.g. after an error or an abort).

        Raises ``ProtocolError`` when the history ends with the assistant's reply and no
        message is queued, ``AgentBusyError`` while a run is active.
        """
        self._check_idle()
        s = self.runtime.state
        if not s.messages or (
            isinstance(s.messages[-1], AssistantMessage) and not (s.steering or s.follow_ups)
        ):
            raise ProtocolError(
                "cannot continue: the conversation is empty or ends with the assistant's "
                "reply; use prompt(), or queue a message with follow_up() first"
            )
        await self.runtime.run(AgentContinue(**self._limits(limits)))

    def steer(self, message: str | Any) -> None:
        """Queue a message for before the next model call (not-started tools per policy)."""
        self.runtime.feed(AgentSteer(self._message(message)))

    def follow_up(self, message: str | Any) -> None:
        """Queue a message for when the agent would otherwise stop."""
        self.runtime.feed(AgentFollowUp(self._message(message)))

    def abort(self, reason: str = "user") -> None:
        """Abort the active run (idempotent; a no-op when idle). The run ends with
        ``ABORTED``; partial output is kept and every tool call gets a result."""
        self.runtime.feed(AgentAbort(reason))

    async def approve(self, tool_call_id: str) -> None:
        """Approve a pending call; once every pending call is decided the run resumes."""
        await self.runtime.run(ToolApproval(tool_call_id, True))

    async def reject(self, tool_call_id: str, reason: str | None = None) -> None:
        """Reject a pending call: the model gets an error result saying so (and why)."""
        await self.runtime.run(ToolApproval(tool_call_id, False, reason))

    def reset(self) -> None:
        """Forget the history and queues (raises ``AgentBusyError`` during a run).

        Presenters, subscribers, the journal and the core machine carry on, so the journal
        still replays exactly; ``inputs`` starts again.
        """
        self._check_idle()
        self._initial = ()
        self._runtime = None

    # -- one-shot helpers -------------------------------------------------------------------

    async def run(
        self,
        prompt: str | Any,
        *,
        on_token: Callable[[str], None] | None = None,
        on_tool_call: Callable[[ToolExecutionStart], None] | None = None,
        on_tool_result: Callable[[Any], None] | None = None,
        on_complete: Callable[[AgentResult], None] | None = None,
        on_error: Callable[[AgentError], None] | None = None,
        **limits: Any,
    ) -> AgentResult:
        """Prompt, wait, and return an ``AgentResult``; raises the run's ``AgentError``
        (after calling ``on_error``) when it ended with an error or was aborted."""

        def relay(event: Any) -> None:
            if on_token and isinstance(event, AgentMessageUpdate):
                if isinstance(event.delta, TextDelta):
                    on_token(event.delta.text)
            elif on_tool_call and isinstance(event, ToolExecutionStart):
                on_tool_call(event)
            elif on_tool_result and isinstance(event, ToolExecutionEnd):
                on_tool_result(event.result)

        self._check_idle()
        start = len(self.runtime.state.messages)
        began = time.perf_counter()
        unsubscribe = self.subscribe(relay)
        try:
            end = await self.runtime.run(
                AgentPrompt(self._messages(prompt), **self._limits(limits))
            )
        finally:
            unsubscribe()
        error = self.state.error
        if error is not None:
            if on_error:
                on_error(error)
            raise error
        added = tuple(self.runtime.state.messages[start:])
        replies = [m for m in added if isinstance(m, AssistantMessage)]
        result = AgentResult(
            replies[-1].text if replies else "",
            added,
            tuple(c for m in replies for c in m.tool_calls),
            sum((m.usage for m in replies), Usage()),
            time.perf_counter() - began,
            "awaiting_approval" if isinstance(end, AwaitApproval) else "completed",
        )
        if on_complete:
            on_complete(result)
        return result

    async def stream(self, prompt: str | Any, **limits: Any) -> AsyncIterator[Any]:
        """Yield every lifecycle event of a run started with ``prompt``, ending with
        ``agent_end`` (or ``tool_approval_required``). Leaving the loop early aborts it."""

        self._check_idle()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        unsubscribe = self.subscribe(queue.put_nowait)
        task = asyncio.create_task(self.prompt(prompt, **limits))
        try:
            while not (task.done() and queue.empty()):
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            await task
        finally:
            unsubscribe()
            if not task.done():
                self.abort("stream closed")
                await task

    # -- helpers ----------------------------------------------------------------------------

    def _check_idle(self) -> None:
        phase = self.runtime.state.phase
        if phase == "approval":
            raise AgentBusyError(
                "the agent is waiting for tool approval: call approve()/reject() for "
                f"{[c.tool_call_id for c in self.state.pending_approvals]}, or abort()"
            )
        if phase != "idle":
            raise AgentBusyError(
                "the agent is running: use agent.steer(msg) to redirect it now, or "
                "agent.follow_up(msg) to queue a message for when it finishes"
            )

    async def aclose(self) -> None:
        """Release what the agent built: the driver it resolved from a model name.

        A driver instance passed in is the caller's to close. Idempotent. After it, an
        agent built from a model name cannot call its model again.
        """
        runtime = self._runtime
        if isinstance(self._model, str) and runtime is not None:
            close = getattr(runtime.driver, "aclose", None)
            if close is not None:
                await close()

    def _resolve_driver(self) -> Driver:
        if not isinstance(self._model, str):
            return self._model
        factory = self._driver_factory or resolve_model
        return factory(self._model)

    def _message(self, message: str | Any) -> Any:
        return stamp_message(message, self._clock, self._new_id)

    def _limits(self, values: dict[str, Any]) -> dict[str, Any]:
        out = _limits(values)
        if out.get("max_cost") is not None and self.config.price is None:
            raise _no_price(self._model)
        return out

    def _messages(self, message: str | Any | Sequence[Any]) -> tuple[Any, ...]:
        if isinstance(message, list | tuple):
            return tuple(self._message(m) for m in message)
        return (self._message(message),)


def _prices_for(
    model: str | Driver, price: ModelPrice | None
) -> tuple[ModelPrice | None, dict[str, ModelPrice] | None]:
    """The loop's price and the turn tracker's table for ``model``.

    A ``"provider/model"`` string without an explicit ``price`` is looked up in
    ``drivers.prices`` (``None`` when unknown or when the package is missing). The table
    keys the price by the model id (a driver's ``model`` attribute for an instance), so
    turn costs follow the loop's; without a price there is no table and turn costs are
    ``None``, as in a replay through the default machine.
    """
    if isinstance(model, str):
        key: object = model.rpartition("/")[2]
        if price is None:
            price = find_model_price(model)
    else:
        key = getattr(model, "model", None)
    if price is None or not isinstance(key, str) or not key:
        return price, None
    return price, {key: price}


def _no_price(model: str | Driver) -> ConfigurationError:
    name = model if isinstance(model, str) else getattr(model, "name", repr(model))
    return ConfigurationError(
        f"max_cost needs a price for model {name}; pass price=ModelPrice(...)"
    )


def _ms(seconds: float | None) -> int | None:
    if seconds is None:
        return None
    return max(1, round(seconds * 1000)) if seconds > 0 else round(seconds * 1000)


def _limits(values: dict[str, Any]) -> dict[str, Any]:
    known = {"max_iterations", "max_tokens", "max_cost", "timeout"}
    unknown = set(values) - known
    if unknown:
        raise ConfigurationError(f"unknown run option(s) {sorted(unknown)}; known: {sorted(known)}")
    out = {k: v for k, v in values.items() if k != "timeout"}
    if "timeout" in values:
        out["timeout_ms"] = _ms(values["timeout"])
    Limits(**out)  # validate: raises ConfigurationError naming the bad limit
    return out
