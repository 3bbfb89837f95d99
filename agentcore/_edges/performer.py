"""The ``Performer`` protocol: what turns an agent's effect requests into I/O.

The conversation processor asks for effects as outputs (``CallModel``, ``ExecuteTools``,
``SetTimer``, ``CancelTools``, ...: ``agentcore.loop.EFFECTS``); its ``Conversation``
hands each to a performer, and whatever the performer learns comes back as an input
through the conversation's ``feed`` (given to the performer when it is made), so the
journal holds it and a replay reproduces what followed. Two implementations exist: the
in-process ``LocalPerformer`` (tasks in this event loop) and the durable worker's
``DurablePerformer`` (each effect a DBOS step). ``BasePerformer`` is the no-op base: a
conversation nobody performs for (a follower, a replay) and the optional parts of a new
performer.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["BasePerformer", "Performer"]


@runtime_checkable
class Performer(Protocol):
    """Perform effects; feed their results back as inputs; cancel; ``aclose``."""

    @property
    def in_flight(self) -> bool:
        """Whether an effect is being performed (a model call or a tool call runs)."""
        ...

    def perform(self, effect: Any) -> None:
        """Start performing ``effect`` (an output of ``EFFECTS``); its results are fed
        back later. Never blocks: called from inside the fold."""
        ...

    def cancel(self) -> None:
        """Stop whatever is in flight without waiting; feeds nothing more for it."""
        ...

    # ``CancelTools`` is performed by cancelling the calls, nothing more: the loop has
    # answered them itself (``ABORTED``) in the step that asked for the cancel, and drops
    # a result that comes late.

    async def aclose(self) -> None:
        """``cancel``, then wait for what was in flight to end; idempotent."""
        ...


class BasePerformer:
    """A performer that performs nothing: every part a no-op (module docstring)."""

    @property
    def in_flight(self) -> bool:
        return False

    def perform(self, effect: Any) -> None:
        """Nothing to perform."""

    def cancel(self) -> None:
        """Nothing in flight."""

    async def aclose(self) -> None:
        self.cancel()
