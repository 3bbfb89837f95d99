"""Core throughput: the standard trace through ``agent_processor`` in a ``MealyMachine``.

The standard trace is one user message, then one assistant message of 20,000 text deltas
of 4 characters, then 50 tool calls each streamed as ``tool_use_start`` + 20
``input_json_delta`` + ``tool_use_stop``, then ``message_stop`` (21,103 events). It is
built up front, so only processing is timed, and moved out of the garbage collector's
reach (``gc.freeze``): a streamed event is gone once folded, so a trace kept whole would
make every full collection walk tens of thousands of objects no real run holds. Printed:

- events/s through the machine (median of 5 runs, a fresh machine each run);
- events/s of a bare-Python loop over the same trace that only appends chunks to lists
  and joins them at the end (the floor any engine pays), and the ratio between the two;
- cost per event, and marginal cost per text delta, at 2,000 / 20,000 / 200,000 text
  deltas, with their spread (max / min); the marginal cost's should stay within 1.5x:
  appending must never copy what came before.

Run with ``python -m bench core``. Targets: >= 1,000,000 events/s, spread <= 1.5x.
"""

from __future__ import annotations

import gc
import json
import pathlib
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

import attrs

from agentcore.events import (
    AssistantMessage,
    InputJsonDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)
from agentcore.machine import create_mealy_machine

TOOL_CALLS = 50
JSON_DELTAS = 20
RUNS = 5
TARGET_EVENTS_PER_S = 1_000_000
SIZES = (2_000, 20_000, 200_000)


def standard_trace(text_deltas: int = 20_000) -> list[Any]:
    """The benchmark trace with ``text_deltas`` text chunks (timestamps 1 ms apart)."""
    trace: list[Any] = [UserMessage("u1", "go"), MessageStart("m1", "claude-sonnet-4-5")]
    trace += [TextDelta(f"w{i % 100:02d} ", 0) for i in range(text_deltas)]
    for call in range(TOOL_CALLS):
        index = call + 1
        arguments = '{"query": "' + "x" * (JSON_DELTAS * 4 - 14) + '"}'
        step = len(arguments) // JSON_DELTAS
        chunks = [arguments[i * step : (i + 1) * step] for i in range(JSON_DELTAS - 1)]
        chunks.append(arguments[(JSON_DELTAS - 1) * step :])
        trace.append(ToolUseStart(f"call_{call}", "search", index))
        trace += [InputJsonDelta(chunk, index) for chunk in chunks]
        trace.append(ToolUseStop(f"call_{call}", index))
    trace.append(MessageStop("tool_use"))
    return [attrs.evolve(e, timestamp=t) for t, e in enumerate(trace, start=1)]


def run_machine(trace: list[Any]) -> tuple[Any, ...]:
    """Push the trace through a fresh default machine; return the last step's outputs."""
    process = create_mealy_machine().process
    outputs: tuple[Any, ...] = ()
    for event in trace:
        outputs = process("agent", event)
    return outputs


def run_bare(trace: list[Any]) -> tuple[str, dict[int, str]]:
    """The floor: append every chunk to a list, join at the end. No state, no outputs."""
    text: list[str] = []
    tool_inputs: dict[int, list[str]] = {}
    for event in trace:
        kind = type(event)
        if kind is TextDelta:
            text.append(event.text)
        elif kind is InputJsonDelta:
            tool_inputs.setdefault(event.index, []).append(event.partial_json)
    return "".join(text), {i: "".join(parts) for i, parts in tool_inputs.items()}


def timings(fn: Callable[[list[Any]], object], trace: list[Any], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(trace)
        times.append(time.perf_counter() - start)
    return times


def check(trace: list[Any]) -> None:
    """The machine really assembled the message (a benchmark of wrong code is worthless)."""
    messages = [o for o in run_machine(trace) if isinstance(o, AssistantMessage)]
    text, inputs = run_bare(trace)
    if len(messages) != 1 or messages[0].text != text:
        raise SystemExit("bench_core: the machine did not assemble the expected message")
    if len(messages[0].tool_calls) != len(inputs):
        raise SystemExit("bench_core: the machine lost tool calls")


def main() -> None:
    trace = standard_trace()
    gc.freeze()  # the trace is input data: full collections need not walk it
    check(trace)
    n = len(trace)
    machine = timings(run_machine, trace, RUNS)
    bare_s = statistics.median(timings(run_bare, trace, RUNS))
    rate, bare_rate = n / statistics.median(machine), n / bare_s
    print(f"standard trace: {n:,} events")
    print(_rate_line("machine (agent_processor)", rate))
    print(_rate_line("  best of the runs", n / min(machine)))
    print(_rate_line("bare append+join loop", bare_rate))
    print(f"  machine / bare cost ratio: {bare_rate / rate:.1f}x")
    verdict = "meets" if rate >= TARGET_EVENTS_PER_S else "MISSES"
    print(f"  target {TARGET_EVENTS_PER_S:,} events/s (median): {verdict}")
    print_parts_manager(trace)
    print_scaling()


def print_parts_manager(trace: list[Any]) -> None:
    """The machine beside pydantic-ai's ``ModelResponsePartsManager`` on the same stream
    (``bench/peers/parts_manager.py``, run in the peers' venv that ``bench peers``
    installs), timed in interleaved rounds so load weighs on both alike; the ratio is
    of the medians of the whole trace's time (the machine's trace holds 53 events more:
    the user message, ``message_start``/``message_stop`` and each ``tool_use_stop``)."""
    from .bench_peers import PEERS_PYTHON, install

    failed = install(only=("pydantic-ai",))
    if failed:
        print(f"  pydantic-ai parts manager not run: {failed['pydantic-ai']}")
        return
    script = str(pathlib.Path(__file__).parent / "peers" / "parts_manager.py")
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(RUNS):
        ours += timings(run_machine, trace, 3)
        done = subprocess.run(
            [str(PEERS_PYTHON), script, "3"], capture_output=True, text=True, check=True
        )
        theirs += json.loads(done.stdout)["seconds"]
    mine, peer = statistics.median(ours), statistics.median(theirs)
    print(
        f"  pydantic-ai parts manager, same stream: {peer * 1e3:.1f} ms per trace vs the "
        f"machine's {mine * 1e3:.1f} ms: machine {peer / mine:.2f}x faster (target >= 5x)"
    )


def print_scaling() -> None:
    """Cost per event, and per text delta, as the message grows 100-fold.

    Sizes are timed interleaved (so machine load hits them alike), each timing covering
    at least ~200,000 events, in CPU time (``thread_time``: the other processes of a
    shared machine do not count); the best of 5 is kept, as other load only ever adds
    time. The 50 tool calls (1,103 events, each dearer than a text delta: a collected
    delta costs a list append) weigh more in a short trace, so only the *marginal* cost
    per text delta (time minus the tool-only trace's, over the number of deltas) is held
    to the flatness target: appending must not get dearer as the message grows. Cost per
    event is printed for reference.
    """
    traces = {size: standard_trace(size) for size in (0, *SIZES)}
    gc.freeze()
    per_size: dict[int, list[float]] = {size: [] for size in traces}
    for _ in range(RUNS):
        for size, trace in traces.items():
            repeats = max(1, 200_000 // len(trace))
            start = time.thread_time()
            for _ in range(repeats):
                run_machine(trace)
            per_size[size].append((time.thread_time() - start) / repeats)
    seconds = {size: min(ts) for size, ts in per_size.items()}
    per_event, per_delta = [], []
    for size in SIZES:
        per_event.append(seconds[size] / len(traces[size]) * 1e6)
        per_delta.append((seconds[size] - seconds[0]) / size * 1e6)
        print(
            f"  {size:>7,} text deltas: {per_event[-1]:.3f} us/event, "
            f"{per_delta[-1]:.3f} us per extra text delta"
        )
    print(f"  spread 2k..200k, per event: {max(per_event) / min(per_event):.2f}x (for reference)")
    spread = max(per_delta) / min(per_delta)
    flat = "flat" if spread <= 1.5 else "NOT flat"
    print(f"  spread 2k..200k, per text delta: {spread:.2f}x ({flat}; target <= 1.5x)")


def _rate_line(label: str, rate: float) -> str:
    return f"  {label + ':':<28}{rate:>12,.0f} events/s  ({1e6 / rate:.3f} us/event)"


if __name__ == "__main__":
    main()
