"""What every part of a ``LocalPerformer`` reads: the feed, the clock, the outlet, and
the equipment an agent sets after construction (``Agent.equip``: hooks, middleware,
guardrails, tools, deps, ...). ``LocalPerformer`` is a ``Shared``, so the parts see what
was set on it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..._core.errors import ErrorCode
from ..._loop.events import GuardrailTripped
from ..._loop.tools import Tool
from ..actions import Middleware
from ..delivery import EngineFailure, FailureSource
from ..extensions import Hooks
from ..guardrails import Guards, Verdict
from ..outlet import Outlet

__all__ = ["Shared", "code"]


class Shared:
    """The state the parts share (module docstring)."""

    def __init__(
        self,
        feed: Callable[[Any], None],
        tools: Mapping[str, Tool],
        outlet: Outlet,
        clock: Callable[[], int],
        feed_all: Callable[[Sequence[Any]], None] | None = None,
    ) -> None:
        self.feed = feed
        self.feed_all = feed_all or (lambda events: _each(feed, events))
        """Feed inputs that belong together (a tool's result and its trip): all are
        folded before what they ask for runs."""
        self.clock = clock
        self.outlet = outlet
        self.tools = dict(tools)
        self.hooks = Hooks()
        self.middleware: tuple[Middleware, ...] = ()
        self.guards = Guards()
        self.deps: Any = None
        self.build_output: Callable[[Any], Any] | None = None
        """The current run's builder of its typed answer (a structured-output run)."""
        self.settle: Callable[[], Awaitable[None]] | None = None
        """Awaited before a tool's result is fed (an agent with toolsets: a list change
        the call caused reaches the next model call)."""

    def hold_calls(self) -> None:
        """Let the running task stream the model calls its next feed asks for
        (``stream_held``); nothing here (``LocalPerformer`` streams them)."""

    async def stream_held(self) -> None:
        """Stream the calls held for this task (``hold_calls``)."""

    def streams_here(self) -> bool:
        """Whether the running task streams the model calls its feed asks for (held by
        ``hold_calls``); nothing does here."""
        return False

    def run_held(self) -> bool:
        """Run the tool call held for the running task; whether a result was fed."""
        return False

    def report_plugin(self, source: FailureSource, exc: Exception, subject: Any) -> None:
        """Tell the outlet a plugin failed (the call it bent goes on or fails alone)."""
        self.outlet.report(EngineFailure(source, type(exc).__name__, exc, subject))

    def trip(self, verdict: Verdict, stage: str) -> GuardrailTripped:
        """The ``guardrail_tripped`` input for a tripped ``verdict`` at ``stage``."""
        assert verdict.guardrail is not None
        if verdict.error is not None:
            self.report_plugin("guardrail", verdict.error, verdict.guardrail)
        return GuardrailTripped(verdict.guardrail, stage, verdict.reason, timestamp=self.clock())


def code(error: ErrorCode) -> dict[str, str]:
    """A result's ``details`` naming its error code."""
    return {"error_code": error.value}


def _each(feed: Callable[[Any], None], events: Sequence[Any]) -> None:
    for event in events:
        feed(event)
