"""The model ``agentcore serve`` uses when none is named: scripted, offline, deterministic.

It answers from the request alone (so a resumed agent sees it carry on the same way):

- after a tool result: a short sentence quoting it;
- "weather in <city>": thinks, then calls ``get_weather`` (London fails, as in the demo);
- "delete <path>": calls ``delete_file``, which needs the user's approval;
- "story": a long reply streamed slowly (time to press Interrupt);
- "research <topic>": hands the topic to a sub-agent, the ``researcher``, through the
  ``task`` tool (``demo_registry``); the researcher thinks, then answers;
- anything else: thinks, then echoes the message.

Plugins (the scripted driver) are imported inside the functions: ``import agentcore``
never loads them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._agents.definition import AgentDefinition
from .._agents.registry import AgentRegistry
from .._core.content import TextContent
from .._core.driver import ModelRequest
from .._core.events import AssistantMessage, ToolResultMessage, UserMessage
from .._core.pricing import ModelPrice
from .._edges.driver import Driver
from .._loop.tools import Tool, tool
from .._runtime.plugins import resolve_model

__all__ = [
    "DEMO_AGENT",
    "DEMO_MODEL",
    "RESEARCHER_MODEL",
    "demo_options",
    "demo_registry",
    "reply",
    "research",
]

DEMO_MODEL = "agentcore/demo"
"""The name the page and ``GET /agents`` show for the embedded model."""
RESEARCHER_MODEL = "agentcore/researcher"
"""The embedded sub-agent's model (``research``)."""
DEMO_AGENT = "demo"
"""The agent type of the served agents in ``demo_registry``."""

_STORY = (
    "Once upon a time, an event engine folded every input into one state. "
    "Deltas arrived one after another, each appended without copying what came before. "
) * 12


@tool
async def get_weather(city: str) -> str:
    """The current weather in ``city``."""
    if city.lower() == "london":
        raise ConnectionError("weather service timed out after 5 s")
    return f"{city}: 18 °C, light rain, wind 12 km/h"


@tool(requires_approval=True)
async def delete_file(path: str) -> str:
    """Delete the file at ``path`` (a pretend one: nothing is touched)."""
    return f"deleted {path} (pretend: nothing was touched)"


def reply(request: ModelRequest) -> list[Any]:
    """The scripted call for ``request`` (module docstring)."""
    from agentcore.drivers.scripted import Pause, text_turn, tool_turn

    answered = sum(isinstance(m, AssistantMessage) for m in request.messages)
    message_id = f"msg_{answered + 1}"
    usage = {"input_tokens": 12 + 3 * len(request.messages), "output_tokens": 24}
    last = request.messages[-1] if request.messages else None
    if isinstance(last, ToolResultMessage):
        verb = "failed" if last.is_error else "returned"
        text = f"The tool {last.tool_name} {verb}: {_text(last.result)}"
        return text_turn(text, message_id=message_id, model=DEMO_MODEL, usage=usage)
    said = _text(last.content) if isinstance(last, UserMessage) else ""
    weather = re.search(r"weather in ([A-Za-z ]+)", said, re.IGNORECASE)
    if weather:
        city = weather.group(1).strip().title()
        call = (f"call_{answered + 1}", "get_weather", {"city": city})
        return tool_turn(
            [call],
            text=f"Let me look up {city}.",
            message_id=message_id,
            model=DEMO_MODEL,
            usage=usage,
        )
    topic = re.search(r"research (.+)", said, re.IGNORECASE)
    if topic:
        args = {
            "description": f"research {topic.group(1)}",
            "prompt": topic.group(1),
            "subagent_type": "researcher",
        }
        call = (f"call_{answered + 1}", "task", args)
        text = "Asking the researcher."
        return tool_turn([call], text=text, message_id=message_id, model=DEMO_MODEL, usage=usage)
    delete = re.search(r"delete (\S+)", said, re.IGNORECASE)
    if delete:
        call = (f"call_{answered + 1}", "delete_file", {"path": delete.group(1)})
        return tool_turn([call], message_id=message_id, model=DEMO_MODEL, usage=usage)
    if "story" in said.lower():
        events = text_turn(_STORY, message_id=message_id, model=DEMO_MODEL, usage=usage, chunk=12)
        slowed: list[Any] = []
        for event in events:
            slowed += [event, Pause(0.05)] if event.type == "text_delta" else [event]
        return slowed
    return text_turn(
        f"You said: {said}",
        thinking=f"The user wrote {len(said)} characters.",
        message_id=message_id,
        model=DEMO_MODEL,
        usage=usage,
    )


def research(request: ModelRequest) -> list[Any]:
    """The researcher's call: it thinks about its task's prompt, then answers."""
    from agentcore.drivers.scripted import text_turn

    said = next(
        (_text(m.content) for m in reversed(request.messages) if isinstance(m, UserMessage)), ""
    )
    return text_turn(
        f"Findings on {said}: three sources agree.",
        thinking=f"Looking into {said}.",
        message_id="msg_research",
        model=RESEARCHER_MODEL,
        usage={"input_tokens": 20, "output_tokens": 10},
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def demo_options(delay: float = 0.02) -> Mapping[str, Any]:
    """``Agent`` options for the embedded model: a ``FunctionDriver`` playing ``reply``
    with ``delay`` seconds between events, its two tools, and a price so turns show cost."""
    from agentcore.drivers.scripted import FunctionDriver

    tools: list[Tool] = [get_weather, delete_file]
    driver = FunctionDriver(reply, delay=delay, name="demo")
    driver.model = DEMO_MODEL  # type: ignore[attr-defined]  # the key of its price
    return {
        "model": driver,
        "tools": tools,
        "price": ModelPrice(input=3.0, output=15.0),
        "system_prompt": "You are the agentcore demo model.",
    }


def demo_registry(delay: float = 0.02) -> AgentRegistry:
    """The served agents' tree: ``demo`` (the embedded model, its tools, and the ``task``
    tool) may spawn the ``researcher`` (``research``), both played with ``delay``. Any
    other model (an agent created with ``{"model": "provider/model"}``) resolves through
    the driver registry."""
    from agentcore.drivers.scripted import FunctionDriver

    def driver(model: str) -> Driver:
        if model not in (DEMO_MODEL, RESEARCHER_MODEL):  # an agent asked for a real model
            return resolve_model(model)
        fn = research if model == RESEARCHER_MODEL else reply
        played = FunctionDriver(fn, delay=delay, name=model)
        played.model = model  # type: ignore[attr-defined]  # the key of its price
        return played

    return AgentRegistry(
        [
            AgentDefinition(
                DEMO_AGENT, DEMO_MODEL, tools=["task"], spawnable_agents=["researcher"]
            ),
            AgentDefinition("researcher", RESEARCHER_MODEL, display_name="Researcher"),
        ],
        driver_factory=driver,
    )
