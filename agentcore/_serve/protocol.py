"""The pure side of serving: what a wire protocol is, SSE framing, and event ids.

A wire protocol (``StreamProtocol``) turns an agent's outputs into frames, as a Mealy
processor: ``encode(state, agent_id, output) -> (state, frames)``, its state being what
it has opened (a run, a message, a tool call). It does no I/O and reads no clock, so the
same outputs give the same frames in any process: that is what lets a client that
reconnects be served, from the journal, exactly the frames it missed.

Event ids are ``<agent_id>:<seq>.<n>``: ``seq`` is the journal entry whose folding
produced the output, ``n`` the frame's position among the frames of that entry. They
only grow, and the journal alone rebuilds them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import attrs

from .._core.content import TextContent
from .._core.events import UserMessage

__all__ = [
    "Cursor",
    "Frame",
    "RunProtocol",
    "RunRequest",
    "StreamProtocol",
    "comment_frame",
    "format_event_id",
    "parse_event_id",
    "sse_frame",
]

Frame: TypeAlias = tuple[str | None, str]
"""``(event name or None, data)``: one SSE event before framing; ``data`` is one line."""


@runtime_checkable
class StreamProtocol(Protocol):
    """A wire protocol for a stream of an agent's outputs.

    ``name`` is what ``?protocol=`` selects; ``headers`` go on every response of it.
    ``initial(thread_id, params)`` is the encoder's state for a stream of the agent
    ``thread_id`` (``params``: the request's query parameters, e.g. ``layers``; a bad one
    raises ``ValueError`` naming it). ``encode`` is pure and must accept any output (one
    it does not show gives no frame). ``end(state)`` gives the frames that close a
    response which ends (a run's POST): e.g. the Vercel stream's ``[DONE]``.
    """

    name: str
    headers: Mapping[str, str]

    def initial(self, thread_id: str, params: Mapping[str, str]) -> Any: ...

    def encode(self, state: Any, agent_id: str, output: Any) -> tuple[Any, tuple[Frame, ...]]: ...

    def end(self, state: Any) -> tuple[Frame, ...]: ...


@runtime_checkable
class RunProtocol(StreamProtocol, Protocol):
    """A protocol with its own run endpoint (AG-UI, Vercel): ``parse_run(body)`` reads a
    request (``ValueError`` naming what is wrong), ``next_run(state, run_id)`` names the
    next run, ``snapshot(history)`` gives the frames that bring a new client up to date."""

    def parse_run(self, body: bytes) -> RunRequest: ...

    def next_run(self, state: Any, run_id: str) -> Any: ...

    def snapshot(self, history: Sequence[Any]) -> tuple[Frame, ...]: ...


@attrs.frozen(slots=True)
class RunRequest:
    """What a protocol's own run endpoint (AG-UI's ``RunAgentInput``, the Vercel chat
    request) asks of an agent: the conversation (``agent_id``: AG-UI's thread, the Vercel
    chat id), a new user message (``prompt``, its text, and its ``message_id``) if any,
    the caller's ``run_id`` (AG-UI), approval ``decisions`` ``(tool_call_id, approved,
    reason)``, and the media the message carries after its text (``content``: images,
    documents, audio, file references)."""

    agent_id: str
    prompt: str | None = None
    message_id: str | None = None
    run_id: str | None = None
    decisions: tuple[tuple[str, bool, str | None], ...] = ()
    content: tuple[Any, ...] = ()

    def message(self) -> str | UserMessage:
        """The user message to prompt with: the text, or the text and its media."""
        if not self.content:
            return self.prompt or ""
        text = (TextContent(self.prompt),) if self.prompt else ()
        return UserMessage(self.message_id or "", (*text, *self.content))


@attrs.frozen(slots=True, order=True)
class Cursor:
    """A position in an agent's stream: frame ``n`` of the outputs of journal entry
    ``seq``. ``Cursor(seq, -1)`` is just before that entry's first frame."""

    seq: int
    n: int = -1


def format_event_id(agent_id: str, cursor: Cursor) -> str:
    """``<agent_id>:<seq>.<n>``, the SSE ``id`` of the frame at ``cursor``."""
    return f"{agent_id}:{cursor.seq}.{cursor.n}"


def parse_event_id(value: str, agent_id: str) -> Cursor:
    """The cursor of an event id given back as ``Last-Event-ID``, or a bare sequence
    number (``?after=SEQ``: everything after entry ``SEQ``). Raises ``ValueError`` for
    an id of another agent or one that is not ``<agent_id>:<seq>.<n>``."""
    value = value.strip()
    if value.isdigit():
        return Cursor(int(value), 1 << 62)
    agent, sep, position = value.rpartition(":")
    seq, dot, n = position.partition(".")
    if not sep or agent != agent_id or not dot or not seq.isdigit() or not n.isdigit():
        raise ValueError(
            f"event id {value!r} is not one of agent {agent_id!r}'s "
            f"(expected {agent_id}:<seq>.<n>, or a bare sequence number)"
        )
    return Cursor(int(seq), int(n))


def sse_frame(data: str, event: str | None = None, event_id: str | None = None) -> str:
    """One SSE event, lines ended by LF only. ``data`` is split at line breaks (one
    ``data:`` line each), so a frame never breaks the stream whatever it holds."""
    head = ""
    if event_id is not None:
        head = f"id: {_one_line(event_id)}\n"
    if event is not None:
        head += f"event: {_one_line(event)}\n"
    if "\n" in data or "\r" in data:
        lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        return head + "".join(f"data: {line}\n" for line in lines) + "\n"
    return f"{head}data: {data}\n\n"


def comment_frame(text: str) -> str:
    """An SSE comment (ignored by clients; a keep-alive)."""
    return f": {_one_line(text)}\n\n"


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        return text.replace("\r", "").replace("\n", "")
    return text
