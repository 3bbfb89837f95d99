"""Provider SSE recordings as sessions: replay raw bytes through the real driver.

A ``.sse`` file holds one model call exactly as a provider streamed it (the test fixtures
under ``tests/drivers/fixtures`` are such files). ``recorded_call(path)`` serves it from a
local ``ReplayServer`` on 127.0.0.1, points the provider's driver (and so its official SDK)
at it, and returns the stream events the driver yields: the same code path as a live
call, with no key and no network. ``agentcore replay FILE.sse`` uses it.
"""

from __future__ import annotations

import pathlib

from agentcore import ModelRequest
from agentcore.errors import ConfigurationError
from agentcore.events import StreamEvent, UserMessage

from .registry import get_driver
from .testing import ReplayServer, sse_response

__all__ = ["recorded_call", "sse_provider"]

_PROBE = ModelRequest(messages=(UserMessage(message_id="recorded", content="(recorded)"),))


def sse_provider(data: bytes) -> str:
    """The provider whose wire format ``data`` is in: ``anthropic``, ``openai`` (Chat
    Completions), ``openai-responses`` (Responses API) or ``google`` (Gemini)."""
    if b"event: response.created" in data or b'"type":"response.created"' in data:
        return "openai-responses"
    if b"event: message_start" in data or b'"type":"message_start"' in data:
        return "anthropic"
    if b"chat.completion.chunk" in data or b'"choices"' in data:
        return "openai"
    if b'"candidates"' in data or b'"promptFeedback"' in data:
        return "google"
    raise ConfigurationError(
        "not a recognised provider SSE recording: expected Anthropic Messages events "
        "(event: message_start ...), OpenAI chat.completion.chunk data lines, OpenAI "
        "Responses events (event: response.created ...) or Gemini chunks (candidates)"
    )


async def recorded_call(
    path: pathlib.Path | str, *, provider: str | None = None
) -> list[StreamEvent]:
    """The stream events the provider's driver yields for the recording at ``path``."""
    data = pathlib.Path(path).read_bytes()
    name = provider or sse_provider(data)
    async with ReplayServer([sse_response(data)]) as server:
        driver = get_driver(f"{name}/recorded", base_url=server.base_url, api_key="x")
        async with driver:  # the client it built must not outlive this event loop
            return [event async for event in driver.receive(_PROBE)]
