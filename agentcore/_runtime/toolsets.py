"""Toolsets: sources of tools with a lifecycle (an MCP server is one), owned by an agent.

``Agent(toolsets=[...])`` gives its toolsets to one ``AgentToolsets``, which

- enters each toolset (``async with``) before the agent's first run, and before a later
  run while it could not start;
- lists their tools before every run (an MCP server answers from its cache unless its
  list changed) and as soon as one announces a change (``watch``), even mid-run; when the
  tools differ from what the agent has, the agent gets its own tools followed by theirs
  (``Agent._use_tools``: a new ``agent_configured`` is journaled, so a replay sees the
  same tools at the same point);
- leaves each toolset it entered (``__aexit__``) when the agent closes.

A tool's result waits for a listing its call caused (at most ``SETTLE_TIMEOUT``), so a
tool that adds tools to its server (a ``list_changed`` sent before its result, as stdio
and 2025 HTTP sessions do) is followed by a model call that sees them.

A toolset that fails to start or to list never fails a run: the failure is reported
(``EngineFailure`` with source ``toolset``: ``on_error`` handlers, else the
``agentcore.engine`` log) and the toolset keeps the tools it listed last, whose calls then
give error results (an MCP server's name the server and what failed). A tool name that is
already taken (by the agent's own tools or an earlier toolset) keeps its first owner; the
later one is reported.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Self

from .._core.errors import ConfigurationError
from .._loop.tools import Tool
from .delivery import EngineFailure, Reporter

__all__ = ["SETTLE_TIMEOUT", "AgentToolsets", "Toolset"]

SETTLE_TIMEOUT = 5.0
"""How long a tool's result waits for a listing under way (seconds)."""


def _nothing() -> None:
    return None


class Toolset:
    """A source of tools whose list may change, with a lifecycle; ``tools()`` is the one
    method to write. ``agentcore.mcp.MCPServer`` is one.

    ``watch(on_change)`` registers a callback for "the list may have changed" and returns
    an unwatch (default: the list never changes); ``async with`` starts and stops what
    the tools need (default: nothing). An agent enters each of its toolsets once and
    leaves it when it closes, so ``__aexit__`` should close only when its last user
    leaves if the toolset may be shared.
    """

    name: str = "toolset"

    async def tools(self) -> Sequence[Tool]:
        """The tools now; raise to say they cannot be listed (the agent reports it)."""
        raise NotImplementedError

    def watch(self, on_change: Callable[[], None]) -> Callable[[], None]:
        return _nothing

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None


class AgentToolsets:
    """One agent's toolsets (module docstring). ``own`` are the agent's own tools;
    ``use(tools)`` gives the agent a new tool list; ``report`` takes failures."""

    def __init__(
        self,
        toolsets: Sequence[Any],
        own: tuple[Tool, ...],
        use: Callable[[tuple[Tool, ...]], None],
        report: Reporter,
    ) -> None:
        for toolset in toolsets:
            if not isinstance(toolset, Toolset):
                raise ConfigurationError(
                    f"toolsets holds {toolset!r}, which is not a Toolset (an MCPServer, or "
                    "a subclass of agentcore.tools.Toolset); pass plain tools as tools=[...]"
                )
        self._sets: tuple[Toolset, ...] = tuple(toolsets)
        self._own = own
        self._use = use
        self._report = report
        self._entered = [False] * len(self._sets)
        self._listed: list[tuple[Tool, ...]] = [()] * len(self._sets)
        self._current: tuple[Tool, ...] = own
        self._lock = asyncio.Lock()
        self._closed = False
        self._pending: asyncio.Task[None] | None = None
        self._unwatch = [t.watch(self._changed) for t in self._sets]

    async def refresh(self, *, enter: bool = True) -> None:
        """List every toolset entered (one after the other: a listing that did not change
        needs no I/O), and enter and list the others side by side unless ``enter`` is
        false; give the agent the tools when they changed. Never raises for a toolset's
        failure."""
        async with self._lock:
            if self._closed:
                return
            starting = [] if not enter else [i for i, e in enumerate(self._entered) if not e]
            changed = False
            for index, entered in enumerate(self._entered):
                if entered:
                    changed |= await self._list(index)
            if starting:
                changed |= any(await asyncio.gather(*(self._list(i) for i in starting)))
            if not changed:
                return
            tools, clashes = self._combined()
            if [id(t) for t in tools] != [id(t) for t in self._current]:
                for toolset, clash in clashes:
                    self._fail(toolset, clash)
                self._current = tools
                self._use(tools)

    async def _list(self, index: int) -> bool:
        """Enter toolset ``index`` if needed and list it; whether its tools changed."""
        toolset = self._sets[index]
        try:
            if not self._entered[index]:
                await toolset.__aenter__()
                self._entered[index] = True
            listed = tuple(await toolset.tools())
        except Exception as exc:  # a toolset that fails never fails the run
            self._fail(toolset, exc)
            return False
        before = self._listed[index]
        self._listed[index] = listed
        if len(listed) != len(before):
            return True
        return any(a is not b for a, b in zip(listed, before, strict=True))

    def _combined(self) -> tuple[tuple[Tool, ...], list[tuple[Toolset, Exception]]]:
        """The agent's own tools, then each toolset's, the first owner of a name kept;
        and the tools left out for their name."""
        found = {t.name: t for t in self._own}
        clashes: list[tuple[Toolset, Exception]] = []
        for toolset, listed in zip(self._sets, self._listed, strict=True):
            for tool in listed:
                if found.setdefault(tool.name, tool) is not tool:
                    clash = ConfigurationError(
                        f"tool {tool.name!r} of toolset {toolset.name!r} was left out: "
                        "another tool has that name (give the MCP server a prefix=)"
                    )
                    clashes.append((toolset, clash))
        return tuple(found.values()), clashes

    async def settled(self) -> None:
        """Wait (at most ``SETTLE_TIMEOUT``) for a listing a change announcement started."""
        pending = self._pending
        if pending is not None and not pending.done():
            await asyncio.wait([pending], timeout=SETTLE_TIMEOUT)

    def _changed(self) -> None:
        """A toolset said its list may have changed: list again soon (once)."""
        if self._closed or (self._pending is not None and not self._pending.done()):
            return
        try:
            self._pending = asyncio.get_running_loop().create_task(self.refresh(enter=False))
        except RuntimeError:  # no running loop: the next run lists anyway
            return

    def _fail(self, toolset: Toolset, exc: Exception) -> None:
        self._report(EngineFailure("toolset", toolset.name, exc, None))

    async def aclose(self) -> None:
        """Stop watching, and leave every toolset entered (in reverse order). Idempotent."""
        if self._closed:
            return
        self._closed = True
        for unwatch in self._unwatch:
            unwatch()
        pending = self._pending
        if pending is not None and not pending.done():
            pending.cancel()
            await asyncio.wait([pending])
        async with self._lock:
            for index in reversed(range(len(self._sets))):
                if self._entered[index]:
                    self._entered[index] = False
                    try:
                        await self._sets[index].__aexit__(None, None, None)
                    except Exception as exc:
                        self._fail(self._sets[index], exc)
