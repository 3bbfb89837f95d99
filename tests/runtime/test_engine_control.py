"""Subscriptions, interceptors, interrupt and destroy."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn
from agentcore.engine import EngineFailure, Reply, create_agent
from agentcore.errors import EngineClosedError, MessageRejectedError
from agentcore.events import AssistantMessage, TextDelta
from agentcore.presenters.recording import RecordingPresenter


def _engine(turns: list[Any]) -> tuple[Any, RecordingPresenter]:
    rec = RecordingPresenter()
    return create_agent(ScriptedDriver(turns), [rec], agent_id="a1"), rec


# -- subscriptions ----------------------------------------------------------------------


def test_the_four_on_forms_and_react() -> None:
    engine, _ = _engine([text_turn("abc", chunk=1)])
    seen: dict[str, list[str]] = {k: [] for k in ("all", "one", "list", "map", "react")}
    engine.on(lambda o: seen["all"].append(o.type))
    engine.on("text_delta", lambda o: seen["one"].append(o.text))
    engine.on(["message_start", "message_stop"], lambda o: seen["list"].append(o.type))
    engine.on({"assistant_message": lambda o: seen["map"].append(o.text)})
    engine.react({"on_conversation_end": lambda o: seen["react"].append(o.reason)})
    asyncio.run(engine.receive("hi"))
    assert seen["one"] == ["a", "b", "c"]
    assert seen["list"] == ["message_start", "message_stop"]
    assert seen["map"] == ["abc"]
    assert seen["react"] == ["completed"]
    assert seen["all"][0] == "agent_start" and seen["all"][-1] == "agent_end"
    assert "user_message" in seen["all"] and "turn_response" in seen["all"]


def test_subscription_mistakes_are_named() -> None:
    engine, _ = _engine([])
    with pytest.raises(ValueError, match="unknown output type 'text_delt'"):
        engine.on("text_delt", print)
    with pytest.raises(TypeError, match="handler is missing"):
        engine.on("text_delta")
    with pytest.raises(ValueError, match="on_text_delta"):
        engine.react({"text_delta": print})


def test_unsubscribe_stops_delivery_and_is_idempotent() -> None:
    engine, _ = _engine([text_turn("ab", chunk=1), text_turn("cd", chunk=1)])
    seen: list[str] = []
    off = engine.on("text_delta", lambda o: seen.append(o.text))

    async def run() -> None:
        await engine.receive("1")
        off()
        off()
        await engine.receive("2")

    asyncio.run(run())
    assert seen == ["a", "b"]


def test_subscribing_and_unsubscribing_inside_a_handler_is_safe() -> None:
    engine, _ = _engine([text_turn("abcd", chunk=1)])
    first: list[str] = []
    late: list[str] = []
    victim: list[str] = []
    offs: dict[str, Any] = {}

    def once(o: TextDelta) -> None:
        first.append(o.text)
        offs["once"]()  # unsubscribe myself
        offs["victim"]()  # and a handler not yet called for this output
        engine.on("text_delta", lambda o: late.append(o.text))  # starts with the next output

    offs["once"] = engine.on("text_delta", once)
    offs["victim"] = engine.on("text_delta", lambda o: victim.append(o.text))
    asyncio.run(engine.receive("hi"))
    assert first == ["a"] and victim == [] and late == ["b", "c", "d"]


def test_a_raising_handler_is_reported_and_the_next_message_runs() -> None:
    engine, rec = _engine([text_turn("ab", chunk=1), text_turn("ok")])
    failures: list[EngineFailure] = []
    engine.on_error(failures.append)

    def bad(o: Any) -> None:
        raise KeyError("boom")

    engine.on("text_delta", bad)

    async def run() -> str:
        await engine.receive("1")
        return (await engine.receive("2")).text

    assert asyncio.run(run()) == "ok"
    assert [f.source for f in failures] == ["handler"] * 3
    assert len(rec.outputs(type="text_delta")) == 3


def test_state_change_ready_and_destroy_handlers() -> None:
    engine, _ = _engine([text_turn("x")])
    states: list[str] = []
    ready: list[Any] = []
    destroyed: list[Any] = []
    engine.on_state_change(lambda change: states.append(str(change.current)))
    engine.on_state_change(lambda change: 1 / 0)  # isolated
    engine.on_ready(ready.append)
    engine.on_destroy(destroyed.append)

    async def run() -> None:
        await engine.receive("hi")
        await asyncio.sleep(0)
        await engine.destroy()
        await engine.destroy()

    asyncio.run(run())
    assert states[0] == "thinking" and states[-1] == "idle"
    assert ready == [engine] and destroyed == [engine]


# -- interceptors -----------------------------------------------------------------------


def test_interceptor_can_modify_and_block_outputs() -> None:
    engine, rec = _engine([text_turn("abc", chunk=1)])
    seen_by_handler: list[str] = []
    engine.on("text_delta", lambda o: seen_by_handler.append(o.text))

    def upper(output: Any, next: Any) -> None:
        if isinstance(output, TextDelta):
            if output.text == "b":
                return  # blocked
            output = TextDelta(text=output.text.upper(), index=output.index)
        next(output)

    engine.intercept(upper)
    reply = asyncio.run(engine.receive("hi"))
    assert [o.text for o in rec.outputs(type="text_delta")] == ["A", "C"]
    assert seen_by_handler == ["A", "C"]
    assert reply.text == "abc"  # the machine and the reply see the raw outputs


def test_a_raising_interceptor_blocks_that_output_and_is_reported() -> None:
    engine, rec = _engine([text_turn("ab", chunk=1)])
    failures: list[EngineFailure] = []
    engine.on_error(failures.append)

    def flaky(output: Any, next: Any) -> None:
        if getattr(output, "text", None) == "a":
            raise ValueError("x")
        next(output)

    off = engine.intercept(flaky)
    asyncio.run(engine.receive("hi"))
    assert [o.text for o in rec.outputs(type="text_delta")] == ["b"]
    assert [f.source for f in failures] == ["interceptor"]
    off()


# -- interrupt and destroy --------------------------------------------------------------


def _slow_turn(text: str) -> list[Any]:
    events = text_turn(text, chunk=1)
    return [*events[:3], Pause(30), *events[3:]]


def test_interrupt_mid_stream_flushes_partial_text_and_returns_to_idle() -> None:
    engine, rec = _engine([_slow_turn("hello"), text_turn("next")])

    async def run() -> tuple[Reply, Reply]:
        task = asyncio.create_task(engine.receive("hi"))
        while not rec.outputs(type="text_delta")[1:]:
            await asyncio.sleep(0.001)
        engine.interrupt()
        engine.interrupt()  # idempotent
        first = await task
        return first, await engine.receive("again")

    first, second = asyncio.run(run())
    assert first.interrupted and not second.interrupted
    message = first.assistant_message
    assert isinstance(message, AssistantMessage)
    assert message.text == "he" and message.incomplete
    assert rec.outputs(type="conversation_interrupted")
    assert [e.reason for e in rec.outputs(type="conversation_end")] == ["interrupted", "completed"]
    assert second.text == "next"
    assert str(engine.activity) == "idle"


def test_interrupt_when_idle_is_a_no_op() -> None:
    engine, rec = _engine([])
    engine.interrupt()
    assert len(rec) == 0


def test_cancelling_the_caller_interrupts_its_turn() -> None:
    engine, rec = _engine([_slow_turn("hello"), text_turn("after")])

    async def run() -> Reply:
        task = asyncio.create_task(engine.receive("hi"))
        while not rec.outputs(type="text_delta"):
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await engine.receive("again")

    assert asyncio.run(run()).text == "after"
    assert [e.reason for e in rec.outputs(type="conversation_end")] == ["interrupted", "completed"]


def test_destroy_interrupts_rejects_queued_and_closes() -> None:
    engine, rec = _engine([_slow_turn("hello"), text_turn("never")])

    async def run() -> None:
        running = asyncio.create_task(engine.receive("1"))
        queued = asyncio.create_task(engine.receive("2"))
        while not rec.outputs(type="text_delta"):
            await asyncio.sleep(0.001)
        await engine.destroy()
        assert (await running).interrupted
        with pytest.raises(MessageRejectedError, match="closed before it ran"):
            await queued
        with pytest.raises(EngineClosedError):
            await engine.receive("3")

    asyncio.run(run())
    assert [o.content for o in rec.outputs(type="user_message")] == ["1"]
    assert engine.is_destroyed
