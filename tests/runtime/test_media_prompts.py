"""Content parts as prompts (issue 28, item 1): a part given where a message goes becomes a
user message holding it, and reaches the model with the history (it was passed through
as if it were a message)."""

from __future__ import annotations

import asyncio

from agentcore import Agent, DocumentContent, ImageContent, TextContent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import UserMessage

PNG = b"\x89PNG\r\n\x1a\n" + bytes(8)
PDF = DocumentContent.from_bytes(b"%PDF-1.7\n", title="q3.pdf")


def _first_request(prompt: object) -> tuple[object, ...]:
    model = ScriptedDriver([text_turn("Seen.")])
    agent = Agent(model)
    result = asyncio.run(agent.run(prompt))
    assert result.output == "Seen."
    return model.requests[0].messages


def test_a_part_alone_is_a_user_message_holding_it() -> None:
    (message,) = _first_request(ImageContent.from_bytes(PNG))
    assert isinstance(message, UserMessage) and message.message_id
    assert message.content == (ImageContent.from_bytes(PNG),)


def test_text_then_a_part_are_two_user_messages_in_order() -> None:
    first, second = _first_request(["What is this?", PDF])
    assert isinstance(first, UserMessage) and first.content == "What is this?"
    assert isinstance(second, UserMessage) and second.content == (PDF,)


def test_a_user_message_of_parts_goes_as_one_message() -> None:
    (message,) = _first_request(UserMessage("", (TextContent("What is this?"), PDF)))
    assert isinstance(message, UserMessage) and message.message_id
    assert message.content == (TextContent("What is this?"), PDF)
