"""``agent.stream(prompt, output_type=T)``: the structured answer as it streams.

``OutputStream`` reads the run's events (a ``RunStream``) and yields the answer parsed so
far, each time it shows more: from the reply's text in ``native``/``prompted`` mode,
from the arguments of the final-answer tool in ``tool`` mode, parsed with
``PartialJson``. Each partial is validated leniently (``lenient_errors``: a key still
missing is fine, a wrong type is not; a partial that fails is not yielded); the last item
is the answer the loop validated strictly (``agent_output``). After an ``output_retry``
the partials start over with the new answer. Partials are JSON values (dicts); the typed
answer is ``output`` once the iteration ends.

This derives from delivered events only, so it costs the fold nothing and a replay of
the journal delivers the same events it was computed from.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from .._core.content import JSONValue
from .._core.driver import OutputSpec
from .._core.errors import AgentError, OutputParseError
from .._core.events import InputJsonDelta, MessageStart, TextDelta, ToolUseStart
from .._loop.events import AgentEnd, AgentOutput, OutputRetry
from .._loop.output import lenient_errors
from .._loop.partial_json import PartialJson
from .._loop.tool_schema import argument_errors
from .run_stream import RunStream

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["OutputStream", "build_output"]


def build_output(build: Callable[[JSONValue], Any], value: JSONValue) -> Any:
    """The typed answer built from a valid one; ``OutputParseError`` when the class
    refuses values its schema allows (a ``__post_init__``, a pydantic validator)."""
    try:
        return build(value)
    except Exception as exc:
        lines = "; ".join(argument_errors(exc))
        raise OutputParseError(f"the answer matched the schema but not the type: {lines}") from exc


class OutputStream(AsyncIterator[JSONValue]):
    """The partial answers of one run (module docstring), then ``output``.

    Raises the run's ``AgentError`` when the iteration ends (``OutputParseError`` when no
    valid answer came). Leaving early aborts the run, as ``RunStream`` does.
    """

    def __init__(
        self,
        events: RunStream,
        spec: OutputSpec,
        build: Callable[[JSONValue], Any],
        error: Callable[[], AgentError | None],
    ) -> None:
        self._events = events
        self._spec = spec
        self._build = build
        self._error = error
        self._text = PartialJson()
        self._block: int | None = None  # the final-answer tool's block (tool mode)
        self._shown: JSONValue = None
        self._final: JSONValue = None
        self._output: Any = None

    @property
    def output(self) -> Any:
        """The typed answer once the run completed with one (``None`` before)."""
        return self._output

    def __aiter__(self) -> OutputStream:
        return self

    async def __anext__(self) -> JSONValue:
        tool_mode = self._spec.mode == "tool"
        async for event in self._events:
            cls = type(event)
            if cls is TextDelta and not tool_mode:
                shown = self._grow(event.text)
            elif cls is InputJsonDelta and event.index == self._block:
                shown = self._grow(event.partial_json)
            elif cls is MessageStart or cls is OutputRetry:
                self._text, self._block = PartialJson(), None
                continue
            elif cls is ToolUseStart and tool_mode and event.tool_name == self._spec.name:
                self._text, self._block = PartialJson(), event.index
                continue
            elif cls is AgentOutput:
                self._final = event.output
                self._output = build_output(self._build, event.output)
                shown = event.output if event.output != self._shown else None
            elif cls is AgentEnd:
                break
            else:
                continue
            if shown is not None:
                self._shown = shown
                return shown
        error = self._error()
        if error is not None and self._final is None:
            raise error
        raise StopAsyncIteration

    def _grow(self, chunk: str) -> JSONValue:
        """The partial to yield after ``chunk``, ``None`` when there is nothing new."""
        before = self._text.value
        self._text = text = self._text.extend(chunk)
        value = text.value
        if value is None or value == before or value == self._shown:
            return None
        return None if lenient_errors(self._spec, value) else value

    async def aclose(self) -> None:
        """Abort the run if it is still going and wait for it to wind down."""
        await self._events.aclose()

    async def __aenter__(self) -> OutputStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
