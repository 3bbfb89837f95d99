"""Fan-out and resume: the frames a reconnecting client gets are exactly those it missed.

A ``Feed`` attached to a random session made its frames live; a client that reconnects
after any of them, to a fresh feed (the server restarted: the journal alone), to the live
channel's buffer, or to a channel whose buffer no longer holds the cursor, gets every
later frame once, in order, byte for byte.
"""

from __future__ import annotations

import asyncio
import itertools
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import from_dict
from agentcore.loop import create_conversation_machine
from agentcore.presenters.sse import PROTOCOL as AGENTCORE
from agentcore.serve import Cursor, Feed, format_event_id, parse_event_id, sse_frame

from .conftest import PROTOCOLS, ROOT, Session, sessions, wire_protocol

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _after(session: Session, name: str, k: int) -> tuple[Cursor, bytes]:
    live = session.live[name]
    cursor = live[k % len(live)][0] if live else Cursor(0)
    return cursor, b"".join(frame for c, frame in live if c > cursor)


@SETTINGS
@given(sessions(), st.integers(0, 10_000), st.sampled_from(PROTOCOLS))
def test_a_restarted_server_resends_exactly_what_was_missed(
    session: Session, k: int, name: str
) -> None:
    cursor, missed = _after(session, name, k)
    feed = Feed(ROOT, session.journal, create_conversation_machine)
    reader = feed.read(wire_protocol(name), {}, cursor)
    assert reader.backlog == missed


@SETTINGS
@given(sessions(), st.integers(0, 10_000), st.sampled_from(PROTOCOLS), st.integers(1, 40))
def test_the_live_buffer_and_a_trimmed_one_give_the_same(
    session: Session, k: int, name: str, size: int
) -> None:
    cursor, missed = _after(session, name, k)
    protocol = wire_protocol(name)
    for max_frames in (1 << 30, size):
        feed = Feed(ROOT, session.journal, create_conversation_machine, max_frames=max_frames)
        feed.read(protocol, {}, None)  # the channel exists, with what the buffer holds
        reader = feed.read(protocol, {}, cursor)
        channel = reader.channel
        got = reader.backlog + channel.frames(reader.index)
        assert got == missed


@SETTINGS
@given(sessions())
def test_the_agentcore_stream_is_every_output_in_order(session: Session) -> None:
    frames = [f.decode() for _, f in session.live["agentcore"]]
    cursors = [c for c, _ in session.live["agentcore"]]
    assert cursors == sorted(cursors) and len(set(cursors)) == len(cursors)
    decoded = []
    for text in frames:
        lines = text.split("\n")
        assert text.endswith("\n\n") and "\r" not in text
        fields = dict(line.split(": ", 1) for line in lines if line)
        assert parse_event_id(fields["id"], ROOT) in cursors
        event = from_dict(json.loads(fields["data"]))
        assert event.type == fields["event"]
        decoded.append(event)
    assert decoded == list(session.outputs)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.none() | st.text(alphabet="abc_\n\r", max_size=8), st.text(max_size=8))
def test_sse_frames_are_lf_only_and_read_back(data: str, event: str | None, ident: str) -> None:
    frame = sse_frame(data, event, ident)
    assert "\r" not in frame and frame.endswith("\n\n")
    lines = frame[:-2].split("\n")
    got = [line[len("data: ") :] for line in lines if line.startswith("data: ")]
    expected = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert got == expected


def test_event_ids_name_their_agent() -> None:
    assert parse_event_id(format_event_id("a:b", Cursor(12, 3)), "a:b") == Cursor(12, 3)
    assert parse_event_id("7", "x") == Cursor(7, 1 << 62)
    for bad in ("other:1.0", "a:b:1", "a:b:1.x", "a:b:"):
        try:
            parse_event_id(bad, "a:b")
        except ValueError as exc:
            assert "a:b" in str(exc)
        else:
            raise AssertionError(bad)


def test_layers_select_outputs_and_typos_fail() -> None:
    state = AGENTCORE.initial(ROOT, {"layers": "turn", "types": "text_delta"})
    from agentcore.events import TextDelta, TurnResponse, UserMessage

    kept = [
        AGENTCORE.encode(state, ROOT, o)[1]
        for o in (TextDelta("x", 0), UserMessage("u", "hi"), TurnResponse("t", 5))
    ]
    assert [len(f) for f in kept] == [1, 0, 1]
    try:
        AGENTCORE.initial(ROOT, {"layers": "strem"})
    except ValueError as exc:
        assert "strem" in str(exc)
    else:
        raise AssertionError("a misspelt layer must fail")


def test_a_slow_reader_is_cut_and_the_agent_never_waits() -> None:
    async def main() -> None:
        from agentcore import MemoryJournal
        from agentcore.events import TextDelta

        journal = MemoryJournal()
        feed = Feed(ROOT, journal, create_conversation_machine, max_frames=8)
        reader = feed.read(AGENTCORE, {}, None)
        iterator = reader.__aiter__()
        journal.append(ROOT, TextDelta("x", 0))
        for _ in range(100):  # the agent presents 100 outputs while the reader sleeps
            feed.present(ROOT, TextDelta("x", 0))
        chunks = [chunk async for chunk in iterator]
        assert chunks == [] and reader.cut  # it fell behind the buffer: cut, to resume
        assert reader.channel.readers == 0

    asyncio.run(main())


def test_readers_are_woken_at_most_once_per_flush_and_miss_nothing() -> None:
    """A stream that yields between outputs wakes its readers once per ``flush``, not per
    output; the first output after a quiet spell goes out at once; a reader cancelled
    while waiting leaves the others waiting."""

    async def main() -> None:
        from agentcore import MemoryJournal
        from agentcore.events import TextDelta

        loop = asyncio.get_running_loop()
        journal = MemoryJournal()
        journal.append(ROOT, TextDelta("x", 0))
        feed = Feed(ROOT, journal, create_conversation_machine, flush=0.05)
        readers = [feed.read(AGENTCORE, {}, None) for _ in range(3)]
        got: list[list[tuple[float, bytes]]] = [[] for _ in readers]

        async def drain(i: int) -> None:
            async for chunk in readers[i]:
                got[i].append((loop.time(), chunk))

        tasks = [asyncio.create_task(drain(i)) for i in range(3)]
        doomed = asyncio.create_task(drain_forever(feed))
        await asyncio.sleep(0.01)
        doomed.cancel()
        started = loop.time()
        feed.present(ROOT, TextDelta("first", 0))
        await asyncio.sleep(0.01)
        assert all(len(g) == 1 and g[0][0] - started < 0.04 for g in got)  # at once
        for i in range(200):  # a fast stream: one output per loop iteration
            feed.present(ROOT, TextDelta(str(i), 0))
            await asyncio.sleep(0)
        await asyncio.sleep(0.12)
        feed.close()
        await asyncio.gather(*tasks)
        for g in got:
            assert len(g) <= 4, len(g)  # 201 outputs in two or three wakes
            frames = b"".join(chunk for _, chunk in g).decode().split("\n\n")[:-1]
            texts = [json.loads(f.split("data: ")[1])["data"]["text"] for f in frames]
            assert texts == ["first", *map(str, range(200))]
            times = [t for t, _ in g]
            assert all(b - a >= 0.045 for a, b in itertools.pairwise(times))

    async def drain_forever(feed: Feed) -> None:
        async for _ in feed.read(AGENTCORE, {}, None):
            pass

    asyncio.run(main())


def test_a_negative_flush_is_refused() -> None:
    from agentcore import MemoryJournal

    for bad in (-1.0, float("nan")):
        try:
            Feed(ROOT, MemoryJournal(), create_conversation_machine, flush=bad)
        except ValueError as exc:
            assert "flush" in str(exc)
        else:
            raise AssertionError(bad)


@SETTINGS
@given(sessions(max_prompts=2), st.text(), st.integers(0, 1 << 40))
def test_wire_json_is_json_dumps_of_the_wire_form(session: Session, text: str, ts: int) -> None:
    from agentcore import to_dict
    from agentcore.events import TextDelta, ThinkingDelta
    from agentcore.presenters.sse import wire_json

    extra = [TextDelta(text, 3, timestamp=ts), ThinkingDelta(text, 0, signature=text)]
    for output in [*session.outputs, *extra]:
        expected = json.dumps(to_dict(output), ensure_ascii=False, separators=(",", ":"))
        assert wire_json(output) == expected
