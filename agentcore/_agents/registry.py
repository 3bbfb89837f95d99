"""``AgentRegistry``: definitions by id, the tools they name, and the trees built from them.

The registry resolves what definitions refer to by name: the agents they may spawn
(other definitions) and their tools (from the ``tools`` it was given, plus the built-in
``spawn_agents``, ``task`` and ``set_output``). ``create(agent_type)`` builds the root
``Agent`` of a tree from a definition; ``resume(agent_type, journal)`` rebuilds a whole
tree from its journal (docs/subagents.md).
"""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .._core.errors import ConfigurationError
from .._edges.clock import ms_clock, new_id
from .._edges.driver import Driver
from .._journal.journal import Journal
from .._journal.snapshots import SnapshotStore
from .._loop.tools import Tool, as_tool
from .._runtime.agent import Agent
from .._runtime.options import only_agent
from .definition import AgentDefinition, load_definitions
from .limits import Tree, TreeLimits
from .tree import BUILT_IN_TOOLS, AgentNode

__all__ = ["AgentRegistry"]


class AgentRegistry:
    """Agent definitions by id, with the tools they may name and how to reach their models.

    ``tools`` are ``Tool`` objects (or functions, made tools with ``@tool``'s rules) that
    definitions name in their ``tools``; ``driver_factory(model_name)`` builds the driver
    of a definition's ``"provider/model"`` (default: the ``agentcore.drivers`` plugins);
    ``limits`` bound every tree built from this registry.
    """

    def __init__(
        self,
        definitions: Iterable[AgentDefinition] = (),
        *,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        driver_factory: Callable[[str], Driver] | None = None,
        limits: TreeLimits | None = None,
    ) -> None:
        self._definitions: dict[str, AgentDefinition] = {}
        self._tools: dict[str, Tool] = {}
        for t in tools:
            converted = as_tool(t)
            if converted.name in BUILT_IN_TOOLS:
                raise ConfigurationError(
                    f"tool name {converted.name!r} is the registry's own; rename your tool"
                )
            if converted.name in self._tools:
                raise ConfigurationError(f"two tools are named {converted.name!r}")
            self._tools[converted.name] = converted
        self.driver_factory = driver_factory
        self.limits = limits if limits is not None else TreeLimits()
        for definition in definitions:
            self.register(definition)

    # -- definitions ----------------------------------------------------------------------

    def register(self, definition: AgentDefinition) -> AgentDefinition:
        """Add ``definition``; ``ConfigurationError`` if its id is taken."""
        if not isinstance(definition, AgentDefinition):
            raise ConfigurationError(f"expected an AgentDefinition, got {definition!r}")
        if definition.id in self._definitions:
            raise ConfigurationError(f"an agent {definition.id!r} is already registered")
        self._definitions[definition.id] = definition
        return definition

    def load(self, path: str | pathlib.Path) -> list[AgentDefinition]:
        """Register the definitions of a JSON, TOML or YAML file (``load_definitions``)."""
        return [self.register(d) for d in load_definitions(path)]

    def get(self, agent_type: str) -> AgentDefinition:
        """The definition of ``agent_type``; ``ConfigurationError`` naming the known ones."""
        found = self._definitions.get(agent_type)
        if found is None:
            raise ConfigurationError(
                f"no agent {agent_type!r} is registered; known: {sorted(self._definitions)}"
            )
        return found

    def __contains__(self, agent_type: object) -> bool:
        return agent_type in self._definitions

    def __iter__(self) -> Iterator[AgentDefinition]:
        return iter(self._definitions.values())

    def __len__(self) -> int:
        return len(self._definitions)

    def tools_for(self, definition: AgentDefinition) -> list[Tool]:
        """The registry's tools ``definition`` names (built-ins are the tree's to make)."""
        return [self._tools[n] for n in definition.tools if n not in BUILT_IN_TOOLS]

    def check(self, agent_type: str) -> None:
        """Raise ``ConfigurationError`` if ``agent_type``, or an agent it may spawn or hand
        off to (at any depth), names an agent or a tool the registry does not have, or
        combines handoffs with ``handle_steps``."""
        seen: set[str] = set()
        todo = [agent_type]
        while todo:
            definition = self.get(todo.pop())
            if definition.id in seen:
                continue
            seen.add(definition.id)
            missing = [n for n in definition.tools if n not in self._tools]
            missing = [n for n in missing if n not in BUILT_IN_TOOLS]
            if missing:
                raise ConfigurationError(
                    f"agent {definition.id!r} names tool(s) {missing} the registry does not "
                    f"have; it has {sorted(self._tools)} (and {list(BUILT_IN_TOOLS)})"
                )
            for spawnable in definition.spawnable_agents:
                if spawnable not in self._definitions:
                    raise ConfigurationError(
                        f"agent {definition.id!r} may spawn {spawnable!r}, which is not "
                        f"registered; known: {sorted(self._definitions)}"
                    )
                todo.append(spawnable)
            for handoff in definition.handoffs:
                if handoff.agent not in self._definitions:
                    raise ConfigurationError(
                        f"agent {definition.id!r} may hand off to {handoff.agent!r}, which is "
                        f"not registered; known: {sorted(self._definitions)}"
                    )
                target = self._definitions[handoff.agent]
                for steps in (definition, target):
                    if steps.handle_steps is not None:
                        raise ConfigurationError(
                            f"agent {steps.id!r} has handle_steps and takes part in a handoff "
                            f"({definition.id!r} -> {target.id!r}); the two do not combine"
                        )
                todo.append(handoff.agent)

    # -- trees ---------------------------------------------------------------------------

    def create(
        self,
        agent_type: str,
        *,
        journal: Journal | None = None,
        snapshots: SnapshotStore | None = None,
        agent_id: str | None = None,
        clock: Callable[[], int] = ms_clock,
        id_factory: Callable[[], str] = new_id,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        **options: Any,
    ) -> Agent:
        """The root ``Agent`` of a new tree, from the definition ``agent_type``.

        ``journal`` holds every agent of the tree (each in its own lane); ``options`` are
        ``Agent``'s for the root (presenters, limits...; they override the definition's),
        and ``tools`` are added to the definition's. Every event of every sub-agent
        reaches the root's presenters and subscribers as a ``SubagentEvent``.
        """
        self.check(agent_type)
        node, base = self._root(agent_type, journal, snapshots, clock, id_factory)
        agent_id = agent_id or f"{agent_type}_{id_factory()}"
        return base(Agent.from_config(node.config(agent_id, tools, journal=journal, **options)))

    async def resume(
        self,
        agent_type: str,
        journal: Journal,
        *,
        agent_id: str | None = None,
        snapshots: SnapshotStore | None = None,
        clock: Callable[[], int] = ms_clock,
        id_factory: Callable[[], str] = new_id,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        **options: Any,
    ) -> Agent:
        """The root of the tree ``journal`` holds, rebuilt (``Agent.resume``): what it had
        in flight is performed again, and a spawn it had in flight finds its children in
        the journal and resumes them (recursively) instead of spawning new ones. An agent
        with ``handle_steps`` re-runs its generator over what the journal recorded
        (docs/subagents.md); ``StepsDivergedError`` if it yields otherwise, with nothing
        performed again.
        ``agent_id`` is the root's; left out, the journal must hold one agent whose id has
        no ``/`` (children's ids do)."""
        self.check(agent_type)
        node, base = self._root(agent_type, journal, snapshots, clock, id_factory)
        if agent_id is None:
            agent_id = _root_id(journal)
        config = node.config(agent_id, tools, **options)
        agent = await Agent.resume(journal, config=config, before_resume=node._restore_steps)
        return base(agent)

    def _root(
        self,
        agent_type: str,
        journal: Journal | None,
        snapshots: SnapshotStore | None,
        clock: Callable[[], int],
        id_factory: Callable[[], str],
    ) -> tuple[AgentNode, Callable[[Agent], Agent]]:
        tree = Tree(self, journal, snapshots, clock, id_factory)
        node = tree.root = AgentNode(tree, self.get(agent_type), None)

        def bind(agent: Agent) -> Agent:
            node._bind(agent)
            agent.on_destroy(lambda _: _close_below(node))
            return agent

        return node, bind


def _close_below(node: AgentNode) -> None:
    """When the root is closed: close the agents below it too (on their own task)."""
    children = list(node.children.values())
    if children:
        task = asyncio.get_running_loop().create_task(_close_all(children))
        node.tree.closing.add(task)
        task.add_done_callback(node.tree.closing.discard)


async def _close_all(children: list[AgentNode]) -> None:
    for child in children:
        await child.aclose()


def _root_id(journal: Journal) -> str:
    """The one agent of ``journal`` whose id has no ``/`` (a root)."""
    try:
        return only_agent(journal)
    except ConfigurationError:
        entries = journal.entries()
        roots = list(dict.fromkeys(e.agent_id for e in entries if "/" not in e.agent_id))
        if len(roots) != 1:
            raise ConfigurationError(
                f"journal {journal!r} holds the roots {roots}; say which with agent_id="
            ) from None
        return roots[0]
