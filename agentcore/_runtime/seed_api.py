"""The seed's engine vocabulary, mixed into ``Agent``: ``receive``, ``on``, ``react``,
``on_ready``, ``on_destroy``, ``intercept``, ``message_queue``, ``interrupt`` and
``destroy`` (the seed's factory ``create_agent`` is in ``agent``).

Each is a thin spelling over the agent vocabulary (``prompt``, ``subscribe``, ``abort``,
``aclose``) and the agent's ``Inbox`` of received messages; none adds a decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Self

from .._core.errors import EngineClosedError
from .._core.events import UserMessage
from .._core.state_machine import StateChange
from .._journal.conversation import Conversation
from .._loop.events import AgentPrompt, AwaitApproval, AwaitElicitation, Finish
from .delivery import EngineFailure
from .inbox import Inbox
from .middleware import Interceptor, MessageQueueView, Reply
from .outlet import Outlet
from .run_result import AgentResult
from .subscriptions import Handler, Unsubscribe, react_map

__all__ = ["SeedAPI"]


class SeedAPI:
    """The engine vocabulary of the seed, over the members ``Agent`` defines."""

    agent_id: str
    _closed: bool
    _inbox: Inbox
    _outlet: Outlet
    _shell: Conversation
    _ready_handlers: tuple[Callable[[Any], object], ...]
    _destroy_handlers: tuple[Callable[[Any], object], ...]

    if TYPE_CHECKING:

        def subscribe(
            self,
            target: Handler | str | Iterable[str] | Mapping[str, Handler],
            handler: Handler | None = None,
        ) -> Unsubscribe: ...
        def abort(self, reason: str = "user") -> None: ...
        async def aclose(self) -> None: ...
        async def _wait_stretch(self) -> None: ...
        def _running(self) -> bool: ...
        def _message(self, message: str | Any) -> Any: ...
        @property
        def state(self) -> Any: ...
        async def _run(
            self, event: Any, deps: Any = None, unsaved: bool = False
        ) -> tuple[Finish | AwaitApproval | AwaitElicitation | None, AgentResult[Any]]: ...

    def _seed_api(self) -> None:
        """Set up what the seed's vocabulary keeps (called by ``Agent.__init__``)."""
        self._inbox = Inbox(self._receive_one, self._ready)
        self._ready_handlers = ()
        self._destroy_handlers = ()

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

    @property
    def message_queue(self) -> MessageQueueView:
        """Messages ``receive`` holds behind the one being processed."""
        return self._inbox.view

    def on(
        self,
        target: Handler | str | Iterable[str] | Mapping[str, Handler],
        handler: Handler | None = None,
    ) -> Unsubscribe:
        """Alias of ``subscribe``."""
        return self.subscribe(target, handler)

    def react(self, handlers: Mapping[str, Handler]) -> Unsubscribe:
        """``react({"on_text_delta": h, ...})``: ``subscribe`` with ``on_``-prefixed names."""
        return self.subscribe(react_map(handlers))

    def on_state_change(self, handler: Callable[[StateChange], object]) -> Unsubscribe:
        """Call ``handler(StateChange)`` each time ``activity`` changes."""
        return self._shell.on_state_change(handler)

    def on_ready(self, handler: Callable[[Self], object]) -> Unsubscribe:
        """Call ``handler(agent)`` each time a run ends with nothing queued for ``receive``."""
        self._ready_handlers = (*self._ready_handlers, handler)
        return lambda: self._remove("_ready_handlers", handler)

    def on_destroy(self, handler: Callable[[Self], object]) -> Unsubscribe:
        """Call ``handler(agent)`` once, when the agent is closed."""
        self._destroy_handlers = (*self._destroy_handlers, handler)
        return lambda: self._remove("_destroy_handlers", handler)

    def intercept(self, interceptor: Interceptor) -> Unsubscribe:
        """Add ``interceptor`` in front of delivery (first added runs first); one that
        raises blocks that output and is reported."""
        return self._outlet.intercept(interceptor)

    def interrupt(self, reason: str = "user") -> None:
        """Alias of ``abort``."""
        self.abort(reason)

    async def destroy(self) -> None:
        """Alias of ``aclose``."""
        await self.aclose()

    def _remove(self, slot: str, handler: Callable[[Self], object]) -> None:
        setattr(self, slot, tuple(h for h in getattr(self, slot) if h is not handler))

    def _call_handlers(self, handlers: Iterable[Callable[[Self], object]]) -> None:
        for handler in handlers:
            try:
                handler(self)
            except Exception as exc:
                self._outlet.report(EngineFailure("handler", repr(handler), exc, None))
