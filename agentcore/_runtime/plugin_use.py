"""What an agent plugs in while it lives, mixed into ``Agent``: ``use`` registers a
middleware or an extension by the kind it declares (``declared_kind``: ``@middleware``,
``@extension``) or the ``kind`` it is given, never by guessing from its signature; the
tools an extension adds or removes and the toolsets' changing lists become the agent's
``config`` (journaled); ``equip`` lends the agent's plugins to another performer (a
durable worker's steps).

(``plugins`` is something else: the entry-point registries of drivers and prices.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from .._core.errors import ConfigurationError
from .._journal.conversation import Conversation
from .._loop.events import AgentConfigured, AgentPrompt
from .._loop.state import LoopConfig
from .._loop.tools import Tool, as_tool
from .actions import Middleware, PluginKind, declared_kind
from .agent_config import checked_middleware
from .extensions import Extension, ExtensionAPI, Hooks
from .guardrails import Guards
from .performer import LocalPerformer
from .subscriptions import Unsubscribe
from .toolsets import AgentToolsets

__all__ = ["PluginUse"]


class PluginUse:
    """``use``, ``equip`` and the tool registry, over the members ``Agent`` defines."""

    config: LoopConfig
    _hooks: Hooks
    _performer: LocalPerformer
    _shell: Conversation
    _toolsets: AgentToolsets | None

    if TYPE_CHECKING:

        async def _loop_start(self, event: AgentPrompt) -> AgentPrompt: ...

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
            return self._use_extension(plugin)  # type: ignore[arg-type]
        middleware = checked_middleware(plugin)
        performer = self._performer
        performer.middleware = (*performer.middleware, middleware)

        def remove() -> None:
            performer.middleware = tuple(m for m in performer.middleware if m is not middleware)

        return remove

    def _use_extension(self, extension: Extension) -> Unsubscribe:
        api = ExtensionAPI(self)
        try:
            cleanup = extension(api)
        except BaseException:
            api.dispose()
            raise
        if cleanup is not None and not callable(cleanup):
            api.dispose()
            raise TypeError(f"extension {extension!r} returned {cleanup!r}, not a cleanup function")
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

    def _use_tools(self, tools: tuple[Tool, ...]) -> None:
        """Run with ``tools`` from now on (the toolsets' list changed); journaled."""
        self._performer.tools = {t.name: t for t in tools}
        self._configure(tools=tools)

    def _configure(self, **changes: Any) -> None:
        self.config = attrs.evolve(self.config, **changes)
        self._shell.feed(AgentConfigured(self.config.to_wire()))
