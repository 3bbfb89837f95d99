"""A tree of agents: spawning children, their journal lanes and events, limits, resume.

Every agent built from a definition has an ``AgentNode``. Its spawn tools
(``spawn_agents``, ``task``) are ordinary tools of its agent: the loop asks for them as
for any call (an ``ExecuteTools`` effect) and the runtime performs them by running the
children, whose outputs come back as the call's result. Each child is a full ``Agent``:

- **its own journal lane** in the tree's journal: agent id ``"<parent id>/<task id>"``,
  where a new task's id derives from the parent's tool call id (``<call id>.<i>`` for the
  i-th agent of a ``spawn_agents`` call, the call id for ``task``). Each spawn prompts
  it with a ``Lineage`` record first (``agentcore._loop.lineage``), so the lane says who it
  is and where it sits; the parent's lane holds the call and its result. Folding all the
  lanes in journal order gives back everything every agent delivered (``replay_tree``).
- **its events in its parent's stream**: a presenter of the child (the only one) hands
  each output to the parent's outlet as a ``SubagentEvent``, through the parent's
  interceptors to its presenters and subscribers, and up to the root. A child's output
  is delivered while the input that caused it is folded, and agents never feed each
  other from inside a delivery (a child is prompted and aborted from the spawn tool's
  task), so delivery order is journal order: the root's stream replays exactly.
- **aborting**: a parent's abort cancels its running spawn calls; each cancelled call
  aborts its children (``Agent.prompt``'s cancellation), whose runs end with every tool
  call answered. Steering a parent does not reach its children (``steer_children`` does).
- **limits**: a child runs under its definition's limits; the tree's (``TreeLimits``)
  bound its depth, the children it may create, how many run at once, and its total tokens
  and cost (beyond them, the root is aborted and no child starts).
- **resume**: the spawn tools are idempotent, so a resumed parent runs an interrupted
  spawn call again; each child found in the journal is resumed from its lane (performing
  again what it had in flight) instead of being spawned anew, and one that had finished
  gives its output at once. A ``task`` call with a ``task_id`` continues that child's
  conversation.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._core.errors import AgentError, ErrorCode
from .._core.events import AssistantMessage, UserMessage
from .._core.pricing import cost_of
from .._edges.driver import Driver
from .._journal.journal import Journal
from .._loop.lineage import (
    Lineage,
    SubagentEvent,
    TreeUsage,
    child_run_id,
    root_run_id,
    tree_usage,
)
from .._loop.tools import Tool, ToolOutput, define_tool
from .._runtime.agent import Agent
from .._runtime.agent_config import AgentConfig
from .._runtime.tool_runner import ToolContext
from .definition import AgentDefinition
from .handoffs import Cast, HandoffDriver
from .inputs import StepPrompt, inherited, input_problems, last_lineage, prompt_text
from .limits import Refused, Tree
from .results import (
    SET_OUTPUT,
    SpawnOutcome,
    output_of,
    set_output_tool,
    spawn_agents_schema,
    spawn_details,
    spawn_messages,
    task_schema,
)
from .steps import LazyDriver, StepsDriver

__all__ = ["BUILT_IN_TOOLS", "AgentNode", "node_of"]

SPAWN_TOOLS = ("spawn_agents", "task")
BUILT_IN_TOOLS = (*SPAWN_TOOLS, SET_OUTPUT)
CONTINUE = "Continue."


class _Forward:
    """The child's one presenter: each output to the parent's outlet, tagged."""

    __slots__ = ("lineage", "node", "parent")

    def __init__(self, node: AgentNode, parent: Agent) -> None:
        self.node = node
        self.parent = parent
        self.lineage: Lineage | None = None

    def present(self, agent_id: str, output: Any) -> Any:
        if type(output) is SubagentEvent:  # a grandchild's, tagged with its whole lineage
            return self.parent.relay(output)
        if self.lineage is None:
            return None
        stamp = getattr(output, "timestamp", 0)
        relieved = self.parent.relay(SubagentEvent(self.lineage, output, timestamp=stamp))
        if type(output) is AssistantMessage:
            self.node.tree.count(output, self.node)
        return relieved


_NODES: weakref.WeakValueDictionary[int, AgentNode] = weakref.WeakValueDictionary()
"""Agent (by ``id``) -> its node, for ``node_of``; an entry leaves with its node, which
lives as long as its agent (whose tools hold it)."""


def node_of(agent: Agent) -> AgentNode:
    """The ``AgentNode`` of an agent an ``AgentRegistry`` built (``KeyError`` otherwise)."""
    node = _NODES.get(id(agent))
    if node is None or node.agent is not agent:
        raise KeyError(f"agent {agent.agent_id!r} was not built by an AgentRegistry")
    return node


class AgentNode:
    """One agent of a tree: its ``agent``, ``definition``, ``lineage`` (``None`` for the
    root), ``parent`` and ``children`` (by task id). See the module docstring."""

    def __init__(self, tree: Tree, definition: AgentDefinition, parent: AgentNode | None) -> None:
        self.tree = tree
        self.definition = definition
        self.parent = parent
        self.children: dict[str, AgentNode] = {}
        self.lineage: Lineage | None = None
        self.steps: StepsDriver | None = None
        self.cast: Cast | None = None
        """The agents this one's conversation may hand off to (``None``: it has none)."""
        self._agent: Agent | None = None
        self._ready = asyncio.Event()
        self._ended = asyncio.Event()
        self.forward = None if parent is None else _Forward(self, parent.agent)

    # -- what it is ---------------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        assert self._agent is not None, "the node's agent is being built"
        return self._agent

    def _bind(self, agent: Agent) -> Agent:
        self._agent = agent
        _NODES[id(agent)] = self
        agent.on_ready(lambda _: self._ended.set())
        steps = self.steps
        if steps is not None:
            agent.subscribe("agent_start", lambda _: steps.run_started())
        if self.parent is None and (self.tree.limits.max_tokens or self.tree.limits.max_cost):
            agent.subscribe("assistant_message", lambda m: self.tree.count(m, self))
        self._ready.set()
        return agent

    @property
    def depth(self) -> int:
        return 0 if self.lineage is None else self.lineage.depth

    def run_id(self) -> str:
        """The id of this agent's current run (docs/subagents.md, "Run ids")."""
        if self.lineage is not None:
            return self.lineage.run_id
        run = self.agent.conversation_state.loop.run
        started = run.started_at if run is not None else self.agent.created_at
        return root_run_id(self.agent.agent_id, started)

    def cost_of(self, message: AssistantMessage) -> float | None:
        price = self.agent.config.price
        if price is None:
            return None if message.usage.total_tokens else 0.0
        return cost_of(message.usage, price)

    @property
    def speaking(self) -> AgentDefinition:
        """The definition of the agent speaking in this agent's conversation now: its own,
        unless a handoff gave the conversation to another (docs/handoffs.md)."""
        if self.cast is None or self._agent is None:
            return self.definition
        return self.cast.speaker(self.agent.state.messages).definition

    def usage(self) -> TreeUsage:
        """Tokens and cost of this agent's current (or last) run and of every sub-agent
        it ran meanwhile."""
        messages = self.agent.state.messages
        if self.lineage is not None:
            messages = spawn_messages(messages, self.lineage)
        return tree_usage(messages, self.agent.config.price)

    def steer_children(self, message: str | Any, *, recursive: bool = False) -> int:
        """Steer every child that is running (steering this agent reaches none of them);
        with ``recursive``, their running children too. Returns how many were steered."""
        steered = 0
        for child in self.children.values():
            if child._agent is not None and child.agent.state.is_streaming:
                child.agent.steer(message)
                steered += 1
            if recursive:
                steered += child.steer_children(message, recursive=True)
        return steered

    def walk(self) -> list[AgentNode]:
        """This node and every node below it, parents before children."""
        nodes = [self]
        for child in self.children.values():
            nodes += child.walk()
        return nodes

    async def wait(self) -> None:
        """Return once this agent and every agent below it are idle."""
        while True:
            nodes = [n for n in self.walk() if n._agent is not None]
            for n in nodes:
                await n.agent.wait()
            if all(not n.agent.state.is_streaming for n in self.walk() if n._agent is not None):
                return

    async def aclose(self) -> None:
        """Close every agent below this one, then this one (idempotent)."""
        for node in reversed(self.walk()):
            if node._agent is not None:
                await node.agent.aclose()
                if node.steps is not None:
                    await node.steps.aclose()
                _NODES.pop(id(node.agent), None)

    # -- building agents ----------------------------------------------------------------

    def options(self, agent_id: str) -> dict[str, Any]:
        """``Agent`` options for this node's agent (its definition, the tree's plumbing)."""
        tree, d = self.tree, self.definition
        registry = tree.registry
        model: str | Driver = d.model
        if d.handoffs:  # one agent, every member's tools; the speaker's model answers
            self.cast = cast = Cast(d, registry.get, self._own_tools, tree.limits.max_handoffs)
            model = HandoffDriver(cast, registry.driver_factory)
            tools = self._cast_tools(cast)
        else:
            tools = [*registry.tools_for(d), *self._built_in_tools()]
        if d.handle_steps is not None and self.cast is None:  # never both (registry.check)
            model = self.steps = StepsDriver(
                d.handle_steps,
                LazyDriver(d.model, registry.driver_factory),
                lambda: self.agent.state,
                tree.id_factory,
                d.model.rpartition("/")[2],
                last_seq=self._last_seq,
            )
        options: dict[str, Any] = {
            "model": model,
            "system_prompt": d.system_prompt,
            "tools": tools,
            "agent_id": agent_id,
            "clock": tree.clock,
            "id_factory": tree.id_factory,
            **d.limits(),
        }
        if registry.driver_factory is not None:
            options["driver_factory"] = registry.driver_factory
        if tree.snapshots is not None:
            options["snapshots"] = tree.snapshots
        if d.step_prompt is not None:
            options["transform_context"] = StepPrompt(d.step_prompt)
        if self.parent is not None:
            options["max_pending"] = 1  # the parent's backpressure reaches this child's stream
        return options

    def config(
        self, agent_id: str, tools: Sequence[Tool | Callable[..., Any]] = (), **options: Any
    ) -> AgentConfig:
        """The ``AgentConfig`` of this node's agent: ``options`` over the node's own, and
        ``tools`` added to its tools."""
        merged = {**self.options(agent_id), **options}
        merged["tools"] = [*merged["tools"], *tools]
        return Agent.configure(**merged)

    def _last_seq(self) -> int:
        journal = self.agent.journal
        return 0 if journal is None else journal.last_seq(self.agent.agent_id)

    async def _restore_steps(self, agent: Agent) -> None:
        """Rebuild the ``handle_steps`` generator of ``agent``, whose journal is folded
        and nothing of it performed again yet (``Agent.resume``'s ``before_resume``)."""
        if self.steps is not None:
            assert agent.journal is not None
            await self.steps.restore(agent.journal, agent)

    def _built_in_tools(self) -> list[Tool]:
        d, registry = self.definition, self.tree.registry
        tools = self._spawn_tools([registry.get(i) for i in d.spawnable_agents], set(d.tools))
        if d.output_mode == "structured_output" or SET_OUTPUT in d.tools:
            tools.append(set_output_tool(d))
        return tools

    def _own_tools(self, definition: AgentDefinition) -> list[Tool]:
        """The tools an agent of the conversation's cast has (what its model is told)."""
        registry = self.tree.registry
        spawnable = [registry.get(i) for i in definition.spawnable_agents]
        return [
            *registry.tools_for(definition),
            *self._spawn_tools(spawnable, set(definition.tools)),
        ]

    def _cast_tools(self, cast: Cast) -> list[Tool]:
        """The tools of a conversation with handoffs: every member's, spawn tools for
        every agent some member may spawn (``_spawn`` checks the speaker may), the
        handoff tools, and this node's ``set_output``."""
        registry = self.tree.registry
        members = [m.definition for m in cast.members.values()]
        tools: dict[str, Tool] = {}
        for definition in members:
            for t in registry.tools_for(definition):
                tools.setdefault(t.name, t)
        spawnable = list(dict.fromkeys(i for m in members for i in m.spawnable_agents))
        names = {n for m in members for n in m.tools}
        for t in self._spawn_tools([registry.get(i) for i in spawnable], names):
            tools[t.name] = t
        tools.update(cast.handoff_tools)
        d = self.definition
        if d.output_mode == "structured_output" or SET_OUTPUT in d.tools:
            tools[SET_OUTPUT] = set_output_tool(d)
        return list(tools.values())

    def _spawn_tools(self, spawnable: list[AgentDefinition], names: set[str]) -> list[Tool]:
        tools = []
        if spawnable and not names & set(SPAWN_TOOLS):
            names.add("spawn_agents")
        if "spawn_agents" in names:
            description, parameters = spawn_agents_schema(spawnable)
            tools.append(
                define_tool(
                    "spawn_agents", description, parameters, self._spawn_agents, idempotent=True
                )
            )
        if "task" in names:
            description, parameters = task_schema(spawnable)
            tools.append(define_tool("task", description, parameters, self._task, idempotent=True))
        return tools

    # -- the spawn tools ------------------------------------------------------------------

    async def _spawn_agents(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        await self._ready.wait()
        specs = args["agents"]
        outcomes: list[SpawnOutcome] = await asyncio.gather(
            *(
                self._spawn(
                    spec["agent_type"],
                    spec.get("prompt", ""),
                    spec.get("params"),
                    f"{ctx.tool_call_id}.{i}",
                    False,
                    ctx,
                )
                for i, spec in enumerate(specs)
            )
        )
        return ToolOutput(
            json.dumps([o.for_model() for o in outcomes], ensure_ascii=False),
            spawn_details(outcomes),
            is_error=not any(o.ok for o in outcomes),
        )

    async def _task(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        await self._ready.wait()
        task_id = args.get("task_id")
        outcome = await self._spawn(
            args["subagent_type"],
            args["prompt"],
            None,
            task_id or ctx.tool_call_id,
            task_id is not None,
            ctx,
        )
        if outcome.ok:
            out = outcome.output
            text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
        else:
            text = f"The sub-agent's task ended with status {outcome.status}: {outcome.error}"
        text += f"\n\n(task_id: {outcome.task_id}; pass it as task_id to continue this task)"
        return ToolOutput(text, spawn_details([outcome]), is_error=not outcome.ok)

    async def _spawn(
        self,
        agent_type: str,
        prompt: str,
        params: Mapping[str, Any] | None,
        task_id: str,
        continuing: bool,
        ctx: ToolContext,
    ) -> SpawnOutcome:
        """Run one child for the call ``ctx`` (a new task, or one continued)."""
        speaking = (
            self.definition if self.cast is None else self.cast.speaker(ctx.messages).definition
        )
        try:
            definition = self._spawnable(speaking, agent_type, prompt, params)
            child = await self._child(definition, task_id, continuing, ctx.messages)
        except Refused as exc:
            return SpawnOutcome(task_id, agent_type, "refused", error=str(exc))
        return await child._perform(prompt, params, ctx.tool_call_id, task_id)

    def _spawnable(
        self,
        speaking: AgentDefinition,
        agent_type: str,
        prompt: str,
        params: Mapping[str, Any] | None,
    ) -> AgentDefinition:
        if agent_type not in speaking.spawnable_agents:
            raise Refused(
                f"agent {speaking.id!r} may not spawn {agent_type!r}; it may spawn "
                f"{list(speaking.spawnable_agents)}"
            )
        if self.tree.stopped is not None:
            raise Refused(f"no sub-agent starts any more: {self.tree.stopped}")
        definition = self.tree.registry.get(agent_type)
        schema = definition.input_schema or {}
        problems = []
        if "prompt" in schema:
            problems += input_problems(schema["prompt"], prompt, "prompt")
        if params is not None or "params" in schema:
            problems += input_problems(
                schema.get("params", {"type": "object"}), params or {}, "params"
            )
        if problems:
            raise Refused(f"bad input for {agent_type!r}: " + "; ".join(problems))
        return definition

    async def _child(
        self,
        definition: AgentDefinition,
        task_id: str,
        continuing: bool,
        history: Sequence[Any],
    ) -> AgentNode:
        """The child of ``task_id``: in memory, rebuilt from its journal lane, or new."""
        found = self.children.get(task_id)
        if found is not None:
            if found.definition.id != definition.id:
                raise Refused(f"task {task_id!r} is a {found.definition.id!r} agent")
            return found
        tree = self.tree
        agent_id = f"{self.agent.agent_id}/{task_id}"
        journal = tree.journal
        if journal is not None and journal.last_seq(agent_id):
            child = AgentNode(tree, definition, self)
            await child._resume(agent_id, journal)
        elif continuing:
            raise Refused(f"there is no task {task_id!r} to continue")
        else:
            if self.depth + 1 > tree.limits.max_depth:
                raise Refused(
                    f"sub-agents may nest {tree.limits.max_depth} deep (TreeLimits.max_depth)"
                )
            if tree.created >= tree.limits.max_agents:
                raise Refused(
                    f"this tree has created {tree.created} sub-agents "
                    f"(TreeLimits.max_agents={tree.limits.max_agents})"
                )
            tree.created += 1
            child = AgentNode(tree, definition, self)
            start = inherited(history) if definition.include_message_history else ()
            agent = Agent.from_config(
                child.config(agent_id, journal=journal, messages=start, presenters=[child.forward])
            )
            child._bind(agent)
        self.children[task_id] = child
        return child

    async def _resume(self, agent_id: str, journal: Journal) -> None:
        lineage = last_lineage(journal, agent_id)
        if lineage is not None and lineage.agent_type != self.definition.id:
            raise Refused(f"task {lineage.task_id!r} is a {lineage.agent_type!r} agent")
        self.lineage = lineage
        assert self.forward is not None
        self.forward.lineage = lineage
        config = self.config(agent_id, presenters=[self.forward])
        agent = await Agent.resume(journal, config=config, before_resume=self._restore_steps)
        self._bind(agent)

    # -- running a task -----------------------------------------------------------------

    async def _perform(
        self, prompt: str, params: Mapping[str, Any] | None, call_id: str, task_id: str
    ) -> SpawnOutcome:
        """Run this child on a task (or wait for the run a resumed call had started)."""
        agent, tree, lineage = self.agent, self.tree, self.lineage
        definition = self.definition
        if lineage is None or lineage.tool_call_id != call_id:
            if agent.state.is_streaming:
                return SpawnOutcome(
                    task_id,
                    definition.id,
                    "refused",
                    error=(f"task {task_id!r} is still running; wait for its result"),
                )
            if tree.running >= tree.limits.max_running:
                return SpawnOutcome(
                    task_id,
                    definition.id,
                    "refused",
                    error=(
                        f"{tree.running} sub-agents are running "
                        f"(TreeLimits.max_running={tree.limits.max_running}); try again later"
                    ),
                )
            lineage = self._new_lineage(task_id, call_id)
            messages = [lineage, UserMessage(tree.id_factory(), prompt_text(prompt, params))]
            if definition.instructions_prompt:
                messages.append(UserMessage(tree.id_factory(), definition.instructions_prompt))
            if self.steps is not None:
                self.steps.prepare(prompt, params)
            tree.running += 1
            try:
                await agent.prompt(messages)
                await self._settle()
            except AgentError as exc:  # closed meanwhile, or busy after all
                return SpawnOutcome(task_id, definition.id, "error", error=exc.message)
            finally:
                tree.running -= 1
        else:
            await self._settle()
        return self._outcome(lineage, task_id)

    def _new_lineage(self, task_id: str, call_id: str) -> Lineage:
        parent = self.parent
        assert parent is not None and self.forward is not None
        agent_id = self.agent.agent_id
        spawn = 1 + sum(1 for m in self.agent.state.messages if type(m) is Lineage)
        parent_run = parent.run_id()
        above = () if parent.lineage is None else parent.lineage.ancestor_run_ids
        lineage = Lineage(
            agent_id,
            child_run_id(agent_id, spawn),
            parent.agent.agent_id,
            parent_run,
            (*above, parent_run),
            task_id,
            self.definition.id,
            self.definition.name,
            call_id,
            timestamp=self.tree.clock(),
        )
        self.lineage = self.forward.lineage = lineage
        return lineage

    async def _settle(self) -> None:
        """Wait until the task is over: through pauses for approval (decided by someone
        holding this child), and the new runs a ``handle_steps`` ``STEP`` asks for."""
        agent = self.agent
        while True:
            await agent.wait()
            if agent.state.pending_approvals:
                self._ended.clear()
                await self._ended.wait()
                continue
            steps = self.steps
            if steps is not None and steps.needs_run and agent.state.error is None:
                await agent.prompt(self.definition.step_prompt or CONTINUE)
                continue
            if steps is not None:
                await steps.stop()
            return

    def _outcome(self, lineage: Lineage, task_id: str) -> SpawnOutcome:
        agent, definition = self.agent, self.definition
        messages = spawn_messages(agent.state.messages, lineage)
        used = tree_usage(messages, agent.config.price)
        error = agent.state.error
        output, problem = None, None
        if error is not None:
            status, problem = (
                ("aborted" if error.code == ErrorCode.ABORTED else "error"),
                error.message,
            )
        else:
            output, problem = output_of(definition, messages)
            status = "completed" if problem is None else "error"
        return SpawnOutcome(
            task_id,
            definition.id,
            status,
            output,
            problem,
            agent_id=agent.agent_id,
            run_id=lineage.run_id,
            usage=used,
        )


def _run_start(agent: Agent) -> int | None:
    run = agent.conversation_state.loop.run
    return None if run is None else int(run.started_at)
