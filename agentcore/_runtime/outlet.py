"""What every async shell of agentcore shares: stamping and getting outputs out.

``AgentEngine`` (one model call per message) and the ``Agent`` runtime (the agent loop)
both stamp user messages with the same helper and deliver through one ``Outlet``: the
presenters, each on its isolated lane (``_delivery.PresenterLane``), the subscribers,
and the error channel. The guarantees are those of ``_delivery``: every presenter sees
every delivered output in order; a failing presenter, handler or interceptor is reported
once per failure and never stops the others.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from .._core.events import UserMessage
from .delivery import EngineFailure, PresenterLane, Reporter, report_to
from .middleware import all_of
from .subscriptions import Handler, Subscriptions, Unsubscribe, parse_subscription

__all__ = ["Outlet", "ms_clock", "new_id", "stamp_message"]


def ms_clock() -> int:
    """Wall-clock milliseconds: the default stamp of events that carry none."""
    return time.time_ns() // 1_000_000


def new_id() -> str:
    """A random 16-hex-digit id: the default for message and agent ids."""
    return uuid.uuid4().hex[:16]


def stamp_message(message: Any, clock: Callable[[], int], id_factory: Callable[[], str]) -> Any:
    """A ``str`` becomes a ``UserMessage``; a ``UserMessage`` gets a ``message_id`` and a
    timestamp when it has none (an evolved copy); anything else is returned unchanged."""
    if isinstance(message, str):
        return UserMessage(message_id=id_factory(), content=message, timestamp=clock())
    if not isinstance(message, UserMessage):
        return message
    changes: dict[str, Any] = {}
    if not message.message_id:
        changes["message_id"] = id_factory()
    if message.timestamp == 0:
        changes["timestamp"] = clock()
    return attrs.evolve(message, **changes) if changes else message


class _CountedSubscriptions(Subscriptions):
    """``Subscriptions`` that know how many handlers are subscribed, so an outlet with
    none skips dispatch altogether (most outputs of a busy agent have no listener)."""

    __slots__ = ("active",)

    def __init__(self, report: Reporter) -> None:
        super().__init__(report)
        self.active = 0

    def add(self, types: Iterable[str] | None, handler: Handler) -> Unsubscribe:
        remove = super().add(types, handler)
        self.active += 1
        removed = False

        def unsubscribe() -> None:
            nonlocal removed
            if not removed:
                removed = True
                self.active -= 1
            remove()

        return unsubscribe


class Outlet:
    """Presenters, subscribers and the error channel of one agent.

    ``deliver(output)`` hands ``output`` to every presenter lane, then to the subscribers.
    ``congested`` turns true when an async presenter has more than ``max_pending``
    awaitables waiting; the shell then awaits ``relieve()`` before reading further input.
    With no ``on_error`` handler, failures are logged to the ``agentcore.engine`` logger.
    """

    __slots__ = ("_error_handlers", "agent_id", "congested", "lanes", "report", "subs")

    def __init__(self, agent_id: str, presenters: Sequence[Any], max_pending: int) -> None:
        if max_pending < 1:
            raise ValueError(f"max_pending must be >= 1, got {max_pending}")
        self.agent_id = agent_id
        self._error_handlers: tuple[Callable[[EngineFailure], object], ...] = ()
        self.report = report_to(lambda: self._error_handlers)
        self.lanes = tuple(PresenterLane(p, self.report, max_pending) for p in presenters)
        self.subs = _CountedSubscriptions(self.report)
        self.congested = False

    def deliver(self, output: Any) -> None:
        for lane in self.lanes:
            if lane.deliver(self.agent_id, output):
                self.congested = True
        subs = self.subs
        if subs.active:
            subs.dispatch(output)

    def subscribe(
        self,
        target: Handler | str | Iterable[str] | Mapping[str, Handler],
        handler: Handler | None = None,
    ) -> Unsubscribe:
        """The four ``on(...)`` forms (see ``parse_subscription``); one remover for all."""
        return all_of([self.subs.add(types, h) for types, h in parse_subscription(target, handler)])

    def on_error(self, handler: Callable[[EngineFailure], object]) -> Unsubscribe:
        """Receive an ``EngineFailure`` for each presenter/handler/interceptor failure."""
        self._error_handlers = (*self._error_handlers, handler)

        def remove() -> None:
            self._error_handlers = tuple(h for h in self._error_handlers if h is not handler)

        return remove

    async def relieve(self) -> None:
        """Wait until every lane is below its backpressure mark."""
        for lane in self.lanes:
            await lane.wait_below_mark()
        self.congested = False

    async def drain(self) -> None:
        """Wait until every async presenter has finished with what it was given."""
        for lane in self.lanes:
            await lane.drain()

    def cancel(self) -> None:
        """Stop every lane (awaitables not yet run are closed, not awaited)."""
        for lane in self.lanes:
            lane.cancel()
