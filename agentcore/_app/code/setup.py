"""The coding agent's parts: its tools, extensions, sub-agents, approval rule and model.

``coding_tools(cwd, store)`` is ``create_all_tools`` for the workspace, without
``websearch`` (no search backend is configured), with ``requires_approval`` on the tools
that change files, run commands or reach the network: the loop pauses on each of their
calls, and the app decides by ``approval_reason`` whether the user must be asked or the
call goes ahead at once. Because the pause and the decision are journaled inputs, a
session killed while a question is open asks it again when it is resumed.

The agent is the root of a sub-agent tree (``subagent_registry``): its ``task`` tool
hands a question to the read-only ``explorer``, which runs on the same model. Its
extensions (``coding_extensions``) are the shipped three: the bash guard (blocks what
``check_command`` flags, before any question), the tool logger (JSON lines in the
session's log file) and context info (the workspace, its git branch and the time).
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from ..._agents.definition import AgentDefinition
from ..._agents.registry import AgentRegistry
from ..._agents.tree import node_of
from ..._coding.bash_guard import bash_guard
from ..._coding.factory import create_all_tools, create_read_only_tools
from ..._coding.guard import check_command, check_risky
from ..._coding.todo import TodoItem, TodoStore
from ..._core.content import ToolCallPart
from ..._core.errors import ConfigurationError
from ..._core.events import ToolResultMessage
from ..._core.pricing import ModelPrice
from ..._core.secrets import scrub
from ..._edges.driver import Driver
from ..._loop.tools import Tool
from ..._runtime.agent import Agent
from ..._runtime.extensions import Extension
from ..._runtime.shipped_extensions import context_info, tool_logger
from ..cli import model_at
from .script import DEMO_SCRIPT, load_script, script_driver
from .sessions import Session

__all__ = [
    "APPROVAL_MODES",
    "DEMO",
    "GATED_TOOLS",
    "ApprovalMode",
    "EXPLORER",
    "ROOT",
    "approval_reason",
    "close_agent",
    "coding_extensions",
    "coding_tools",
    "default_model",
    "make_driver",
    "open_agent",
    "restore_todos",
    "subagent_registry",
    "system_prompt",
    "tool_log_writer",
]

ApprovalMode = Literal["destructive", "all", "none"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("destructive", "all", "none")
"""``destructive``: ask before a command ``check_risky`` flags (one that deletes files,
discards changes, publishes, runs as root...); ``all``: before every call of a gated
tool; ``none``: never ask. What the bash guard blocks is never asked about."""

GATED_TOOLS = frozenset({"write", "edit", "bash", "webfetch"})
"""Tools whose calls pause for a decision (made at once unless the user must be asked)."""

DEMO = "demo"
"""The model name of the offline demo (a scripted model on a sample project)."""

SCRIPT_PREFIX = "script/"

DEFAULT_MODELS = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-5"),
)


def approval_reason(mode: ApprovalMode, call: ToolCallPart, *, guarded: bool = True) -> str | None:
    """Why the user must decide ``call`` before it runs; ``None``: it runs at once.
    ``guarded``: the bash guard is on, so a command it blocks needs no question."""
    if mode == "none" or call.tool_name not in GATED_TOOLS:
        return None
    if call.tool_name == "bash":
        command = str(call.input.get("command", ""))
        if guarded and check_command(command) is not None:
            return None
        flagged = check_risky(command)
        if flagged is not None:
            return f"risky: {flagged}"
    if mode == "all":
        return "every change needs your approval (--approval all)"
    return None


def coding_tools(cwd: str, store: TodoStore) -> list[Tool]:
    """The agent's tools for the workspace ``cwd`` (see the module docstring)."""
    tools = [t for t in create_all_tools(cwd, todo_store=store) if t.name != "websearch"]
    return [attrs.evolve(t, requires_approval=True) if t.name in GATED_TOOLS else t for t in tools]


ROOT = "coder"
"""The coding agent's definition in its sub-agent registry."""
EXPLORER = "explorer"
"""The read-only sub-agent the ``task`` tool runs."""

_EXPLORER_PROMPT = (
    "You explore a software project for another agent and report what you found. The "
    "project's root is {cwd}. You have read, grep, find and ls; you cannot change files "
    "or run commands. Look until you can answer the question, then answer it briefly: "
    "the paths and line numbers that matter, with short excerpts, and nothing else."
)


def subagent_registry(model: str, cwd: str, *, base_url: str | None = None) -> AgentRegistry:
    """The coding agent's sub-agents: the ``explorer`` (read-only tools of ``cwd``, the
    session's ``model`` at ``base_url``) that its ``task`` tool runs, and the agent itself
    (``ROOT``, whose other tools are given when it is created)."""
    explorer = AgentDefinition(
        EXPLORER,
        model,
        display_name="Explorer",
        description="Searches and reads the project (read, grep, find, ls) to answer a "
        "question, and reports paths, line numbers and excerpts; it changes nothing. Use "
        "it for a broad search whose steps you do not need to see.",
        tools=["read", "grep", "find", "ls"],
        system_prompt=_EXPLORER_PROMPT.format(cwd=cwd),
        max_iterations=30,
    )
    root = AgentDefinition(ROOT, model, tools=["task"], spawnable_agents=[EXPLORER])
    return AgentRegistry(
        [root, explorer],
        tools=create_read_only_tools(cwd),
        driver_factory=lambda name: make_driver(name, base_url=base_url)[0],
    )


def tool_log_writer(path: Path) -> Callable[[Mapping[str, Any]], None]:
    """Append each ``tool_logger`` entry to ``path`` as a JSON line with the local time,
    secrets scrubbed as the journal scrubs them."""

    def write(entry: Mapping[str, Any]) -> None:
        now = datetime.datetime.now().astimezone().isoformat(timespec="milliseconds")
        line = json.dumps({"time": now, **entry}, ensure_ascii=False, default=str)
        with path.open("a", encoding="utf-8") as file:
            file.write(scrub(line) + "\n")

    return write


def coding_extensions(cwd: str, log: Path | None, *, guard: bool = True) -> list[Extension]:
    """The bash guard (unless ``guard`` is off), the tool logger (to ``log``, else the
    ``agentcore.tools`` logger) and context info for ``cwd``."""
    logger = tool_logger(tool_log_writer(log) if log is not None else None)
    return [*([bash_guard()] if guard else []), logger, context_info(cwd)]


async def close_agent(agent: Agent) -> None:
    """Close the agent and the sub-agents its ``task`` calls ran (their journals synced)."""
    await node_of(agent).aclose()


def restore_todos(messages: Iterable[Any]) -> TodoStore:
    """The todo list as the conversation's last successful ``todo_write`` left it."""
    items: tuple[TodoItem, ...] = ()
    for message in messages:
        if (
            isinstance(message, ToolResultMessage)
            and message.tool_name == "todo_write"
            and not message.is_error
            and isinstance(message.details, Mapping)
        ):
            todos = message.details.get("todos") or ()
            items = tuple(TodoItem(**t) for t in todos if isinstance(t, Mapping))
    return TodoStore(items)


def system_prompt(cwd: str) -> str:
    """What the model is told about its job and its workspace."""
    return (
        "You are a coding agent working in a software project on the user's machine. "
        f"The project's root (your workspace) is {cwd}; paths are relative to it, and the "
        "file tools refuse paths outside it. Use the tools to look before you change: "
        "read a file before editing it, search with grep and find, run the tests or the "
        "program with bash to check your work. Prefer edit for changes to existing files "
        "and write for new ones. For a broad search whose steps you do not need, hand a "
        "precise question to the explorer with the task tool. Keep a todo list for work of "
        "several steps. Commands the bash guard blocks are not run. The user may "
        "send a message while you work; follow it. Be brief: say what you did and what "
        "is left, without repeating the code."
    )


def default_model(environ: Mapping[str, str] = os.environ) -> str:
    """``AGENTCORE_MODEL``, else a model of the first provider with a key, else the demo."""
    chosen = environ.get("AGENTCORE_MODEL")
    if chosen:
        return chosen
    return next((model for key, model in DEFAULT_MODELS if environ.get(key)), DEMO)


def make_driver(model: str, *, base_url: str | None = None) -> tuple[Driver, ModelPrice | None]:
    """The driver for ``model`` (``demo``, ``script/PATH`` or ``provider/model`` at
    ``base_url``, default the provider's) and its price when the driver does not come
    with one (a scripted model costs nothing). Raises ``ConfigurationError`` for an
    unknown provider, a missing key or a bad script."""
    if model == DEMO:
        return script_driver(load_script(DEMO_SCRIPT)), ModelPrice(input=0.0, output=0.0)
    if model.startswith(SCRIPT_PREFIX):
        path = model.removeprefix(SCRIPT_PREFIX)
        if not path:
            raise ConfigurationError("script/ needs a path: --model script/path/to/script.json")
        return script_driver(load_script(path)), ModelPrice(input=0.0, output=0.0)
    return model_at(model, base_url), None


async def open_agent(
    session: Session,
    model: str,
    driver: Driver,
    price: ModelPrice | None,
    presenter: Any,
    *,
    resumed: bool,
    max_iterations: int | None = 50,
    guard: bool = True,
    base_url: str | None = None,
) -> Agent:
    """The session's agent on ``driver`` (the model ``model``), the root of its sub-agent
    tree: new, or rebuilt from its journal (``AgentRegistry.resume``, which goes on with
    what was in flight, children included), with the todo list its history left. Its
    sub-agents run their models at ``base_url``."""
    cwd, todos = session.info.cwd, TodoStore()
    registry = subagent_registry(model, cwd, base_url=base_url)
    options: dict[str, Any] = {
        "model": driver,
        "agent_id": session.info.id,
        "system_prompt": system_prompt(cwd),
        "tools": coding_tools(cwd, todos),
        "extensions": coding_extensions(cwd, session.log, guard=guard),
        "presenters": [presenter],
        "max_iterations": max_iterations,
        "price": price,
    }
    if not resumed:
        return registry.create(ROOT, journal=session.journal, **options)
    agent = await registry.resume(ROOT, session.journal, **options)
    todos.replace(restore_todos(agent.state.messages).items)
    return agent
