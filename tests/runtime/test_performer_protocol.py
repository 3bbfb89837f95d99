"""One ``Performer`` protocol: both performers implement it, and neither answers a
cancelled tool call (the loop does).

Tests the private modules ``agentcore._edges.performer``, ``agentcore._runtime`` and
``agentcore._durable.performer``: both performers against the performer protocol (none of
them public)."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

from agentcore._durable.performer import DurablePerformer
from agentcore._edges.performer import BasePerformer, Performer
from agentcore._runtime import perform
from agentcore._runtime.outlet import Outlet
from agentcore._runtime.perform import LocalPerformer
from agentcore.events import ToolCallPart
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


def test_a_cancelled_call_is_only_cancelled_by_both_performers() -> None:
    """The loop answers a cancelled call itself (``ABORTED``, in the step that cancels
    it): a performer stops the call and feeds nothing for it."""
    fed: list[Any] = []
    durable = DurablePerformer(Lane(), fed.extend)
    durable.perform(ExecuteTools((_call("c1"), _call("c2")), True))
    assert durable.in_flight
    durable.perform(CancelTools(("c2",)))
    assert [c.tool_call_id for _, e in durable.pending for c in e.tool_calls] == ["c1"]
    assert fed == []

    async def local_answer() -> tuple[list[Any], bool]:
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
        local.perform(ExecuteTools((_call("c1"), _call("c2")), True))
        local.perform(CancelTools(("c2",)))
        in_flight = local.in_flight  # c1 still runs
        await asyncio.sleep(0.01)  # c1 ends (its tool is not here: an error result)
        await local.aclose()
        return got, in_flight

    got, in_flight = asyncio.run(local_answer())
    assert in_flight
    assert [r.tool_call_id for r in got] == ["c1"]
    durable.cancel()
    assert not durable.in_flight and durable.timer is None


def test_the_in_process_performer_has_one_small_module_per_kind_of_effect() -> None:
    folder = pathlib.Path(perform.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert {"model.py", "tools.py", "checks.py", "timers.py"} <= set(sizes)
    assert max(sizes.values()) < 450, sizes
