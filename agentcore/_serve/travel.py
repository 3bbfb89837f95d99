"""Time travel over served sessions: the whole state at any entry, branching, side by side.

``view_at`` folds a session's journal up to entry ``seq`` and reads it as the page shows
it: activity, the history, the calls running and those waiting for approval, queued
messages, usage and cost, the sub-agents spawned so far, and the session's inputs (the
timeline a slider moves over). ``branch`` copies a session's entries up to ``seq`` into
a new served agent's journal and resumes it there (``Agent.resume``: what was in flight
is performed again, live). ``compare`` traces two sessions and diffs every layer
(``agentcore.evals``). The routes are in ``app``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from .._core.events import (
    LAYERS,
    ErrorReceived,
    Interrupt,
    MessageStart,
    ToolResult,
    ToolUseStart,
    UserMessage,
)
from .._evals.cases import spawned_by
from .._evals.diff import diff_traces
from .._evals.trace import USER_INPUTS, Trace
from .._journal.describe import describe
from .._journal.journal import Journal, JournalEntry
from .._journal.replay import state_at
from .._loop.conversation import snapshot_of
from .hosting import Host, HttpError, Served

__all__ = ["branch", "compare", "view_at"]


def _journal(served: Served) -> Journal:
    journal = served.agent.journal
    if journal is None:  # pragma: no cover - the server always gives one
        raise HttpError(500, "this agent has no journal")
    return journal


def _kind(event: Any) -> str:
    """What an entry is on the timeline: a user's input, the model, a tool, or other."""
    if isinstance(event, USER_INPUTS):
        return "input"
    if isinstance(event, ToolResult):
        return "tool"
    if LAYERS.get(event.type) == "stream" and not isinstance(event, UserMessage | Interrupt):
        return "model"
    return "other"


def _timeline(entries: Iterable[JournalEntry]) -> list[dict[str, Any]]:
    """The entries a person steps between: user inputs, each model call's start (and a
    failure), each tool result; deltas are left to the state view."""
    shown = []
    for entry in entries:
        event, kind = entry.event, _kind(entry.event)
        if kind == "model" and not isinstance(event, MessageStart | ErrorReceived):
            continue
        if kind != "other" or event.type == "agent_configured":
            shown.append({"seq": entry.seq, "kind": kind, "text": describe(event)})
    return shown


def _message(message: Any) -> dict[str, Any]:
    kind = getattr(message, "type", type(message).__name__)
    if kind == "user_message":
        content = message.content
        text = content if isinstance(content, str) else describe(message)
    elif kind == "assistant_message":
        calls = [f"{p.tool_name}({json.dumps(dict(p.input))})" for p in message.tool_calls]
        text = message.text + ("\n" if message.text and calls else "") + "\n".join(calls)
    elif kind == "tool_result_message":
        text = f"{message.tool_name}: {message.result}"
    else:
        text = describe(message)
    return {"type": kind, "text": text}


def view_at(served: Served, seq: int | None) -> dict[str, Any]:
    """The whole state of ``served``'s session after entry ``seq`` (the last when None)."""
    journal, agent_id = _journal(served), served.agent.agent_id
    last = journal.last_seq(agent_id)
    if last == 0:
        raise HttpError(400, f"agent {agent_id!r} has no journal entries yet")
    seq = last if seq is None else seq
    if not 1 <= seq <= last:
        raise HttpError(400, f"the journal has {last} entries; ?seq= is from 1 to {last}")
    state = state_at(journal, agent_id, seq, machine_factory=served.feed.machine_factory)
    snapshot = snapshot_of(state)
    lane = [e for e in journal.entries(agent_id) if e.seq <= seq]
    spawned = {e.event.tool_call_id for e in lane if isinstance(e.event, ToolUseStart)}
    children: dict[str, int] = {}
    for entry in journal.entries():
        if spawned_by(agent_id, entry.agent_id) in spawned:
            children[entry.agent_id] = children.get(entry.agent_id, 0) + 1
    usage = snapshot.usage
    return {
        "agent_id": agent_id,
        "seq": seq,
        "last_seq": last,
        "entry": describe(lane[-1].event),
        "activity": snapshot.activity.value,
        "running": snapshot.is_streaming,
        "messages": [_message(m) for m in snapshot.messages],
        "pending_calls": [_call(c) for c in snapshot.pending_tool_calls],
        "pending_approvals": [_call(c) for c in snapshot.pending_approvals],
        "queued": [_message(m) for m in (*snapshot.steering, *snapshot.follow_ups)],
        "error": None if snapshot.error is None else snapshot.error.message,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        "cost": snapshot.cost,
        "subagents": [{"agent_id": a, "entries": n} for a, n in children.items()],
        "timeline": _timeline(journal.entries(agent_id)),
    }


def _call(call: Any) -> dict[str, Any]:
    return {
        "tool_call_id": call.tool_call_id,
        "tool_name": call.tool_name,
        "input": dict(call.input),
    }


async def branch(server: Host, served: Served, seq: int, model: str | None) -> Served:
    """A new served agent whose journal is ``served``'s up to entry ``seq``, resumed:
    the fork goes on live from that point (``model``: the options' model name, as
    ``POST /agents`` takes it)."""
    source, agent_id = _journal(served), served.agent.agent_id
    last = source.last_seq(agent_id)
    if not 1 <= seq <= last:
        raise HttpError(400, f"the journal has {last} entries; 'seq' is from 1 to {last}")
    new_id = server._new_id()
    journal = server._journal(new_id)
    for entry in source.entries(agent_id):
        if entry.seq > seq:
            break
        journal.append(new_id, entry.event)
    journal.sync()
    try:
        options = dict(server.config.agent_options(model))
    except Exception as exc:
        journal.close()
        raise HttpError(400, f"the branch cannot run: {exc}") from None
    feed = server._feed(new_id, journal, served.feed.machine_factory)
    agent = await server._resume(new_id, journal, feed, options)
    if server.config.journal_dir is not None:
        meta = server.config.journal_dir / f"{new_id}.json"
        meta.write_text(json.dumps({"model": model, "branch_of": [agent_id, seq]}), "utf-8")
    branched = server.agents[new_id] = Served(agent, feed, served.model)
    branched.task = server._spawn(agent.wait())
    return branched


def _trace(served: Served) -> Trace:
    journal, agent_id = _journal(served), served.agent.agent_id
    factory: Callable[[], Any] = served.feed.machine_factory
    return Trace.of(journal.entries(), agent_id, factory)


def _history(trace: Trace) -> list[dict[str, Any]]:
    """The message layer as the history reads (a call is shown in its assistant message)."""
    return [_message(m) for m in trace.layer("message") if m.type != "tool_call_message"]


def compare(left: Served, right: Served) -> dict[str, Any]:
    """Two sessions side by side: each one's history, and the diff of every layer."""
    a, b = _trace(left), _trace(right)
    diff = diff_traces(a, b)
    return {
        "left": {"agent_id": a.agent_id, "messages": _history(a)},
        "right": {"agent_id": b.agent_id, "messages": _history(b)},
        "diff": diff.to_dict(),
        "text": diff.text(),
    }
