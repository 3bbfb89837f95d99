"""One cost ledger: in a conversation each model call is priced once, by the core's turn
tracker, and the loop charges the reply at that price (``model_usage``, the run's and the
session's cost) instead of pricing it again; a summary call, which never passes the core,
is priced by the loop, once.

Tests the private module ``agentcore._core.pricing``: its ``call_cost`` is counted.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import ModelPrice
from agentcore._core import pricing
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    TurnResponse,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    AgentPrompt,
    CallModel,
    ExecuteTools,
    LoopConfig,
    ModelUsage,
    conversation_processor,
    create_initial_conversation_state,
)
from agentcore.pricing import cost_of
from agentcore.tools import define_tool

CHEAP = ModelPrice(1.0, 2.0, 0.1, 1.5)
DEAR = ModelPrice(3.0, 15.0, 0.3, 3.75)
USAGE = Usage(input_tokens=1200, output_tokens=340)


async def _noop(args: Any, ctx: Any) -> str:
    return "ok"


TOOL = define_tool("fast", "f", {"type": "object", "properties": {}}, _noop)


def _reply(message_id: str, model: str, tool_call: str | None = None) -> list[Any]:
    """A model's streamed reply: text, or one call of ``fast`` when ``tool_call`` is set."""
    if tool_call is None:
        body: list[Any] = [TextDelta("done", 0)]
    else:
        body = [
            ToolUseStart(tool_call, "fast", 0),
            InputJsonDelta("{}", 0),
            ToolUseStop(tool_call, 0),
        ]
    stop = "end_turn" if tool_call is None else "tool_use"
    return [MessageStart(message_id, model), *body, MessageDelta(stop, USAGE), MessageStop(stop)]


def _run(state: Any) -> tuple[Any, list[Any]]:
    """A prompt answered by a tool call, then by text: two model calls in one turn."""
    outputs: list[Any] = []
    events: list[Any] = [AgentPrompt((UserMessage("u1", "hi"),))]
    events += _reply("m1", "m", tool_call="t1")
    events += [ToolResult("t1", "ok")]
    events += _reply("m2", "m")
    for event in events:
        state, out = conversation_processor(state, event)
        outputs.extend(out)
    return state, outputs


def test_the_loop_charges_the_price_the_core_charged() -> None:
    """The core's turns priced at another table than the loop's configuration: the loop
    reports the core's price unchanged (a loop pricing again would report CHEAP)."""
    config = LoopConfig(tools=(TOOL,), price=CHEAP)
    state = create_initial_conversation_state(config, (), {"m": DEAR})
    state, outputs = _run(state)
    charged = [o for o in outputs if type(o) is ModelUsage]
    assert [o.cost for o in charged] == [cost_of(USAGE, DEAR)] * 2
    (turn,) = [o for o in outputs if type(o) is TurnResponse]
    assert turn.cost == pytest.approx(sum(o.cost for o in charged), abs=1e-12)
    assert state.loop.cost == pytest.approx(turn.cost, abs=1e-12)
    assert sum(type(o) is CallModel for o in outputs) == 2
    assert sum(type(o) is ExecuteTools for o in outputs) == 1


@pytest.mark.parametrize(
    ("price", "prices", "cost"),
    [(DEAR, {"m": CHEAP}, cost_of(USAGE, CHEAP)), (DEAR, None, cost_of(USAGE, DEAR))],
)
def test_each_model_call_is_priced_once(
    price: ModelPrice, prices: dict[str, ModelPrice] | None, cost: float, monkeypatch: Any
) -> None:
    calls: list[str] = []
    real = pricing.call_cost

    def counted(usage: Usage, model: str, *rest: Any) -> float | None:
        calls.append(model)
        return real(usage, model, *rest)

    monkeypatch.setattr(pricing, "call_cost", counted)
    config = LoopConfig(tools=(TOOL,), price=price, prices=prices)
    _, outputs = _run(create_initial_conversation_state(config))
    assert calls == ["m", "m"]  # two model calls, two prices
    assert [o.cost for o in outputs if type(o) is ModelUsage] == [cost] * 2


def test_unpriced_calls_are_never_priced(monkeypatch: Any) -> None:
    """Without prices the core has nothing to price with, and the loop charges 0 without
    looking (the run's cost is reported as ``None`` elsewhere)."""
    calls: list[str] = []
    monkeypatch.setattr(pricing, "call_cost", lambda usage, model, *rest: calls.append(model))
    _, outputs = _run(create_initial_conversation_state(LoopConfig(tools=(TOOL,))))
    assert calls == []
    assert [o.cost for o in outputs if type(o) is ModelUsage] == [None, None]
