"""Compaction and usage in a running Agent: a summarising run replays exactly, a resumed
agent asks for the summary again, an overflow through the real SDK paths compacts and
retries once, and results carry usage and cost."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest

from agentcore import (
    Agent,
    ClearToolResults,
    KeepLastTurns,
    ModelPrice,
    ModelRequest,
    Summarise,
    tool,
)
from agentcore.drivers.anthropic import AnthropicDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.scripted import FunctionDriver, Pause, text_turn, tool_turn
from agentcore.drivers.testing import ReplayServer, ScriptedResponse, sse_response
from agentcore.errors import ProviderError
from agentcore.events import AssistantMessage, ErrorReceived, TextPart, Usage, UserMessage
from agentcore.journal import MemoryJournal, replay
from agentcore.loop import (
    SUMMARY_SYSTEM_PROMPT,
    ContextCompacted,
    ModelUsage,
    TurnEnd,
    estimate_tokens,
    history_problems,
)
from agentcore.testing import assert_replays

WINDOW = 3_000
PRICE = ModelPrice(input=1.0, output=2.0, context_window=WINDOW)
FIXTURES = pathlib.Path(__file__).parents[1] / "drivers" / "fixtures"


@tool
def read(page: int) -> str:
    """Read a page of the manual."""
    return f"page {page}: " + "lorem ipsum " * 200


class Model:
    """A model that reads pages until it has read ``pages``, refuses contexts over the
    window, summarises when asked, and reports what it was sent as its input tokens."""

    def __init__(self, pages: int) -> None:
        self.pages = pages
        self.read = 0
        self.summaries: list[ModelRequest] = []
        self.asked = asyncio.Event()
        self.hang = False

    def __call__(self, request: ModelRequest) -> Any:
        size = sum(estimate_tokens(m) for m in request.messages)
        usage = {"input_tokens": size, "output_tokens": 10}
        if request.system_prompt == SUMMARY_SYSTEM_PROMPT:
            self.summaries.append(request)
            self.asked.set()
            if self.hang:
                return [Pause(10)]
            return text_turn(f"Read pages up to {self.read}.", model="summariser", usage=usage)
        if size > WINDOW:
            return [ErrorReceived("prompt is too long", "CONTEXT_OVERFLOW")]
        if self.read < self.pages:
            self.read += 1
            return tool_turn([(f"p{self.read}", "read", {"page": self.read})], usage=usage)
        return text_turn("I read the whole manual.", usage=usage)


def _agent(model: Model, **options: Any) -> tuple[Agent, list[Any]]:
    options.setdefault("compaction", Summarise(2, max_tokens=200))
    agent = Agent(
        FunctionDriver(model),
        tools=[read],
        price=PRICE,
        max_iterations=40,
        journal=MemoryJournal(),
        agent_id="reader",
        **options,
    )
    delivered: list[Any] = []
    agent.subscribe(delivered.append)
    return agent, delivered


def test_a_summarising_run_replays_exactly_from_its_journal() -> None:
    model = Model(pages=12)
    agent, delivered = _agent(model)
    result = asyncio.run(agent.run("Read the manual."))
    assert result.output == "I read the whole manual."
    compactions = [o for o in delivered if isinstance(o, ContextCompacted)]
    assert len(compactions) >= 2 and all(c.summary for c in compactions)
    assert len(model.summaries) == len(compactions)  # one summary call per compaction
    # the summary call streamed, but none of it entered the conversation
    assert not [o for o in delivered if o.type == "text_delta" and "Read pages" in o.text]
    assert not [m for m in agent.state.messages if "Read pages" in getattr(m, "text", "")]
    assert history_problems(agent.state.messages) == []
    assert len(agent.state.messages) == 2 + 2 * 12  # the whole history is kept
    assert_replays(agent, delivered)  # the journal gives every output again
    journal = agent.journal
    assert journal is not None
    kinds = (ContextCompacted, ModelUsage, TurnEnd)
    alone = [o for _, o in replay(journal) if isinstance(o, kinds)]  # no agent, no driver
    assert alone == [o for o in delivered if isinstance(o, kinds)]


def test_a_resumed_agent_asks_for_the_summary_again() -> None:
    journal = MemoryJournal()
    first = Model(pages=12)
    first.hang = True

    async def die_while_summarising() -> None:
        agent = Agent(
            FunctionDriver(first),
            tools=[read],
            price=PRICE,
            compaction=Summarise(2, max_tokens=200),
            max_iterations=40,
            journal=journal,
            agent_id="reader",
        )
        task = asyncio.create_task(agent.prompt("Read the manual."))
        await first.asked.wait()
        assert agent.conversation_state.loop.phase == "compacting"
        task.cancel()  # the process "dies": its state is lost, the journal stays
        agent._shell.journal = None
        journal.release("reader")  # as the OS lets a dead process's lanes go

    asyncio.run(die_while_summarising())
    second = Model(pages=12)
    second.read = first.read

    async def resumed() -> Agent:
        agent = await Agent.resume(
            journal,
            model=FunctionDriver(second),
            tools=[read],
            price=PRICE,
            compaction=Summarise(2, max_tokens=200),
            max_iterations=40,
        )
        await agent.wait()
        return agent

    agent = asyncio.run(resumed())
    assert second.summaries[0].messages == first.summaries[0].messages  # the same request
    assert agent.state.error is None and agent.state.messages[-1].text.endswith("manual.")
    assert agent.conversation_state.loop.context.summary.startswith("Read pages")
    assert history_problems(agent.state.messages) == []


def test_clearing_tool_results_first_spares_the_summary() -> None:
    model = Model(pages=8)
    agent, delivered = _agent(model, compaction=(ClearToolResults(2), Summarise(2)))
    asyncio.run(agent.run("Read the manual."))
    compactions = [o for o in delivered if isinstance(o, ContextCompacted)]
    assert compactions and all(c.summary is None and c.cleared > 0 for c in compactions)
    assert not model.summaries
    assert_replays(agent, delivered)


# -- usage and cost ----------------------------------------------------------------------------


def test_results_and_events_carry_usage_and_cost_at_every_level() -> None:
    model = Model(pages=6)
    agent, delivered = _agent(model)
    result = asyncio.run(agent.run("Read the manual."))
    calls = [o for o in delivered if isinstance(o, ModelUsage)]
    steps = [o for o in delivered if isinstance(o, TurnEnd)]
    assert {c.purpose for c in calls} == {"reply", "summary"}
    assert sum((c.usage for c in calls), Usage()) == result.usage
    assert sum(s.usage.input_tokens for s in steps) == result.usage.input_tokens
    assert result.cost == pytest.approx(sum(c.cost for c in calls))
    assert result.cost == pytest.approx(
        result.usage.input_tokens * 1e-6 + result.usage.output_tokens * 2e-6
    )
    assert agent.state.usage == result.usage and agent.state.cost == pytest.approx(result.cost)
    model.pages, model.read = 1, 0
    again = asyncio.run(agent.run("Once more."))
    assert agent.state.usage == result.usage + again.usage  # the session sums its runs
    assert agent.state.cost == pytest.approx(result.cost + again.cost)  # type: ignore[operator]


def test_without_a_price_the_cost_is_none() -> None:
    agent = Agent(FunctionDriver(lambda r: text_turn("hi", usage={"input_tokens": 5})))
    result = asyncio.run(agent.run("hello"))
    assert result.cost is None and agent.state.cost is None
    assert result.usage.input_tokens == 5 and agent.state.usage.input_tokens == 5


# -- an overflow through the providers' SDKs ------------------------------------------------


def _history() -> list[Any]:
    out: list[Any] = []
    for n in range(3):
        out.append(UserMessage(f"u{n}", f"question {n}"))
        out.append(AssistantMessage(f"a{n}", "m", [TextPart(f"answer {n}")]))
    return out


ANTHROPIC_TOO_LONG = ScriptedResponse.json(
    400,
    {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "prompt is too long: 1 > 0"},
    },
)
OPENAI_TOO_LONG = ScriptedResponse.json(
    400,
    {
        "error": {
            "message": "This model's maximum context length is 128000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    },
)


def _through(vendor: str, responses: list[ScriptedResponse]) -> tuple[Any, list[Any]]:
    async def main() -> tuple[Any, list[Any]]:
        async with ReplayServer(responses) as server:
            driver: Any
            if vendor == "anthropic":
                driver = AnthropicDriver(
                    "claude-test", api_key="sk-ant-test", base_url=server.base_url
                )
            else:
                driver = OpenAIDriver(
                    "gpt-test", api_key="sk-test", base_url=server.base_url + "/v1"
                )
            agent = Agent(driver, compaction=KeepLastTurns(1), messages=_history())
            try:
                outcome: Any = await agent.run("question 3")
            except ProviderError as exc:
                outcome = exc
            await agent.aclose()
            return outcome, [r.json for r in server.requests]

    return asyncio.run(main())


@pytest.mark.parametrize(
    ("vendor", "too_long", "reply"),
    [
        ("anthropic", ANTHROPIC_TOO_LONG, "anthropic/text.sse"),
        ("openai", OPENAI_TOO_LONG, "openai/text.sse"),
    ],
)
def test_an_overflow_compacts_and_retries_once_through_the_sdk(
    vendor: str, too_long: ScriptedResponse, reply: str
) -> None:
    result, bodies = _through(vendor, [too_long, sse_response(FIXTURES / reply)])
    assert result.output == "Hello, world!"
    first, second = (body["messages"] for body in bodies)
    assert len(first) == 7 and len(second) == 2  # the note, and the last turn
    note = second[0]["content"]
    text = note if isinstance(note, str) else note[0]["text"]
    assert text.startswith("[The first 6 messages")
    failed, bodies = _through(vendor, [too_long, too_long, sse_response(FIXTURES / reply)])
    assert isinstance(failed, ProviderError) and failed.code == "CONTEXT_OVERFLOW"
    assert len(bodies) == 2  # one retry, never a second
