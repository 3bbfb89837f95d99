"""The agent definitions the durable tests' workers serve (``--agents durable_app:definitions``).

The model is a deterministic function of the request (it counts the tool results it was
sent), so a call performed again after a worker died asks for the same tool calls. It
streams ``DELTAS`` text deltas ``DELTA_SLEEP`` seconds apart, so a SIGKILL lands mid-stream
as well as mid-tool. ``charge`` changes the database: each execution is counted in
``executions`` and its effect is one row of ``charges`` keyed by ``idempotency_key()``
(a UNIQUE column: the effect is exactly-once however often the call runs); ``lookup``
sleeps and answers.

Environment: ``DURABLE_TEST_DB`` (the database URL), ``DURABLE_TOOL_SLEEP`` and
``DURABLE_DELTA_SLEEP`` (seconds).
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import sys
from collections.abc import AsyncIterator
from typing import Any

import attrs

from agentcore import BaseDriver, ModelPrice, ModelRequest, Summarise, tool
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.durable import Definitions, idempotency_key
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    to_dict,
)
from agentcore.extensions import Block, Continue, ExtensionAPI
from agentcore.guardrails import Tripwire
from agentcore.loop import SUMMARY_SYSTEM_PROMPT, estimate_tokens
from agentcore.mcp import MCPServer
from agentcore.middleware import LoopStartAction, ModelResponseAction, ToolCallAction
from agentcore.tools import Toolset, define_tool

DELTAS = 6
PLAN = [
    [("lookup", {"key": "rates"}), ("charge", {"amount": 3})],
    [("lookup", {"key": "fees"})],
]


def _sleep(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


class CountingModel(BaseDriver):
    """Call n asks for ``PLAN[n]``'s tool calls; after the last, it answers in text.
    ``deltas``/``delay`` override the stream's length and pace (default: the environment's
    pace, ``DELTAS`` deltas); ``plan=False`` answers in text at once."""

    def __init__(self, deltas: int = DELTAS, delay: float | None = None, plan: bool = True):
        self.deltas, self.delay, self.plan = deltas, delay, plan

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        step = {0: 0, 2: 1}.get(done) if self.plan else None
        delay = _sleep("DURABLE_DELTA_SLEEP", 0.0) if self.delay is None else self.delay
        yield MessageStart(f"msg_{done}", "counting-model", timestamp=1)
        for i in range(self.deltas):
            if delay:
                await asyncio.sleep(delay)
            yield TextDelta(f"w{i} ", 0, timestamp=1)
        if step is None:
            yield MessageDelta(stop_reason="end_turn", timestamp=1)
            yield MessageStop("end_turn", timestamp=1)
            return
        for offset, (name, args) in enumerate(PLAN[step]):
            call_id = f"call_{step}_{offset}"
            yield ToolUseStart(call_id, name, offset + 1, timestamp=1)
            yield InputJsonDelta(json.dumps(args), offset + 1, timestamp=1)
            yield ToolUseStop(call_id, offset + 1, timestamp=1)
        yield MessageDelta(stop_reason="tool_use", timestamp=1)
        yield MessageStop("tool_use", timestamp=1)


@tool
async def lookup(key: str) -> str:
    """Look a value up."""
    await asyncio.sleep(_sleep("DURABLE_TOOL_SLEEP", 0.0))
    return f"{key}: 42"


_pool: Any = None


def _charge_sql(key: str, amount: int) -> None:
    """Count the execution, charge once per key (a pool, as a real service keeps one: a
    connection per call would be most of a fast tool's time)."""
    global _pool
    if _pool is None:
        from psycopg_pool import ConnectionPool

        _pool = ConnectionPool(
            os.environ["DURABLE_TEST_DB"],
            min_size=1,
            max_size=4,
            open=True,
            kwargs={"autocommit": True},
        )
    with _pool.connection() as conn:
        conn.execute("INSERT INTO executions (key) VALUES (%s)", (key,))
        conn.execute(
            "INSERT INTO charges (key, amount) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
            (key, amount),
        )


async def charge(amount: int) -> str:
    """Charge an amount, exactly once per call (the idempotency key)."""
    key = idempotency_key()
    await asyncio.to_thread(_charge_sql, key, amount)
    await asyncio.sleep(_sleep("DURABLE_TOOL_SLEEP", 0.0))
    return f"charged {amount}"


charge_tool = tool(charge)
approved_charge = tool(requires_approval=True)(charge)

definitions = Definitions()
definitions.define("counter", model=CountingModel(), tools=[lookup, charge_tool], max_iterations=10)
definitions.define("slow", model=CountingModel(deltas=60, delay=0.05, plan=False))
definitions.define(
    "guarded",
    model=CountingModel(delay=0.0),
    tools=[lookup, approved_charge],
)


def create_tables(url: str) -> None:
    """The tables ``charge`` writes."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS executions (key TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS charges (key TEXT PRIMARY KEY, amount INT NOT NULL)"
        )


# -- definitions with the Agent features a worker performs (test_features.py) ---------


def _record(agent_id: str, event: Any) -> None:
    """Append one JSON line to the file named by ``DURABLE_PRESENTED`` (when set)."""
    path = os.environ.get("DURABLE_PRESENTED")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps({"agent_id": agent_id, "event": event}) + "\n")


class OutputFile:
    """A presenter that appends each output to the file named by ``DURABLE_PRESENTED`` at
    once (one JSON line: agent id and wire form), so a test sees deltas while they stream."""

    def present(self, agent_id: str, output: Any) -> None:
        _record(agent_id, to_dict(output))


async def mark_results(action: Any, call_next: Any) -> Any:
    """Middleware: a prompt is upper-cased, a prompt starting with "drop" is dropped, a tool
    result gets " [checked]" appended, a model call's reply is recorded (as agent
    ``middleware``)."""
    if isinstance(action, LoopStartAction):
        if getattr(action.messages[0], "content", "").startswith("drop"):
            return action  # not calling next drops the run
        messages = tuple(attrs.evolve(m, content=m.content.upper()) for m in action.messages)
        return await call_next(attrs.evolve(action, messages=messages))
    if isinstance(action, ToolCallAction):
        done = await call_next(action)
        result = attrs.evolve(done.result, result=f"{done.result.result} [checked]")
        return attrs.evolve(done, result=result)
    answer = await call_next(action)
    if isinstance(answer, ModelResponseAction):
        _record("middleware", {"type": "model_response", "text": answer.message.text})
    return answer


def close_lookups(api: ExtensionAPI) -> None:
    """Extension: ``lookup`` is blocked (the model reads why); every output is recorded
    (as agent ``event-hook``)."""

    def before(call: Any, _tool: Any) -> Any:
        if call.tool_name == "lookup":
            return Block("lookup is closed today", is_error=False)
        return Continue()

    api.on("before_tool_call", before)
    api.on("event", lambda output: _record("event-hook", to_dict(output)))


async def no_forbidden(messages: Any) -> Tripwire | None:
    """Input guardrail (async: a task in the performer)."""
    await asyncio.sleep(0.01)
    if any("forbidden" in getattr(m, "content", "") for m in messages):
        return Tripwire("the prompt asks for something forbidden")
    return None


def no_big_charges(call: Any, result: Any) -> Tripwire | None:
    """Tool guardrail: a charge is refused before it runs."""
    if call.tool_name == "charge" and result is None:
        return Tripwire("charges need a human")
    return None


def no_w1(message: Any) -> Tripwire | None:
    """Output guardrail: the reply must not say ``w1``."""
    return Tripwire("the reply says w1") if "w1" in message.text else None


PAGES = 6
WINDOW = 3_000


def reading_model(request: ModelRequest) -> Any:
    """Reads the manual page after the highest it was sent (in a tool result or a summary),
    summarises when asked; deterministic in the request, as a worker's model must be."""
    usage = {"input_tokens": sum(estimate_tokens(m) for m in request.messages)}
    if request.system_prompt == SUMMARY_SYSTEM_PROMPT:
        seen = _pages(repr(request.messages))
        return text_turn(f"Read pages up to page {seen}.", model="summariser", usage=usage)
    seen = _pages(repr(request.messages) + str(request.system_prompt))
    if seen < PAGES:
        call = (f"p{seen + 1}", "read", {"page": seen + 1})
        return tool_turn([call], usage=usage)
    return text_turn("I read the whole manual.", usage=usage)


def _pages(text: str) -> int:
    return max((int(n) for n in re.findall(r"page (\d+)", text)), default=0)


@tool
def read(page: int) -> str:
    """Read a page of the manual."""
    return f"page {page}: " + "lorem ipsum " * 200


definitions.define(
    "presented", model=CountingModel(), tools=[lookup, charge_tool], presenters=[OutputFile()]
)
definitions.define(
    "presented_slow",
    model=CountingModel(deltas=60, delay=0.05, plan=False),
    presenters=[OutputFile()],
)
definitions.define(
    "bent",
    model=CountingModel(),
    tools=[lookup, charge_tool],
    middleware=[mark_results],
    extensions=[close_lookups],
)
definitions.define(
    "checked",
    model=CountingModel(deltas=1, plan=False),
    input_guardrails=[no_forbidden],
    output_guardrails=[no_w1],
)
definitions.define("strict", model=CountingModel(deltas=2, plan=False), output_guardrails=[no_w1])
definitions.define(
    "tool_checked",
    model=CountingModel(),
    tools=[lookup, charge_tool],
    tool_guardrails=[no_big_charges],
)
definitions.define(
    "reader",
    model=FunctionDriver(reading_model),
    tools=[read],
    price=ModelPrice(input=1.0, output=2.0, context_window=WINDOW),
    compaction=Summarise(2, max_tokens=200),
    max_iterations=40,
)


class Shelf(Toolset):
    """A toolset (as an MCP server is one) with a ``lookup`` of its own; each worker
    process enters it once."""

    name = "shelf"

    def __init__(self) -> None:
        self.entered = 0

    async def __aenter__(self) -> Shelf:
        self.entered += 1
        return self

    async def tools(self) -> list[Any]:
        async def run(args: Any, ctx: Any) -> str:
            return f"shelf {args['key']} (entered {self.entered} time(s))"

        schema = {"type": "object", "properties": {"key": {"type": "string"}}}
        return [define_tool("lookup", "Look a value up on the shelf.", schema, run)]


definitions.define("shelved", model=CountingModel(), tools=[charge_tool], toolsets=[Shelf()])


EVERYTHING = str(pathlib.Path(__file__).parents[1] / "mcp" / "servers" / "everything.py")


def pid_model(request: ModelRequest) -> Any:
    """Asks the MCP server's ``pid`` tool once, then says what it answered."""
    answered = [m for m in request.messages if isinstance(m, ToolResultMessage)]
    if not answered:
        return tool_turn([("call_pid", "pid", {})])
    return text_turn(f"the server runs as {answered[-1].result}")


definitions.define(
    "mcp",
    model=FunctionDriver(pid_model),
    toolsets=[MCPServer.stdio(sys.executable, [EVERYTHING], name="everything")],
)


def greeting_model(request: ModelRequest) -> Any:
    """Asks the MCP server's ``greet_someone`` (which asks the user for a name: an
    elicitation) once, then says what it answered."""
    answered = [m for m in request.messages if isinstance(m, ToolResultMessage)]
    if not answered:
        return tool_turn([("call_greet", "greet_someone", {"question": "Who are you?"})])
    return text_turn(f"the server said: {answered[-1].result}")


definitions.define(
    "asking",
    model=FunctionDriver(greeting_model),
    toolsets=[MCPServer.stdio(sys.executable, [EVERYTHING], name="people")],
)
definitions.define(
    "asking_bent",
    model=FunctionDriver(greeting_model),
    toolsets=[MCPServer.stdio(sys.executable, [EVERYTHING], name="people")],
    middleware=[mark_results],
)
