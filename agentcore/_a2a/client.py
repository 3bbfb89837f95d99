"""``RemoteAgent``: a remote A2A agent as the model of a local agent (on ``a2a-sdk``'s client).

A ``RemoteAgent(url)`` is a driver: each model call of the agent it drives sends the
new user messages (and tool results) as one A2A message, streamed (``SendStreamingMessage``),
and streams back what the remote agent says as text deltas of one assistant message. So a
remote agent works wherever a model does: ``Agent(RemoteAgent(url))``, or a definition's
model resolved to it by an ``AgentRegistry``'s ``driver_factory``, which makes it a
sub-agent (its text reaches the parent's stream as a ``SubagentEvent`` like a local
child's) or a handoff target.

- **conversation**: the first call opens an A2A context, later calls continue it (only
  the new messages go); after a restart, the first call sends the transcript so far.
  A task that ends ``INPUT_REQUIRED`` is answered by the next call's message (same task);
  its question is the assistant's text.
- **failures**: a remote task ``FAILED``/``REJECTED``/``CANCELED``, a dead server, a
  malformed response, nothing received for ``idle_timeout`` seconds or a call longer
  than ``timeout`` end the call with ``error_received`` (so the run ends with an error, a
  sub-agent's spawn with an error result): never a hang, never an exception.
- **abort**: the runtime cancels the call; the remote task is cancelled too.
- **secrets**: ``token`` goes in the ``Authorization`` header only; it is never in an
  event, an error message, the journal or ``repr``.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from a2a.client import ClientConfig, create_client
from a2a.types import CancelTaskRequest, Message, Part, Role, SendMessageRequest, TaskState

from .._core.content import TextContent
from .._core.driver import ModelRequest
from .._core.errors import ConfigurationError, ErrorCode
from .._core.events import (
    AssistantMessage,
    ErrorReceived,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResultMessage,
    UserMessage,
)
from .._edges.driver import BaseDriver

__all__ = ["RemoteAgent"]

_FAILED = {
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_REJECTED: "rejected the task",
    TaskState.TASK_STATE_CANCELED: "cancelled the task",
}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.text for part in content if isinstance(part, TextContent))


def _parts_text(parts: Sequence[Any]) -> str:
    return "".join(part.text for part in parts if part.HasField("text"))


def _web_address(url: object) -> bool:
    """Whether ``url`` is an ``http(s)://host...`` address, said when a ``RemoteAgent`` is
    built rather than at its first run."""
    try:
        address = urllib.parse.urlsplit(url) if isinstance(url, str) else None
    except ValueError:  # e.g. an unclosed "[" of an IPv6 host
        return False
    return address is not None and address.scheme in ("http", "https") and bool(address.hostname)


class RemoteAgent(BaseDriver):
    """A remote A2A agent at ``url`` as a driver (module docstring). ``name`` names it in
    events (the model name; default ``a2a``)."""

    def __init__(
        self,
        url: str,
        *,
        name: str = "a2a",
        token: str | None = None,
        timeout: float = 300.0,
        idle_timeout: float = 60.0,
    ) -> None:
        if not _web_address(url):
            raise ConfigurationError(
                f"RemoteAgent's url must be an http:// or https:// address of an A2A agent "
                f"(e.g. https://agent.example.com/), got {url!r}"
            )
        self.url = url
        self.label = name
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.__token = token
        self._context: str | None = None
        self._task: str | None = None
        self._running: str | None = None

    def __repr__(self) -> str:
        return f"RemoteAgent({self.url!r}, name={self.label!r})"

    @property
    def name(self) -> str:
        return self.label

    def _message(self, request: ModelRequest) -> Message:
        messages = list(request.messages)
        last_reply = max(
            (i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1
        )
        restarted = self._context is None and last_reply >= 0  # send the transcript so far
        new = messages if restarted else messages[last_reply + 1 :]
        lines = []
        for m in new:
            if isinstance(m, UserMessage):
                lines.append(_text(m.content))
            elif isinstance(m, AssistantMessage) and m.text:
                lines.append(f"(you said) {m.text}")
            elif isinstance(m, ToolResultMessage):
                lines.append(f"(result of {m.tool_name}) {_text(m.result)}")
        message = Message(
            message_id=uuid.uuid4().hex,
            role=Role.ROLE_USER,
            parts=[Part(text="\n\n".join(lines))],
        )
        if self._context is not None:
            message.context_id = self._context
        if self._task is not None:
            message.task_id = self._task
        return message

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:
        message = self._message(request)
        yield MessageStart(f"a2a_{message.message_id}", self.label)
        failure: str | None = None
        code = ErrorCode.PROVIDER_ERROR
        try:
            async for text in self._stream(message):
                yield TextDelta(text, 0)
        except TimeoutError as exc:
            failure, code = str(exc), ErrorCode.TIMEOUT
        except _RemoteFailure as exc:
            failure = str(exc)
        except Exception as exc:  # a dead server, a malformed response: an error result
            failure = f"remote agent {self.url} failed: {type(exc).__name__}: {exc}"
            code = ErrorCode.CONNECTION_ERROR
        if failure is not None:
            if self.__token:
                failure = failure.replace(self.__token, "***")
            yield ErrorReceived(failure, code.value)
            return
        yield MessageDelta(stop_reason="end_turn")
        yield MessageStop("end_turn")

    async def _stream(self, message: Message) -> AsyncIterator[str]:
        """The remote agent's text for ``message``; raises on failure or timeout."""
        headers = {"Authorization": f"Bearer {self.__token}"} if self.__token else {}
        import httpx

        deadline = time.monotonic() + self.timeout
        async with httpx.AsyncClient(headers=headers, timeout=self.idle_timeout) as http:
            client = await asyncio.wait_for(
                create_client(self.url, ClientConfig(streaming=True, httpx_client=http)),
                self.idle_timeout,
            )
            events = client.send_message(SendMessageRequest(message=message)).__aiter__()
            streamed = False
            try:
                while True:
                    wait = min(self.idle_timeout, deadline - time.monotonic())
                    if wait <= 0:
                        raise TimeoutError(
                            f"remote agent {self.url} did not finish within {self.timeout} s"
                        )
                    try:
                        event = await asyncio.wait_for(events.__anext__(), wait)
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        raise TimeoutError(
                            f"remote agent {self.url} sent nothing for {wait:.3g} s"
                        ) from None
                    for text in self._read(event, streamed):
                        streamed = True
                        yield text
            except BaseException:
                if self._running is not None:  # abandoned mid-task: tell the remote
                    await _cancel(client, self._running)
                raise
            finally:
                await client.close()

    def _read(self, event: Any, streamed: bool) -> list[str]:
        """The texts of one stream response; it records the context and task ids."""
        kind = event.WhichOneof("payload")
        if kind == "task":
            self._context, self._running = event.task.context_id, event.task.id
            return []
        if kind == "message":
            self._context = event.message.context_id or self._context
            return [_parts_text(event.message.parts)]
        if kind == "artifact_update":
            return [_parts_text(event.artifact_update.artifact.parts)]
        if kind != "status_update":
            raise _RemoteFailure(f"remote agent {self.url} sent an unknown response {kind!r}")
        update = event.status_update
        self._context = update.context_id or self._context
        state, said = update.status.state, _parts_text(update.status.message.parts)
        if state in _FAILED:
            self._task = self._running = None
            raise _RemoteFailure(f"remote agent {self.url} {_FAILED[state]}: {said}".rstrip(": "))
        if state == TaskState.TASK_STATE_INPUT_REQUIRED:
            self._task, self._running = update.task_id, None
            return [said]
        if state == TaskState.TASK_STATE_COMPLETED:
            self._task = self._running = None
            return [] if streamed else [said]
        return []


async def _cancel(client: Any, task_id: str) -> None:
    try:
        await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=task_id)), 5)
    except Exception:  # the remote is gone or refuses: the run is over here anyway
        return


class _RemoteFailure(Exception):
    """The remote agent ended the task without an answer, or answered nonsense."""
