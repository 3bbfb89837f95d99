"""Stream one reply from any supported provider through an agent to the console.

    python examples/stream_any_provider.py --model anthropic/claude-sonnet-4-5 "Hello"
    python examples/stream_any_provider.py --model openai/gpt-4.1 "Hello"
    python examples/stream_any_provider.py --model openai/llama3.1 \\
        --base-url http://127.0.0.1:11434/v1 "Hello"

Any ``provider/model`` the registry knows works (``ollama/...``, ``openrouter/...``...).
Keys come from the provider's environment variable unless ``--api-key`` is given.
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

from agentcore import AgentError, create_agent
from agentcore.drivers.registry import get_driver
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.presenters.console import ConsolePresenter


@contextlib.asynccontextmanager
async def endpoint(args: argparse.Namespace) -> AsyncIterator[tuple[str | None, str | None]]:
    """The base URL and key to use: a local ReplayServer when ``--replay`` is given."""
    if args.replay is None:
        yield args.base_url, args.api_key
        return
    async with ReplayServer([sse_response(args.replay)]) as server:
        yield server.base_url, "replay-key"


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompt", nargs="?", default="Say hello in five words.")
    parser.add_argument("--model", required=True, help="provider/model, e.g. openai/gpt-4.1")
    parser.add_argument("--base-url", help="provider or OpenAI-compatible server URL")
    parser.add_argument("--api-key", help="default: the provider's environment variable")
    parser.add_argument("--thinking", default="off", help="off|minimal|low|medium|high|xhigh")
    parser.add_argument("--system", help="system prompt")
    parser.add_argument("--replay", help="serve this .sse recording locally instead")
    args = parser.parse_args(argv)

    async with endpoint(args) as (base_url, api_key):
        driver = get_driver(
            args.model, base_url=base_url, api_key=api_key, thinking_level=args.thinking
        )
        presenter = ConsolePresenter()
        agent = create_agent(driver, [presenter], system_prompt=args.system)
        try:
            await agent.receive(args.prompt)
        except AgentError as exc:
            print(f"\n{exc.code.value}: {exc.message}", file=sys.stderr)
            return 1
        finally:
            await agent.destroy()
            presenter.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
