"""The bash guard as an extension: refuses a shell call that ``check_command`` flags.

It sits with the coding tools (whose guard it applies) and uses only the public
``ExtensionAPI``, like an extension of yours would.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .._core.content import ToolCallPart
from .._runtime.extensions import Block, Continue, Extension, ExtensionAPI
from .._runtime.extensions import extension as declared
from .guard import check_command

__all__ = ["bash_guard"]


def bash_guard(
    tools: Collection[str] = ("bash", "shell", "run_command"),
    *,
    argument: str = "command",
) -> Extension:
    """Block shell commands that would do irreversible damage (wipe the root or home
    directory, force-push to main/master, fork bombs, formatting or overwriting a disk),
    read the way a shell reads them (quotes, chains, wrappers, nested shells: see
    ``agentcore.coding.check_command``). Applies to calls of ``tools`` whose ``argument``
    is a string; the model is told why the call was blocked."""
    names = frozenset(tools)

    def extension(api: ExtensionAPI) -> None:
        def guard(call: ToolCallPart, tool: Any) -> Continue | Block:
            if call.tool_name not in names:
                return Continue()
            command = call.input.get(argument)
            if not isinstance(command, str):
                return Continue()
            reason = check_command(command)
            if reason is None:
                return Continue()
            return Block(
                f"Blocked by the bash guard: {reason}. The command was not run; "
                "choose a safer way to reach the goal, or ask the user to run it."
            )

        api.on("before_tool_call", guard)

    return declared(extension)
