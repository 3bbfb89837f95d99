"""``collect_reply``: one model call's reply, read whole by the message assembler.

A model call whose events must not enter the conversation (a compaction summary, an MCP
server's sampling request) is still one reply: this folds its stream through the one
message assembler instead of joining deltas by hand, so a summary and a sampled answer
are assembled exactly as a reply in the conversation is.
"""

from __future__ import annotations

from typing import Any

from .assembler import create_initial_message_assembler_state, message_assembler_processor
from .driver import Driver, ModelRequest, close_stream
from .events import AssistantMessage, ErrorMessage, Interrupt

__all__ = ["collect_reply"]


async def collect_reply(
    driver: Driver, request: ModelRequest
) -> tuple[AssistantMessage | None, ErrorMessage | None]:
    """``driver``'s answer to ``request`` as ``(message, error)``.

    A stream that reaches ``message_stop`` gives the whole message and no error. One that
    ends with an ``error_received`` gives the message cut there (``incomplete``; ``None``
    when none had begun) and the error. One that just stops gives the message so far
    (``incomplete``, or ``None``) and no error: the caller decides what a cut stream
    means. A driver that raises propagates; the stream is closed in every case.
    """
    state: Any = create_initial_message_assembler_state()
    message: AssistantMessage | None = None
    last = 0
    stream = driver.receive(request)
    try:
        async for event in stream:
            state, outputs = message_assembler_processor(state, event)
            last = event.timestamp
            for output in outputs:
                if type(output) is AssistantMessage:
                    if not output.incomplete:
                        return output, None
                    message = output
                elif type(output) is ErrorMessage:
                    return message, output
    finally:
        await close_stream(stream)
    _, outputs = message_assembler_processor(state, Interrupt("cut", timestamp=last))
    cut = next((o for o in outputs if type(o) is AssistantMessage), message)
    return cut, None
