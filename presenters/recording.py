"""A presenter that remembers everything it was given: the testing kit's sink.

Use it to assert on what an engine emitted::

    rec = RecordingPresenter()
    engine = create_agent(driver=..., presenters=[rec])
    await engine.receive("hi")
    assert rec.types()[-1] == "turn_response"
    assert "".join(d.text for d in rec.outputs(type="text_delta")) == "Hello"
"""

from __future__ import annotations

from typing import Any

from ._base import output_type

__all__ = ["RecordingPresenter"]


class RecordingPresenter:
    """Keeps every ``(agent_id, output)`` pair in ``records``, in arrival order.

    ``present`` is synchronous, never raises and never copies: outputs are immutable, so
    the recorded objects are the ones the engine emitted.
    """

    def __init__(self) -> None:
        self.records: list[tuple[str, Any]] = []

    def present(self, agent_id: str, output: Any) -> None:
        self.records.append((agent_id, output))

    def outputs(
        self,
        agent_id: str | None = None,
        type: str | type[Any] | tuple[str | type[Any], ...] | None = None,
    ) -> list[Any]:
        """Recorded outputs, optionally only those of ``agent_id`` and/or of ``type``.

        ``type`` is a wire name (``"text_delta"``), an event class, or a tuple of either.
        """
        wanted = type if isinstance(type, tuple) else (type,) if type is not None else ()
        names = {w for w in wanted if isinstance(w, str)}
        classes = tuple(w for w in wanted if not isinstance(w, str))
        return [
            out
            for aid, out in self.records
            if (agent_id is None or aid == agent_id)
            and (not wanted or output_type(out) in names or isinstance(out, classes))
        ]

    def types(self, agent_id: str | None = None) -> list[str]:
        """The wire names of the recorded outputs, in order (handy for sequence asserts)."""
        return [output_type(out) for out in self.outputs(agent_id)]

    def agent_ids(self) -> list[str]:
        """The agents seen, in order of their first output."""
        return list(dict.fromkeys(aid for aid, _ in self.records))

    def clear(self) -> None:
        """Forget everything recorded so far."""
        self.records.clear()

    def __len__(self) -> int:
        return len(self.records)
