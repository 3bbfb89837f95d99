"""A conversation state as people read it (``agentcore inspect``), not as raw tuples."""

from __future__ import annotations

import pprint
from typing import Any

from .._core.agent_processor import summary as core_summary
from .._core.events import is_event
from .._loop.state import LoopState
from .describe import describe

__all__ = ["render_state"]


def render_state(state: Any) -> str:
    """Several readable sections: the core's summary, the loop (phase, run, queues, the
    history one line per message), and any other processor's state as it is."""
    fields = getattr(state, "_fields", None)
    if fields is None or "core" not in fields or "loop" not in fields:
        if isinstance(state, tuple) and len(state) == 4:  # a core machine's state
            return "core:\n" + _indent(pprint.pformat(core_summary(state), width=96))
        return pprint.pformat(state, width=100)
    lines = ["core:", _indent(pprint.pformat(core_summary(state.core), width=96))]
    lines += ["loop:", _indent(_loop(state.loop))]
    for name in fields:
        if name not in ("core", "loop"):
            lines += [f"{name}:", _indent(pprint.pformat(getattr(state, name), width=96))]
    return "\n".join(lines)


def _loop(loop: LoopState) -> str:
    out = [f"phase: {loop.phase}"]
    run = loop.run
    if run is not None:
        out.append(
            f"run: iteration {run.iterations}, turn {run.turn}, usage {_usage(run)}, "
            f"cost ${run.cost:.6f}" + (f", stopping {run.stopping[1]}" if run.stopping else "")
        )
    if loop.batch is not None:
        batch = loop.batch
        answered = sum(1 for c in batch.calls if batch.result_of(c.tool_call_id) is not None)
        running, pending = sorted(batch.running), list(batch.pending)
        out.append(
            f"tool calls: {len(batch.calls)} ({answered} answered, running {running}, "
            f"awaiting approval {pending})"
        )
    out.append(f"queued: {len(loop.steering)} steering, {len(loop.follow_ups)} follow-up")
    if loop.error is not None:
        out.append(f"last error: {loop.error[0]}: {loop.error[1]}")
    tools = ", ".join(loop.config.tools_by_name) or "none"
    out.append(f"tools: {tools}")
    out.append(f"history ({len(loop.messages)} messages):")
    out += [f"  {describe(m) if is_event(m) else repr(m)}" for m in loop.messages]
    return "\n".join(out)


def _usage(run: Any) -> str:
    usage = run.usage
    return f"{usage.input_tokens} in / {usage.output_tokens} out"


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
