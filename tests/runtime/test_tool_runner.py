"""run_tool: worker threads, deadlines that hold against stubborn tools, aborts, JSON
results and details, argument building, progress and dependencies."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import datetime
import enum
import functools
import pathlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentcore.events import ToolResult
from agentcore.journal import JsonlJournal
from agentcore.tools import (
    AbortSignal,
    Tool,
    ToolContext,
    ToolOutput,
    ToolRunOutcome,
    define_tool,
    run_tool,
    tool,
)

SCHEMA = {"type": "object"}


def _ctx(updates: list[Any] | None = None, deps: Any = None) -> ToolContext[Any]:
    sink = updates if updates is not None else []
    return ToolContext("t1", "x", AbortSignal(), (), sink.append, deps=deps)


def _run(t: Tool, args: dict[str, Any] | None = None, **kw: Any) -> ToolRunOutcome:
    return asyncio.run(run_tool(t, args or {}, _ctx(**kw)))


@pytest.fixture
def thread_errors() -> Iterator[list[BaseException]]:
    """Exceptions raised in any thread during the test (there must be none)."""
    seen: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: seen.append(args.exc_value)  # type: ignore[assignment,misc]
    yield seen
    threading.excepthook = previous


# -- deadlines and aborts hold against tools that do not stop ----------------------------------


def test_a_tool_swallowing_cancellation_is_answered_at_its_deadline() -> None:
    log: list[str] = []
    tasks: list[asyncio.Task[Any]] = []

    async def stubborn(args: Any, ctx: ToolContext) -> str:
        tasks.append(asyncio.current_task())  # type: ignore[arg-type]
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            log.append("swallowed")
        await asyncio.sleep(0.6)  # and goes on, as if nothing happened
        log.append("finished")
        return "late"

    t = define_tool("stubborn", "s", SCHEMA, stubborn, timeout=0.05)

    async def main() -> tuple[ToolRunOutcome, float]:
        start = time.perf_counter()
        outcome = await run_tool(t, {}, _ctx())
        elapsed = time.perf_counter() - start
        (task,) = tasks
        assert task.cancelling() > 0  # abandoned as cancelled, never awaited
        await asyncio.sleep(0.05)
        assert log == ["swallowed"] and not task.done()  # answered; the tool still runs
        await asyncio.wait((task,), timeout=2)
        assert log == ["swallowed", "finished"]
        return outcome, elapsed

    outcome, elapsed = asyncio.run(main())
    assert elapsed < 0.4  # the deadline, not the tool's 0.6 s more
    assert outcome.is_error
    assert outcome.content == "Tool 'stubborn' timed out after 0.05 s."
    assert outcome.details == {"error_code": "TOOL_EXECUTION_ERROR"}


async def _stubborn(log: list[str], args: Any, ctx: ToolContext) -> str:
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        log.append("swallowed")
    await asyncio.sleep(0.3)
    log.append("done")
    return "ignored"


async def _abort_after(t: Tool) -> tuple[float, ToolRunOutcome | None]:
    """Cancel a running ``run_tool``: how long it took to end, and its outcome if it had one
    (None when it raised CancelledError)."""
    runner = asyncio.create_task(run_tool(t, {}, _ctx()))
    await asyncio.sleep(0.02)
    start = time.perf_counter()
    runner.cancel()
    try:
        outcome: ToolRunOutcome | None = await runner
    except asyncio.CancelledError:
        outcome = None
    return time.perf_counter() - start, outcome


def test_an_abort_propagates_at_once_when_the_tool_has_a_deadline() -> None:
    log: list[str] = []
    t = define_tool("stubborn", "s", SCHEMA, functools.partial(_stubborn, log), timeout=5)

    async def main() -> float:
        elapsed, outcome = await _abort_after(t)
        assert outcome is None and log == ["swallowed"]
        await asyncio.sleep(0.4)
        assert log == ["swallowed", "done"]
        return elapsed

    assert asyncio.run(main()) < 0.2


def test_without_a_deadline_an_abort_is_delivered_into_the_tool() -> None:
    """The fast path runs the tool in the caller's task: the abort is a cancellation
    inside the tool; a polite tool stops at once, a stubborn one answers when it returns."""

    async def polite(args: Any, ctx: ToolContext) -> str:
        await asyncio.sleep(10)
        return "never"

    elapsed, outcome = asyncio.run(_abort_after(define_tool("polite", "p", SCHEMA, polite)))
    assert outcome is None and elapsed < 0.2

    log: list[str] = []
    stubborn = define_tool("stubborn", "s", SCHEMA, functools.partial(_stubborn, log))
    elapsed, outcome = asyncio.run(_abort_after(stubborn))
    assert log == ["swallowed", "done"] and 0.25 < elapsed < 1
    assert outcome is not None and outcome.content == "ignored"


def test_a_sync_tool_sleeping_past_its_timeout_is_abandoned(
    thread_errors: list[BaseException],
) -> None:
    threads: list[threading.Thread] = []

    def sleepy(args: Any, ctx: ToolContext) -> str:
        threads.append(threading.current_thread())
        time.sleep(0.6)
        return "late"

    t = define_tool("sleepy", "s", SCHEMA, sleepy, timeout=0.05)
    start = time.perf_counter()
    outcome = _run(t)  # asyncio.run returns: the loop never waits for the thread
    elapsed = time.perf_counter() - start
    assert outcome.content == "Tool 'sleepy' timed out after 0.05 s." and outcome.is_error
    assert elapsed < 0.4
    (thread,) = threads
    assert thread.is_alive() and thread.daemon
    thread.join(2)  # it finishes on its own, after its loop closed, without an error
    assert not thread.is_alive()
    assert thread_errors == []


def test_a_sync_tool_runs_off_the_loop_with_the_callers_context() -> None:
    where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")

    def probe(args: Any, ctx: ToolContext) -> dict[str, Any]:
        return {"thread": threading.current_thread().name, "where": where.get()}

    async def main() -> ToolRunOutcome:
        where.set("caller")
        return await run_tool(define_tool("probe", "p", SCHEMA, probe), {}, _ctx())

    assert asyncio.run(main()).content == '{"thread": "agentcore-tool-probe", "where": "caller"}'


def test_sync_tools_run_in_parallel() -> None:
    """Five blocking calls meet at a barrier: run one after another, none could pass it
    (no timing assertion, so a loaded machine cannot fail it)."""
    barrier = threading.Barrier(5, timeout=30)

    @tool
    def meet(name: str) -> str:
        barrier.wait()
        return f"met {name}"

    async def main() -> list[Any]:
        return await asyncio.gather(*(run_tool(meet, {"name": str(i)}, _ctx()) for i in range(5)))

    assert [r.content for r in asyncio.run(main())] == [f"met {i}" for i in range(5)]


# -- failures ------------------------------------------------------------------------------------


def test_sync_failures_become_error_results() -> None:
    def boom(args: Any, ctx: ToolContext) -> str:
        raise ValueError("disk full")

    def leaves(args: Any, ctx: ToolContext) -> str:
        raise SystemExit(3)

    assert _run(define_tool("boom", "b", SCHEMA, boom)).content == (
        "Tool 'boom' failed: ValueError: disk full"
    )
    assert _run(define_tool("leaves", "l", SCHEMA, leaves)).content == (
        "Tool 'leaves' failed: RuntimeError: the tool raised SystemExit"
    )


def test_a_tool_raising_cancelled_error_itself_is_a_failure() -> None:
    async def confused(args: Any, ctx: ToolContext) -> str:
        raise asyncio.CancelledError

    outcome = _run(define_tool("confused", "c", SCHEMA, confused))
    assert outcome.is_error
    assert outcome.content == "Tool 'confused' failed: it raised CancelledError itself."


def test_a_plain_function_returning_a_coroutine_is_awaited() -> None:
    async def later() -> str:
        return "awaited"

    assert _run(define_tool("lazy", "l", SCHEMA, lambda args, ctx: later())).content == "awaited"


# -- details and content are JSON, or the call is an error -------------------------------------


class Level(enum.IntEnum):
    HIGH = 3


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("details", "reason"),
    [
        (datetime.datetime(2024, 1, 1), "at $: datetime is not a JSON value"),
        ({"tags": {"a"}}, "at $.tags: set is not a JSON value"),
        ([1, object()], "at $[1]: object is not a JSON value"),
        ({"mean": float("nan")}, "at $.mean: NaN is not a JSON number"),
        ({"max": float("-inf")}, "at $.max: -Infinity is not a JSON number"),
        ({(1, 2): "pair"}, "at $: a key of type tuple is not a JSON key"),
        ({1: "a", "1": "b"}, "at $: key '1' becomes '1', which another key already is"),
        ({"s": "smile \ud83d"}, "at $.s: string 'smile \\ud83d' holds a surrogate"),
        ({"big": 2**64}, "at $.big: integer 18446744073709551616 is outside the 64-bit"),
        (_nested(300), "nested more than 200 levels deep (or circular)"),
    ],
)
def test_details_that_are_not_json_make_an_error_result(details: Any, reason: str) -> None:
    async def reports(args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput("done", details=details)

    outcome = _run(define_tool("reports", "r", SCHEMA, reports))
    assert outcome.is_error
    assert outcome.details == {"error_code": "TOOL_EXECUTION_ERROR"}
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("Tool 'reports' returned details that are not JSON: ")
    assert reason in outcome.content


def test_a_circular_result_is_an_error_not_a_crash() -> None:
    loop: list[Any] = []
    loop.append(loop)

    def circular(args: Any, ctx: ToolContext) -> Any:
        return ToolOutput(loop)

    outcome = _run(define_tool("circular", "c", SCHEMA, circular))
    assert outcome.is_error and "nested more than 200 levels deep (or circular)" in str(
        outcome.content
    )


def test_json_details_come_out_native_and_survive_the_journal(tmp_path: pathlib.Path) -> None:
    details = {"rows": (1, 2), 7: Level.HIGH, "ok": True, "ratio": 0.5, "none": None}

    def reports(args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(["x", ("y",)], details=details)

    outcome = _run(define_tool("reports", "r", SCHEMA, reports))
    native = {"rows": [1, 2], "7": 3, "ok": True, "ratio": 0.5, "none": None}
    assert outcome.details == native and type(outcome.details["7"]) is int
    assert outcome.content == '["x", ["y"]]'
    journal = JsonlJournal(tmp_path / "j.jsonl")
    result = ToolResult("t1", outcome.content, outcome.is_error, outcome.details, timestamp=5)
    journal.append("a", result)
    journal.close()
    (entry,) = JsonlJournal(tmp_path / "j.jsonl").entries("a")
    assert entry.event == result
    assert repr(entry.event.details) == repr(native)


def test_non_finite_results_reach_the_model_as_strings() -> None:
    def stats(args: Any, ctx: ToolContext) -> Any:
        return {"mean": float("nan"), "max": float("inf")}

    outcome = _run(define_tool("stats", "s", SCHEMA, stats))
    assert outcome.content == '{"max": "Infinity", "mean": "NaN"}' and not outcome.is_error


# -- building the arguments the tool asked for -----------------------------------------------


@dataclasses.dataclass
class Span:
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError("end is before start")


@dataclasses.dataclass
class Page:
    spans: list[Span]


def test_a_class_refusing_the_arguments_is_an_invalid_arguments_result() -> None:
    called: list[Page] = []

    def read(args: Page, ctx: ToolContext) -> str:
        called.append(args)
        return "read"

    t = define_tool("read", "r", Page, read)
    args = {"spans": [{"start": 1, "end": 2}, {"start": 5, "end": 3}]}
    assert t.validation_errors(args) == []  # the schema cannot say it
    outcome = _run(t, args)
    assert called == [] and outcome.is_error
    assert outcome.details == {"error_code": "TOOL_VALIDATION_ERROR"}
    assert outcome.content == (
        "Invalid arguments for tool 'read'; the call was not executed.\n"
        "  - at $.spans[1]: ValueError: end is before start\n"
        'You sent: {"spans": [{"end": 2, "start": 1}, {"end": 3, "start": 5}]}'
    )
    assert _run(t, {"spans": [{"start": 1, "end": 2}]}).content == "read"
    assert called == [Page([Span(1, 2)])]


# -- progress and dependencies -------------------------------------------------------------------


def test_progress_from_a_thread_arrives_on_the_loop_before_the_result() -> None:
    seen: list[tuple[Any, str]] = []

    def work(args: Any, ctx: ToolContext) -> str:
        for step in range(3):
            ctx.on_update({"step": step, "of": (0, 3)})
        return "done"

    async def main() -> ToolRunOutcome:
        def record(progress: Any) -> None:
            seen.append((progress, threading.current_thread().name))

        ctx = ToolContext("t1", "work", AbortSignal(), (), record)
        return await run_tool(define_tool("work", "w", SCHEMA, work), {}, ctx)

    assert asyncio.run(main()).content == "done"
    main_thread = threading.main_thread().name
    assert seen == [({"step": i, "of": [0, 3]}, main_thread) for i in range(3)]


def test_progress_that_is_not_json_fails_in_the_tool() -> None:
    async def chatty(args: Any, ctx: ToolContext) -> str:
        ctx.on_update({"at": datetime.date(2024, 1, 1)})
        return "unreachable"

    updates: list[Any] = []
    outcome = _run(define_tool("chatty", "c", SCHEMA, chatty), updates=updates)
    assert outcome.content == (
        "Tool 'chatty' failed: NotJSONError: at $.at: date is not a JSON value"
    )
    assert updates == []


def test_progress_after_the_answer_is_dropped(thread_errors: list[BaseException]) -> None:
    reported = threading.Event()

    def slow(args: Any, ctx: ToolContext) -> str:
        time.sleep(0.2)
        ctx.on_update("too late")
        reported.set()
        return "late"

    updates: list[Any] = []

    async def main() -> ToolRunOutcome:
        t = define_tool("slow", "s", SCHEMA, slow, timeout=0.05)
        outcome = await run_tool(t, {}, _ctx(updates))
        await asyncio.to_thread(reported.wait, 2)
        await asyncio.sleep(0.05)  # a hop to the loop would have run by now
        return outcome

    assert asyncio.run(main()).is_error
    assert updates == [] and thread_errors == []


@dataclasses.dataclass
class Db:
    rows: dict[str, int]


def test_tools_reach_their_dependencies_through_the_context() -> None:
    @tool
    def lookup(key: str, ctx: ToolContext[Db]) -> int:
        return ctx.deps.rows[key]

    @tool
    async def count(context: ToolContext[Db]) -> int:
        return len(context.deps.rows)

    db = Db({"a": 1, "b": 2})
    assert _run(lookup, {"key": "b"}, deps=db).content == "2"
    assert _run(count, deps=db).content == "2"
    assert _ctx().deps is None
