"""Compaction: its cost per model call on a 1,000-message history.

A history of 1,000 messages (a prompt, then turns of a reply asking for one tool and a
2 kB result) is the loop's; each figure is the best of a few rounds, per model call:

- ``check``: the loop deciding whether to compact before a call (in the fold, so a replay
  pays it too), with the last reply's usage reported, and without (then every message
  is estimated);
- ``plan``: the compaction itself when it is due, per strategy;
- ``request``: building the request the model is sent (when it is first read, never in
  a replay), with no compaction, and through each strategy's view;
- ``summary request``: building what a ``Summarise`` asks the model to summarise.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any

from agentcore import ClearToolResults, Compaction, KeepLastTurns, ModelPrice, Summarise
from agentcore._loop.compaction import plan_compaction, summary_request
from agentcore.events import (
    AssistantMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    AgentPrompt,
    CallModel,
    ContextView,
    LoopConfig,
    context_tokens,
    default_convert_to_llm,
    initial_loop_state,
    loop_processor,
    render_view,
)

MESSAGES = 1_000
WINDOW = 200_000


def _history(usage: bool) -> list[Any]:
    out: list[Any] = [UserMessage("u0", "Read the whole manual and tell me what it says.")]
    n = 0
    while len(out) < MESSAGES - 1:
        n += 1
        reported = Usage(input_tokens=300 * n, output_tokens=40) if usage else Usage()
        call = ToolCallPart(f"call{n}", "read", {"page": n})
        out.append(AssistantMessage(f"a{n}", "m", [TextPart("Reading on."), call], reported))
        out.append(ToolResultMessage(f"call{n}", "read", "lorem ipsum " * 170))
    return out


def _best(fn: Callable[[], object], number: int = 20, rounds: int = 5) -> float:
    """Microseconds per call, best of ``rounds``."""
    return min(timeit.repeat(fn, number=number, repeat=rounds)) / number * 1e6


def _call(config: LoopConfig, history: list[Any], view: ContextView | None) -> tuple[Any, Any]:
    """A state holding ``history`` (seen through ``view``), and the prompt that calls."""
    state = initial_loop_state(config, history).replace(context=view)
    return state, AgentPrompt([UserMessage("u-next", "And the index?")])


def main() -> None:
    price = ModelPrice(3.0, 15.0, context_window=WINDOW)
    strategies: dict[str, Any] = {
        "clear tool results": ClearToolResults(keep_turns=3),
        "keep last turns": KeepLastTurns(turns=8),
        "summarise": Summarise(keep_turns=4),
    }
    print(f"history: {MESSAGES} messages; context window {WINDOW:,} tokens")

    for usage in (True, False):
        history = _history(usage)
        state, prompt = _call(LoopConfig(price=price), history, None)
        bare = _best(lambda s=state, p=prompt: loop_processor(s, p))
        compacting = LoopConfig(price=price, compaction=KeepLastTurns())
        state, prompt = _call(compacting, history, None)
        checked = _best(lambda s=state, p=prompt: loop_processor(s, p))
        label = "usage reported" if usage else "no usage (all estimated)"
        print(
            f"check, {label}: {checked - bare:8.1f} µs per call "
            f"(the fold's call step: {bare:.1f} µs without compaction)"
        )

    history = _history(True)
    tokens = context_tokens(None, history, ())
    for name, strategy in strategies.items():
        compaction = Compaction(strategy)
        micros = _best(
            lambda c=compaction: plan_compaction(c, None, history, tokens, WINDOW, overflow=True)
        )
        print(f"plan, {name}: {micros:8.1f} µs per compaction")

    views: dict[str, ContextView | None] = {"no compaction": None}
    for name, strategy in strategies.items():
        planned = plan_compaction(Compaction(strategy), None, history, tokens, None, overflow=True)
        assert planned is not None
        view, summarise, cut = planned
        views[name] = view if summarise is None else ContextView(cut, 0, summary="gist")
    for name, view in views.items():
        config = LoopConfig(price=price, compaction=None if view is None else KeepLastTurns())
        state, prompt = _call(config, history, view)
        _, out = loop_processor(state, prompt)
        [effect] = [o for o in out if type(o) is CallModel]
        sent = len(effect.request.messages)
        micros = _best(lambda v=view: default_convert_to_llm(render_view(v, history)))
        print(f"request, {name}: {micros:8.1f} µs per call ({sent} messages sent)")

    summarise = strategies["summarise"]
    cut = plan_compaction(Compaction(summarise), None, history, tokens, None, overflow=True)[2]  # type: ignore[index]
    micros = _best(
        lambda: summary_request(None, history, cut, summarise, default_convert_to_llm, None, WINDOW)
    )
    print(f"summary request: {micros:8.1f} µs per summary")


if __name__ == "__main__":
    main()
