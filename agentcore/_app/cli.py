"""The agentcore command: chat, code, serve agents, run durable workers, replay journals.

::

    agentcore replay FILE [--layer stream|message|state|turn ...] [--json] [--agent ID]
    agentcore inspect FILE --seq N [--agent ID]

``chat``, ``code``, ``serve``, ``worker``, ``mcp-serve`` and ``a2a-serve`` are registered by
their own modules (``COMMAND_MODULES``); ``replay`` and ``inspect`` look at recorded
sessions without a key or a network. ``replay`` folds a journal through a fresh machine.
With no ``--layer`` it renders the conversation on the console presenter; with ``--layer``
it prints one line per event of the chosen layers; with ``--json`` it prints one JSON object
per event (``{"agent_id", "seq", "layer", "event"}``, ``seq`` being the input event's).
``inspect`` prints the machine state after event ``N``.

Adding a command: write a module with ``configure(parser)`` and ``run(args) -> int`` and
call ``register_command(name, help, configure, run)`` from it, then list the module in
``COMMAND_MODULES`` below (imported when the parser is built).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import attrs

from .._core.errors import ConfigurationError
from .._core.events import LAYERS
from .._core.machine import MealyMachine
from .._core.wire import from_dict, to_dict
from .._edges.driver import Driver
from .._journal.describe import describe
from .._journal.journal import JournalError, MemoryJournal
from .._journal.read import dumps as _dumps
from .._journal.read import load_line
from .._journal.replay import JournalSource, entries_of, replay_steps, state_at
from .._journal.state_view import render_state
from .._loop.conversation import create_conversation_machine
from .._runtime.plugins import price_table, resolve_model

__all__ = [
    "COMMAND_MODULES",
    "Command",
    "add_base_url",
    "build_parser",
    "describe",
    "main",
    "model_at",
    "model_refused",
    "register_command",
]

COMMAND_MODULES: tuple[str, ...] = (
    "agentcore._app.chat",
    "agentcore._app.serve",
    "agentcore._app.code",
    "agentcore._app.worker",
    "agentcore._app.mcp_serve",
    "agentcore._app.a2a_serve",
    "agentcore._app.evals",
)
"""Modules that register more subcommands (e.g. ``chat``) when imported."""

LAYER_NAMES = ("stream", "message", "state", "turn", "loop")


@attrs.frozen
class Command:
    """A subcommand: ``configure`` adds its arguments, ``run`` returns the exit status."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


_COMMANDS: dict[str, Command] = {}


def register_command(
    name: str,
    help: str,
    configure: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
) -> None:
    """Add a subcommand; a second registration of ``name`` replaces the first."""
    _COMMANDS[name] = Command(name, help, configure, run)


def add_base_url(parser: argparse.ArgumentParser) -> None:
    """``--base-url``, the same on every command that runs a model."""
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the provider's API address, for an OpenAI-compatible server or a gateway "
        "(default: the provider's own)",
    )


def model_at(spec: str, base_url: str | None) -> Driver:
    """The driver for ``spec`` (``provider/model``), at ``base_url`` when one is given."""
    return resolve_model(spec) if base_url is None else resolve_model(spec, base_url=base_url)


def model_refused(command: str, error: ConfigurationError, key_option: str | None = None) -> int:
    """Say why ``command`` cannot run its model (one line on stderr) and return 2; a key
    error names ``key_option`` when the command has one."""
    hint = f" (on the command line: {key_option} KEY)" if key_option and _key_error(error) else ""
    print(f"agentcore {command}: {error.message}{hint}", file=sys.stderr)
    return 2


def listen(command: str, host: str, port: int) -> socket.socket | None:
    """A socket bound to ``host``:``port`` (0: any free one) and listening, so the address
    shown and advertised is the real one; ``None`` after one line on stderr when it cannot
    be bound (the port in use, an unknown address)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        print(
            f"agentcore {command}: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr
        )
        return None
    sock.listen(128)
    return sock


def _key_error(error: ConfigurationError) -> bool:
    return "API key" in error.message


def priced_machine() -> MealyMachine:
    """The conversation machine with the registered price tables, so turns show cost."""
    return create_conversation_machine(price_table())


def _source(path: str) -> JournalSource:
    """A journal path, or a provider ``.sse`` recording run through its driver into one."""
    if not path.endswith(".sse"):
        return path
    from agentcore.drivers.recorded_sse import recorded_call  # an entry point may load plugins

    journal = MemoryJournal()
    for event in asyncio.run(recorded_call(path)):
        journal.append("recorded", event)
    return journal


def _presenter_file(path: str) -> bool:
    """Whether ``path`` is a ``JsonlPresenter``'s output (``{"agent_id", "event"}`` lines,
    every output already there) rather than a journal (``{"agent_id", "seq", "event"}``
    lines, the inputs only)."""
    if path.endswith(".sse"):
        return False
    with open(path, "rb") as file:
        first = next((line for line in file if line.strip()), b"")
    try:
        record = load_line(first)
    except ValueError:
        return False
    return isinstance(record, dict) and set(record) == {"agent_id", "event"}


def _presented(path: str, agent: str | None) -> Iterator[tuple[str, int, Any]]:
    """The outputs a presenter wrote, as they were (line numbers for ``seq``)."""
    with open(path, "rb") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                record = load_line(line)
                event = from_dict(record["event"])
            except (KeyError, TypeError, ValueError) as exc:
                raise JournalError(
                    f"{path}:{number}: not a presenter's output line ({exc})"
                ) from None
            if agent is None or record["agent_id"] == agent:
                yield record["agent_id"], number, event


def _replayed(args: argparse.Namespace) -> Iterator[tuple[str, int, Any]]:
    """``(agent_id, seq, event)`` for every input and output, in order: a stream-layer
    input is the first output of its step; a command (``agent_prompt``...) comes first.
    A presenter's output file is shown as it was written (it holds every output)."""
    if _presenter_file(args.file):
        print(
            f"agentcore: {args.file} is a presenter's output (every output, as written): "
            "shown as it is, not replayed",
            file=sys.stderr,
        )
        yield from _presented(args.file, args.agent)
        return
    source = _source(args.file)
    for entry, outputs in replay_steps(source, agent_id=args.agent, machine_factory=priced_machine):
        if not outputs or outputs[0] is not entry.event:
            yield entry.agent_id, entry.seq, entry.event
        for output in outputs:
            yield entry.agent_id, entry.seq, output


def _configure_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a JSONL journal")
    parser.add_argument(
        "--layer",
        action="append",
        choices=LAYER_NAMES,
        help="print only these layers, one line per event (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument("--agent", help="only this agent's events")


def _run_replay(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    layers = set(args.layer or ())
    if args.json or layers:
        for agent_id, seq, event in _replayed(args):
            layer = LAYERS.get(event.type, "")
            if layers and layer not in layers:
                continue
            if args.json:
                record = {"agent_id": agent_id, "seq": seq, "layer": layer, "event": to_dict(event)}
                out.write(_dumps(record).decode() + "\n")
            else:
                out.write(f"{seq:>5} {layer:<8} {describe(event)}\n")
        return 0
    # The CLI is the application edge, so it may load a plugin (inside the function only).
    from agentcore.presenters.console import ConsolePresenter

    presenter = ConsolePresenter(spinner=False, agent_prefix=args.agent is None)
    try:
        for agent_id, _seq, event in _replayed(args):
            presenter.present(agent_id, event)
    finally:
        presenter.close()
    return 0


def _configure_inspect(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a JSONL journal")
    parser.add_argument("--seq", type=int, required=True, help="event number (from 1)")
    parser.add_argument("--agent", help="the agent (needed when the journal has several)")


def _run_inspect(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if _presenter_file(args.file):
        raise ValueError(
            f"{args.file} is a presenter's output file: it holds the outputs, not the inputs "
            "a state is folded from; inspect the agent's journal (or replay this file to "
            "read it)"
        )
    agent, source = args.agent, _source(args.file)
    if agent is None:
        agents = list(dict.fromkeys(e.agent_id for e in entries_of(source)))
        if len(agents) != 1:
            raise ValueError(f"the journal has agents {agents}; choose one with --agent")
        agent = agents[0]
    state = state_at(source, agent, args.seq, machine_factory=priced_machine)
    event = next(e.event for e in entries_of(source, agent) if e.seq == args.seq)
    out.write(f"agent {agent} after seq {args.seq} ({describe(event)}):\n")
    out.write(render_state(state) + "\n")
    return 0


register_command("replay", "replay a journal through the machine", _configure_replay, _run_replay)
register_command(
    "inspect", "print the machine state after an event", _configure_inspect, _run_inspect
)


def build_parser() -> argparse.ArgumentParser:
    """The parser with every registered subcommand (``COMMAND_MODULES`` imported first)."""
    for module in COMMAND_MODULES:
        importlib.import_module(module)
    parser = argparse.ArgumentParser(prog="agentcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in _COMMANDS.values():
        command.configure(sub.add_parser(command.name, help=command.help))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (errors print one clear line)."""
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command].run(args)
    except BrokenPipeError:  # the reader went away (``| head``): not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps interpreter exit quiet
        return 0
    except FileNotFoundError as exc:
        print(f"agentcore: no such file: {exc.filename}", file=sys.stderr)
        return 2
    except (JournalError, ValueError) as exc:
        print(f"agentcore: {exc}", file=sys.stderr)
        return 1
