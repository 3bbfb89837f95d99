"""Getting an agent's outputs out: interceptors, presenters, subscribers, the error channel.

``Outlet.send(output)`` runs the interceptors (first added first; one that does not call
``next`` blocks the output), then ``deliver`` hands the output to every presenter, each
on its isolated lane (``delivery.PresenterLane``), then to the subscribers. The
guarantees are those of ``delivery``: every presenter sees every delivered output in
order; a failing presenter, handler or interceptor is reported once per failure and
never stops the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .delivery import EngineFailure, PresenterLane, Reporter, report_to
from .middleware import Interceptor, all_of, intercepting
from .subscriptions import Handler, Subscriptions, Unsubscribe, parse_subscription

__all__ = ["Outlet"]


class _CountedSubscriptions(Subscriptions):
    """``Subscriptions`` that know how many handlers are subscribed, so an outlet with
    none skips dispatch altogether (most outputs of a busy agent have no listener);
    ``changed()`` is called when that number changes."""

    __slots__ = ("active", "changed")

    def __init__(self, report: Reporter, changed: Callable[[], None]) -> None:
        super().__init__(report)
        self.active = 0
        self.changed = changed

    def add(self, types: Iterable[str] | None, handler: Handler) -> Unsubscribe:
        remove = super().add(types, handler)
        self.active += 1
        self.changed()
        removed = False

        def unsubscribe() -> None:
            nonlocal removed
            if not removed:
                removed = True
                self.active -= 1
                self.changed()
            remove()

        return unsubscribe


class Outlet:
    """Presenters, subscribers and the error channel of one agent.

    ``deliver(output)`` hands ``output`` to every presenter lane, then to the subscribers.
    ``congested`` turns true when an async presenter has more than ``max_pending``
    awaitables waiting; the shell then awaits ``relieve()`` before reading further input.
    With no ``on_error`` handler, failures are logged to the ``agentcore.engine`` logger.
    ``quiet`` is true while nothing would see an output (no presenter, subscriber or
    interceptor): the conversation then sends none.
    """

    __slots__ = (
        "_deliver",
        "_error_handlers",
        "_interceptors",
        "agent_id",
        "congested",
        "lanes",
        "quiet",
        "report",
        "send",
        "subs",
    )

    def __init__(self, agent_id: str, presenters: Sequence[Any], max_pending: int) -> None:
        if max_pending < 1:
            raise ValueError(f"max_pending must be >= 1, got {max_pending}")
        self.agent_id = agent_id
        self._error_handlers: tuple[Callable[[EngineFailure], object], ...] = ()
        self.report = report_to(lambda: self._error_handlers)
        self.lanes = tuple(PresenterLane(p, self.report, max_pending) for p in presenters)
        self._interceptors: tuple[Interceptor, ...] = ()
        self.subs = _CountedSubscriptions(self.report, self._listened)
        self.congested = False
        self.quiet = not self.lanes
        self._deliver = self._one(self.lanes[0]) if len(self.lanes) == 1 else self.deliver
        self.send: Callable[[Any], None] = self._deliver
        """Interceptors, then ``deliver``: what the runtime calls for each output."""

    def deliver(self, output: Any) -> None:
        for lane in self.lanes:
            if lane.deliver(self.agent_id, output):
                self.congested = True
        subs = self.subs
        if subs.active:
            subs.dispatch(output)

    def _one(self, lane: PresenterLane) -> Callable[[Any], None]:
        """``deliver`` for an agent with one presenter (the common case, and every
        streamed delta's path): that lane's delivery inlined, one call fewer."""
        present, accept, failed = lane.presenter.present, lane.accept, lane.failed
        agent_id, subs = self.agent_id, self.subs

        def deliver(output: Any) -> None:
            try:
                result = present(agent_id, output)
            except Exception as exc:
                failed(exc, output)
            else:
                if result is not None and accept(result, output):
                    self.congested = True
            if subs.active:
                subs.dispatch(output)

        return deliver

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

    def intercept(self, interceptor: Interceptor) -> Unsubscribe:
        """Add ``interceptor`` in front of delivery (first added runs first)."""
        if not callable(interceptor):
            raise TypeError(
                f"an interceptor must be callable as (output, next), got {interceptor!r}"
            )
        self._interceptors = (*self._interceptors, interceptor)
        self._rebuild()

        def remove() -> None:
            self._interceptors = tuple(i for i in self._interceptors if i is not interceptor)
            self._rebuild()

        return remove

    def _rebuild(self) -> None:
        chain: Callable[[Any], None] = self._deliver
        for interceptor in reversed(self._interceptors):
            chain = intercepting(interceptor, chain, self.report)
        self.send = chain
        self._listened()

    def _listened(self) -> None:
        self.quiet = not (self.lanes or self.subs.active or self._interceptors)

    async def relieve(self) -> None:
        """Wait until every lane is below its backpressure mark."""
        for lane in self.lanes:
            await lane.wait_below_mark()
        self.congested = False

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every async presenter has finished with what it was given, or at
        most ``timeout`` seconds; return whether they all finished. A presenter still
        busy at the timeout is reported (``EngineFailure``, a ``TimeoutError``)."""
        waiting = asyncio.gather(*(lane.drain() for lane in self.lanes))
        try:
            await asyncio.wait_for(waiting, timeout)
        except TimeoutError:
            for lane in self.lanes:
                if lane.pending:
                    stuck = TimeoutError(
                        f"presenter still busy after {timeout:g} s with {lane.pending} "
                        "output(s) to present; they were dropped"
                    )
                    self.report(EngineFailure("presenter", lane.name, stuck))
            return False
        return True

    def cancel(self) -> None:
        """Stop every lane (awaitables not yet run are closed, not awaited)."""
        for lane in self.lanes:
            lane.cancel()
