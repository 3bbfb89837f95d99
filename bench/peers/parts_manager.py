"""pydantic-ai's ``ModelResponsePartsManager`` on ``bench core``'s standard trace.

Run in the peers' venv by ``bench/bench_core.py``: ``python parts_manager.py <runs>``
prints one JSON line, the seconds of each run. The trace is the standard one's stream
part in pydantic-ai's terms (its parts manager is what its model classes feed each
streamed chunk to): 20,000 text deltas of 4 characters on vendor part 0, then 50 tool
calls, each a ``handle_tool_call_delta`` with the name and id then 20 with argument
chunks. Each run uses a fresh manager and consumes every event it yields; the parts
are read at the end (``get_parts``) as the machine's run ends with its message. The
trace, built up front, is moved out of the garbage collector's reach (``gc.freeze``) as
bench core does with its own.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from typing import Any

from pydantic_ai._parts_manager import ModelResponsePartsManager
from pydantic_ai.models import ModelRequestParameters

TEXT_DELTAS = 20_000
TOOL_CALLS = 50
JSON_DELTAS = 20


def trace() -> list[tuple[str, dict[str, Any]]]:
    """``(method, keyword arguments)`` per streamed event, as bench core's trace."""
    events: list[tuple[str, dict[str, Any]]] = [
        ("text", {"vendor_part_id": 0, "content": f"w{i % 100:02d} "}) for i in range(TEXT_DELTAS)
    ]
    for call in range(TOOL_CALLS):
        index = call + 1
        arguments = '{"query": "' + "x" * (JSON_DELTAS * 4 - 14) + '"}'
        step = len(arguments) // JSON_DELTAS
        chunks = [arguments[i * step : (i + 1) * step] for i in range(JSON_DELTAS - 1)]
        chunks.append(arguments[(JSON_DELTAS - 1) * step :])
        events.append(
            (
                "tool",
                {"vendor_part_id": index, "tool_name": "search", "tool_call_id": f"call_{call}"},
            )
        )
        events += [("tool", {"vendor_part_id": index, "args": chunk}) for chunk in chunks]
    return events


def run(events: list[tuple[str, dict[str, Any]]]) -> int:
    manager = ModelResponsePartsManager(ModelRequestParameters())
    text, tool = manager.handle_text_delta, manager.handle_tool_call_delta
    for kind, kwargs in events:
        if kind == "text":
            for _ in text(**kwargs):
                pass
        else:
            tool(**kwargs)
    return len(manager.get_parts())


def main(runs: int) -> None:
    events = trace()
    gc.freeze()  # the trace is input, as in bench core: collections do not walk it
    parts = run(events)
    assert parts == 1 + TOOL_CALLS, parts
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        run(events)
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"events": len(events), "seconds": seconds}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
