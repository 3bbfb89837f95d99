"""The loop's prompt caching (pure): the plan of each model call, and ``cache_bust``.

With caching off (no ``Cache`` on the run or the config) a model call's request is built
on first read, as ever (``CallModel.deferred``). With caching on, it is built when the
call is issued: its breakpoints depend on the request before it, and comparing the two
(``prefix_break``) is what tells a ``cache_bust``. The comparison costs a pointer test
per message of a history that only grew, and the conversion the request needs anyway;
a replay pays both for each call it folds (it performs none).

The previous request is the state's ``cached``, with the context view it was rendered
through: when that view changed, compaction rewrote the start of what is sent, and the
notice's reason is ``compaction``. Every compaction does (it moves the start, clears
results, or adds a summary), so the request after one always reports a bust.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import attrs

from .._core.caching import plan_cache, prefix_break
from .._core.driver import ModelRequest
from .events import CacheBust, CallModel
from .state import LoopState

__all__ = ["issue_call"]


def issue_call(
    s: LoopState, ts: int, out: list[Any], request: Callable[[LoopState], ModelRequest]
) -> LoopState:
    """Append the ``CallModel`` of the current call (``request(s)`` is its request); with
    caching on, its ``CachePlan``, preceded by a ``cache_bust`` when the request does not
    start with the one before it."""
    run = s.run
    assert run is not None
    cache = run.cache if run.cache is not None else s.config.cache
    if cache is None:
        out.append(CallModel.deferred(partial(request, s)))
        return s
    base = request(s)
    kept = None
    if s.cached is not None:
        previous, view = s.cached
        broken = prefix_break(previous, base)
        if broken is None:
            kept = previous
        else:
            what, index = broken
            reason = "compaction" if view != s.context else what
            out.append(CacheBust(reason, index, len(previous.messages), timestamp=ts))
    out.append(CallModel(attrs.evolve(base, cache=plan_cache(cache, base, kept))))
    return s.replace(cached=(base, s.context))
