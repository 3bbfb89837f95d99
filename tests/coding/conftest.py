"""Shared fixtures: a workspace in tmp_path, both backends, and a way to call a tool.

Every tool test that takes ``backend`` runs twice: on ``LocalOperations`` and on
``ShellOperations`` whose scripts run through ``env -i PATH=<wheel's rg dir>:/usr/bin:/bin
sh -c`` (a stripped environment standing in for another machine).
"""

from __future__ import annotations

import asyncio
import os
import pathlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from agentcore.coding import LocalOperations, ShellOperations, find_ripgrep
from agentcore.tools import AbortSignal, Tool, ToolContext, ToolRunOutcome, run_tool

Call = Callable[..., ToolRunOutcome]
AsyncCall = Callable[..., Awaitable[ToolRunOutcome]]


def sandbox_operations() -> ShellOperations:
    rg_dir = os.path.dirname(find_ripgrep())
    return ShellOperations(("env", "-i", f"PATH={rg_dir}:/usr/bin:/bin", "sh", "-c"))


@pytest.fixture(params=["local", "shell"])
def backend(request: pytest.FixtureRequest) -> Any:
    return LocalOperations() if request.param == "local" else sandbox_operations()


@pytest.fixture
def ws(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


async def _acall(
    tool: Tool, signal: AbortSignal | None = None, updates: list[Any] | None = None, **args: Any
) -> ToolRunOutcome:
    errors = tool.validation_errors(args)
    assert not errors, errors
    ctx = ToolContext(
        "call_1",
        tool.name,
        signal or AbortSignal(),
        (),
        (updates.append if updates is not None else lambda _: None),
    )
    return await run_tool(tool, args, ctx)


@pytest.fixture
def call() -> Call:
    """``call(tool, **args)``: run one tool call to its outcome, synchronously."""

    def run(tool: Tool, **args: Any) -> ToolRunOutcome:
        return asyncio.run(_acall(tool, **args))

    return run


@pytest.fixture
def acall() -> AsyncCall:
    """``await acall(tool, signal=None, updates=None, **args)`` inside a running loop."""
    return _acall


@pytest.fixture
def sandbox() -> ShellOperations:
    return sandbox_operations()
