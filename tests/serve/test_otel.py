"""The OpenTelemetry presenter, against the SDK's in-memory exporter and metric reader."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentcore import Agent, MemoryJournal, replay
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.presenters.otel import EventIds, OtelPresenter
from agentcore.presenters.recording import RecordingPresenter

from .conftest import ROOT, Session, lookup, remove, sessions


def _export(outputs: Any, capture: bool = False) -> tuple[list[Any], InMemoryMetricReader]:
    exporter = InMemorySpanExporter()
    ids = EventIds()
    provider = TracerProvider(id_generator=ids)  # type: ignore[arg-type]
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    presenter = OtelPresenter(
        provider, MeterProvider(metric_readers=[reader]), capture_content=capture, ids=ids
    )
    for agent_id, output in outputs:
        presenter.present(agent_id, output)
    return list(exporter.get_finished_spans()), reader


def _key(span: Any) -> tuple[Any, ...]:
    parent = span.parent.span_id if span.parent else None
    return (
        span.name,
        span.context.trace_id,
        span.context.span_id,
        parent,
        span.start_time,
        span.end_time,
        dict(span.attributes),
        span.status.status_code,
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_replaying_the_journal_exports_the_same_trace(session: Session) -> None:
    live, _ = _export((ROOT, o) for o in session.outputs)
    again, _ = _export(replay(session.journal))
    assert [_key(s) for s in live] == [_key(s) for s in again]
    runs = [s for s in live if s.name.startswith("invoke_agent")]
    assert runs and all(s.parent is None for s in runs)
    by_id = {s.context.span_id: s for s in live}
    for span in live:
        if span.parent is not None:
            parent = by_id[span.parent.span_id]
            assert parent.name.startswith("invoke_agent")
            assert parent.start_time <= span.start_time <= span.end_time <= parent.end_time


def test_a_run_with_a_tool_by_the_conventions() -> None:
    async def main() -> list[Any]:
        rec = RecordingPresenter()
        script = [
            tool_turn(
                [("c1", "lookup", {"city": "Oslo"})],
                message_id="m1",
                model="model-x",
                usage={"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 7},
            ),
            text_turn(
                "Sunny.",
                message_id="m2",
                model="model-x",
                usage={"input_tokens": 20, "output_tokens": 2},
            ),
        ]
        ticks = iter(range(1_000, 100_000, 10))
        agent = Agent(
            ScriptedDriver(script, clock=lambda: next(ticks)),
            tools=[lookup, remove],
            presenters=[rec],
            journal=MemoryJournal(),
            agent_id=ROOT,
            clock=lambda: next(ticks),
        )
        await agent.prompt("weather?")
        await agent.aclose()
        return [(ROOT, o) for o in rec.outputs()]

    outputs = asyncio.run(main())
    spans, reader = _export(outputs, capture=True)
    names = sorted(s.name for s in spans)
    assert names == ["chat model-x", "chat model-x", "execute_tool lookup", "invoke_agent a1"]
    chat = next(
        s for s in spans if s.name.startswith("chat") and s.attributes["gen_ai.response.id"] == "m1"
    )
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "model-x"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 17  # cache reads are input too
    assert chat.attributes["gen_ai.usage.cache_read.input_tokens"] == 7
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert chat.attributes["gen_ai.response.time_to_first_chunk"] > 0
    tool = next(s for s in spans if s.name == "execute_tool lookup")
    assert tool.attributes["gen_ai.tool.call.id"] == "c1"
    assert tool.attributes["gen_ai.tool.call.result"] == "Oslo: sunny"
    run = next(s for s in spans if s.name == "invoke_agent a1")
    assert run.attributes["gen_ai.usage.output_tokens"] == 7
    data = reader.get_metrics_data()
    metrics = {
        m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
    }
    assert set(metrics) == {"gen_ai.client.operation.duration", "gen_ai.client.token.usage"}
    points = metrics["gen_ai.client.token.usage"].data.data_points
    assert {p.attributes["gen_ai.token.type"] for p in points} == {"input", "output"}
    # no content unless asked
    quiet, _ = _export(outputs, capture=False)
    assert all("gen_ai.tool.call.result" not in s.attributes for s in quiet)


def test_sub_agent_spans_nest_under_the_spawning_tool_span() -> None:
    """A parent spawns a child through ``task``, the child a grandchild: each child run
    is an ``invoke_agent`` span in the root's trace, under the ``execute_tool task`` span
    of the call that spawned it; replaying the tree's journal exports the same trace."""
    from agentcore.agents import replay_tree

    from .test_subagent_streams import ROOT as TREE_ROOT
    from .test_subagent_streams import SESSION

    outputs, journal, _ = SESSION
    spans, _ = _export((TREE_ROOT, o) for o in outputs)
    by_id = {s.context.span_id: s for s in spans}
    runs = {s.attributes["gen_ai.agent.id"]: s for s in spans if s.name.startswith("invoke_agent")}
    assert set(runs) == {TREE_ROOT, f"{TREE_ROOT}/call_p", f"{TREE_ROOT}/call_p/call_f"}
    assert runs[TREE_ROOT].parent is None
    assert len({s.context.trace_id for s in spans}) == 1
    child, grandchild = runs[f"{TREE_ROOT}/call_p"], runs[f"{TREE_ROOT}/call_p/call_f"]
    assert child.attributes["gen_ai.agent.name"] == "File finder"
    for run, spawner in ((child, TREE_ROOT), (grandchild, f"{TREE_ROOT}/call_p")):
        assert run.parent is not None
        tool = by_id[run.parent.span_id]
        assert tool.name == "execute_tool task"
        assert by_id[tool.parent.span_id] is runs[spawner]
        assert tool.start_time <= run.start_time and run.end_time <= tool.end_time
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert {by_id[s.parent.span_id].attributes["gen_ai.agent.id"] for s in chats} == set(runs)
    again, _ = _export(replay_tree(journal, TREE_ROOT))
    assert [_key(s) for s in spans] == [_key(s) for s in again]


def test_a_tool_returning_media_records_kinds_and_sizes_never_bytes() -> None:
    from agentcore.events import DocumentContent, ImageContent, TextContent
    from agentcore.tools import tool

    png = b"\x89PNG\r\n\x1a\n" + bytes(4_000)
    pdf = b"%PDF-1.4\n" + bytes(2_000)

    @tool
    def shoot() -> list[Any]:
        """A screenshot and the manual."""
        return [
            TextContent("here"),
            ImageContent.from_bytes(png),
            DocumentContent.from_bytes(pdf, title="m.pdf"),
        ]

    async def main() -> list[Any]:
        rec = RecordingPresenter()
        script = [tool_turn([("c1", "shoot", {})]), text_turn("ok")]
        agent = Agent(ScriptedDriver(script), tools=[shoot], presenters=[rec], agent_id=ROOT)
        await agent.prompt("shoot")
        await agent.aclose()
        return [(ROOT, o) for o in rec.outputs()]

    outputs = asyncio.run(main())
    for capture in (False, True):
        spans, _reader = _export(outputs, capture=capture)
        tool_span = next(s for s in spans if s.name == "execute_tool shoot")
        attributes = dict(tool_span.attributes)
        kinds = attributes["agentcore.tool.call.result.part_kinds"]
        assert kinds == ("text", "image", "document")
        assert attributes["agentcore.tool.call.result.part_bytes"] == (4, len(png), len(pdf))
        for span in spans:
            assert not any(
                isinstance(v, str) and ("iVBOR" in v or "JVBER" in v)
                for v in dict(span.attributes).values()
            )
    assert attributes["gen_ai.tool.call.result"] == (
        'here[image image/png, 3.9 KB][document "m.pdf" application/pdf, 2.0 KB]'
    )
