"""Running one tool call: context, worker threads, deadlines, and the outcome as JSON.

Shell code (asyncio, threads). The loop processor has already decided that the call names
a known tool and that its arguments validate; ``run_tool`` builds the arguments the tool
asked for, runs it and never raises for the tool's own failures: a class refusing the
arguments, a raise, a timeout, a result or ``details`` that are not JSON all become an
error ``ToolRunOutcome`` with a message the model can act on.

Deadlines and aborts. A tool with a ``timeout``, and every plain (sync) function, runs in
a task of its own (a plain function: in a daemon thread of its own, awaited by that task).
``run_tool`` answers at the deadline, or at once when its own task is cancelled (an
abort), *without waiting for the tool*: the tool's task is cancelled and abandoned, so a
tool that swallows ``CancelledError`` and goes on cannot hold the call open. A thread
cannot be stopped in Python: an abandoned thread runs to its end on its own, its result
and progress dropped. What an abandoned tool does after the answer (a ``finally`` block,
the rest of a thread) is no longer part of the run.

An async tool without a timeout runs in the caller's task instead, because a task of its
own costs two loop iterations and a task per call (about 10 µs, measured) for a
guarantee only a deadline needs: an abort is delivered into the tool as a cancellation,
and ``run_tool`` re-raises it when the tool lets it through. A runtime that must not wait
for such a tool answers an aborted call itself instead of awaiting ``run_tool``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs

from .._core.content import Content, JSONValue
from .._core.errors import ErrorCode
from .._loop.events import ElicitationAnswer, ElicitationRequest
from .._loop.tool_json import NotJSONError, to_json_value
from .._loop.tool_schema import ContextParameter, argument_errors
from .._loop.tools import Tool, ToolOutput, to_result_content

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

__all__ = ["AbortSignal", "ToolContext", "ToolRunOutcome", "run_tool"]

if TYPE_CHECKING:  # a default (PEP 696): a bare ``ToolContext`` means ``ToolContext[Any]``
    from typing_extensions import TypeVar as DefaultTypeVar

    Deps = DefaultTypeVar("Deps", default=Any)
else:
    Deps = TypeVar("Deps")


class AbortSignal:
    """Set when the run is aborted; tools may poll ``aborted`` or ``await wait()``.

    Setting is idempotent. The runtime also cancels the tool's task, so a tool that
    ignores the signal is still stopped at its next ``await`` (and answered at once in
    any case). ``aborted`` may be read from a worker thread.
    """

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = asyncio.Event()

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


@frozen
class ToolContext(ContextParameter, Generic[Deps]):
    """What a running tool may know and do besides its arguments.

    ``deps`` is the object given as the agent's or the run's dependencies (a database
    handle, a client, settings), typed by ``ToolContext[MyDeps]``; ``messages`` is the
    conversation so far (read-only); ``signal`` is set when the run is aborted;
    ``on_update(progress)`` reports progress, emitted as ``tool_execution_update``
    (progress must be JSON, else it raises ``TypeError``; it may be called from a worker
    thread; it is never sent to the model, and dropped once the call is answered).
    ``elicit(request)`` asks the user (an ``ElicitationRequest``) and waits for the
    ``ElicitationAnswer``: the run pauses until the application answers
    (``Agent.answer_elicitation``), and the answer is ``cancel`` if the run stops first.
    It is ``None`` where nobody can answer (a tool run outside an agent).
    """

    tool_call_id: str
    tool_name: str
    signal: AbortSignal
    messages: Sequence[Any]
    on_update: Callable[[JSONValue], None]
    deps: Deps = attrs.field(default=None, kw_only=True)
    elicit: Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]] | None = attrs.field(
        default=None, kw_only=True, repr=False
    )

    def _reporting_to(self, on_update: Callable[[JSONValue], None]) -> ToolContext[Deps]:
        """This context with another ``on_update`` (``attrs.evolve`` costs 3x more)."""
        return ToolContext(
            self.tool_call_id,
            self.tool_name,
            self.signal,
            self.messages,
            on_update,
            deps=self.deps,
            elicit=self.elicit,
        )


@frozen
class ToolRunOutcome:
    """The result of one execution, ready to become a ``tool_result`` event.

    ``content`` and ``details`` are JSON-native, so they journal and replay unchanged.
    """

    content: Content
    is_error: bool = False
    details: JSONValue = None


async def run_tool(tool: Tool, args: Mapping[str, Any], ctx: ToolContext[Any]) -> ToolRunOutcome:
    """Execute ``tool`` with validated ``args``, honouring its timeout.

    Returns an error outcome (never raises) when the arguments cannot be built
    (``TOOL_VALIDATION_ERROR``), the tool raises, overruns ``tool.timeout``, or returns
    content or ``details`` that are not JSON (``TOOL_EXECUTION_ERROR``).

    When the task running ``run_tool`` is cancelled, ``asyncio.CancelledError`` propagates
    so the runtime answers the call itself: at once, the tool abandoned, for a tool with a
    timeout or a plain function. An async tool without a timeout runs in the caller's
    task (see the module docstring): the cancellation propagates once the tool lets it
    through, and a tool that swallows it and returns answers the call with its result.
    """
    try:
        built = tool.build_args(args)
    except Exception as exc:  # a class, enum or pydantic model refused the arguments
        message = tool.invalid_arguments_message(args, argument_errors(exc))
        return _error(message, ErrorCode.TOOL_VALIDATION_ERROR)
    progress = _Progress(ctx.on_update)
    ctx = ctx._reporting_to(progress)
    if tool.timeout is None and not tool.runs_in_thread:  # the fast path: this task
        try:
            value = tool.execute(built, ctx)
            if inspect.isawaitable(value):
                value = await value
        except asyncio.CancelledError:
            if _aborted():
                raise
            return _cancelled_itself(tool.name)
        except Exception as exc:  # a failing tool never takes the loop down
            return _failed(tool.name, exc)
        finally:
            progress.close()
        return _outcome(tool.name, value)
    job = asyncio.ensure_future(_execute(tool, built, ctx))
    try:
        finished = await _wait(job, tool.timeout)
    except asyncio.CancelledError:
        _abandon(job)
        raise
    finally:
        progress.close()
    if not finished:
        _abandon(job)
        return _error(f"Tool {tool.name!r} timed out after {tool.timeout:g} s.")
    if job.cancelled():
        return _cancelled_itself(tool.name)
    failure = job.exception()
    if failure is not None:
        return _failed(tool.name, failure)
    return _outcome(tool.name, job.result())


def _aborted() -> bool:
    """Whether the running task was asked to stop (an abort), not a tool's own raise."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _execute(tool: Tool, built: Any, ctx: ToolContext[Any]) -> Any:
    if tool.runs_in_thread:
        value = await _in_thread(tool.execute, built, ctx, tool.name)
    else:
        value = tool.execute(built, ctx)
    if inspect.isawaitable(value):  # async execute, or a plain one returning a coroutine
        value = await value
    return value


async def _wait(job: asyncio.Future[Any], timeout: float | None) -> bool:
    """Wait until ``job`` is done (True) or ``timeout`` passes (False); when the waiting
    task is cancelled, stop waiting at once (``job`` is left to the caller).

    ``asyncio.wait`` does the same at twice the cost (measured: 24 µs against 11 µs).
    """
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()
    wake = functools.partial(_wake, waiter)
    job.add_done_callback(wake)
    timer = None if timeout is None else loop.call_later(timeout, wake, None)
    try:
        await waiter
    finally:
        if timer is not None:
            timer.cancel()
        job.remove_done_callback(wake)
    return job.done()


def _wake(waiter: asyncio.Future[None], _: object) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _failed(name: str, exc: BaseException) -> ToolRunOutcome:
    return _error(f"Tool {name!r} failed: {type(exc).__name__}: {exc}")


def _cancelled_itself(name: str) -> ToolRunOutcome:
    return _error(f"Tool {name!r} failed: it raised CancelledError itself.")


def _outcome(name: str, value: Any) -> ToolRunOutcome:
    if isinstance(value, ToolOutput):
        value, details, is_error = value.content, value.details, bool(value.is_error)
    else:
        details, is_error = None, False
    try:
        content = to_result_content(value)
    except NotJSONError as exc:
        return _error(f"Tool {name!r} returned content that is not text, an image or JSON: {exc}")
    if details is not None:
        try:
            details = to_json_value(details)
        except NotJSONError as exc:
            return _error(f"Tool {name!r} returned details that are not JSON: {exc}")
    return ToolRunOutcome(content, is_error, details)


def _error(message: str, code: ErrorCode = ErrorCode.TOOL_EXECUTION_ERROR) -> ToolRunOutcome:
    return ToolRunOutcome(message, True, {"error_code": code.value})


# -- abandoning ------------------------------------------------------------------------------

_ABANDONED: set[asyncio.Future[Any]] = set()
"""Cancelled tool tasks still running: held so they are not garbage-collected mid-run."""


def _abandon(job: asyncio.Future[Any]) -> None:
    """Cancel ``job`` and stop waiting for it; its outcome is retrieved and dropped."""
    job.cancel()
    _ABANDONED.add(job)
    job.add_done_callback(_forget)


def _forget(job: asyncio.Future[Any]) -> None:
    _ABANDONED.discard(job)
    if not job.cancelled():
        job.exception()  # retrieved, so asyncio does not report an answered call's failure


def _in_thread(
    fn: Callable[[Any, Any], Any], built: Any, ctx: Any, name: str
) -> asyncio.Future[Any]:
    """Run ``fn(built, ctx)`` in a new daemon thread; the future settles with its outcome.

    A thread per call, not a pool: an abandoned thread then holds no worker another call
    needs, and a daemon thread never delays the interpreter's exit. The caller's context
    variables are copied into the thread.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, failed: bool) -> None:
        if not future.done():  # cancelled when the call was abandoned
            (future.set_exception if failed else future.set_result)(value)

    def work() -> None:
        try:
            value, failed = context.run(fn, built, ctx), False
        except Exception as exc:
            value, failed = exc, True
        except BaseException as exc:  # SystemExit in a thread: a failure like any other
            value, failed = RuntimeError(f"the tool raised {type(exc).__name__}"), True
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(settle, value, failed)

    threading.Thread(target=work, name=f"agentcore-tool-{name}", daemon=True).start()
    return future


class _Progress:
    """``on_update`` as the tool sees it: checks that progress is JSON, hops from a worker
    thread to the loop, and drops what arrives after the call was answered."""

    __slots__ = ("_forward", "_loop", "_loop_thread", "_open")

    def __init__(self, forward: Callable[[JSONValue], None]) -> None:
        self._forward = forward
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._open = True

    def __call__(self, progress: JSONValue) -> None:
        value = to_json_value(progress)  # NotJSONError (a TypeError) to the tool
        if threading.get_ident() == self._loop_thread:
            self._deliver(value)
            return
        with contextlib.suppress(RuntimeError):  # a closed loop: the call is long answered
            self._loop.call_soon_threadsafe(self._deliver, value)

    def _deliver(self, value: JSONValue) -> None:
        if self._open:
            self._forward(value)

    def close(self) -> None:
        self._open = False
