"""``agentcore chat --model PROVIDER/MODEL [--base-url URL] [--system TEXT]``: a terminal chat.

Each line you type is a prompt; the agent delivers the conversation straight to the
console presenter (streamed text, tool calls and results, a footer with tokens and cost
after each turn). Commands:
``/quit`` (or end of input) leaves, ``/clear`` clears the screen, ``/reset`` forgets the
conversation. Ctrl-C while the agent works aborts the current turn (what was streamed is
kept) and returns to the prompt; Ctrl-C at the prompt only reminds you of ``/quit``.

This is the application edge, so it uses plugins (the console presenter, the driver
registry), imported inside ``_run`` only: ``import agentcore`` never loads them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable

from .._core.errors import ConfigurationError
from .._runtime.agent import Agent
from .cli import add_base_url, model_refused, register_command

__all__ = ["chat"]

HELP = "commands: /quit (or Ctrl-D) leave, /clear clear the screen, /reset forget the chat"


async def chat(
    agent: Agent,
    read_line: Callable[[], Awaitable[str | None]],
    write: Callable[[str], None],
) -> int:
    """Run the chat until ``/quit`` or end of input (``read_line`` returning ``None``).

    The agent's presenters show the conversation (every layer: streamed text, tool calls
    and results, turn footers); ``write`` prints the chat's own lines. Returns 0.
    """
    write(f"agentcore chat — {HELP}\n")
    while True:
        line = await read_line()
        if line is None or line.strip() == "/quit":
            return 0
        text = line.strip()
        if not text:
            continue
        if text == "/clear":
            write("\x1b[2J\x1b[H")
        elif text == "/reset":
            agent.reset()
            write("(conversation forgotten)\n")
        elif text.startswith("/"):
            write(f"unknown command {text!r}; {HELP}\n")
        else:
            await agent.prompt(text)
            await agent.drain()
            write("\n")


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", required=True, help="PROVIDER/MODEL, e.g. anthropic/claude-sonnet-4-5"
    )
    add_base_url(parser)
    parser.add_argument("--api-key", help="the provider's key (default: its environment variable)")
    parser.add_argument("--system", help="system prompt")


def _run(args: argparse.Namespace) -> int:
    from agentcore.drivers import registry
    from agentcore.presenters.console import ConsolePresenter

    try:  # before the first prompt: an unknown provider or a missing key fails now
        driver = registry.get_driver(args.model, base_url=args.base_url, api_key=args.api_key)
    except ConfigurationError as exc:
        return model_refused("chat", exc, "--api-key")
    presenter = ConsolePresenter(show_user=False)
    agent = Agent(driver, system_prompt=args.system, presenters=[presenter], agent_id="chat")

    async def read_line() -> str | None:
        try:
            return await asyncio.to_thread(input, "> ")
        except EOFError:
            return None

    async def main() -> int:
        def on_sigint() -> None:
            if agent.state.is_streaming:
                agent.abort("ctrl-c")
            else:
                sys.stdout.write("\n(type /quit to leave)\n> ")
                sys.stdout.flush()

        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError):  # not on Windows
            loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            return await chat(agent, read_line, _write_stdout)
        finally:
            await agent.aclose()
            await driver.aclose()
            presenter.close()

    return asyncio.run(main())


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


register_command("chat", "chat with a model in the terminal", _configure, _run)
