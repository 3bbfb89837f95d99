"""The loop's compaction steps (pure): when the context is compacted, and how.

Called by the loop policy (``policy``) before a model call, and when the provider refused
one with ``CONTEXT_OVERFLOW``; the strategies and the view they make are
``compaction``'s. Like ``tool_calls``, these functions take the loop state, append
outputs to ``out`` and return the next state; the policy decides what follows (the model
call, or the end of the run).
"""

from __future__ import annotations

from functools import partial
from typing import Any, TypeAlias

import attrs

from .._core.driver import ModelRequest
from .compaction import context_tokens, plan_compaction, summary_request
from .events import ContextCompacted, ContextSummary, SummariseContext
from .state import LoopState, PendingSummary

__all__ = ["adopt_summary", "compact", "summarise"]

Out: TypeAlias = list[Any]


def compact(s: LoopState, ts: int, out: Out, *, overflow: bool) -> LoopState | None:
    """Compact the context of the model call about to be made, if it needs it; ``None``
    when nothing was compacted (under the line, or nothing left to compact).

    A compaction that needs no model call takes effect at once (``context_compacted``);
    one that needs a summary asks for it (``SummariseContext``, phase ``compacting``).
    ``overflow``: the provider refused the context, so compaction is due whatever its size.
    """
    compaction, run = s.config.compaction, s.run
    assert compaction is not None and run is not None
    tokens = context_tokens(s.context, s.messages, [m for _, m in run.inflight])
    window = s.config.context_window
    plan = plan_compaction(compaction, s.context, s.messages, tokens, window, overflow=overflow)
    if plan is None:
        return None
    view, strategy, cut = plan
    reason = "overflow" if overflow else "threshold"
    if strategy is not None:
        pending = PendingSummary(reason, tokens, view, cut, strategy)
        s = s.replace(phase="compacting", run=run.replace(summary=pending))
        out.append(summarise(s))
        return s
    out.append(ContextCompacted(reason, tokens, view.start, view.cleared, timestamp=ts))
    return s.replace(context=view)


def summarise(s: LoopState) -> SummariseContext:
    """The effect that asks for the pending summary (its request built on first read)."""
    return SummariseContext.deferred(partial(_summary_request, s))


def _summary_request(s: LoopState) -> ModelRequest:
    run = s.run
    assert run is not None and run.summary is not None
    pending, cfg = run.summary, s.config
    return summary_request(
        pending.view,
        s.messages,
        pending.cut,
        pending.strategy,
        cfg.convert_to_llm,
        cfg.model,
        cfg.context_window,
    )


def adopt_summary(s: LoopState, e: ContextSummary, ts: int, out: Out) -> LoopState:
    """The pending compaction takes effect with the summary ``e`` brought
    (``context_compacted``); the caller makes the model call next."""
    run = s.run
    assert run is not None and run.summary is not None
    pending = run.summary
    view = attrs.evolve(pending.view, start=pending.cut, summary=e.summary.strip())
    out.append(
        ContextCompacted(
            pending.reason, pending.tokens, view.start, view.cleared, view.summary, timestamp=ts
        )
    )
    return s.replace(context=view, run=run.replace(summary=None))
