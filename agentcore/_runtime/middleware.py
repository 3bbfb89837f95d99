"""What ``receive`` returns (``Reply``), its queue's view, and interceptors: a chain of
plain callables in front of delivery. (Middleware over a run's actions: ``actions``.)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from .._core.events import AssistantMessage, UserMessage
from .delivery import EngineFailure, Reporter
from .subscriptions import Unsubscribe

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

__all__ = [
    "Interceptor",
    "MessageQueueView",
    "Reply",
    "all_of",
    "intercepting",
]


@frozen
class Reply:
    """What ``receive`` returns: the machine outputs of *that* message, in order.

    ``outputs`` are the raw machine outputs (before interceptors), the same ones
    ``journal.replay`` yields for the message. ``interrupted`` is true when the turn was
    cut short by ``interrupt()``, a cancelled caller or ``destroy()``.
    """

    message: UserMessage
    outputs: tuple[Any, ...]
    interrupted: bool = False

    @property
    def assistant_message(self) -> AssistantMessage | None:
        """The last assistant message of the turn, if the model produced one."""
        for output in reversed(self.outputs):
            if isinstance(output, AssistantMessage):
                return output
        return None

    @property
    def text(self) -> str:
        """The text of the last assistant message ("" when there is none)."""
        message = self.assistant_message
        return "" if message is None else message.text


Interceptor: TypeAlias = Callable[[Any, Callable[[Any], None]], object]
"""``def ic(output, next)``: call ``next(output)`` (maybe with a changed output) to
deliver it; not calling ``next`` blocks it from agentcore.presenters and subscribers."""


@frozen
class MessageQueueView:
    """A read-only view of messages waiting behind the one being processed."""

    _queue: deque[Any]

    @property
    def length(self) -> int:
        return len(self._queue)

    @property
    def is_empty(self) -> bool:
        return not self._queue

    def __len__(self) -> int:
        return len(self._queue)


def intercepting(
    interceptor: Interceptor, inner: Callable[[Any], None], report: Reporter
) -> Callable[[Any], None]:
    def step(output: Any) -> None:
        try:
            interceptor(output, inner)
        except Exception as exc:
            report(EngineFailure("interceptor", repr(interceptor), exc, output))

    return step


def all_of(removers: list[Unsubscribe]) -> Unsubscribe:
    def remove() -> None:
        for r in removers:
            r()

    return remove
