"""The coding agent's parts: its tools, system prompt, approval rule and model.

``coding_tools(cwd, store)`` is ``create_all_tools`` for the workspace, without
``websearch`` (no search backend is configured), with ``requires_approval`` on the tools
that change files, run commands or reach the network: the loop pauses on each of their
calls, and the app decides by ``approval_reason`` whether the user must be asked or the
call goes ahead at once. Because the pause and the decision are journaled inputs, a
session killed while a question is open asks it again when it is resumed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs

from ..._coding.factory import create_all_tools
from ..._coding.guard import check_command
from ..._coding.todo import TodoItem, TodoStore
from ..._core.content import ToolCallPart
from ..._core.driver import Driver
from ..._core.errors import ConfigurationError
from ..._core.events import ToolResultMessage
from ..._core.pricing import ModelPrice
from ..._loop.tools import Tool
from ..._runtime.agent import Agent
from ..._runtime.plugins import resolve_model
from .script import DEMO_SCRIPT, load_script, script_driver
from .sessions import Session

__all__ = [
    "APPROVAL_MODES",
    "DEMO",
    "GATED_TOOLS",
    "ApprovalMode",
    "approval_reason",
    "coding_tools",
    "default_model",
    "make_driver",
    "open_agent",
    "restore_todos",
    "system_prompt",
]

ApprovalMode = Literal["destructive", "all", "none"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("destructive", "all", "none")
"""``destructive``: ask before a command the bash guard flags; ``all``: before every call
of a gated tool; ``none``: never ask."""

GATED_TOOLS = frozenset({"write", "edit", "bash", "webfetch"})
"""Tools whose calls pause for a decision (made at once unless the user must be asked)."""

DEMO = "demo"
"""The model name of the offline demo (a scripted model on a sample project)."""

SCRIPT_PREFIX = "script/"

DEFAULT_MODELS = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-5"),
)


def approval_reason(mode: ApprovalMode, call: ToolCallPart) -> str | None:
    """Why the user must decide ``call`` before it runs; ``None``: it runs at once."""
    if mode == "none" or call.tool_name not in GATED_TOOLS:
        return None
    if call.tool_name == "bash":
        flagged = check_command(str(call.input.get("command", "")))
        if flagged is not None:
            return f"destructive: {flagged}"
    if mode == "all":
        return "every change needs your approval (--approval all)"
    return None


def coding_tools(cwd: str, store: TodoStore) -> list[Tool]:
    """The agent's tools for the workspace ``cwd`` (see the module docstring)."""
    tools = [t for t in create_all_tools(cwd, todo_store=store) if t.name != "websearch"]
    return [attrs.evolve(t, requires_approval=True) if t.name in GATED_TOOLS else t for t in tools]


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
        "and write for new ones. Keep a todo list for work of several steps. The user may "
        "send a message while you work; follow it. Be brief: say what you did and what "
        "is left, without repeating the code."
    )


def default_model(environ: Mapping[str, str] = os.environ) -> str:
    """``AGENTCORE_MODEL``, else a model of the first provider with a key, else the demo."""
    chosen = environ.get("AGENTCORE_MODEL")
    if chosen:
        return chosen
    return next((model for key, model in DEFAULT_MODELS if environ.get(key)), DEMO)


def make_driver(model: str) -> tuple[Driver, ModelPrice | None]:
    """The driver for ``model`` (``demo``, ``script/PATH`` or ``provider/model``) and its
    price when the driver does not come with one (a scripted model costs nothing).
    Raises ``ConfigurationError`` for an unknown provider, a missing key or a bad script."""
    if model == DEMO:
        return script_driver(load_script(DEMO_SCRIPT)), ModelPrice(input=0.0, output=0.0)
    if model.startswith(SCRIPT_PREFIX):
        path = model.removeprefix(SCRIPT_PREFIX)
        if not path:
            raise ConfigurationError("script/ needs a path: --model script/path/to/script.json")
        return script_driver(load_script(path)), ModelPrice(input=0.0, output=0.0)
    return resolve_model(model), None


async def open_agent(
    session: Session,
    driver: Driver,
    price: ModelPrice | None,
    presenter: Any,
    *,
    resumed: bool,
    max_iterations: int | None = 50,
) -> Agent:
    """The session's agent: new, or rebuilt from its journal (``Agent.resume``, which
    goes on with what was in flight), with the todo list its history left."""
    cwd, todos = session.info.cwd, TodoStore()
    options: dict[str, Any] = {
        "system_prompt": system_prompt(cwd),
        "tools": coding_tools(cwd, todos),
        "presenters": [presenter],
        "max_iterations": max_iterations,
        "price": price,
    }
    if not resumed:
        return Agent(driver, journal=session.journal, agent_id=session.info.id, **options)
    agent = await Agent.resume(session.journal, agent_id=session.info.id, model=driver, **options)
    todos.replace(restore_todos(agent.state.messages).items)
    return agent
