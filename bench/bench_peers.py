"""agentcore side by side with its peers (agno, LangGraph, pydantic-ai, OpenAI Agents).

The method is Agno's (``cookbook/performance`` in agno-agi/agno): each framework's model is
mocked at the framework's own boundary (agentcore ``FunctionDriver``, pydantic-ai
``FunctionModel``, Agno a ``Model`` subclass, LangChain a ``BaseChatModel`` subclass,
OpenAI Agents a ``Model`` subclass), all with the same texts, tool and deltas; the agent is
built once and reused; warm-up runs are not measured; each figure is a median. On top of
it: the frameworks run in interleaved rounds, their order rotated each round, so the load
of a busy machine weighs on all alike; each round runs a framework's scenarios in a fresh
subprocess (``bench/peers/_runner.py``) and its cold import in another (a fresh
interpreter, its modules' bytecode cached beforehand, as a pip install leaves it); the
figure is the median over rounds of each round's median. Ratios are peer time /
agentcore time (above 1: agentcore is faster).

The peers are installed by this bench with pip (pinned, ``PEERS``) into their own
virtualenv, ``bench/.peers-venv`` (ignored by git), never into the project's venv. A peer
that cannot be installed or run is named in the table with the reason; the others still
run. ``AGENTCORE_BENCH_SCALE`` (default 1.0) scales rounds and iterations, for a quick run
(0.2: about three minutes on two cores).

Run with ``python -m bench peers`` (``BENCH=peers make bench``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import venv
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

SCALE = float(os.environ.get("AGENTCORE_BENCH_SCALE", "1"))
ROUNDS = max(3, round(7 * SCALE))
ITERATIONS = max(5, round(50 * SCALE))
WARMUP = 3

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "bench" / "peers"
VENV = ROOT / "bench" / ".peers-venv"

AGENTCORE = "agentcore"


@attrs.frozen
class Framework:
    """One framework: its scenario module in ``bench/peers``, the pip requirements it is
    installed from (empty for agentcore, which runs in the project's venv), the import a
    user writes first (for the cold import), and the packages whose versions are shown."""

    name: str
    module: str
    requirements: tuple[str, ...]
    first_import: str
    packages: tuple[str, ...]


FRAMEWORKS = (
    Framework(
        AGENTCORE, "agentcore_side", (), "from agentcore import Agent", ("agentcore-engine",)
    ),
    Framework("agno", "agno_side", ("agno==3.1.10",), "from agno.agent import Agent", ("agno",)),
    Framework(
        "langgraph",
        "langgraph_side",
        ("langgraph==1.2.24", "langchain-core==1.8.3"),
        "from langgraph.prebuilt import create_react_agent",
        ("langgraph", "langchain-core"),
    ),
    Framework(
        "pydantic-ai",
        "pydantic_ai_side",
        ("pydantic-ai-slim==2.68.0",),
        "from pydantic_ai import Agent",
        ("pydantic-ai-slim",),
    ),
    Framework(
        "openai-agents",
        "openai_agents_side",
        ("openai-agents==0.24.0",),
        "from agents import Agent, Runner",
        ("openai-agents", "openai"),
    ),
)
PEERS = {f.name: f.requirements for f in FRAMEWORKS if f.requirements}
"""The pinned pip requirements of each peer."""

MEASURES = (
    ("single", "single-turn run, ~5-token answer", "time"),
    ("tool", "one tool call, then an answer", "time"),
    ("turns5", "5-turn conversation", "time"),
    ("turns25", "25-turn conversation", "time"),
    ("construct", "construction with one tool", "time"),
    ("memory", "memory of a constructed agent (tracemalloc)", "bytes"),
    ("stream", "streamed answer, per delta (1,000 deltas)", "time"),
    ("import", "cold import (subprocess)", "time"),
)


def _python(framework: Framework) -> Path:
    return Path(sys.executable) if not framework.requirements else VENV / "bin" / "python"


_DROPPED = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE")


def _env(framework: Framework) -> dict[str, str]:
    """The subprocess environment: bytecode cached for every framework alike (under the
    peers' venv, out of the source tree), as pip leaves it for an installed package; a
    shell that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise make agentcore, run
    from its checkout, compile every module at each import while the peers load theirs."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env["PYTHONPYCACHEPREFIX"] = str(VENV / "pycache")
    env["AGNO_TELEMETRY"] = "false"
    if not framework.requirements:
        env["PYTHONPATH"] = str(ROOT)
    return env


PEERS_PYTHON = VENV / "bin" / "python"
"""The interpreter of the peers' venv."""


def install(only: Sequence[str] | None = None) -> dict[str, str]:
    """Create the peers' venv when missing and pip-install each peer's pinned packages
    into it (one pip call per peer, skipped when its pins are already installed; only the
    peers named in ``only`` when given); returns why each peer that could not be
    installed was not."""
    failed: dict[str, str] = {}
    if not PEERS_PYTHON.exists():
        venv.create(VENV, with_pip=True, clear=True)
    for framework in FRAMEWORKS:
        if not framework.requirements or (only is not None and framework.name not in only):
            continue
        stamp = VENV / f".installed-{framework.name}"
        pins = "\n".join(framework.requirements)
        if stamp.exists() and stamp.read_text() == pins:
            continue
        print(f"installing {framework.name} ({', '.join(framework.requirements)})", flush=True)
        done = subprocess.run(
            [str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", *framework.requirements],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            stamp.write_text(pins)
        else:
            failed[framework.name] = "pip install failed: " + _last_line(done.stderr)
    return failed


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else "no output"


def versions(framework: Framework) -> str:
    """The installed versions of the framework's packages, as ``name version`` pairs."""
    code = (
        "import importlib.metadata as m, json, sys; "
        "print(json.dumps({p: m.version(p) for p in sys.argv[1:]}))"
    )
    done = subprocess.run(
        [str(_python(framework)), "-c", code, *framework.packages],
        capture_output=True,
        text=True,
        env=_env(framework),
    )
    if done.returncode != 0:
        return "unknown"
    found: dict[str, str] = json.loads(done.stdout)
    return ", ".join(f"{name} {version}" for name, version in found.items())


def run_scenarios(framework: Framework) -> dict[str, float]:
    """One round of the framework's scenarios in a fresh subprocess; raises
    ``RuntimeError`` with the subprocess's last error line when it fails."""
    done = subprocess.run(
        [
            str(_python(framework)),
            str(SCENARIOS / "_runner.py"),
            framework.module,
            str(ITERATIONS),
            str(WARMUP),
        ],
        capture_output=True,
        text=True,
        env=_env(framework),
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(_last_line(done.stderr))
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["import"] = cold_import(framework)
    return figures


def cold_import(framework: Framework) -> float:
    """Seconds for the framework's first import in a fresh interpreter."""
    code = (
        "import time; start = time.perf_counter(); "
        f"{framework.first_import}; print(time.perf_counter() - start)"
    )
    done = subprocess.run(
        [str(_python(framework)), "-c", code],
        capture_output=True,
        text=True,
        env=_env(framework),
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def measure(
    frameworks: Sequence[Framework], failed: dict[str, str], rounds: int
) -> dict[str, dict[str, float]]:
    """The medians over ``rounds`` interleaved rounds (order rotated each round) of each
    framework not in ``failed``; a framework that fails is added to ``failed``."""
    samples: dict[str, list[dict[str, float]]] = {f.name: [] for f in frameworks}
    for number in range(rounds):
        shift = number % len(frameworks)
        for framework in (*frameworks[shift:], *frameworks[:shift]):
            if framework.name in failed:
                continue
            try:
                samples[framework.name].append(run_scenarios(framework))
            except (RuntimeError, subprocess.SubprocessError, ValueError) as exc:
                failed[framework.name] = f"did not run: {exc}"
        print(f"round {number + 1}/{rounds} done", flush=True)
    return {
        name: {key: statistics.median(r[key] for r in rounds_) for key in rounds_[0]}
        for name, rounds_ in samples.items()
        if rounds_ and name not in failed
    }


def _figure(value: float, kind: str) -> str:
    if kind == "bytes":
        return f"{value / 1024:.1f} KiB"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.2f} µs"


def table(
    medians: Mapping[str, Mapping[str, float]],
    failed: Mapping[str, str],
    names: Sequence[str],
) -> str:
    """A markdown table: a row per measure, a column per peer (its ratio to agentcore, or
    why it was not measured) and agentcore's median last."""
    peers = [name for name in names if name != AGENTCORE]
    lines = [
        "| measure | " + " | ".join(peers) + " | agentcore median |",
        "|---|" + "---|" * (len(peers) + 1),
    ]
    ours = medians.get(AGENTCORE)
    for key, label, kind in MEASURES:
        cells = []
        for peer in peers:
            if peer in failed:
                cells.append("not run")
            elif ours is None:
                cells.append(_figure(medians[peer][key], kind))
            else:
                ratio = medians[peer][key] / ours[key]
                cells.append(f"{ratio:.2f}x ({_figure(medians[peer][key], kind)})")
        mine = "not run" if ours is None else _figure(ours[key], kind)
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {mine} |")
    for name in names:
        if name in failed:
            lines.append(f"\n{name} not run: {failed[name]}")
    return "\n".join(lines)


def main() -> None:
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)", flush=True)
    failed = install()
    for framework in FRAMEWORKS:
        if framework.name not in failed:
            print(f"{framework.name}: {versions(framework)}", flush=True)
    for framework in FRAMEWORKS:  # the bytecode caches written before any import is timed
        if framework.name not in failed:
            cold_import(framework)
    print(f"{ROUNDS} rounds of {ITERATIONS} iterations (after {WARMUP} warm-up runs)", flush=True)
    medians = measure(FRAMEWORKS, failed, ROUNDS)
    print("ratios are peer time / agentcore time (above 1: agentcore is faster)")
    print(table(medians, failed, [f.name for f in FRAMEWORKS]))
    print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)
