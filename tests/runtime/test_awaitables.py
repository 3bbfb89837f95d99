"""``awaitable`` answers as ``inspect.isawaitable`` does, for plain values and awaitables.

Tests the private module ``agentcore._runtime.awaitables``: its hot-path check."""

from __future__ import annotations

import asyncio
import inspect
import types
from collections.abc import Generator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentcore._runtime.awaitables import awaitable
from agentcore.events import ToolResult
from agentcore.extensions import Block, Continue
from agentcore.guardrails import Tripwire

_plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.binary()
    | st.builds(Continue)
    | st.builds(Block, st.text())
    | st.builds(Tripwire, st.text())
    | st.builds(ToolResult, st.text(), st.text()),
    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner),
    max_leaves=5,
)


@given(_plain)
def test_a_plain_value_is_not_awaitable(value: Any) -> None:
    assert awaitable(value) is inspect.isawaitable(value) is False


class _Awaits:
    def __await__(self) -> Generator[Any, None, None]:
        yield


class _NotAwaits:
    __await__ = None


def test_awaitables_are_seen_and_look_alikes_are_not() -> None:
    async def coroutine_function() -> None:
        pass

    @types.coroutine
    def generator_coroutine() -> Generator[Any, None, None]:
        yield

    def generator() -> Generator[int, None, None]:
        yield 1

    async def main() -> None:
        loop = asyncio.get_running_loop()
        coroutine, task = coroutine_function(), loop.create_task(coroutine_function())
        values = [
            coroutine,
            task,
            loop.create_future(),
            _Awaits(),
            generator_coroutine(),
            generator(),
            _NotAwaits(),
            coroutine_function,
            _Awaits,
        ]
        assert [awaitable(v) for v in values] == [inspect.isawaitable(v) for v in values]
        assert [awaitable(v) for v in values] == [True] * 5 + [False] * 4
        coroutine.close()
        await task

    asyncio.run(main())
