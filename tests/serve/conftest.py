"""Random agent sessions for the serve tests: a real ``Agent`` on a scripted model.

``sessions()`` draws prompts whose model calls come from ``agentcore.testing``'s
``assistant_streams`` (text, thinking and tool blocks, interleaved, in random chunks; the
random tool names are unknown, so the loop answers them itself), plus calls to a tool
that needs approval (approved or rejected), a driver failing mid-stream, and aborts. It
returns every output the agent delivered, in order, and the agent's journal.
"""

from __future__ import annotations

import asyncio
from importlib.metadata import entry_points
from typing import Any

import attrs
from hypothesis import strategies as st

from agentcore import Agent, MemoryJournal, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.loop import create_conversation_machine
from agentcore.presenters.recording import RecordingPresenter
from agentcore.serve import Cursor, Feed, StreamProtocol
from agentcore.testing import assistant_streams

ROOT = "a1"


def wire_protocol(name: str) -> StreamProtocol:
    """The wire protocol registered as ``name`` in the ``agentcore.protocols`` entry-point
    group, the public contract ``agentcore serve`` loads its protocols through."""
    (entry,) = entry_points(group="agentcore.protocols", name=name)
    protocol: StreamProtocol = entry.load()
    return protocol


@tool
def lookup(city: str) -> str:
    """A tool the scripted model may call."""
    return f"{city}: sunny"


@tool(requires_approval=True)
def remove(path: str) -> str:
    """A tool that needs the user's approval."""
    return f"removed {path}"


PROTOCOLS = ("agentcore", "ag-ui", "vercel")


@attrs.frozen
class Session:
    """What the agent delivered, its journal, and the frames a ``Feed`` made live (per
    protocol: ``(cursor, frame bytes)``, from a channel open before the first input)."""

    outputs: tuple[Any, ...]
    journal: MemoryJournal
    live: dict[str, list[tuple[Cursor, bytes]]]


@st.composite
def _prompts(draw: st.DrawFn, n: int) -> tuple[str, list[list[Any]], str]:
    """One prompt: its model calls and what the test does (``run``/``approve``/``reject``/
    ``abort``)."""
    kind = draw(st.sampled_from(["plain", "tools", "approval", "error"]))
    if kind == "plain":
        call = draw(assistant_streams(f"m{n}", tool_calls=False))
        return "run", [list(call.events)], f"p{n}"
    if kind == "tools":
        first = draw(assistant_streams(f"m{n}", tool_calls=True))
        last = draw(assistant_streams(f"m{n}b", tool_calls=False))
        lookup_call = tool_turn([(f"c{n}", "lookup", {"city": "Paris"})], message_id=f"m{n}c")
        calls = [list(first.events), lookup_call, list(last.events)]
        return "run", calls, f"p{n}"
    if kind == "approval":
        ask = tool_turn(
            [(f"r{n}", "remove", {"path": "/tmp/x"})], text="Removing.", message_id=f"m{n}"
        )
        then = text_turn("Done.", message_id=f"m{n}b", thinking="ok")
        return draw(st.sampled_from(["approve", "reject", "abort"])), [ask, then], f"p{n}"
    call = draw(assistant_streams(f"m{n}", tool_calls=False))
    cut = draw(st.integers(1, len(call.events) - 1))
    return "run", [[*call.events[:cut], RuntimeError("connection reset")]], f"p{n}"


@st.composite
def sessions(draw: st.DrawFn, max_prompts: int = 4) -> Session:
    prompts = [draw(_prompts(n)) for n in range(draw(st.integers(1, max_prompts)))]
    script = [call for _, calls, _ in prompts for call in calls]
    return _run(prompts, script)


def _run(prompts: list[tuple[str, list[list[Any]], str]], script: list[list[Any]]) -> Session:
    async def main() -> Session:
        rec = RecordingPresenter()
        journal = MemoryJournal()
        feed = Feed(ROOT, journal, create_conversation_machine, max_frames=1 << 30)
        readers = {name: feed.read(wire_protocol(name), {}, None) for name in PROTOCOLS}
        agent = Agent(
            ScriptedDriver(script, clock=lambda: 1_000),
            tools=[lookup, remove],
            presenters=[rec, feed],
            journal=journal,
            agent_id=ROOT,
            clock=lambda: 1_000,
            id_factory=iter(f"id{i}" for i in range(10_000)).__next__,
        )
        for action, _, text in prompts:
            await agent.prompt(text)
            while agent.state.pending_approvals:  # the scripted calls may shift after an abort
                call_id = agent.state.pending_approvals[0].tool_call_id
                if action == "reject":
                    await agent.reject(call_id, "no")
                elif action == "abort":
                    agent.abort("user")
                    await agent.wait()
                else:
                    await agent.approve(call_id)
        await agent.aclose()
        live = {
            name: [(Cursor(seq, n), f) for seq, n, f in reader.channel.buffer]
            for name, reader in readers.items()
        }
        return Session(tuple(rec.outputs()), journal, live)

    return asyncio.run(main())
