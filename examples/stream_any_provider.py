"""Stream one reply from any supported provider through the engine to the console.

    python examples/stream_any_provider.py --model anthropic/claude-sonnet-4-5 "Hello"
    python examples/stream_any_provider.py --model openai/gpt-4.1 "Hello"
    python examples/stream_any_provider.py --model openai/llama3.1 \\
        --base-url http://127.0.0.1:11434/v1 --api-key none "Hello"

Keys come from ANTHROPIC_API_KEY / OPENAI_API_KEY unless ``--api-key`` is given.
``--replay FILE.sse`` serves a recorded provider stream from a local ReplayServer instead
of calling the provider (no key or network needed), e.g.
``--model anthropic/claude-test --replay tests/drivers/fixtures/anthropic/text.sse``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

from agentcore import Driver, ModelRequest
from agentcore.engine import create_agent
from agentcore.events import ErrorReceived, UserMessage
from drivers.testing import ReplayServer, sse_response
from presenters.console import ConsolePresenter


def make_driver(spec: str, base_url: str | None, api_key: str | None, thinking: str) -> Driver:
    """``provider/model`` -> a driver; the OpenAI driver is imported only when used."""
    provider, _, model = spec.partition("/")
    if not model:
        raise SystemExit(f"--model must look like provider/model, got {spec!r}")
    if provider == "anthropic":
        from drivers.anthropic import AnthropicDriver

        return AnthropicDriver(
            model,
            api_key=api_key,
            base_url=base_url,
            thinking_level=thinking,  # type: ignore[arg-type]
        )
    if provider == "openai":
        from drivers.openai import OpenAIDriver

        return OpenAIDriver(
            model,
            api_key=api_key,
            base_url=base_url,
            thinking_level=thinking,  # type: ignore[arg-type]
        )
    raise SystemExit(f"unknown provider {provider!r}; use anthropic/<model> or openai/<model>")


@contextlib.asynccontextmanager
async def endpoint(args: argparse.Namespace) -> AsyncIterator[tuple[str | None, str | None]]:
    """The base URL and key to use: a local ReplayServer when ``--replay`` is given."""
    if args.replay is None:
        yield args.base_url, args.api_key
        return
    async with ReplayServer([sse_response(args.replay)]) as server:
        suffix = "/v1" if args.model.startswith("openai/") else ""
        yield server.base_url + suffix, "replay-key"


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompt", nargs="?", default="Say hello in five words.")
    parser.add_argument("--model", required=True, help="anthropic/<model> or openai/<model>")
    parser.add_argument("--base-url", help="provider or OpenAI-compatible server URL")
    parser.add_argument("--api-key", help="default: the provider's environment variable")
    parser.add_argument("--thinking", default="off", help="off|minimal|low|medium|high|xhigh")
    parser.add_argument("--system", help="system prompt")
    parser.add_argument("--replay", help="serve this .sse fixture locally instead")
    args = parser.parse_args(argv)

    async with endpoint(args) as (base_url, api_key):
        driver = make_driver(args.model, base_url, api_key, args.thinking)
        presenter = ConsolePresenter()
        try:
            return await run(driver, presenter, args)
        finally:
            presenter.close()


async def run(driver: Driver, presenter: ConsolePresenter, args: argparse.Namespace) -> int:
    """Through the engine when it can be built; else the driver's raw stream events."""
    try:
        agent = create_agent(driver, [presenter], system_prompt=args.system)
    except ImportError as exc:  # the engine's processors are not all installed yet
        print(f"(engine unavailable: {exc}; showing the driver's stream events)")
        request = ModelRequest(
            messages=(UserMessage("prompt", args.prompt),), system_prompt=args.system
        )
        ok = True
        async for event in driver.receive(request):
            presenter.present("agent", event)
            ok = ok and not isinstance(event, ErrorReceived)
        return 0 if ok else 1
    try:
        reply: Any = await agent.receive(args.prompt)
    finally:
        await agent.destroy()
    return 1 if reply.assistant_message is None else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
