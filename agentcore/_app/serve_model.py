"""The model ``agentcore serve`` uses when none is named: scripted, offline, deterministic.

It answers from the request alone (so a resumed agent sees it carry on the same way):

- after a tool result: a short sentence quoting it;
- "weather in <city>": thinks, then calls ``get_weather`` (London fails, as in the demo);
- "delete <path>": calls ``delete_file``, which needs the user's approval;
- "story": a long reply streamed slowly (time to press Interrupt);
- anything else: thinks, then echoes the message.

Plugins (the scripted driver) are imported inside the functions: ``import agentcore``
never loads them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._core.driver import ModelRequest
from .._core.events import AssistantMessage, ToolResultMessage, UserMessage
from .._core.pricing import ModelPrice
from .._loop.tools import Tool, tool

__all__ = ["DEMO_MODEL", "demo_options", "reply"]

DEMO_MODEL = "agentcore/demo"
"""The name the page and ``GET /agents`` show for the embedded model."""

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
    from drivers.scripted import Pause, text_turn, tool_turn

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


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") for block in content)


def demo_options(delay: float = 0.02) -> Mapping[str, Any]:
    """``Agent`` options for the embedded model: a ``FunctionDriver`` playing ``reply``
    with ``delay`` seconds between events, its two tools, and a price so turns show cost."""
    from drivers.scripted import FunctionDriver

    tools: list[Tool] = [get_weather, delete_file]
    driver = FunctionDriver(reply, delay=delay, name="demo")
    driver.model = DEMO_MODEL  # type: ignore[attr-defined]  # the key of its price
    return {
        "model": driver,
        "tools": tools,
        "price": ModelPrice(input=3.0, output=15.0),
        "system_prompt": "You are the agentcore demo model.",
    }
