"""How ``Agent`` feeds a command and waits for the run it starts, mixed into ``Agent``.

A command is fed to the ``Conversation``; a command the processor rejects raises its
typed error (``_command``). A run is waited on in stretches: the performer calls
``_paused`` at each end or pause of the run (``Finish``, ``AwaitApproval``,
``AwaitElicitation``), which is also the journal's durability point. A prompt goes
through the ``loop_start`` middleware first, an ended run through the ``loop_end``
middleware; a ``skip_memory_save`` run is forgotten once it ends. Here too: the
``Conversation`` and the ``LocalPerformer`` wired to each other (``_wire``), the fresh
state a fold starts from (``initial_state``), the driver resolved on first use.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._core.agent_processor import activity_of
from .._core.driver import OutputSpec
from .._core.errors import (
    ConfigurationError,
    EngineClosedError,
    MessageRejectedError,
    error_from_code,
)
from .._core.pricing import ModelPrice
from .._core.processor import AnyProcessor
from .._core.records import field_names
from .._edges.clock import stamp_message
from .._edges.driver import Driver
from .._journal.conversation import Conversation
from .._journal.journal import Journal
from .._loop.conversation import ConversationState
from .._loop.events import (
    AgentContinue,
    AgentPrompt,
    AwaitApproval,
    AwaitElicitation,
    Finish,
    InputRejected,
    RunForgotten,
)
from .._loop.output import output_spec
from .._loop.state import AT_REST, LoopConfig
from .._loop.tools import Tool
from .actions import LoopEndAction, LoopStartAction, through
from .agent_config import AgentConfig
from .delivery import EngineFailure
from .extensions import Hooks
from .inbox import Inbox
from .options import run_options
from .outlet import Outlet
from .perform import LocalPerformer
from .run_result import AgentResult, result_of
from .toolsets import AgentToolsets

if TYPE_CHECKING:
    from .._journal.snapshots import SnapshotStore

__all__ = ["RunFold"]


def _dump_state(state: Any) -> bytes:
    """``resume.dump_state``, its module (with the snapshot store and ``replay``) imported
    with the first snapshot rather than with the runtime."""
    from .._journal.resume import dump_state

    return dump_state(state)


class RunFold:
    """Feeding commands and waiting on runs, over the members ``Agent`` defines."""

    agent_id: str
    agent_config: AgentConfig
    config: LoopConfig
    deps: Any
    _closed: bool
    _shell: Conversation
    _outlet: Outlet
    _performer: LocalPerformer
    _toolsets: AgentToolsets | None
    _waiters: list[asyncio.Future[None]]
    _last_pause: Finish | AwaitApproval | AwaitElicitation | None
    _forget: int | None  # a skip_memory_save run's history length before it
    _clock: Callable[[], int]
    _new_id: Callable[[], str]
    _inbox: Inbox
    _hooks: Hooks
    _transform: Any
    _initial_state: Callable[..., ConversationState]
    _driver: Driver | None
    prices: dict[str, ModelPrice] | None
    processor: AnyProcessor

    if TYPE_CHECKING:

        def abort(self, reason: str = "user") -> None: ...
        async def wait(self) -> None: ...
        def _ready(self) -> None: ...
        def _sync_journal(self) -> None: ...
        def _journal_barrier(self) -> None: ...
        def _use_tools(self, tools: tuple[Tool, ...]) -> None: ...

    def _wire(
        self,
        c: AgentConfig,
        outlet: Outlet,
        journal: Journal | None,
        snapshots: SnapshotStore | None,
    ) -> None:
        """Build the ``Conversation`` that folds this agent's inputs into ``journal`` and
        the ``LocalPerformer`` that performs its effects, each wired to the other."""
        self._shell = shell = Conversation(
            self.processor,
            self.initial_state(),
            agent_id=self.agent_id,
            clock=c.clock,
            journal=journal,
            outlet=outlet,
            report=lambda *failure: outlet.report(EngineFailure(*failure)),
            activity=lambda state: activity_of(state.core),
            snapshots=snapshots,
            snapshot=_dump_state,
            snapshot_every=c.snapshot_every,
        )
        self._performer = performer = LocalPerformer(
            shell.feed,
            self._resolve_driver,
            {t.name: t for t in c.loop.tools},
            outlet,
            c.clock,
            lambda: shell.state.loop.messages,
            self._paused,
            shell.collect,
            shell.stop_collecting,
            feed_stream=shell.feed_stream,
            barrier=self._journal_barrier,
            feed_all=shell.feed_all,
            # a journaled run is a recording its eval rerun (a replay driver, in a task)
            # must reproduce: its model calls stream in a task too
            holds=journal is None,
        )
        shell.perform = performer.perform
        performer.hooks, performer.guards, performer.middleware = (
            self._hooks,
            c.guards(),
            c.middleware,
        )
        self._toolsets = None
        if c.toolsets:
            self._toolsets = AgentToolsets(c.toolsets, c.loop.tools, self._use_tools, outlet.report)
            performer.settle = self._toolsets.settled

    def initial_state(self) -> ConversationState:
        """A fresh conversation state for this agent's processor (its hooks and prices,
        nothing folded yet): where a replay of its journal starts."""
        hooks = LoopConfig(
            convert_to_llm=self.config.convert_to_llm, transform_context=self._transform
        )
        return self._initial_state(hooks, (), self.prices)

    def _resolve_driver(self) -> Driver:
        if self._driver is None:
            self._driver = self.agent_config.resolve_driver()
        return self._driver

    def _command(self, event: Any) -> None:
        """Feed a command; raise what the processor said if it rejected it."""
        if self._closed:
            raise EngineClosedError(f"agent {self.agent_id} was closed; create a new one")
        for output in self._shell.command(event):
            if type(output) is InputRejected:
                raise error_from_code(output.message, output.code)

    async def _run(
        self, event: Any, deps: Any = None, unsaved: bool = False
    ) -> tuple[Finish | AwaitApproval | AwaitElicitation | None, AgentResult[Any]]:
        """Feed a command that starts or resumes a run; wait until it ends or pauses, and
        return how (``None`` when the command started nothing, e.g. an approval that still
        waits for other decisions) and the ``AgentResult`` of what it added. A stopping
        run is waited for first. Cancelling the caller aborts the run and returns once
        the agent is idle. A prompt goes through the ``loop_start`` middleware and starts
        the input guardrails; an ended run goes through the ``loop_end`` middleware.
        ``unsaved``: the run is forgotten once it ends (``skip_memory_save``;
        ``_end_unsaved``). The model calls the command asks for are streamed in this
        task (``hold_calls``)."""
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
        performer.hold_calls()  # the model calls this command asks for stream in this task
        try:
            self._command(event)
        except BaseException:
            await performer.stream_held()  # none, or one the rejection cancelled
            raise
        if unsaved and self._forget is None:
            self._forget = start
        if type(event) is AgentPrompt and performer.guards.input:
            performer.check_input(event.messages)  # after the prompt: a trip ends its run
        try:
            await performer.stream_held()
            while self._running():
                await self._wait_stretch()
        except asyncio.CancelledError:
            if self._running():
                self.abort("cancelled")
                await self._wound_down()
            raise
        end: Finish | AwaitApproval | AwaitElicitation | None = self._last_pause
        messages = self._shell.state.loop.messages
        result = result_of(messages, start, time.perf_counter() - began, end)
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

    async def _wound_down(self) -> None:
        """Wait for the run to end, whatever cancels the waiting task meanwhile."""
        while self._running():
            try:
                await self._wait_stretch()
            except asyncio.CancelledError:
                continue

    async def _wait_stretch(self) -> None:
        """Wait for the next pause (end of run, or approval) of the current run.

        Each waiter has its own future, so cancelling one waiter cancels nothing shared
        (no ``asyncio.shield``: it costs a loop iteration and two callbacks per wait)."""
        waiter = asyncio.get_running_loop().create_future()
        waiters = self._waiters
        waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter.cancelled() and waiter in waiters:
                waiters.remove(waiter)

    def _end_unsaved(self) -> None:
        """Forget a ``skip_memory_save`` run once it has ended (not while it waits for an
        approval): a ``run_forgotten`` input, journaled like any other, cuts the history
        back to what it was before the run."""
        keep = self._forget
        if keep is not None and self._shell.state.loop.phase == "idle":
            self._forget = None
            self._command(RunForgotten(keep))

    def _running(self) -> bool:
        return self._shell.state.loop.phase not in AT_REST

    def _stopping(self) -> bool:
        run = self._shell.state.loop.run
        return run is not None and run.stopping is not None

    def _paused(self, effect: Finish | AwaitApproval | AwaitElicitation) -> None:
        self._last_pause = effect
        self._sync_journal()
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        if type(effect) is Finish and not self._inbox.pending:
            self._ready()

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
        return run_options(values, self.config.price, self.agent_config.model)


_PROMPT_OPTIONS = tuple(
    name for name in field_names(AgentPrompt) if name not in ("messages", "timestamp")
)
"""The fields of a prompt a ``loop_start`` middleware sees as its ``options``."""


async def _returned(action: Any) -> Any:
    return action
