"""agentcore's own SSE stream, and a presenter that writes any wire protocol as SSE.

``PROTOCOL`` (``?protocol=agentcore``, the default of ``agentcore serve``) sends every
output of the chosen layers as one event: ``event: <type>`` and ``data: <wire form>``
(``agentcore.events.to_dict``, one line of JSON, so ``from_dict`` reads it back). An output
of another agent than the stream's own (a sub-agent's) carries ``"agent_id"`` beside
``type``, ``timestamp`` and ``data``. Its encoder is pure and stateless but for the filter.

``SsePresenter(write, protocol=PROTOCOL)`` is the sink for one stream without a server:
it encodes each output with the protocol and calls ``write`` with the SSE text (LF line
ends), e.g. to feed a web framework's streaming response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from agentcore import to_dict
from agentcore.serve import Frame, StreamProtocol, sse_frame

from ._base import Filter, output_type

__all__ = ["AgentcoreProtocol", "PROTOCOL", "SsePresenter", "encode", "layers_filter"]


def layers_filter(params: Mapping[str, str]) -> Filter:
    """The ``Filter`` of ``?layers=stream,message&types=turn_response`` (empty: all);
    a misspelt name raises ``ValueError``."""

    def names(key: str) -> list[str] | None:
        raw = params.get(key, "")
        found = [n.strip() for n in raw.split(",") if n.strip()]
        return found or None

    return Filter(layers=names("layers"), types=names("types"))


def encode(thread_id: str, agent_id: str, output: Any) -> Frame:
    """The frame of one output: its type and its wire form as one line of JSON."""
    wire = to_dict(output)
    if agent_id != thread_id:
        wire = {"agent_id": agent_id, **wire}
    return output_type(output), json.dumps(wire, ensure_ascii=False, separators=(",", ":"))


@attrs.frozen(slots=True)
class _State:
    thread_id: str
    select: Filter


class AgentcoreProtocol:
    """The ``agentcore`` wire protocol (module docstring)."""

    name = "agentcore"
    headers: Mapping[str, str] = {}

    def initial(self, thread_id: str, params: Mapping[str, str]) -> _State:
        return _State(thread_id, layers_filter(params))

    def encode(self, state: _State, agent_id: str, output: Any) -> tuple[_State, tuple[Frame, ...]]:
        if not state.select(output):
            return state, ()
        return state, (encode(state.thread_id, agent_id, output),)

    def end(self, state: _State) -> tuple[Frame, ...]:
        return ()


PROTOCOL: StreamProtocol = AgentcoreProtocol()


class SsePresenter:
    """Encodes each output with ``protocol`` and passes the SSE text to ``write``.

    ``thread_id`` is the stream's own agent (default: the first agent presented);
    ``params`` are the protocol's options (``{"layers": "message,turn"}``). ``close()``
    writes the protocol's closing frames once (e.g. Vercel's ``[DONE]``).
    """

    def __init__(
        self,
        write: Callable[[str], object],
        protocol: StreamProtocol = PROTOCOL,
        *,
        thread_id: str | None = None,
        params: Mapping[str, str] | None = None,
    ) -> None:
        self._write = write
        self._protocol = protocol
        self._params = dict(params or {})
        self._state: Any = None if thread_id is None else protocol.initial(thread_id, self._params)
        self._closed = False

    def present(self, agent_id: str, output: Any) -> None:
        if self._state is None:
            self._state = self._protocol.initial(agent_id, self._params)
        self._state, frames = self._protocol.encode(self._state, agent_id, output)
        if frames:
            self._write("".join(sse_frame(data, event) for event, data in frames))

    def close(self) -> None:
        if self._closed or self._state is None:
            return
        self._closed = True
        frames = self._protocol.end(self._state)
        if frames:
            self._write("".join(sse_frame(data, event) for event, data in frames))
