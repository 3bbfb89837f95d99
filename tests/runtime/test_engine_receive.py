"""The seed's receive on the one runtime: stamping, ordering, queueing, history, failures."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

import pytest

from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn
from agentcore.engine import Reply, create_agent
from agentcore.errors import ConfigurationError, EngineClosedError, ProviderError
from agentcore.events import (
    AssistantMessage,
    ConversationEnd,
    ErrorMessage,
    ErrorReceived,
    TextDelta,
    UserMessage,
)
from agentcore.journal import MemoryJournal, replay
from agentcore.presenters.recording import RecordingPresenter
from agentcore.testing import assert_replays


def _ids() -> Any:
    counter = itertools.count(1)
    return lambda: f"id{next(counter)}"


def _engine(turns: list[Any], **kwargs: Any) -> tuple[Any, RecordingPresenter]:
    rec = RecordingPresenter()
    driver = ScriptedDriver(turns, clock=lambda: 99)
    engine = create_agent(
        driver, [rec], clock=lambda: 7, id_factory=_ids(), agent_id="a1", **kwargs
    )
    return engine, rec


def test_receive_delivers_input_then_outputs_and_returns_the_reply() -> None:
    engine, rec = _engine([text_turn("Hello there", chunk=4)])
    reply = asyncio.run(engine.receive("hi"))
    assert isinstance(reply, Reply)
    assert reply.text == "Hello there"
    assert reply.message == UserMessage(message_id="id1", content="hi", timestamp=7)
    types = rec.types()
    assert types.index("user_message") < types.index("message_start") < types.index("text_delta")
    assert types.index("assistant_message") > types.index("message_stop")
    assert isinstance(rec.outputs(type="conversation_end")[-1], ConversationEnd)
    assert rec.outputs(type="conversation_end")[-1].reason == "completed"
    assert set(rec.agent_ids()) == {"a1"}
    assert str(engine.activity) == "idle" and engine.state.activity == "idle"
    assert next(o for o in reply.outputs if isinstance(o, AssistantMessage)).text == "Hello there"


def test_every_delivered_output_is_delivered_exactly_once() -> None:
    engine, rec = _engine([text_turn("abc", chunk=1)])
    asyncio.run(engine.receive("hi"))
    ids = [id(o) for _, o in rec.records]
    assert len(ids) == len(set(ids))
    assert len(rec.outputs(type=TextDelta)) == 3


def test_history_and_model_request_carry_the_conversation() -> None:
    driver = ScriptedDriver([text_turn("one"), text_turn("two")])
    engine = create_agent(driver, system_prompt="be brief")

    async def run() -> None:
        await engine.receive("first")
        await engine.receive(UserMessage(message_id="", content="second"))

    asyncio.run(run())
    first, second = driver.requests
    assert first.system_prompt == "be brief"
    assert [type(m).__name__ for m in first.messages] == ["UserMessage"]
    kinds = [type(m).__name__ for m in second.messages]
    assert kinds == ["UserMessage", "AssistantMessage", "UserMessage"]
    assert second.messages[-1].message_id  # an empty id was stamped
    assert len(engine.state.messages) == 4


def test_messages_received_while_busy_run_in_order_each_await_gets_its_own() -> None:
    turns = [[Pause(0.01), *text_turn(f"reply {i}")] for i in range(3)]
    engine, rec = _engine(turns)

    async def run() -> list[Reply]:
        tasks = [asyncio.create_task(engine.receive(f"m{i}")) for i in range(3)]
        await asyncio.sleep(0.003)  # the first message is in its scripted pause
        assert (
            engine.state.is_streaming
            and engine.message_queue.length == 2
            and not engine.message_queue.is_empty
        )
        return await asyncio.gather(*tasks)

    replies = asyncio.run(run())
    assert [r.text for r in replies] == ["reply 0", "reply 1", "reply 2"]
    assert [r.message.content for r in replies] == ["m0", "m1", "m2"]
    assert engine.message_queue.is_empty
    starts = [i for i, t in enumerate(rec.types()) if t == "user_message"]
    ends = [i for i, t in enumerate(rec.types()) if t == "conversation_end"]
    assert starts[1] > ends[0] and starts[2] > ends[1]  # never interleaved


def test_driver_raising_mid_stream_closes_the_turn_in_error_and_the_next_message_runs() -> None:
    boom = ConnectionError("socket reset")
    turns = [[*text_turn("partial")[:2], boom], text_turn("recovered")]
    engine, rec = _engine(turns)

    async def run() -> Reply:
        with pytest.raises(ProviderError, match="socket reset") as info:
            await engine.receive("one")
        assert info.value.code == "DRIVER_ERROR"
        return await engine.receive("two")

    reply = asyncio.run(run())
    assert reply.text == "recovered"
    (error,) = rec.outputs(type=ErrorReceived)
    assert error.code == "DRIVER_ERROR"
    assert rec.outputs(type=ErrorMessage)
    assert [e.reason for e in rec.outputs(type="conversation_end")] == ["error", "completed"]


def test_driver_reported_error_event_raises_its_typed_error() -> None:
    failing = [ErrorReceived(message="slow down", code="RATE_LIMITED", retryable=True)]
    engine, _ = _engine([failing, text_turn("ok")])

    async def run() -> str:
        with pytest.raises(ProviderError) as info:
            await engine.receive("one")
        assert info.value.code == "RATE_LIMITED" and info.value.retryable
        return (await engine.receive("two")).text

    assert asyncio.run(run()) == "ok"


def test_exhausted_script_is_a_driver_error_not_a_stuck_engine() -> None:
    engine, _ = _engine([text_turn("only")])

    async def run() -> None:
        await engine.receive("one")
        with pytest.raises(ProviderError, match="has 1 scripted model call"):
            await engine.receive("two")
        assert not engine.state.is_streaming

    asyncio.run(run())


def test_a_raising_presenter_is_isolated_and_reported_once_per_failure() -> None:
    class Broken:
        def present(self, agent_id: str, output: Any) -> None:
            if output.type == "text_delta":
                raise ValueError("cannot draw")

    rec = RecordingPresenter()
    engine = create_agent(
        ScriptedDriver([text_turn("ab", chunk=1), text_turn("c")]), [Broken(), rec]
    )
    failures: list[Any] = []
    engine.on_error(failures.append)

    async def run() -> None:
        await engine.receive("one")
        await engine.receive("two")

    asyncio.run(run())
    assert len(failures) == 3  # one per failing call: "a", "b", "c"
    assert {f.source for f in failures} == {"presenter"}
    assert all(isinstance(f.error, ValueError) for f in failures)
    assert len(rec.outputs(type="text_delta")) == 3  # the other presenter got everything


def test_presenter_failure_without_error_handler_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        def present(self, agent_id: str, output: Any) -> None:
            raise RuntimeError("nope")

    engine = create_agent(ScriptedDriver([text_turn("x")]), [Broken()])
    asyncio.run(engine.receive("hi"))
    assert any("presenter" in r.getMessage() for r in caplog.records)


def test_a_slow_async_presenter_does_not_delay_the_others() -> None:
    seen_fast: list[str] = []

    class Slow:
        def __init__(self) -> None:
            self.seen: list[str] = []

        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(0.002)
            self.seen.append(output.type)

    class Fast:
        def present(self, agent_id: str, output: Any) -> None:
            seen_fast.append(output.type)

    slow = Slow()
    engine = create_agent(ScriptedDriver([text_turn("hello world", chunk=1)]), [slow, Fast()])

    async def run() -> tuple[int, int]:
        await engine.receive("hi")
        before = len(slow.seen)
        await engine.drain()
        return before, len(slow.seen)

    before, after = asyncio.run(run())
    assert before < len(seen_fast)  # the fast presenter was not held back
    assert slow.seen == seen_fast and after == len(seen_fast)  # nothing lost, same order


def test_async_presenter_backpressure_keeps_order_and_loses_nothing() -> None:
    class Slow:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(0)
            self.seen.append(output)

    slow, rec = Slow(), RecordingPresenter()
    engine = create_agent(
        ScriptedDriver([text_turn("x" * 200, chunk=1)]), [slow, rec], max_pending=4
    )

    async def run() -> None:
        await engine.receive("hi")
        await engine.drain()

    asyncio.run(run())
    assert slow.seen == [o for _, o in rec.records]


def test_journal_replay_equals_live_outputs() -> None:
    journal = MemoryJournal()
    boom = RuntimeError("x")
    engine, rec = _engine(
        [text_turn("one"), [*text_turn("t")[:2], boom], text_turn("three")], journal=journal
    )
    replies: list[Reply] = []

    async def run() -> None:
        for text in ("a", "b", "c"):
            with contextlib.suppress(ProviderError):
                replies.append(await engine.receive(text))

    asyncio.run(run())
    live = [o for _, o in replay(journal)]
    assert len(replies) == 2
    assert all(o in live for r in replies for o in r.outputs)
    assert [e.seq for e in journal.entries("a1")] == list(range(1, len(journal) + 1))
    assert_replays(engine, [o for _, o in rec.records])


def test_receive_after_destroy_raises() -> None:
    engine, _ = _engine([text_turn("x")])

    async def run() -> None:
        await engine.destroy()
        await engine.destroy()  # idempotent
        with pytest.raises(EngineClosedError, match="closed"):
            await engine.receive("hi")

    asyncio.run(run())


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ConfigurationError, match="model must be a 'provider/model' string"):
        create_agent(object())
    with pytest.raises(TypeError, match="present"):
        create_agent(ScriptedDriver([]), [object()])
    engine = create_agent(ScriptedDriver([]))
    with pytest.raises(TypeError, match="str or a UserMessage"):
        asyncio.run(engine.receive(42))  # type: ignore[arg-type]


def test_a_lone_presenter_fails_isolated_and_backpressures_in_order() -> None:
    """One presenter takes the outlet's inlined path: a raise is reported and the
    subscribers still get the output; an async one is awaited in order, nothing lost."""

    class Flaky:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(0)
            self.seen.append(output)

        def __call__(self, agent_id: str, output: Any) -> Any:
            if output.type == "text_delta" and output.text == "b":
                raise ValueError("cannot draw b")
            return self.present(agent_id, output)

    class Lone:
        def __init__(self) -> None:
            self.inner = Flaky()

        def present(self, agent_id: str, output: Any) -> Any:
            return self.inner(agent_id, output)

    lone = Lone()
    engine = create_agent(ScriptedDriver([text_turn("ab" * 100, chunk=1)]), [lone], max_pending=2)
    failures: list[Any] = []
    engine.on_error(failures.append)
    subscribed: list[Any] = []
    engine.on(subscribed.append)

    async def run() -> None:
        await engine.receive("hi")
        await engine.drain()

    asyncio.run(run())
    assert len(failures) == 100 and {f.source for f in failures} == {"presenter"}
    assert lone.inner.seen == [o for o in subscribed if getattr(o, "text", None) != "b"]
    assert [o.text for o in subscribed if o.type == "text_delta"] == list("ab" * 100)
