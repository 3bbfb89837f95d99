"""agentcore's own SSE stream, and a presenter that writes any wire protocol as SSE.

``PROTOCOL`` (``?protocol=agentcore``, the default of ``agentcore serve``) sends every
output of the chosen layers as one event: ``event: <type>`` and ``data: <wire form>``
(``agentcore.events.to_dict``, one line of JSON, so ``from_dict`` reads it back). A
sub-agent's output comes as the parent gets it, a ``subagent_event`` whose ``data`` holds
the child's ``lineage`` (its ``run_id``, ``parent_run_id``, ``agent_id``, name...) and the
child's ``event``: a client tells the runs of a tree apart, and nests them, by
``lineage.data.run_id`` and ``parent_run_id``. ``?layers=`` selects a sub-agent's event
by its own layer too (``?layers=message`` carries the children's messages, wrapped), or
all of them with ``subagent``. An output presented under another agent id than the
stream's own carries ``"agent_id"`` beside ``type``, ``timestamp`` and ``data``. The
encoder is pure and stateless but for the filter.

``wire_json(output)`` is the wire form as compact JSON, written directly for events whose
fields are strings, ints, booleans, None, tuples of strings or events of the same kind
(every delta, a sub-agent's wrapper and its lineage), and through ``to_dict`` and
``json`` otherwise; a property test holds both paths equal. It is the encoder's whole
cost per output, paid once per stream whatever the number of clients.

``SsePresenter(write, protocol=PROTOCOL)`` is the sink for one stream without a server:
it encodes each output with the protocol and calls ``write`` with the SSE text (LF line
ends), e.g. to feed a web framework's streaming response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any

import attrs

from agentcore import to_dict
from agentcore.agents import SubagentEvent
from agentcore.events import is_event
from agentcore.serve import Frame, StreamProtocol, sse_frame

from ._base import Filter, output_type

__all__ = [
    "AgentcoreProtocol",
    "PROTOCOL",
    "SsePresenter",
    "encode",
    "layers_filter",
    "wire_json",
]

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_LAYOUTS: dict[type[Any], tuple[str, tuple[tuple[str, str], ...]]] = {}
"""Per event class: the JSON before its timestamp, and each data field's name and key."""


def _layout(cls: type[Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    names = [f.name for f in attrs.fields(cls) if f.name != "timestamp"]
    keys = tuple(
        (name, ("" if i == 0 else ",") + encode_basestring(name) + ":")
        for i, name in enumerate(names)
    )
    return '{"type":' + encode_basestring(cls.type) + ',"timestamp":', keys


def _direct(value: Any) -> str | None:
    """The JSON of a field value written directly, or None when ``json`` must write it."""
    kind = type(value)
    if kind is str:
        text: str = encode_basestring(value)
        return text
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is tuple and all(type(item) is str for item in value):
        return "[" + ",".join(map(encode_basestring, value)) + "]"
    if is_event(value):
        return _event_json(value)
    return None


def _event_json(event: Any) -> str | None:
    cls = type(event)
    layout = _LAYOUTS.get(cls)
    if layout is None:
        layout = _LAYOUTS[cls] = _layout(cls)
    head, keys = layout
    timestamp = event.timestamp
    if type(timestamp) is not int:
        return None
    parts = [head, int.__repr__(timestamp), ',"data":{']
    append = parts.append
    for name, key in keys:
        value = getattr(event, name)
        kind = type(value)
        if kind is str:  # the common cases inline: this runs for every delta
            text = encode_basestring(value)
        elif kind is int:
            text = int.__repr__(value)
        else:
            direct = _direct(value)
            if direct is None:
                return None
            text = direct
        append(key)
        append(text)
    append("}}")
    return "".join(parts)


def wire_json(output: Any) -> str:
    """``json.dumps(to_dict(output), ensure_ascii=False, separators=(",", ":"))``, fast
    for the common events (module docstring). Raises ``InvalidEventError`` as ``to_dict``."""
    text = _event_json(output) if type(output) in _LAYOUTS or is_event(output) else None
    if text is None:
        encoded: str = _ENCODER.encode(to_dict(output))
        return encoded
    return text


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
    text = wire_json(output)
    if agent_id != thread_id:
        text = '{"agent_id":' + encode_basestring(agent_id) + "," + text[1:]
    return output_type(output), text


@attrs.frozen(slots=True)
class _State:
    thread_id: str
    select: Filter
    everything: bool = False


class AgentcoreProtocol:
    """The ``agentcore`` wire protocol (module docstring)."""

    name = "agentcore"
    headers: Mapping[str, str] = {}

    def initial(self, thread_id: str, params: Mapping[str, str]) -> _State:
        select = layers_filter(params)
        return _State(thread_id, select, not select.layers and not select.types)

    def encode(self, state: _State, agent_id: str, output: Any) -> tuple[_State, tuple[Frame, ...]]:
        if not state.everything:
            select = state.select
            if not select(output) and not (type(output) is SubagentEvent and select(output.event)):
                return state, ()
        if agent_id == state.thread_id and type(output) in _LAYOUTS:  # the common case
            text = _event_json(output)
            if text is not None:
                return state, ((output.type, text),)
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
