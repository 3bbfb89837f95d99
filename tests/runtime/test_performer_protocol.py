"""One ``Performer`` protocol: both performers implement it, and answer a cancelled
tool call the same way."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

from agentcore._core.content import ToolCallPart
from agentcore._durable.performer import DurablePerformer
from agentcore._runtime import perform
from agentcore._runtime.outlet import Outlet
from agentcore._runtime.perform import LocalPerformer
from agentcore._runtime.performing import BasePerformer, Performer, aborted
from agentcore.loop import CancelTools, ExecuteTools, SetTimer


class Lane:
    seq = 7
    now = 1234


def test_every_performer_is_a_performer() -> None:
    durable = DurablePerformer(Lane(), lambda events: None)
    local = LocalPerformer(
        lambda e: None, lambda: None, {}, Outlet("a", (), 1), lambda: 1, tuple, print, list, print
    )
    for performer in (BasePerformer(), durable, local):
        assert isinstance(performer, Performer)
    assert not isinstance(object(), Performer)


def test_the_no_op_base_performs_nothing() -> None:
    base = BasePerformer()
    base.perform(SetTimer(5))
    base.cancel()
    asyncio.run(base.aclose())
    assert base.in_flight is False


def _call(call_id: str) -> ToolCallPart:
    return ToolCallPart(call_id, "t", {})


def test_a_cancelled_call_gets_the_same_answer_from_both_performers() -> None:
    fed: list[Any] = []
    durable = DurablePerformer(Lane(), fed.extend)
    durable.perform(ExecuteTools((_call("c1"), _call("c2")), True))
    assert durable.in_flight
    durable.perform(CancelTools(("c2",)))
    assert [c.tool_call_id for _, e in durable.pending for c in e.tool_calls] == ["c1"]
    assert fed == [aborted("c2", Lane.now)]

    async def local_answer() -> list[Any]:
        got: list[Any] = []
        local = LocalPerformer(
            got.append,
            lambda: None,
            {},
            Outlet("a", (), 1),
            lambda: Lane.now,
            tuple,
            print,
            list,
            print,
        )
        local.perform(CancelTools(("c2",)))
        await local.aclose()
        return got

    assert asyncio.run(local_answer()) == fed
    durable.cancel()
    assert not durable.in_flight and durable.timer is None


def test_the_in_process_performer_has_one_small_module_per_kind_of_effect() -> None:
    folder = pathlib.Path(perform.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert {"model.py", "tools.py", "checks.py", "timers.py"} <= set(sizes)
    assert max(sizes.values()) < 450, sizes
