"""Subscribers of an engine: handlers by output type, safe to change during dispatch.

``Subscriptions.add`` returns an unsubscribe function (idempotent). Dispatch iterates a
snapshot of the handlers, so a handler subscribed while an output is being dispatched
starts with the *next* output, and one unsubscribed during dispatch is skipped from that
moment on (even for the current output, if it had not been called yet).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from .._core.events import EVENT_TYPES
from .delivery import EngineFailure, Reporter

__all__ = ["Handler", "Subscriptions", "Unsubscribe", "parse_subscription", "react_map"]

Handler: TypeAlias = Callable[[Any], object]
"""Called with one output; its return value is ignored (a returned awaitable is awaited
on its own task so a slow handler cannot block the engine; failures are reported)."""

Unsubscribe: TypeAlias = Callable[[], None]


class _Subscription:
    __slots__ = ("active", "handler")

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.active = True


class Subscriptions:
    """Handlers for every output (``None`` type) or for given wire types."""

    __slots__ = ("_all", "_by_type", "_report")

    def __init__(self, report: Reporter) -> None:
        self._all: tuple[_Subscription, ...] = ()
        self._by_type: dict[str, tuple[_Subscription, ...]] = {}
        self._report = report

    def add(self, types: Iterable[str] | None, handler: Handler) -> Unsubscribe:
        """Subscribe ``handler`` to ``types`` (all outputs when ``None``)."""
        if not callable(handler):
            raise TypeError(f"handler must be callable, got {handler!r}")
        sub = _Subscription(handler)
        names = None if types is None else tuple(dict.fromkeys(types))
        if names is None:
            self._all = (*self._all, sub)
        else:
            for name in names:
                self._by_type[name] = (*self._by_type.get(name, ()), sub)

        def unsubscribe() -> None:
            if not sub.active:
                return
            sub.active = False
            if names is None:
                self._all = tuple(s for s in self._all if s is not sub)
            else:
                for name in names:
                    rest = tuple(s for s in self._by_type.get(name, ()) if s is not sub)
                    if rest:
                        self._by_type[name] = rest
                    else:
                        self._by_type.pop(name, None)

        return unsubscribe

    def dispatch(self, output: Any) -> None:
        """Call every active handler for ``output``: typed ones first, then catch-alls."""
        typed = self._by_type.get(getattr(output, "type", ""), ())
        for subs in (typed, self._all):
            for sub in subs:
                if not sub.active:
                    continue
                try:
                    result = sub.handler(output)
                    if result is not None and inspect.isawaitable(result):
                        _spawn(result, sub.handler, output, self._report)
                except Exception as exc:
                    self._report(EngineFailure("handler", repr(sub.handler), exc, output))

    def __len__(self) -> int:
        return len(self._all) + len({id(s) for subs in self._by_type.values() for s in subs})


def _spawn(awaitable: Any, handler: Handler, output: Any, report: Reporter) -> None:

    async def run() -> None:
        try:
            await awaitable
        except Exception as exc:
            report(EngineFailure("handler", repr(handler), exc, output))

    task = asyncio.get_running_loop().create_task(run())
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


_TASKS: set[Any] = set()  # strong references, so spawned handler tasks are not collected


def _check_type(name: str) -> str:
    if name not in EVENT_TYPES:
        raise ValueError(
            f"unknown output type {name!r}; known types: {', '.join(sorted(EVENT_TYPES))}"
        )
    return name


def parse_subscription(
    target: Handler | str | Iterable[str] | Mapping[str, Handler],
    handler: Handler | None,
) -> list[tuple[tuple[str, ...] | None, Handler]]:
    """Normalise the four ``on(...)`` forms into ``(types or None, handler)`` pairs.

    Raises ``TypeError``/``ValueError`` naming the mistake (unknown type, missing handler).
    """
    if isinstance(target, Mapping):
        if handler is not None:
            raise TypeError("on({type: handler}) takes no second argument")
        return [((_check_type(name),), h) for name, h in target.items()]
    if isinstance(target, str):
        if handler is None:
            raise TypeError(f"on({target!r}, handler): the handler is missing")
        return [((_check_type(target),), handler)]
    if callable(target):
        if handler is not None:
            raise TypeError("on(handler) takes one argument; use on(type, handler) to filter")
        return [(None, target)]
    if handler is None:
        raise TypeError("on([types], handler): the handler is missing")
    return [(tuple(_check_type(t) for t in target), handler)]


def react_map(handlers: Mapping[str, Handler]) -> dict[str, Handler]:
    """``{"on_text_delta": h}`` -> ``{"text_delta": h}``; names must start with ``on_``."""
    out: dict[str, Handler] = {}
    for key, handler in handlers.items():
        if not key.startswith("on_"):
            raise ValueError(f"react() keys look like 'on_text_delta'; got {key!r}")
        out[_check_type(key[3:])] = handler
    return out
