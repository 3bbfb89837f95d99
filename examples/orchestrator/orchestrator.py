"""A planner that runs a file finder and an editor in parallel, shown as a tree.

    python examples/orchestrator/orchestrator.py                  # a demo workspace
    python examples/orchestrator/orchestrator.py PATH "request"   # your own
    python examples/orchestrator/orchestrator.py --scripted       # no key, no network

The agents are defined in ``agents.yaml`` beside this file. With ``ANTHROPIC_API_KEY``
set they run on Anthropic, with ``OPENAI_API_KEY`` on OpenAI (``--model`` picks another
``provider/model`` for all three); with neither, or with ``--scripted``, on scripted
models that make the same kind of calls, so the example runs anywhere. The planner's
presenter gets every event of the tree; ``TreeView`` prints them indented by depth.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

import attrs

from agentcore import ModelRequest
from agentcore.agents import AgentDefinition, AgentRegistry, SubagentEvent, load_definitions
from agentcore.coding import create_edit_tool, create_find_tool, create_grep_tool, create_read_tool
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.events import AssistantMessage, ToolResultMessage
from agentcore.journal import MemoryJournal

HERE = pathlib.Path(__file__).parent
DEFAULT_REQUEST = (
    "Rename greet to welcome in src/app.py, and list the files that still have a TODO."
)


class TreeView:
    """A presenter printing the tree's conversation: one line per reply, tool call and
    end of a sub-agent, indented by the sub-agent's depth (``render`` is the pure part)."""

    def __init__(self, root: str = "planner", out: Any = None) -> None:
        self.root = root
        self.out = out or sys.stdout

    def present(self, agent_id: str, output: Any) -> None:
        line = render(self.root, output)
        if line is not None:
            print(line, file=self.out, flush=True)


def render(root: str, output: Any) -> str | None:
    depth, name, event = 0, root, output
    if isinstance(output, SubagentEvent):
        depth, name, event = output.lineage.depth, output.lineage.name, output.event
    pad = "    " * depth
    if isinstance(event, AssistantMessage) and event.text:
        return f"{pad}{name}: {event.text}"
    if event.type == "tool_execution_start":
        return f"{pad}{name} -> {event.tool_name}({json.dumps(event.args)[:70]})"
    if event.type == "agent_end" and depth:
        return f"{pad}{name} ended: {event.reason}"
    return None


# -- scripted models: the same kind of calls a real model makes -------------------------


def _results(request: ModelRequest) -> list[ToolResultMessage]:
    return [m for m in request.messages if isinstance(m, ToolResultMessage)]


def _planner(request: ModelRequest) -> Any:
    results = _results(request)
    if not results:
        agents = [
            {"agent_type": "file-finder", "prompt": "Find the files under src with a TODO."},
            {
                "agent_type": "editor",
                "prompt": "Rename the function greet to welcome in src/app.py.",
            },
        ]
        return tool_turn([("spawn_1", "spawn_agents", {"agents": agents})], text="Splitting it up.")
    finder, editor = json.loads(str(results[-1].result))
    files = ", ".join(finder["output"]["files"])
    return text_turn(f"{editor['output']} The files with a TODO: {files}.")


def _finder(request: ModelRequest) -> Any:
    results = _results(request)
    if not results:
        return tool_turn([("grep_1", "grep", {"pattern": "TODO", "path": "src"})])
    if len(results) == 1:
        files = sorted(
            {line.split(":")[0] for line in str(results[0].result).splitlines() if ":" in line}
        )
        return tool_turn([("out_1", "set_output", {"files": files})], message_id="m2")
    return text_turn("Found them.", message_id="m3")


def _editor(request: ModelRequest) -> Any:
    results = _results(request)
    if not results:
        return tool_turn([("read_1", "read", {"path": "src/app.py"})])
    if len(results) == 1:
        edit = {"path": "src/app.py", "old_text": "def greet(", "new_text": "def welcome("}
        return tool_turn([("edit_1", "edit", edit)], message_id="m2")
    return text_turn("Renamed greet to welcome in src/app.py.", message_id="m3")


SCRIPTS = {"planner": _planner, "file-finder": _finder, "editor": _editor}


def scripted(name: str) -> FunctionDriver:
    """The driver factory of ``--scripted``: models named ``scripted/<agent id>``."""
    return FunctionDriver(SCRIPTS[name.removeprefix("scripted/")], delay=0.001, name=name)


# -- building and running the tree ---------------------------------------------------------


def choose_model(requested: str | None, force_scripted: bool) -> str | None:
    """The model every agent runs on: ``None`` for the scripted ones."""
    if force_scripted:
        return None
    if requested:
        return requested
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic/claude-sonnet-4-5"
    if os.environ.get("OPENAI_API_KEY"):
        return "openai/gpt-4.1"
    return None


def build_registry(workspace: pathlib.Path, model: str | None) -> AgentRegistry:
    """The three agents of ``agents.yaml`` on ``model`` (scripted when ``None``), with
    file tools confined to ``workspace``."""
    root = str(workspace)
    tools = [
        create_find_tool(root),
        create_grep_tool(root),
        create_read_tool(root),
        create_edit_tool(root),
    ]
    definitions: Sequence[AgentDefinition] = load_definitions(HERE / "agents.yaml")
    if model is None:
        definitions = [attrs.evolve(d, model=f"scripted/{d.id}") for d in definitions]
        return AgentRegistry(definitions, tools=tools, driver_factory=scripted)
    definitions = [attrs.evolve(d, model=model) for d in definitions]
    return AgentRegistry(definitions, tools=tools)


def demo_workspace() -> pathlib.Path:
    """A small code base to work on, in a new temporary directory."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="orchestrator-"))
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(
        "def greet(name):\n    # TODO: localise\n    return f'Hello, {name}!'\n"
    )
    (root / "src" / "util.py").write_text("def helper():\n    return 42  # TODO: remove\n")
    (root / "src" / "done.py").write_text("VALUE = 1\n")
    return root


async def run(
    workspace: pathlib.Path, request: str, model: str | None, presenters: Sequence[Any]
) -> tuple[Any, MemoryJournal]:
    """Run the planner on ``request``; return its agent and the tree's journal."""
    journal = MemoryJournal()
    registry = build_registry(workspace, model)
    agent = registry.create("planner", journal=journal, presenters=presenters, agent_id="planner")
    await agent.run(request)
    return agent, journal


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", nargs="?", help="the code base (default: a demo one)")
    parser.add_argument("request", nargs="?", default=DEFAULT_REQUEST)
    parser.add_argument("--model", help="provider/model for every agent")
    parser.add_argument("--scripted", action="store_true", help="scripted models, no key")
    args = parser.parse_args(argv)
    workspace = pathlib.Path(args.workspace) if args.workspace else demo_workspace()
    model = choose_model(args.model, args.scripted)
    print(f"workspace: {workspace}; models: {model or 'scripted'}")
    agent, _ = await run(workspace, args.request, model, [TreeView()])
    return 0 if agent.state.error is None else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
