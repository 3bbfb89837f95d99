"""A test MCP server with one tool per behaviour the client must handle.

Tools: arithmetic and echo, an image, a failing tool (``isError``), structured output,
a slow tool, a tool that hangs until cancelled, one that freezes the whole server, one
that crashes the process, one that adds a tool and announces it (``list_changed``),
one that samples the client's model and one that elicits input. Also two resources and
a prompt. Counters of started and cancelled calls are readable through ``stats``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
import time
from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

sys.path.insert(0, os.path.dirname(__file__))
from _serve import serve

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
    )
).decode()

app = MCPServer("everything", instructions="A server for agentcore's tests.", log_level="WARNING")
stats = {"started": 0, "cancelled": 0}


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
async def echo(text: str, delay: float = 0.0) -> str:
    """Echo the text, after ``delay`` seconds."""
    if delay:
        await asyncio.sleep(delay)
    return text


@app.tool()
def image() -> list[types.ContentBlock]:
    """A one-pixel PNG and a caption."""
    return [
        types.TextContent(type="text", text="a red dot"),
        types.ImageContent(type="image", data=PNG, mime_type="image/png"),
    ]


@app.tool()
def fail(reason: str) -> str:
    """Always fails with ``reason``."""
    raise ToolError(reason)


@app.tool()
def weather(city: str) -> dict[str, Any]:
    """Structured output."""
    return {"city": city, "temp_c": 21}


@app.tool()
async def hang() -> str:
    """Never returns on its own; counts how it ends."""
    stats["started"] += 1
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        stats["cancelled"] += 1
        raise
    return "unreachable"


@app.tool(name="stats")
def stats_() -> dict[str, int]:
    """Counters of hung calls started and cancelled."""
    return dict(stats)


@app.tool()
async def freeze() -> str:
    """Blocks the server's event loop: the whole server stops answering."""
    time.sleep(600)
    return "unreachable"


@app.tool()
async def crash() -> str:
    """The process dies in the middle of the call."""
    os._exit(3)


@app.tool()
def pid() -> int:
    """The server's process id (a reconnect starts a new process)."""
    return os.getpid()


@app.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a tool called ``name`` and announce that the list changed."""

    def extra() -> str:
        return f"I am {name}"

    app.add_tool(extra, name=name, description=f"Added at run time: {name}")
    await ctx.notify_tools_changed()  # 2026-07-28: subscriptions/listen
    await ctx.session.send_tool_list_changed()  # 2025 handshake era: a notification
    return f"added {name}"


def _question(question: str) -> Sample:
    text = types.TextContent(type="text", text=question)
    message = types.SamplingMessage(role="user", content=text)
    return Sample([message], max_tokens=50, system_prompt="Answer briefly.", temperature=0.2)


@app.tool()
async def ask(
    question: str, answer: Annotated[types.CreateMessageResult, Resolve(_question)]
) -> str:
    """Ask the client's model ``question`` (sampling)."""
    assert isinstance(answer.content, types.TextContent)
    return f"model {answer.model} said: {answer.content.text}"


class Person(BaseModel):
    name: str


def _who(question: str) -> Elicit[Person]:
    return Elicit(question, Person)


@app.tool()
async def greet_someone(question: str, person: Annotated[Person, Resolve(_who)]) -> str:
    """Ask the user for a name (elicitation), then greet them."""
    return f"hello {person.name}"


@app.tool()
def header(name: str, ctx: Context) -> str:
    """The value of request header ``name`` (HTTP only)."""
    return (ctx.headers or {}).get(name.lower(), "")


@app.tool()
def env(name: str) -> str:
    """The value of environment variable ``name`` in the server's process."""
    return os.environ.get(name, "")


@app.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report ``steps`` progress notifications, then finish."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return "done"


@app.resource("note://hello", description="A short note", mime_type="text/plain")
def note() -> str:
    return "hello from a resource"


@app.resource("img://dot", description="A one-pixel image", mime_type="image/png")
def dot() -> bytes:
    return base64.b64decode(PNG)


@app.prompt()
def review(code: str) -> str:
    """Ask for a code review."""
    return f"Please review: {code}"


if __name__ == "__main__":
    serve(app)
