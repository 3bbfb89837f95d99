"""OpenTelemetry traces and metrics of agent runs, by the GenAI semantic conventions.

Needs the ``otel`` extra (``opentelemetry-api``; export with the SDK or any distro).

- an ``invoke_agent`` span per run (``agent_start`` to ``agent_end``; an approval pause
  ends it, the run going on after it opens another), with the run's token usage;
- a ``chat {model}`` span per model call, under its run: request and response model,
  response id, finish reasons, input/output/cache-read/cache-write/reasoning tokens and
  the time to the first chunk (seconds);
- an ``execute_tool {name}`` span per tool call, under its run: tool name, call id,
  ``error.type`` with an error status when the result is an error, and for a result of
  content parts their kinds and sizes in bytes (``agentcore.tool.call.result.part_kinds``
  and ``.part_bytes``; never the bytes, and with content capture a placeholder per media
  part: ``[image image/png, 1.0 MB]``);
- a sub-agent's run (its ``SubagentEvent`` outputs) is an ``invoke_agent`` span in its
  parent's trace, under the parent's ``execute_tool`` span of the call that spawned it
  (``lineage.tool_call_id``; else the parent's run), named after the child's agent id,
  with ``gen_ai.agent.name`` its display name or type; a grandchild nests under its
  parent child's tool span the same way (outputs presented under another agent id than
  the first, by a presenter shared by hand, nest under the first agent's open tool span);
- metrics ``gen_ai.client.operation.duration`` (s, per model call) and
  ``gen_ai.client.token.usage`` (per model call and token type);
- message content (the reply, tool arguments and results) only when
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is true (or ``capture_content``).

The pure part is ``encode(state, agent_id, output) -> (state, ops)``: span starts and ends
and metric points, timed by the events' timestamps (ms). Span and trace ids are derived
from the agent id and what the state counts (runs, model calls) or names (tool call ids):
presenting a journal's replay again gives the same trace. An OpenTelemetry SDK makes its
own ids unless its ``TracerProvider(id_generator=EventIds())`` takes these.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any

import attrs
from opentelemetry import metrics, trace
from opentelemetry.trace import Status, StatusCode
from pyrsistent import pmap
from pyrsistent.typing import PMap

from agentcore.agents import Lineage, SubagentEvent
from agentcore.events import (
    AssistantMessage,
    InputJsonDelta,
    MessageStart,
    TextDelta,
    ThinkingDelta,
    ToolResultMessage,
    Usage,
)
from agentcore.loop import AgentEnd, AgentStart, ToolApprovalRequired, ToolExecutionStart, TurnStart

from . import _genai as g
from ._ui import content_sizes, content_text

__all__ = ["EndSpan", "EventIds", "OtelPresenter", "OtelState", "Point", "StartSpan", "encode"]

_DELTAS = (TextDelta, ThinkingDelta, InputJsonDelta)


@attrs.frozen(slots=True)
class StartSpan:
    key: str
    name: str
    parent: str | None  # key of the parent span (None: a root)
    trace_id: int
    span_id: int
    start_ns: int
    attributes: Mapping[str, Any]


@attrs.frozen(slots=True)
class EndSpan:
    key: str
    end_ns: int
    attributes: Mapping[str, Any]
    error: str | None = None
    name: str | None = None  # the span's final name (``chat {model}``, once the model is known)


@attrs.frozen(slots=True)
class Point:
    metric: str
    value: float
    attributes: Mapping[str, Any]


@attrs.frozen(slots=True)
class _Call:
    key: str
    start_ms: int
    model: str | None = None
    response_id: str | None = None
    first_ms: int | None = None


@attrs.frozen(slots=True)
class _Agent:
    runs: int = 0
    run: str | None = None  # the open run's span key
    trace_id: int = 0
    calls: int = 0
    call: _Call | None = None
    tools: PMap[str, str] = attrs.field(factory=pmap)  # call id -> span key
    usage: Usage = attrs.field(factory=Usage)
    parent: str | None = None  # the span a sub-agent's run nests under


@attrs.frozen(slots=True)
class OtelState:
    root: str | None = None
    capture: bool = False
    agents: PMap[str, _Agent] = attrs.field(factory=pmap)


def _id(bits: int, *parts: str) -> int:
    digest = hashlib.blake2b("\x00".join(parts).encode(), digest_size=bits // 8).digest()
    return int.from_bytes(digest, "big") or 1


def _usage(usage: Usage) -> dict[str, int]:
    return {
        g.INPUT_TOKENS: usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
        g.OUTPUT_TOKENS: usage.output_tokens,
        g.CACHE_READ_TOKENS: usage.cache_read_tokens,
        g.CACHE_WRITE_TOKENS: usage.cache_write_tokens,
        g.REASONING_TOKENS: usage.reasoning_tokens,
    }


def encode(state: OtelState, agent_id: str, output: Any) -> tuple[OtelState, tuple[Any, ...]]:
    """The span and metric operations one output gives (module docstring)."""
    lineage = None
    if type(output) is SubagentEvent:
        lineage = output.lineage
        agent_id, output = lineage.agent_id, output.event
        if state.root is None:
            state = attrs.evolve(state, root=lineage.parent_agent_id)
    cls = type(output)
    if cls in _DELTAS:  # the hot path: only a model call's first chunk matters
        a = state.agents.get(agent_id)
        if a is None or a.call is None or a.call.first_ms is not None:
            return state, ()
        a = attrs.evolve(a, call=attrs.evolve(a.call, first_ms=output.timestamp))
        return attrs.evolve(state, agents=state.agents.set(agent_id, a)), ()
    if state.root is None:
        state = attrs.evolve(state, root=agent_id)
    a = state.agents.get(agent_id) or _Agent()
    ts = output.timestamp
    ops: list[Any] = []
    attributes: dict[str, Any]
    error: str | None
    if cls is AgentStart:
        a = _end_run(a, ts, None, ops)
        a = _open_run(state, agent_id, a, ts, ops, lineage)
    elif cls is TurnStart or (cls is MessageStart and a.run is not None and a.call is None):
        if a.run is None:
            a = _open_run(state, agent_id, a, ts, ops, lineage)
        a = _end_call(a, ts, None, None, ops)
        model = output.model if cls is MessageStart else None
        calls = a.calls + 1
        key = f"{a.run}/chat{calls}"
        attributes = {g.OPERATION: g.CHAT}
        ops.append(
            StartSpan(
                key, g.CHAT, a.run, a.trace_id, _id(64, agent_id, key), ts * 1_000_000, attributes
            )
        )
        a = attrs.evolve(
            a, calls=calls, call=_Call(key, ts, model, getattr(output, "message_id", None))
        )
    elif cls is MessageStart and a.call is not None:
        a = attrs.evolve(
            a, call=attrs.evolve(a.call, model=output.model, response_id=output.message_id)
        )
    elif cls is AssistantMessage and a.call is not None:
        content = None
        if state.capture:
            content = json.dumps(
                [{"role": "assistant", "content": output.text}], ensure_ascii=False
            )
        a = _end_call(a, ts, output, content, ops)
    elif cls is ToolExecutionStart and a.run is not None:
        key = f"{a.run}/tool/{output.tool_call_id}"
        attributes = {
            g.OPERATION: g.EXECUTE_TOOL,
            g.TOOL_NAME: output.tool_name,
            g.TOOL_CALL_ID: output.tool_call_id,
            g.TOOL_TYPE: "function",
        }
        if state.capture:
            attributes[g.TOOL_ARGUMENTS] = json.dumps(output.args, ensure_ascii=False)
        name = f"{g.EXECUTE_TOOL} {output.tool_name}"
        ops.append(
            StartSpan(
                key, name, a.run, a.trace_id, _id(64, agent_id, key), ts * 1_000_000, attributes
            )
        )
        a = attrs.evolve(a, tools=a.tools.set(output.tool_call_id, key))
    elif cls is ToolResultMessage:
        tool_key = a.tools.get(output.tool_call_id)
        if tool_key is not None:
            attributes = {}
            if state.capture:
                attributes[g.TOOL_RESULT] = content_text(output.result)
            if not isinstance(output.result, str):  # parts: their kinds and sizes, always
                kinds, sizes = content_sizes(output.result)
                attributes[g.TOOL_RESULT_PART_KINDS] = kinds
                attributes[g.TOOL_RESULT_PART_BYTES] = sizes
            error = None
            if output.is_error:
                details = output.details if isinstance(output.details, dict) else {}
                error = str(details.get("error_code") or "tool_error")
            ops.append(EndSpan(tool_key, ts * 1_000_000, attributes, error))
            a = attrs.evolve(a, tools=a.tools.remove(output.tool_call_id))
    elif cls is AgentEnd:
        error = output.code if output.reason == "error" else None
        if output.reason == "aborted":
            error = output.code or "ABORTED"
        a = _end_run(a, ts, error, ops)
    elif cls is ToolApprovalRequired:
        a = _end_run(a, ts, None, ops)
    else:
        return state, ()
    return attrs.evolve(state, agents=state.agents.set(agent_id, a)), tuple(ops)


def _open_run(
    state: OtelState, agent_id: str, a: _Agent, ts: int, ops: list[Any], lineage: Lineage | None
) -> _Agent:
    runs = a.runs + 1
    key = f"{agent_id}/run{runs}"
    parent = None
    trace_id = _id(128, agent_id, key)
    attributes = {g.OPERATION: g.INVOKE_AGENT, g.AGENT_ID: agent_id, g.CONVERSATION_ID: agent_id}
    if lineage is not None:
        attributes[g.AGENT_NAME] = lineage.name or lineage.agent_type
        spawner = state.agents.get(lineage.parent_agent_id)
        if spawner is not None and spawner.run is not None:
            parent = spawner.tools.get(lineage.tool_call_id) or spawner.run
            trace_id = spawner.trace_id
    elif agent_id != state.root and state.root is not None:
        root = state.agents.get(state.root)
        if root is not None and root.run is not None:
            parent = next(reversed(list(root.tools.values())), None) or root.run
            trace_id = root.trace_id
    name = f"{g.INVOKE_AGENT} {agent_id}"
    ops.append(
        StartSpan(key, name, parent, trace_id, _id(64, agent_id, key), ts * 1_000_000, attributes)
    )
    return attrs.evolve(
        a, runs=runs, run=key, trace_id=trace_id, calls=0, usage=Usage(), parent=parent
    )


def _end_call(a: _Agent, ts: int, message: Any, content: str | None, ops: list[Any]) -> _Agent:
    call = a.call
    if call is None:
        return a
    attributes: dict[str, Any] = {}
    model = call.model
    usage = Usage()
    if message is not None:
        model = message.model or model
        usage = message.usage
        attributes.update(_usage(usage))
        if message.stop_reason:
            attributes[g.FINISH_REASONS] = (message.stop_reason,)
        if content is not None:
            attributes[g.OUTPUT_MESSAGES] = content
    if model:
        attributes[g.REQUEST_MODEL] = model
        attributes[g.RESPONSE_MODEL] = model
    if call.response_id:
        attributes[g.RESPONSE_ID] = call.response_id
    if call.first_ms is not None:
        attributes[g.TIME_TO_FIRST_CHUNK] = (call.first_ms - call.start_ms) / 1000
    error = None if message is not None and not message.incomplete else "incomplete"
    name = f"{g.CHAT} {model}" if model else None
    ops.append(EndSpan(call.key, ts * 1_000_000, attributes, error, name))
    labels = {g.OPERATION: g.CHAT, **({g.REQUEST_MODEL: model} if model else {})}
    ops.append(Point(g.DURATION_METRIC, (ts - call.start_ms) / 1000, labels))
    if message is not None:
        ops.append(
            Point(g.TOKEN_METRIC, attributes[g.INPUT_TOKENS], {**labels, g.TOKEN_TYPE: "input"})
        )
        ops.append(Point(g.TOKEN_METRIC, usage.output_tokens, {**labels, g.TOKEN_TYPE: "output"}))
    return attrs.evolve(a, call=None, usage=a.usage + usage)


def _end_run(a: _Agent, ts: int, error: str | None, ops: list[Any]) -> _Agent:
    if a.run is None:
        return a
    a = _end_call(a, ts, None, None, ops)
    for key in a.tools.values():
        ops.append(EndSpan(key, ts * 1_000_000, {}, "unfinished"))
    run = a.run
    assert run is not None
    ops.append(EndSpan(run, ts * 1_000_000, _usage(a.usage), error))
    return attrs.evolve(a, run=None, tools=pmap())


def capture_from_env() -> bool:
    """Whether ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` asks for content."""
    return os.environ.get(g.CAPTURE_CONTENT_ENV, "").strip().lower() in ("1", "true", "yes")


class EventIds:
    """An SDK id generator (``TracerProvider(id_generator=EventIds())``) that gives the
    ids ``OtelPresenter`` derived from the events, and random ones to other spans."""

    def __init__(self) -> None:
        import random

        self._random = random.Random()
        self.pending: tuple[int, int] | None = None

    def generate_span_id(self) -> int:
        if self.pending is not None:
            return self.pending[1]
        return self._random.getrandbits(64) or 1

    def is_trace_id_random(self) -> bool:
        """Derived trace ids are not random (the W3C "random" flag stays off)."""
        return False

    def generate_trace_id(self) -> int:
        if self.pending is not None:
            return self.pending[0]
        return self._random.getrandbits(128) or 1


class OtelPresenter:
    """Sends each run's spans and metrics to OpenTelemetry (module docstring).

    ``tracer_provider``/``meter_provider`` default to the global ones; ``ids`` is the
    ``EventIds`` of the tracer provider, for ids derived from the events.
    """

    def __init__(
        self,
        tracer_provider: Any = None,
        meter_provider: Any = None,
        *,
        capture_content: bool | None = None,
        ids: EventIds | None = None,
    ) -> None:
        self._tracer = trace.get_tracer("agentcore", tracer_provider=tracer_provider)
        meter = metrics.get_meter("agentcore", meter_provider=meter_provider)
        self._metrics = {
            g.DURATION_METRIC: meter.create_histogram(
                g.DURATION_METRIC, unit="s", description="GenAI operation duration"
            ),
            g.TOKEN_METRIC: meter.create_histogram(
                g.TOKEN_METRIC, unit="{token}", description="Tokens used per call"
            ),
        }
        capture = capture_from_env() if capture_content is None else capture_content
        self.state = OtelState(capture=capture)
        self._ids = ids
        self._spans: dict[str, Any] = {}

    def present(self, agent_id: str, output: Any) -> None:
        self.state, ops = encode(self.state, agent_id, output)
        for op in ops:
            if type(op) is StartSpan:
                self._start(op)
            elif type(op) is EndSpan:
                span = self._spans.pop(op.key, None)
                if span is not None:
                    if op.name is not None:
                        span.update_name(op.name)
                    span.set_attributes(op.attributes)
                    if op.error is not None:
                        span.set_attribute(g.ERROR_TYPE, op.error)
                        span.set_status(Status(StatusCode.ERROR, op.error))
                    span.end(end_time=op.end_ns)
            else:
                self._metrics[op.metric].record(op.value, op.attributes)

    def _start(self, op: StartSpan) -> None:
        parent = self._spans.get(op.parent) if op.parent is not None else None
        context = trace.set_span_in_context(parent) if parent is not None else None
        if self._ids is not None:
            self._ids.pending = (op.trace_id, op.span_id)
        try:
            span = self._tracer.start_span(
                op.name, context=context, start_time=op.start_ns, attributes=op.attributes
            )
        finally:
            if self._ids is not None:
                self._ids.pending = None
        self._spans[op.key] = span

    def close(self) -> None:
        """End spans still open (a run cut off), now."""
        for span in self._spans.values():
            span.end()
        self._spans.clear()
