"""A presenter that writes one structured stdlib ``logging`` record per output.

Each record's message is ``"agentcore <type> agent=<agent_id>"`` (formatted lazily) and
carries ``extra`` fields ``agent_id``, ``event_type`` and ``event`` (the wire form from
``agentcore.events.to_dict``), ready for a JSON log formatter. Outputs of later layers are
logged the same way; an object that is not a registered event is logged with only its type.

Levels: stream deltas (``text_delta``, ``thinking_delta``, ``input_json_delta``) log at
DEBUG, since they are most of the traffic and say little alone; ``error_occurred`` and
``tool_failed`` at WARNING; everything else at ``level`` (INFO). ``levels`` overrides any
type. When the logger is not enabled for a record's level, the output is not even encoded.

Events never hold credentials (drivers keep API keys and headers out of them), so logging
them leaks none; tool results and user text *are* logged, so mind who reads the logs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from agentcore import to_dict
from agentcore.events import EVENT_TYPES

from ._base import Filter, output_type

__all__ = ["DEFAULT_LEVELS", "LoggingPresenter", "encode"]

DEFAULT_LEVELS: Mapping[str, int] = {
    "text_delta": logging.DEBUG,
    "thinking_delta": logging.DEBUG,
    "input_json_delta": logging.DEBUG,
    "error_occurred": logging.WARNING,
    "tool_failed": logging.WARNING,
}
"""Per-type levels used unless ``levels`` overrides them."""


def encode(agent_id: str, output: Any) -> dict[str, Any]:
    """The ``extra`` fields of the record for one output: ``agent_id``, ``event_type``, ``event``.

    ``event`` is the wire form, or ``{"type": <class name>}`` for an unregistered object.
    """
    name = output_type(output)
    event = to_dict(output) if EVENT_TYPES.get(name) is type(output) else {"type": name}
    return {"agent_id": agent_id, "event_type": name, "event": event}


class LoggingPresenter:
    """Logs every selected output to ``logger`` (default ``logging.getLogger("agentcore.events")``).

    ``layers``/``types`` select outputs (see ``presenters._base.Filter``; by default all);
    ``level`` is the default level and ``levels`` maps wire types to their own levels on top
    of ``DEFAULT_LEVELS``. Unknown layer or type names raise ``ValueError`` at once.
    ``present`` is synchronous; it raises only if a logging handler does.
    """

    def __init__(
        self,
        logger: logging.Logger | None = None,
        level: int = logging.INFO,
        layers: Iterable[str] | str | None = None,
        types: Iterable[str] | str | None = None,
        levels: Mapping[str, int] | None = None,
    ) -> None:
        self.logger = logger if logger is not None else logging.getLogger("agentcore.events")
        self.filter = Filter(layers, types)
        unknown = set(levels or ()) - EVENT_TYPES.keys()
        if unknown:
            raise ValueError(f"levels names unknown event type(s) {sorted(unknown)}")
        self.level = level
        self.levels: dict[str, int] = {**DEFAULT_LEVELS, **(levels or {})}

    def level_for(self, output: Any) -> int:
        """The level ``output`` is logged at."""
        return self.levels.get(output_type(output), self.level)

    def present(self, agent_id: str, output: Any) -> None:
        if not self.filter(output):
            return
        level = self.level_for(output)
        if not self.logger.isEnabledFor(level):
            return
        extra = encode(agent_id, output)
        self.logger.log(level, "agentcore %s agent=%s", extra["event_type"], agent_id, extra=extra)
